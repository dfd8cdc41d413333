"""Resampling (nearest, nearest-exact, linear family, bicubic) and pixel (un)shuffle.

Every interpolation mode is separable: along each spatial dim an output position reads a few
input positions ("taps") with fixed weights. The forward pass gathers the taps with ``take``
and sums them with their weights — the same products PyTorch's kernels form, applied last dim
first, as they are. The backward pass multiplies by the transposed (out, in) weight matrix of
each dim, which adds up the contributions of every output that read an input position.
"""

import numpy as np

from ... import _dtype as D
from .._layouts import as_suggested
from .._prep import xp_of
from .._registry import needs_grad, record, register
from ._utils import adjoint_node, index_tensor, like

# ----------------------------------------------------------------------------------------------
# Source positions and weights along one dim (PyTorch's UpSample.h rules)
# ----------------------------------------------------------------------------------------------


def _scale(n_in, n_out, align_corners, scale, cubic_or_linear):
    """The step between output positions measured in input positions."""
    if cubic_or_linear and align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    if scale is not None and scale > 0:
        return 1.0 / scale
    return n_in / n_out


def _source(n_in, n_out, align_corners, scale, dtype, clamp_negative):
    dst = np.arange(n_out, dtype=dtype)
    sc = dtype(_scale(n_in, n_out, align_corners, scale, True))
    if align_corners:
        return sc * dst
    src = sc * (dst + dtype(0.5)) - dtype(0.5)
    return np.maximum(src, 0) if clamp_negative else src


def taps(mode, n_in, n_out, align_corners, scale, dtype):
    """(indices (out, T), weights (out, T)) of one dim."""
    if mode.endswith("-aa"):
        return aa_taps(mode, n_in, n_out, align_corners, scale, dtype)
    if mode in ("nearest", "nearest-exact"):
        sc = np.float32(_scale(n_in, n_out, False, scale, False))
        dst = np.arange(n_out, dtype=np.float32)
        if mode == "nearest-exact":
            dst = dst + np.float32(0.5)
        idx = np.minimum(np.floor(dst * sc).astype(np.int64), n_in - 1)
        return idx[:, None], np.ones((n_out, 1), dtype=dtype)
    if mode == "linear":
        src = _source(n_in, n_out, align_corners, scale, dtype, True)
        i0 = src.astype(np.int64)
        lam1 = np.minimum(src - i0, dtype(1))
        i1 = i0 + (i0 < n_in - 1)
        return np.stack([i0, i1], 1), np.stack([1 - lam1, lam1], 1).astype(dtype)
    # cubic (Keys' kernel, A = -0.75), taps at floor(src) - 1 .. + 2, clamped to the edges
    src = _source(n_in, n_out, align_corners, scale, dtype, False)
    base = np.floor(src)
    t = (src - base).astype(dtype)
    a = dtype(-0.75)

    def near(x):            # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):             # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    weights = np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)], 1).astype(dtype)
    idx = base.astype(np.int64)[:, None] + np.arange(-1, 3)
    return np.clip(idx, 0, n_in - 1), weights


def _aa_filter(kind, x):
    """Antialiasing kernels: triangle (bilinear) and Keys' cubic with a = -0.5 (bicubic)."""
    x = np.abs(x)
    if kind == "linear-aa":
        return np.where(x < 1, 1 - x, 0)
    a = -0.5
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = (((x - 5) * x + 8) * x - 4) * a
    return np.where(x < 1, near, np.where(x < 2, far, 0))


def aa_taps(kind, n_in, n_out, align_corners, scale, dtype):
    """Antialiased taps: when shrinking, the filter widens by the scale so every input pixel
    under an output pixel contributes; weights are normalised to sum to one."""
    sc = dtype(_scale(n_in, n_out, align_corners, scale, True))
    support = dtype((2 if kind == "linear-aa" else 4) * 0.5)
    support = support * sc if sc >= 1 else support
    invscale = dtype(1 / sc) if sc >= 1 else dtype(1)
    center = sc * (np.arange(n_out, dtype=dtype) + dtype(0.5))
    xmin = np.maximum((center - support + dtype(0.5)).astype(np.int64), 0)
    xsize = np.minimum((center + support + dtype(0.5)).astype(np.int64), n_in) - xmin
    width = int(xsize.max()) if n_out else 0
    j = np.arange(width)
    weights = _aa_filter(kind, ((j + xmin[:, None]).astype(dtype) - center[:, None] +
                                dtype(0.5)) * invscale).astype(dtype)
    weights = np.where(j < xsize[:, None], weights, 0).astype(dtype)
    total = weights.sum(axis=1, keepdims=True)
    weights = np.where(total != 0, weights / np.where(total != 0, total, 1), weights)
    idx = np.minimum(xmin[:, None] + j, n_in - 1)
    return idx, weights.astype(dtype)


