"""``nn.functional``, spatial transformers: affine_grid and grid_sample.

Re-exported by ``cinder/nn/functional.py`` (the module users import).
"""


from . import _op, warn as _warn

__all__ = ["affine_grid", "grid_sample"]


_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the "
                  "old behavior is desired. See the documentation of grid_sample for details.")


def affine_grid(theta, size, align_corners=None):
    """Sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps ``theta`` (N, 2, 3)
    or (N, 3, 4) for an output of ``size``; coordinates in [-1, 1], x first."""
    if align_corners is None:
        _warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    nd = len(size) - 2
    if nd not in (2, 3):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if theta.dim() != 3 or theta.shape[-2] != nd or theta.shape[-1] != nd + 1:
        kind = "2D affine matrices of shape Nx2x3" if nd == 2 else \
            "3D affine matrices of shape Nx3x4"
        raise ValueError(f"Expected a batch of {kind} for size {size}. Got {theta.shape}.")
    spatial = list(size[2:])
    if align_corners and min(spatial) == 1:
        _warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return _op("affine_grid_generator")(theta, size, align_corners)


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
    ix = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        return ix.clamp(0, size - 1)
    if padding_mode == "reflection":
        ix = _reflect(ix, 0, 2 * (size - 1)) if align_corners else \
            _reflect(ix, -1, 2 * size - 1)
        return ix.clamp(0, size - 1)
    return ix


def _gather_points(input, flat_index, valid):
    """input (N, C, *spatial) read at flat spatial indices (N, P); invalid points read 0."""
    n, c = input.shape[:2]
    idx = flat_index.clamp(0, max(input[0, 0].numel() - 1, 0)).long()
    vals = input.reshape(n, c, -1).gather(2, idx.unsqueeze(1).expand(n, c, idx.shape[1]))
    return vals * valid.unsqueeze(1).to(input.dtype)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` (N, C, H, W) or (N, C, D, H, W) at the normalised locations of
    ``grid`` (N, *out, 2 or 3; x first) with bilinear, nearest or (4-D input only) bicubic
    interpolation; points outside read zeros, the border value, or a reflection
    (``padding_mode``). Gradients flow to both input and grid. (A composite of gather and
    pointwise ops, so higher-order gradients work too.)"""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        _warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    nd = input.dim() - 2
    if nd not in (2, 3) or grid.dim() != input.dim() or grid.shape[-1] != nd or \
            grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nd} in last "
                           f"dimension and the same batch size as input, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if mode == "bicubic" and nd != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    n = input.shape[0]
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
    """Integer neighbour positions (float tensors) after the padding rule."""
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
