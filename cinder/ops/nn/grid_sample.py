"""``torch.grid_sampler`` (and its ``_2d``/``_3d`` forms): sample an input at the normalised
points of a grid, the kernel behind ``nn.functional.grid_sample``.

The modes are PyTorch's integer codes: interpolation 0 bilinear, 1 nearest, 2 bicubic;
padding 0 zeros, 1 border, 2 reflection. The forward pass and the ordinary backward pass are
array kernels (``_grid_kernel.py``: one sparse sampling matrix); under create_graph=True the
backward differentiates the same sampling written as a composite of gather and pointwise
cinder ops (below), so gradients of gradients work too.
"""

import numpy as np

from .. import _prep
from .._registry import needs_grad, record, register
from . import _grid_kernel as K
from ._utils import float_kernel_dtype, like, recompute_node

_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, low2, high2):
    """PyTorch's reflect_coordinates: fold ``coord`` into [low2/2, high2/2] by mirroring."""
    if low2 == high2:
        return coord * 0
    lo, span = low2 / 2, (high2 - low2) / 2
    dist = (coord - lo).abs()
    extra = dist.fmod(span)
    flips = (dist / span).floor().detach()
    even = flips.fmod(2) == 0
    return (extra + lo).where(even, span - extra + lo)


def _source_coord(coord, size, padding_mode, align_corners):
    """The source pixel position of a normalized grid coordinate, after the padding rule."""
    return _bounded(_unnormalize(coord, size, align_corners), size, padding_mode, align_corners)


def _gather_points(input, flat_index, valid):
    """input (N, C, *spatial) read at flat spatial indices (N, P); invalid points read 0."""
    n, c = input.shape[:2]
    idx = flat_index.clamp(0, max(input[0, 0].numel() - 1, 0)).long()
    vals = input.reshape(n, c, -1).gather(2, idx.unsqueeze(1).expand(n, c, idx.shape[1]))
    return vals * valid.unsqueeze(1).to(input.dtype)


def _check(input, grid, interpolation_mode, nd_required=None):
    """PyTorch's grid_sampler argument checks (shapes, batch, dtypes)."""
    nd = input.dim() - 2
    if nd_required is not None and (input.dim() != nd_required + 2 or
                                    grid.dim() != input.dim()):
        raise RuntimeError(f"grid_sampler(): expected {nd_required + 2}D input and grid with "
                           f"same number of dimensions, but got input with sizes "
                           f"{list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input._device != grid._device:
        raise RuntimeError(f"grid_sampler(): expected input and grid to be on same device, but "
                           f"input is on {input.device} and grid is on {grid.device}")
    if input._dtype is not grid._dtype:
        raise RuntimeError(f"expected scalar type {input._dtype.scalar_name} but found "
                           f"{grid._dtype.scalar_name}")
    if nd not in (2, 3) or grid.dim() != input.dim():
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number "
                           f"of dimensions, but got input with sizes {list(input.shape)} and "
                           f"grid with sizes {list(grid.shape)}")
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    if grid.shape[-1] != nd:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nd} in last dimension, "
                           f"but got grid with sizes {list(grid.shape)}")
    for dim in range(2, input.dim()):
        if input.shape[dim] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {dim} being empty")
    if interpolation_mode == 2 and nd != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not input.is_floating_point():
        kind = "2d" if nd == 2 else "3d"
        raise NotImplementedError(f'"grid_sampler_{kind}_cpu_kernel_impl" not implemented for '
                                  f"'{input._dtype.scalar_name}'")


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """Sample ``input`` (N, C, H, W) or (N, C, D, H, W) at the normalised locations of
    ``grid`` (N, *out, 2 or 3; x first) with the integer ``interpolation_mode`` (0 bilinear,
    1 nearest, 2 bicubic — 4-D input only) and ``padding_mode`` (0 zeros, 1 border,
    2 reflection); the result is (N, C, *out)."""
    _check(input, grid, interpolation_mode)
    xp = _prep.xp_of(input)
    compute = float_kernel_dtype(input)
    n, c = input.shape[:2]
    nd = input.dim() - 2
    out_shape = tuple(grid.shape[1:-1])
    points = int(np.prod(out_shape))
    flat_grid = grid._data.astype(compute, copy=False).reshape(n, points, nd)
    plan = K.make_plan(xp, flat_grid, tuple(input.shape[2:]), interpolation_mode,
                       padding_mode, bool(align_corners))
    values = K.forward(xp, input._data.astype(compute, copy=False), plan)
    result = like(values.reshape((n, c) + out_shape), input)
    if needs_grad(input, grid):
        record(GRID_NODES[nd], (input, grid), (result,), input=input, grid=grid, plan=plan,
               mode=interpolation_mode, padding=padding_mode, align=bool(align_corners))
    return result


def _grads(grad, s, wanted):
    """(input, grid) gradients of the array kernel, from the plan the forward pass made."""
    want_input, want_grid = wanted
    xp = _prep.xp_of(grad)
    compute = float_kernel_dtype(grad)
    n, c = grad.shape[:2]
    g = grad._data.astype(compute, copy=False).reshape(n, c, int(np.prod(grad.shape[2:])))
    g_input = g_grid = None
    if want_input:
        g_input = like(K.input_grad(xp, g, s.plan, tuple(s.input.shape)), grad)
    if want_grid:
        if s.plan.axes is None:          # nearest: PyTorch's grid gradient is zero
            g_grid = s.grid.new_zeros(s.grid.shape)
        else:
            nd = s.grid.shape[-1]
            table = s.input._data.astype(compute, copy=False)
            g_grid = like(K.grid_grad(xp, table, g, s.plan, nd).reshape(s.grid.shape), grad)
    return g_input, g_grid