def _dense(idx, weights, n_in):
    """The (out, in) matrix of a tap table (repeated taps of a row add up)."""
    mat = np.zeros((idx.shape[0], n_in), dtype=weights.dtype)
    rows = np.arange(idx.shape[0])
    for t in range(idx.shape[1]):
        mat[rows, idx[:, t]] += weights[:, t]
    return mat


# ----------------------------------------------------------------------------------------------
# The op
# ----------------------------------------------------------------------------------------------

_NODE_NAMES = {"nearest": "UpsampleNearest", "nearest-exact": "UpsampleNearestExact",
               "linear": None, "cubic": "UpsampleBicubic", "linear-aa": None,
               "cubic-aa": "UpsampleBicubic"}
_LINEAR_NAMES = {1: "UpsampleLinear", 2: "UpsampleBilinear", 3: "UpsampleTrilinear"}


def _resample_grad(grad, s):
    xp = xp_of(grad)
    g = grad._data.astype(s.acc, copy=False)
    nd = len(s.tables)
    for i in reversed(range(nd)):
        idx, w = s.tables[i]
        axis = g.ndim - nd + i
        mat = xp.asarray(_dense(idx, w, s.in_size[i]))
        g = xp.moveaxis(xp.matmul(xp.moveaxis(g, axis, -1), mat), -1, axis)
    return like(xp.ascontiguousarray(g), grad)


def _node_name(mode, nd):
    aa = "Aa" if mode.endswith("-aa") else ""
    if mode.startswith("linear"):
        return f"{_LINEAR_NAMES[nd]}{nd}D{aa}Backward0"
    return f"{_NODE_NAMES[mode]}{nd}D{aa}Backward0"


def _resample_adjoint(gg, sv):
    """``gg`` resampled through the saved tap tables, in differentiable ops (the derivative
    of the resampling backward)."""
    nd = len(sv.tables)
    out = gg
    for i in reversed(range(nd)):
        idx, w = sv.tables[i]
        axis = gg.dim() - nd + i
        if sv.mode.startswith("nearest"):
            out = out.index_select(axis, index_tensor(idx[:, 0], gg))
            continue
        shape = [1] * gg.dim()
        shape[axis] = len(idx)
        total = 0
        for t in range(idx.shape[1]):
            weight = like(np.ascontiguousarray(w[:, t]).reshape(shape), gg)
            total = total + out.index_select(axis, index_tensor(idx[:, t], gg)) * weight
        out = total
    return out


_ResampleNodes = {(m, nd): adjoint_node(_node_name(m, nd), {"self": _resample_grad},
                                        saves_also=("tables", "in_size", "acc", "mode"),
                                        adjoint=_resample_adjoint)
                  for m in _NODE_NAMES for nd in (1, 2, 3)}


def resample(input, output_size, mode, align_corners=False, scales=None):
    """Resample the trailing ``len(output_size)`` dims of ``input`` to ``output_size``.
    ``mode`` is 'nearest', 'nearest-exact', 'linear' (also bi-/tri-linear) or 'cubic', or
    'linear-aa' / 'cubic-aa' (antialiased);
    ``scales`` (one per dim or None) are the user's scale factors, which PyTorch uses in
    place of in/out when given."""
    xp = xp_of(input)
    if input._dtype.category != D.FLOATING and mode != "nearest" and \
            mode != "nearest-exact":
        raise NotImplementedError(f"\"upsample_{mode}\" not implemented for "
                                  f"'{input._dtype.scalar_name}'")
    nd = len(output_size)
    in_size = tuple(input.shape[-nd:])
    acc = np.float32 if input._dtype in (D.float16, D.bfloat16) or \
        input._dtype.category != D.FLOATING else input._dtype.numpy_dtype.type
    scales = scales or (None,) * nd
    tables = [taps(mode, n, o, align_corners, sc, acc)
              for n, o, sc in zip(in_size, output_size, scales)]
    arr = input._data
    if mode.startswith("nearest"):
        for i in range(nd):
            arr = xp.take(arr, xp.asarray(tables[i][0][:, 0]), axis=arr.ndim - nd + i)
    else:
        arr = arr.astype(acc, copy=False)
        for i in reversed(range(nd)):
            axis = arr.ndim - nd + i
            idx, w = tables[i]
            shape = [1] * arr.ndim
            shape[axis] = len(idx)
            total = 0
            for t in range(idx.shape[1]):
                total = total + xp.asarray(w[:, t]).reshape(shape) * \
                    xp.take(arr, xp.asarray(idx[:, t]), axis=axis)
            arr = total
    result = like(as_suggested(xp.ascontiguousarray(arr), input._data), input)
    if needs_grad(input):
        record(_ResampleNodes[(mode, nd)], (input,), (result,), tables=tables,
               in_size=in_size, acc=acc, mode=mode)
    return result


