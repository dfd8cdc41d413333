"""The array kernel of ``grid_sampler``: forward and backward in a few whole-array passes.

Every output point reads K input points (1 nearest, 4 or 8 bilinear, 16 bicubic) with
weights. A ``Plan`` holds, per output point, the flat input rows it reads and their weights,
so that the forward pass is one sparse-matrix product (points x input rows, times the input
in channels-last layout) and the input gradient is the transposed product. The grid gradient
needs the derivative of each weight with respect to the source coordinates, and of those with
respect to the grid, which the plan keeps too. The arithmetic follows PyTorch's
``GridSampler.h`` (unnormalise, clip, reflect, the cubic convolution kernel with A = -0.75).
"""

import itertools

import numpy as np

from ...backend.sparse import rows_matrix

BILINEAR, NEAREST, BICUBIC = 0, 1, 2
ZEROS, BORDER, REFLECTION = 0, 1, 2
_CUBIC_A = -0.75


class Plan:
    """Where and how strongly each output point reads the input.

    rows (P, K): flat rows of the channels-last input (batch included), whose extra last
    row of zeros serves the out-of-bounds reads; weights (P, K); axes: per grid
    coordinate (x first) the 1-d positions, weights and weight derivatives the product was
    made of; dsource (nd arrays or scalars): d source coordinate / d grid coordinate. The two
    derivative fields are None in nearest mode, whose grid gradient is zero.
    """

    __slots__ = ("rows", "weights", "axes", "dsource", "input_rows")

    def __init__(self, rows, weights, axes, dsource, input_rows):
        self.rows, self.weights = rows, weights
        self.axes, self.dsource, self.input_rows = axes, dsource, input_rows

    def matrix(self, xp):
        """The (points, input rows) sampling matrix."""
        return rows_matrix(xp, self.rows, self.weights, (self.rows.shape[0], self.input_rows))