def _composite(s, input, grid):
    """The sampling in differentiable cinder ops (for create_graph=True backward passes)."""
    return _sample(input, grid, _MODES[s.mode], _PADDINGS[s.padding], s.align)


def _input_grad(grad, s):
    return _grads(grad, s, (True, False))[0]


def _grid_grad(grad, s):
    return _grads(grad, s, (False, True))[1]


def _node(name):
    return recompute_node(name, {"input": _input_grad, "grid": _grid_grad},
                          saves_also=("plan", "mode", "padding", "align"),
                          composite=_composite, joint=_grads)


# PyTorch names the node after the kernel's dimension
GRID_NODES = {2: _node("GridSampler2DBackward0"), 3: _node("GridSampler3DBackward0")}


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sampler`` for a 4-D input (N, C, H, W) and grid (N, H', W', 2)."""
    _check(input, grid, interpolation_mode, 2)
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sampler`` for a 5-D input (N, C, D, H, W) and grid (N, D', H', W', 3)."""
    _check(input, grid, interpolation_mode, 3)
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def _sample(input, grid, mode, padding_mode, align_corners):
    n = input.shape[0]
    nd = input.dim() - 2
    spatial = list(input.shape[2:])
    out_shape = list(grid.shape[1:-1])
    flat_grid = grid.reshape(n, -1, nd)
    # coordinate i of the grid (x = 0) indexes spatial dim nd - 1 - i
    if mode == "bicubic":
        out = _bicubic(input, flat_grid, spatial, padding_mode, align_corners)
        return out.reshape([n, input.shape[1]] + out_shape)
    coords = [_source_coord(flat_grid[..., i], spatial[nd - 1 - i], padding_mode,
                            align_corners) for i in range(nd)]
    if mode == "nearest":
        # round half to even, as PyTorch's nearbyint
        picks = [c.detach().round() for c in coords]
        out = _gather_points(input, *_flat_and_valid(picks, spatial))
        # PyTorch gives the grid a zero gradient (not None) in nearest mode.
        out = out * (flat_grid.sum(-1) * 0 + 1).unsqueeze(1)
    else:
        out = _interpolate_corners(input, coords, spatial)
    return out.reshape([n, input.shape[1]] + out_shape)


def _flat_and_valid(picks, spatial):
    """Flat spatial index and in-bounds mask of per-coordinate integer positions."""
    nd = len(picks)
    flat, valid = 0, None
    for dim in range(nd):
        p = picks[nd - 1 - dim]
        inside = (p >= 0).logical_and(p <= spatial[dim] - 1)
        valid = inside if valid is None else valid.logical_and(inside)
        flat = flat * spatial[dim] + p
    return flat, valid


def _interpolate_corners(input, coords, spatial):
    """Sum over the 2**nd neighbouring grid points of value * (product of 1-d weights)."""
    lows = [c.detach().floor() for c in coords]
    total = 0
    for corner in range(2 ** len(coords)):
        picks, weight = [], 1
        for i, (c, lo) in enumerate(zip(coords, lows)):
            up = (corner >> i) & 1
            frac = c - lo
            picks.append(lo + up)
            weight = weight * (frac if up else 1 - frac)
        total = total + _gather_points(input, *_flat_and_valid(picks, spatial)) * \
            weight.unsqueeze(1)
    return total


# Bicubic sampling follows PyTorch's grid_sampler_2d: the 4 x 4 neighbours of the
# unnormalised point, each read through the padding rule at its integer position (so the
# rule adds no gradient), weighted by the cubic convolution kernel with A = -0.75 along x,
# then along y.

_CUBIC_A = -0.75


def _cubic_weights(t):
    """The four cubic-convolution weights of offsets -1, 0, 1, 2 at fraction ``t``."""
    a = _CUBIC_A

    def near(x):        # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):         # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _bounded(pos, size, padding_mode, align_corners):
    """Positions (float tensors) after the padding rule: clamped to the border, or reflected
    at it then clamped; left alone for zeros padding."""
    if padding_mode == "border":
        return pos.clamp(0, size - 1)
    if padding_mode == "reflection":
        pos = _reflect(pos, 0, 2 * (size - 1)) if align_corners else \
            _reflect(pos, -1, 2 * size - 1)
        return pos.clamp(0, size - 1)
    return pos


def _bicubic(input, flat_grid, spatial, padding_mode, align_corners):
    height, width = spatial
    ix = _unnormalize(flat_grid[..., 0], width, align_corners)
    iy = _unnormalize(flat_grid[..., 1], height, align_corners)
    x0, y0 = ix.detach().floor(), iy.detach().floor()
    wx, wy = _cubic_weights(ix - x0), _cubic_weights(iy - y0)
    xs = [_bounded(x0 + (i - 1), width, padding_mode, align_corners) for i in range(4)]
    total = 0
    for j in range(4):
        y = _bounded(y0 + (j - 1), height, padding_mode, align_corners)
        row = 0
        for i in range(4):
            row = row + _gather_points(input, *_flat_and_valid([xs[i], y], spatial)) * \
                wx[i].unsqueeze(1)
        total = total + row * wy[j].unsqueeze(1)
    return total


for _name, _fn in (("grid_sampler", grid_sampler), ("grid_sampler_2d", grid_sampler_2d),
                   ("grid_sampler_3d", grid_sampler_3d)):
    register(_name, _fn, method=False, family="nn.vision", nodes=tuple(GRID_NODES.values()))