register("resample", resample, method=False, function_too=False, family="nn.upsample")

# ----------------------------------------------------------------------------------------------
# Pixel shuffle / unshuffle, channel shuffle
# ----------------------------------------------------------------------------------------------


def _shuffle(arr, r, up):
    """(*, C*r*r, H, W) <-> (*, C, H*r, W*r) as one reshape-transpose-reshape copy."""
    lead = arr.shape[:-3]
    c, h, w = arr.shape[-3:]
    nl = len(lead)
    if up:
        v = arr.reshape(lead + (c // (r * r), r, r, h, w))
        order = tuple(range(nl)) + (nl, nl + 3, nl + 1, nl + 4, nl + 2)
        return v.transpose(order).reshape(lead + (c // (r * r), h * r, w * r))
    v = arr.reshape(lead + (c, h // r, r, w // r, r))
    order = tuple(range(nl)) + (nl, nl + 2, nl + 4, nl + 1, nl + 3)
    return v.transpose(order).reshape(lead + (c * r * r, h // r, w // r))


PixelShuffleNode = adjoint_node("PixelShuffleBackward0", {
    "self": lambda grad, s: like(_shuffle(grad._data, s.r, False), grad)},
    saves_also=("r",), adjoint=lambda gg, sv: pixel_shuffle(gg, sv.r))
PixelUnshuffleNode = adjoint_node("PixelUnshuffleBackward0", {
    "self": lambda grad, s: like(_shuffle(grad._data, s.r, True), grad)},
    saves_also=("r",), adjoint=lambda gg, sv: pixel_unshuffle(gg, sv.r))


def _check_shuffle(input, r, name):
    if input._data.ndim < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input "
                           f"with {input._data.ndim} dimension(s)")
    if r <= 0:
        what = "upscale_factor" if name == "pixel_shuffle" else "downscale_factor"
        raise RuntimeError(f"{name} expects a positive {what}, but got {r}")


def pixel_shuffle(input, upscale_factor):
    """Rearrange (*, C*r^2, H, W) into (*, C, H*r, W*r) with r = ``upscale_factor``."""
    r = int(upscale_factor)
    _check_shuffle(input, r, "pixel_shuffle")
    c = input.shape[-3]
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    result = like(as_suggested(_shuffle(input._data, r, True), input._data), input)
    if needs_grad(input):
        record(PixelShuffleNode, (input,), (result,), r=r)
    return result


def pixel_unshuffle(input, downscale_factor):
    """Rearrange (*, C, H*r, W*r) into (*, C*r^2, H, W) with r = ``downscale_factor``."""
    r = int(downscale_factor)
    _check_shuffle(input, r, "pixel_unshuffle")
    h, w = input.shape[-2:]
    for name, n in (("height", h), ("width", w)):
        if n % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by "
                               f"downscale_factor, but input.size({-2 if name == 'height' else -1}"
                               f")={n} is not divisible by {r}")
    result = like(as_suggested(_shuffle(input._data, r, False), input._data), input)
    if needs_grad(input):
        record(PixelUnshuffleNode, (input,), (result,), r=r)
    return result


register("pixel_shuffle", pixel_shuffle, method=False, family="nn.upsample",
         nodes=(PixelShuffleNode,))
register("pixel_unshuffle", pixel_unshuffle, method=False, family="nn.upsample",
         nodes=(PixelUnshuffleNode,))