# ---------------------------------------------------------------------------------------------
# Source coordinates (PyTorch's grid_sampler_compute_source_index_set_grad)
# ---------------------------------------------------------------------------------------------
def _unnormalize(coord, size, align_corners):
    """[-1, 1] -> pixel coordinates, and the (constant) derivative."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1), (size - 1) / 2
    return ((coord + 1) * size - 1) / 2, size / 2


def _clip(xp, src, size):
    """Clamp to [0, size - 1] (NaN to 0, as PyTorch's CPU kernel); the derivative is 0 at
    and beyond either end."""
    inside = (src > 0) & (src < size - 1)
    clipped = xp.where(src > 0, xp.minimum(src, size - 1), 0).astype(src.dtype, copy=False)
    return clipped, inside.astype(src.dtype)


def _reflect(xp, src, twice_low, twice_high):
    """Mirror ``src`` into [twice_low / 2, twice_high / 2]; the derivative is +-1."""
    if twice_low == twice_high:
        return xp.zeros_like(src), xp.zeros_like(src)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    shifted = src - low
    sign = xp.where(shifted < 0, -1, 1).astype(src.dtype)
    shifted = xp.abs(shifted)
    extra = xp.fmod(shifted, span)
    even = xp.fmod(xp.floor(shifted / span), 2) == 0
    out = xp.where(even, extra + low, span - extra + low)
    return out, xp.where(even, sign, -sign)


def _pad(xp, src, size, padding, align_corners):
    """The padding rule on source coordinates: (coordinate, derivative or None for 1)."""
    if padding == BORDER:
        return _clip(xp, src, size)
    if padding == REFLECTION:
        if align_corners:
            src, g1 = _reflect(xp, src, 0, 2 * (size - 1))
        else:
            src, g1 = _reflect(xp, src, -1, 2 * size - 1)
        src, g2 = _clip(xp, src, size)
        return src, g1 * g2
    return src, None


def _source(xp, coord, size, padding, align_corners):
    """Source coordinate of a grid coordinate and its derivative (array or scalar)."""
    src, mult = _unnormalize(coord, size, align_corners)
    src, g = _pad(xp, src, size, padding, align_corners)
    return src, (mult if g is None else g * mult)


# ---------------------------------------------------------------------------------------------
# Plans per interpolation mode
# ---------------------------------------------------------------------------------------------
def make_plan(xp, grid, spatial, mode, padding, align_corners):
    """The ``Plan`` of ``grid`` (N, P, nd; x first, in the compute dtype) on an input of
    spatial ``spatial`` (nd sizes, outermost first)."""
    with np.errstate(invalid="ignore"):     # NaN coordinates are PyTorch's too: no warning
        return _make_plan(xp, grid, spatial, mode, padding, align_corners)


def _make_plan(xp, grid, spatial, mode, padding, align_corners):
    n, p, nd = grid.shape
    # coordinate i (x = 0) indexes spatial dim nd - 1 - i
    sizes = [spatial[nd - 1 - i] for i in range(nd)]
    coords = [grid[..., i].reshape(-1) for i in range(nd)]
    if mode == BICUBIC:
        axes = _bicubic_axes(xp, coords, sizes, padding, align_corners)
    else:
        axes = [_linear_axis(xp, c, size, padding, align_corners, mode)
                for c, size in zip(coords, sizes)]
    return _combine(xp, axes, sizes, n, p, mode)


def _linear_axis(xp, coord, size, padding, align_corners, mode):
    """Per axis: positions (P, m), 1-d weights (P, m), their derivatives, dsource."""
    src, dsrc = _source(xp, coord, size, padding, align_corners)
    if mode == NEAREST:
        pos = xp.rint(src)[:, None]          # round half to even, as nearbyint
        return pos, xp.ones_like(pos), None, None
    low = xp.floor(src)
    high = low + 1
    pos = xp.stack([low, high], axis=1)
    weights = xp.stack([high - src, src - low], axis=1)
    dw = xp.empty_like(weights)
    dw[:, 0], dw[:, 1] = -1, 1
    return pos, weights, dw, dsrc


def _cubic(xp, t):
    """The four cubic-convolution weights of offsets -1..2 at fraction ``t``, and their
    derivatives with respect to ``t``."""
    a = _CUBIC_A

    def near(x):        # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):         # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    def dnear(x):
        return (3 * (a + 2) * x - 2 * (a + 3)) * x

    def dfar(x):
        return (3 * a * x - 10 * a) * x + 8 * a

    weights = xp.stack([far(t + 1), near(t), near(1 - t), far(2 - t)], axis=1)
    dweights = xp.stack([dfar(t + 1), dnear(t), -dnear(1 - t), -dfar(2 - t)], axis=1)
    return weights, dweights


def _bicubic_axes(xp, coords, sizes, padding, align_corners):
    """Bicubic reads the 4 x 4 neighbours of the unpadded source point, each moved by the
    padding rule as an integer position (so the rule adds no derivative)."""
    axes = []
    for coord, size in zip(coords, sizes):
        src, dsrc = _unnormalize(coord, size, align_corners)
        low = xp.floor(src)
        weights, dw = _cubic(xp, src - low)
        pos = low[:, None] + xp.arange(-1, 3, dtype=src.dtype)
        pos = _pad(xp, pos, size, padding, align_corners)[0]
        axes.append((pos, weights, dw, dsrc))
    return axes


def _corners(axes):
    """Every read as a tuple of per-axis choices, x varying fastest."""
    return list(itertools.product(*[range(a[0].shape[1]) for a in reversed(axes)]))


def _combine(xp, axes, sizes, n, p, mode):
    """The outer product of the per-axis reads: flat rows (batch included; out-of-bounds
    reads go to the zero row after the input's rows) and product weights. Built a column
    (one read of every point) at a time: whole-length 1-d operations, where broadcasting
    over the tiny per-axis read counts would crawl."""
    nd = len(axes)
    total = n * p
    points = int(np.prod(sizes))
    zero_row = n * points
    kind = np.int32 if zero_row < 2 ** 31 - 1 else np.int64
    strides = [int(np.prod(sizes[:i])) for i in range(nd)]        # x has stride 1
    base = xp.repeat(xp.arange(n, dtype=kind) * kind(points), p)
    offsets, inside = [], []
    for (pos, _, _, _), size, stride in zip(axes, sizes, strides):
        inside.append((pos >= 0) & (pos <= size - 1))
        offsets.append(pos.astype(kind) * kind(stride))  # (NaN positions: masked out below)
    corners = _corners(axes)
    rows = xp.empty((total, len(corners)), dtype=kind)
    weights = xp.empty((total, len(corners)), dtype=axes[0][1].dtype)
    for k, choice in enumerate(corners):
        flat, keep, weight = base, None, None
        for i, c in zip(reversed(range(nd)), choice):
            flat = flat + offsets[i][:, c]
            keep = inside[i][:, c] if keep is None else keep & inside[i][:, c]
            weight = axes[i][1][:, c] if weight is None else weight * axes[i][1][:, c]
        rows[:, k] = xp.where(keep, flat, kind(zero_row))
        weights[:, k] = weight
    if mode == NEAREST:
        return Plan(rows, weights, None, None, zero_row + 1)
    return Plan(rows, weights, axes, [a[3] for a in axes], zero_row + 1)


def weight_derivatives(xp, plan):
    """Per grid coordinate, d weight / d source coordinate (P, K): that axis's 1-d derivative
    times the other axes' 1-d weights. Made only when a grid gradient is wanted."""
    axes = plan.axes
    nd = len(axes)
    corners = _corners(axes)
    out = []
    for i in range(nd):
        column = xp.empty(plan.weights.shape, dtype=plan.weights.dtype)
        for k, choice in enumerate(corners):
            prod = None
            for j, c in zip(reversed(range(nd)), choice):
                factor = (axes[j][2] if j == i else axes[j][1])[:, c]
                prod = factor if prod is None else prod * factor
            column[:, k] = prod
        out.append(column)
    return out


# ---------------------------------------------------------------------------------------------
# Forward and backward
# ---------------------------------------------------------------------------------------------
def channels_last(xp, inp):
    """(N, C, *S) -> (N * prod(S) + 1, C) rows, the layout the sampling matrix multiplies;
    the last row is zeros (what out-of-bounds reads see)."""
    n, c = inp.shape[:2]
    points = int(np.prod(inp.shape[2:]))
    table = xp.empty((n * points + 1, c), dtype=inp.dtype)
    table[:-1].reshape(n, points, c)[...] = xp.moveaxis(inp.reshape(n, c, points), 1, 2)
    table[-1] = 0
    return table


def _rows(xp, arr):
    """(N, C, P) -> (N * P, C)."""
    n, c, p = arr.shape
    return xp.ascontiguousarray(xp.moveaxis(arr, 1, 2)).reshape(n * p, c)


def _channels_first(xp, rows, n):
    """(N * P, C) -> (N, C, P)."""
    c = rows.shape[1]
    return xp.ascontiguousarray(xp.moveaxis(rows.reshape(n, rows.shape[0] // max(n, 1), c),
                                            2, 1))


def forward(xp, inp, plan):
    """The sampled values (N, C, P) of ``inp`` (N, C, *S) at the plan's points."""
    table = channels_last(xp, inp)
    if plan.axes is None:          # nearest: one read of weight 1 per point, a plain gather
        return _channels_first(xp, table[plan.rows[:, 0]], inp.shape[0])
    return _channels_first(xp, xp.asarray(plan.matrix(xp) @ table), inp.shape[0])


def input_grad(xp, grad, plan, input_shape):
    """d loss / d input for ``grad`` (N, C, P): the transposed sampling matrix (whose last
    row, the zero row's, is dropped)."""
    rows = xp.asarray(plan.matrix(xp).T @ _rows(xp, grad))[:-1]
    return _channels_first(xp, rows, input_shape[0]).reshape(input_shape)


def grid_grad(xp, inp, grad, plan, nd):
    """d loss / d grid (N * P, nd) for ``grad`` (N, C, P): per read, the input value dotted
    with the incoming gradient, times the weight's derivative, summed over the reads, then
    times d source / d grid."""
    g = _rows(xp, grad)
    table = channels_last(xp, inp)
    total, k = plan.rows.shape
    dots = xp.empty((total, k), dtype=g.dtype)
    for j in range(k):          # K (<= 16) gathers of whole rows
        dots[:, j] = xp.einsum("pc,pc->p", table[plan.rows[:, j]], g)
    out = xp.empty((total, nd), dtype=g.dtype)
    for i, dw in enumerate(weight_derivatives(xp, plan)):
        out[:, i] = (dw * dots).sum(axis=1) * plan.dsource[i]
    return out
