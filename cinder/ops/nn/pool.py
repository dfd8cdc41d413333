"""Pooling: max (with saved argmax indices), average, adaptive max/average, max-unpooling.

Fixed-size windows come from one strided view of the padded input (``windows``); the backward
pass sends gradients back with strided adds (average) or one ``bincount`` scatter
(max), never ``np.add.at``. Adaptive pooling has windows of varying size: average pooling is a small
averaging matrix per dim, max pooling gathers each window padded to the longest one by
repeating its last element (which never changes a maximum).
"""

import numpy as np

from ... import _dtype as D
from ... import backend
from .._layouts import as_suggested
from .._prep import xp_of
from .._registry import needs_grad, record, register
from ._utils import add_windows, adjoint_node, index_tensor, like, ntuple, scatter_sum, windows

# The channels-last layout the 2-d average-pooling kernels keep (their 3-d ones write
# row-major; max pooling keeps channels_last_3d too)
_KERNELS_2D = ("channels_last",)

# ----------------------------------------------------------------------------------------------
# Shared geometry
# ----------------------------------------------------------------------------------------------


def pool_out_size(size, k, s, p, d, ceil_mode):
    """Output length along one dim; in ceil mode the last window must start inside the input
    or its left padding (PyTorch's rule)."""
    span = size + 2 * p - d * (k - 1) - 1
    if ceil_mode:
        out = -(-span // s) + 1
        if (out - 1) * s >= size + p:
            out -= 1
    else:
        out = span // s + 1
    return out


def _check_pool_args(nd, k, s, p, d, in_size, channels_shape):
    if any(v <= 0 for v in k):
        raise RuntimeError("max_pool2d: kernel_size must be greater than zero, but got "
                           f"kH: {k[0]} kW: {k[-1]}" if nd == 2 else
                           "kernel_size must be greater than zero")
    if any(v <= 0 for v in s):
        raise RuntimeError(f"stride should be greater than zero, but got dH: {s[0]} dW: {s[-1]}"
                           if nd == 2 else "stride should be greater than zero")
    if any(v <= 0 for v in d):
        raise RuntimeError("dilation should be greater than zero")
    for pp, kk, dd in zip(p, k, d):
        if pp > (dd * (kk - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pp}, kernel_size={kk} and dilation={dd}")


def _too_small(in_shape, out_shape):
    raise RuntimeError(f"Given input size: ({'x'.join(map(str, in_shape))}). Calculated output "
                       f"size: ({'x'.join(map(str, out_shape))}). Output size is too small")


def _batched(input, nd, name):
    """(input with a batch dim, whether one was added), with PyTorch's refusals of other
    ranks (avg_pool2d reads the channel dim before checking the rank: an IndexError)."""
    ndim = input._data.ndim
    if ndim == nd + 1:
        return input.unsqueeze(0), True
    if ndim != nd + 2:
        if name == "avg_pool2d" and ndim < 3:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got -3)")
        if name in ("max_pool2d", "max_pool3d", "avg_pool3d"):
            raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected "
                               "for input")
        raise RuntimeError(f"{name}: Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with "
                           f"optional 0 dim batch size for input, but got: {list(input.shape)}")
    return input, False


def _lowest(dtype):
    if dtype.category == D.FLOATING:
        return -np.inf
    return np.iinfo(dtype.numpy_dtype).min if dtype is not D.bool else False


def _pad_const(xp, arr, lo, hi, value):
    if not any(lo) and not any(hi):
        return arr
    shape = arr.shape[:2] + tuple(n + a + b for n, a, b in zip(arr.shape[2:], lo, hi))
    out = xp.full(shape, value, dtype=arr.dtype)
    out[(Ellipsis,) + tuple(slice(a, a + n) for a, n in zip(lo, arr.shape[2:]))] = arr
    return out


def _window_max(xp, padded, ksize, stride, dilation, out, check_nan, want_choice=True):
    """(max, index of the winning kernel offset or None) of every window.

    The windows are copied once into a (K, N, C, *out) array, so the maximum and argmax run
    over contiguous blocks. Ties keep the first offset, as in PyTorch. With a NaN in the
    input, PyTorch's rule "a later element wins if greater or NaN" makes the *last* NaN the
    winner, which the per-offset scan reproduces.
    """
    if check_nan:
        return _window_max_scan(xp, padded, ksize, stride, dilation, out, want_choice)
    nd = len(ksize)
    view = windows(xp, padded, ksize, stride, dilation, out)          # (N, C, *k, *out)
    order = tuple(range(2, 2 + nd)) + (0, 1) + tuple(range(2 + nd, 2 + 2 * nd))
    stacked = xp.ascontiguousarray(view.transpose(order)).reshape((-1,) + view.shape[:2] +
                                                                   tuple(out))
    if not want_choice:
        return stacked.max(axis=0), None
    # max() rather than a gather at the argmax: the same values (no NaN on this path), and
    # NumPy's take_along_axis costs far more than a reduction.
    best = stacked.max(axis=0)
    return best, _first_max(xp, stacked, best)


def _first_max(xp, stacked, best):
    """Index along axis 0 of the first entry equal to ``best`` (= argmax(axis=0) without
    NaNs): the count of leading entries that are not yet the maximum. NumPy's argmax over a
    non-last axis makes a transposing copy and scans short rows one call each (~40x slower
    for 2x2 windows); these are K contiguous compare/add passes."""
    count = stacked.shape[0]
    kind = np.uint8 if count <= 256 else np.int64
    seen = stacked[0] == best
    choice = (~seen).astype(kind)
    for j in range(1, count - 1):
        seen |= stacked[j] == best
        choice += ~seen
    return choice


def _window_max_scan(xp, padded, ksize, stride, dilation, out, want_choice):
    """``_window_max`` by one strided slice per kernel offset (used when NaNs are present)."""
    best = choice = None
    for j, offset in enumerate(np.ndindex(*ksize)):
        part = padded[(Ellipsis,) + tuple(slice(o * d, o * d + (n - 1) * s + 1, s)
                                          for o, d, n, s in zip(offset, dilation, out, stride))]
        if best is None:
            best = part.copy()
            choice = xp.zeros(part.shape, dtype=np.int64)
            continue
        better = (part > best) | (part != part)
        xp.copyto(best, part, where=better)
        xp.copyto(choice, j, where=better)
    return best, (choice if want_choice else None)


def _flat_positions(xp, choice, ksize, stride, pad, dilation, in_size, out):
    """Flat (per channel) input index of each chosen window element: the window's start
    plus the chosen kernel offset, both as flat offsets into the input plane."""
    nd = len(ksize)
    plane = [int(np.prod(in_size[i + 1:], dtype=np.int64)) for i in range(nd)]
    offsets = np.zeros(int(np.prod(ksize)), dtype=np.int64)
    for j, offset in enumerate(np.ndindex(*ksize)):
        offsets[j] = sum(o * d * p for o, d, p in zip(offset, dilation, plane))
    start = 0
    for i in range(nd):
        shape = [1] * (2 + nd)
        shape[2 + i] = out[i]
        start = start + ((xp.arange(out[i]) * stride[i] - pad[i]) * plane[i]).reshape(shape)
    return xp.asarray(offsets)[choice] + start


def _scatter_back(xp, grad, indices, in_shape, overlapping, dtype):
    """Gradient of an index-selecting pool: ``grad`` sent to the flat positions ``indices``."""
    n, c = in_shape[:2]
    per = int(np.prod(in_shape[2:], dtype=np.int64))
    base = (xp.arange(n * c, dtype=np.int64) * per).reshape((n, c) + (1,) * (indices.ndim - 2))
    where = (indices + base).ravel()
    if overlapping:
        flat = scatter_sum(xp, where, grad.ravel(), n * c * per)
    else:
        flat = xp.zeros(n * c * per, dtype=grad.dtype)
        flat[where] = grad.ravel()
    return flat.reshape(in_shape).astype(dtype, copy=False)


# ----------------------------------------------------------------------------------------------
# Max pooling (2d and 3d kernels; 1d goes through 2d as in PyTorch)
# ----------------------------------------------------------------------------------------------

def _gather_at(gg, indices, lead):
    """``gg`` (*lead, *in) read at the flat per-plane positions ``indices`` (*lead, *out): the
    forward map of an index-selecting pool, so the derivative of its backward."""
    flat = index_tensor(indices.reshape(indices.shape[:lead] + (-1,)), gg)
    return gg.reshape(tuple(gg.shape[:lead]) + (-1,)).gather(lead, flat).reshape(indices.shape)


def _gather_adjoint(gg, saved):
    return _gather_at(gg, saved.indices, len(saved.self_shape) - saved.nd)


def _max_grad(grad, s):
    xp = xp_of(grad)
    gx = _scatter_back(xp, grad._data, s.indices, s.self_shape, s.overlapping,
                       grad._dtype.numpy_dtype)
    return like(gx, grad)


MaxPool2dNode, MaxPool3dNode = (
    adjoint_node(f"MaxPool{nd}DWithIndicesBackward0", {"self": _max_grad},
                 saves_also=("indices", "self_shape", "overlapping", "nd"),
                 adjoint=_gather_adjoint, zero_self=True) for nd in (2, 3))


def _max_pool(input, nd, kernel_size, stride, padding, dilation, ceil_mode, name,
              indices=True):
    x, unbatched = _batched(input, nd, name)
    k = ntuple(kernel_size, nd, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else \
        ntuple(stride, nd, "stride")
    p, d = ntuple(padding, nd, "padding"), ntuple(dilation, nd, "dilation")
    in_size = tuple(x.shape[2:])
    _check_pool_args(nd, k, s, p, d, in_size, x.shape)
    out = tuple(pool_out_size(n, kk, ss, pp, dd, ceil_mode)
                for n, kk, ss, pp, dd in zip(in_size, k, s, p, d))
    if any(o <= 0 for o in out):
        _too_small((x.shape[1],) + in_size, (x.shape[1],) + out)
    xp = xp_of(x)
    hi = tuple(max(0, (o - 1) * ss + dd * (kk - 1) + 1 - n - pp)
               for o, ss, dd, kk, n, pp in zip(out, s, d, k, in_size, p))
    padded = _pad_const(xp, x._data, p, hi, _lowest(x._dtype))
    check_nan = x._dtype.category == D.FLOATING and bool(xp.isnan(x._data).any())
    recording = needs_grad(x)
    values, choice = _window_max(xp, padded, k, s, d, out, check_nan, indices or recording)
    # PyTorch's kernels keep a channels-last input's layout (a 3-d input: row-major)
    src = input._data if unbatched else x._data
    result = like(as_suggested(xp.ascontiguousarray(values), src), x)
    if choice is None:           # values only: nothing records, nobody asked for indices
        return (result.squeeze(0) if unbatched else result), None
    indices = _flat_positions(xp, choice, k, s, p, d, in_size, out)
    idx = like(as_suggested(xp.ascontiguousarray(indices), src), x, D.int64)
    if recording:
        overlapping = any(ss < dd * (kk - 1) + 1 for ss, dd, kk in zip(s, d, k))
        node = MaxPool2dNode if nd == 2 else MaxPool3dNode
        record(node, (x,), (result,), indices=indices, self_shape=x._data.shape,
               overlapping=overlapping, nd=nd)
    if unbatched:
        return result.squeeze(0), idx.squeeze(0)
    return result, idx


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False):
    """2-d max pooling returning (values, flat per-channel argmax indices)."""
    return _max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode,
                     "max_pool2d")


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False):
    """3-d max pooling returning (values, flat per-channel argmax indices)."""
    return _max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode,
                     "max_pool3d")


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False):
    """1-d max pooling returning (values, argmax indices), computed as a 2-d pool of height 1."""
    if input._data.ndim not in (2, 3):
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(input.shape)}")
    one = lambda v: (1,) + ntuple(v, 1, "kernel_size")   # noqa: E731
    stride = None if stride is None or (isinstance(stride, (list, tuple)) and not stride) \
        else one(stride)
    values, idx = _max_pool(input.unsqueeze(-2), 2, one(kernel_size),
                            stride if stride is not None else one(kernel_size),
                            (0,) + ntuple(padding, 1), one(dilation), ceil_mode, "max_pool1d")
    return values.squeeze(-2), idx.squeeze(-2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """1-d max pooling over the last dim of a (N, C, L) or (C, L) input."""
    return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)[0]


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """2-d max pooling of a (N, C, H, W) or (C, H, W) input."""
    return _max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d",
                     indices=False)[0]


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """3-d max pooling of a (N, C, D, H, W) or (C, D, H, W) input."""
    return _max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d",
                     indices=False)[0]


for _fn in (max_pool1d, max_pool2d, max_pool3d, max_pool1d_with_indices):
    register(_fn.__name__, _fn, method=False, family="nn.pool")
for _fn in (max_pool2d_with_indices, max_pool3d_with_indices):
    register(_fn.__name__, _fn, method=False, function_too=False, family="nn.pool",
             nodes=(MaxPool2dNode, MaxPool3dNode))

# ----------------------------------------------------------------------------------------------
# Average pooling
# ----------------------------------------------------------------------------------------------


def _divisors(xp, in_size, out, k, s, p, count_include_pad):
    """Per-output-position divisor, the product of one vector per dim (windows are boxes)."""
    total = 1
    for i, (n, o, kk, ss, pp) in enumerate(zip(in_size, out, k, s, p)):
        start = np.arange(o) * ss - pp
        end = np.minimum(start + kk, n + pp)
        if count_include_pad:
            size = end - start
        else:
            size = np.minimum(end, n) - np.maximum(start, 0)
        shape = [1] * len(in_size)
        shape[i] = o
        total = total * size.reshape(shape)
    return xp.asarray(total)


def _avg_grad(grad, s):
    xp = xp_of(grad)
    g = grad._data / s.divisor if s.divisor_override is None else grad._data / s.divisor_override
    g = g.astype(grad._dtype.numpy_dtype, copy=False)
    n, c = s.self_shape[:2]
    full = tuple(n_ + a + b for n_, a, b in zip(s.self_shape[2:], s.padding, s.hi))
    target = xp.zeros((n, c) + full, dtype=g.dtype)
    add_windows(target, _kernel_broadcast(xp, g, s.kernel), s.kernel, s.stride,
                (1,) * len(full), g.shape[2:])
    crop = (slice(None), slice(None)) + tuple(slice(a, a + m) for a, m in
                                              zip(s.padding, s.self_shape[2:]))
    return like(xp.ascontiguousarray(target[crop]), grad)


def _kernel_broadcast(xp, g, kernel):
    """(N, C, *out) viewed as (N, C, *k, *out) with stride 0 over the kernel dims."""
    nd = len(kernel)
    shape = g.shape[:2] + tuple(kernel) + g.shape[2:]
    strides = g.strides[:2] + (0,) * nd + g.strides[2:]
    return backend.strided_view(g, shape, strides)


def _avg_adjoint(gg, sv):
    """Average pooling of ``gg`` with the saved settings (the derivative of its backward)."""
    nd = len(sv.kernel)
    return _avg_pool(gg, nd, sv.kernel, sv.stride, sv.padding, sv.ceil_mode,
                     sv.count_include_pad, sv.divisor_override, f"avg_pool{nd}d")


AvgPool2dNode, AvgPool3dNode = (
    adjoint_node(f"AvgPool{nd}DBackward0", {"self": _avg_grad},
                 saves_also=("divisor", "divisor_override", "self_shape", "padding", "hi",
                             "kernel", "stride", "ceil_mode", "count_include_pad"),
                 adjoint=_avg_adjoint, zero_self=True) for nd in (2, 3))


def _avg_pool(input, nd, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override, name):
    x, unbatched = _batched(input, nd, name)
    k = ntuple(kernel_size, nd, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else \
        ntuple(stride, nd, "stride")
    p = ntuple(padding, nd, "padding")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    in_size = tuple(x.shape[2:])
    _check_pool_args(nd, k, s, p, (1,) * nd, in_size, x.shape)
    out = tuple(pool_out_size(n, kk, ss, pp, 1, ceil_mode)
                for n, kk, ss, pp in zip(in_size, k, s, p))
    if any(o <= 0 for o in out):
        _too_small((x.shape[1],) + in_size, (x.shape[1],) + out)
    if x._dtype.category != D.FLOATING and nd == 3:
        raise RuntimeError(f"\"avg_pool3d_out_frame\" not implemented for "
                           f"'{x._dtype.scalar_name}'")
    xp = xp_of(x)
    hi = tuple(max(0, (o - 1) * ss + kk - n - pp) for o, ss, kk, n, pp
               in zip(out, s, k, in_size, p))
    acc_dt = np.float32 if x._dtype in (D.float16, D.bfloat16) else x._dtype.numpy_dtype
    padded = _pad_const(xp, x._data.astype(acc_dt, copy=False), p, hi, 0)
    total = xp.zeros(x.shape[:2] + out, dtype=acc_dt)
    for offset in np.ndindex(*k):
        total += padded[(Ellipsis,) + tuple(slice(o, o + (m - 1) * ss + 1, ss)
                                            for o, m, ss in zip(offset, out, s))]
    divisor = _divisors(xp, in_size, out, k, s, p, count_include_pad)
    if divisor_override is not None:
        total = total / divisor_override
    elif x._dtype.category == D.FLOATING:
        total = total / divisor
    else:
        total = total // divisor
    # avg_pool2d keeps channels-last; avg_pool3d's CPU kernel writes row-major
    result = like(as_suggested(total, input._data, _KERNELS_2D if nd == 2 else ()), x)
    if needs_grad(x):
        record(AvgPool2dNode if nd == 2 else AvgPool3dNode, (x,), (result,),
               divisor=divisor, divisor_override=divisor_override, self_shape=x._data.shape,
               padding=p, hi=hi, kernel=k, stride=s, ceil_mode=ceil_mode,
               count_include_pad=count_include_pad)
    return result.squeeze(0) if unbatched else result


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-d average pooling of a (N, C, L) or (C, L) input (a 2-d pool of height 1)."""
    if input._data.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input._data.ndim}-dimensional "
                           "tensor for argument #1 'self' (while checking arguments for "
                           "avg_pool1d)")
    one = lambda v: (1,) + ntuple(v, 1, "kernel_size")   # noqa: E731
    stride = one(kernel_size) if stride is None or (isinstance(stride, (list, tuple)) and
                                                    not stride) else one(stride)
    out = _avg_pool(input.unsqueeze(-2), 2, one(kernel_size), stride,
                    (0,) + ntuple(padding, 1), ceil_mode, count_include_pad, None, "avg_pool1d")
    return out.squeeze(-2)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-d average pooling of a (N, C, H, W) or (C, H, W) input."""
    return _avg_pool(input, 2, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, "avg_pool2d")


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """3-d average pooling of a (N, C, D, H, W) or (C, D, H, W) input."""
    return _avg_pool(input, 3, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, "avg_pool3d")


register("avg_pool1d", avg_pool1d, method=False, family="nn.pool")
for _fn in (avg_pool2d, avg_pool3d):
    register(_fn.__name__, _fn, method=False, function_too=False, family="nn.pool",
             nodes=(AvgPool2dNode, AvgPool3dNode))

# ----------------------------------------------------------------------------------------------
# Adaptive pooling
# ----------------------------------------------------------------------------------------------


def _adaptive_bounds(n, o):
    """PyTorch's window [start, end) of each of ``o`` outputs over ``n`` inputs."""
    idx = np.arange(o)
    return (idx * n) // o, -((-(idx + 1) * n) // o)


def _check_adaptive(input, nd, output_size, name):
    out = ntuple(output_size, nd, "output_size") if not isinstance(output_size, (list, tuple)) \
        else tuple(output_size)
    if len(out) != nd:
        raise RuntimeError(f"{name}: internal error: output_size.size() must be {nd}")
    out = tuple(input.shape[-nd + i] if o is None else int(o) for i, o in enumerate(out))
    if input._data.ndim not in (nd + 1, nd + 2) or any(n == 0 for n in input.shape[-nd:]):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got "
                           f"{list(input.shape)}")
    if any(o < 0 for o in out):
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal "
                           "to 0")
    return out


def _avg_matrix(n, o, dtype):
    start, end = _adaptive_bounds(n, o)
    pos = np.arange(n)
    inside = (pos >= start[:, None]) & (pos < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def _apply_per_dim(xp, arr, mats, transpose=False):
    """Multiply each spatial dim of ``arr`` by its (out, in) matrix (or its transpose)."""
    nd = len(mats)
    for i, m in enumerate(mats):
        axis = arr.ndim - nd + i
        m = xp.asarray(m.T if not transpose else m)
        arr = xp.moveaxis(xp.matmul(xp.moveaxis(arr, axis, -1), m), -1, axis)
    return xp.ascontiguousarray(arr)


def _adaptive_avg_grad(grad, s):
    xp = xp_of(grad)
    if s.even:
        g = grad._data
        for i, (n, o) in enumerate(zip(s.in_size, g.shape[-len(s.in_size):])):
            axis = g.ndim - len(s.in_size) + i
            g = xp.repeat(g, n // o, axis=axis) / (n // o)
        return like(xp.ascontiguousarray(g), grad)
    mats = [_avg_matrix(n, o, grad._dtype.numpy_dtype)
            for n, o in zip(s.in_size, grad.shape[-len(s.in_size):])]
    return like(_apply_per_dim(xp, grad._data, mats, transpose=True), grad)


def _adaptive_avg_adjoint(gg, sv):
    nd = len(sv.in_size)
    return _adaptive_avg(gg, nd, sv.grad_shape[-nd:], f"adaptive_avg_pool{nd}d")


_AdaptiveAvgNodes = {nd: adjoint_node(f"AdaptiveAvgPool{nd}DBackward0",
                                      {"self": _adaptive_avg_grad},
                                      saves_also=("in_size", "even"),
                                      adjoint=_adaptive_avg_adjoint, zero_self=True)
                     for nd in (2, 3)}


def _adaptive_avg(input, nd, output_size, name):
    out = _check_adaptive(input, nd, output_size, name)
    xp = xp_of(input)
    in_size = tuple(input.shape[-nd:])
    arr = input._data
    acc = np.float32 if input._dtype in (D.float16, D.bfloat16) else arr.dtype
    even = all(o > 0 and n % o == 0 for n, o in zip(in_size, out))
    if even:
        # Windows tile the input exactly: a reshape and a mean (exact, no matrix).
        split = arr.shape[:-nd]
        axes = []
        for i, (n, o) in enumerate(zip(in_size, out)):
            split += (o, n // o)
            axes.append(len(arr.shape[:-nd]) + 2 * i + 1)
        y = arr.reshape(split).mean(axis=tuple(axes), dtype=acc)
    else:
        mats = [_avg_matrix(n, o, acc) for n, o in zip(in_size, out)]
        y = _apply_per_dim(xp, arr.astype(acc, copy=False), mats)
    result = like(as_suggested(y, arr, _KERNELS_2D if nd == 2 else ()), input)
    if needs_grad(input):
        record(_AdaptiveAvgNodes[max(nd, 2)], (input,), (result,), in_size=in_size, even=even)
    return result


def adaptive_avg_pool1d(input, output_size):
    """Average pooling of the last dim to ``output_size`` positions."""
    if isinstance(output_size, (list, tuple)) and len(output_size) != 1:
        raise RuntimeError("adaptive_avg_pool1d: output_size should be of size 1")
    return _adaptive_avg(input, 1, output_size, "adaptive_avg_pool1d")


def adaptive_avg_pool2d(input, output_size):
    """Average pooling of the last two dims to ``output_size`` (None keeps a dim's size)."""
    return _adaptive_avg(input, 2, output_size, "adaptive_avg_pool2d")


def adaptive_avg_pool3d(input, output_size):
    """Average pooling of the last three dims to ``output_size``."""
    return _adaptive_avg(input, 3, output_size, "adaptive_avg_pool3d")


def _gather_windows(xp, arr, in_size, out):
    """(…, *out, K) array of each adaptive window's values (short windows repeat their last
    element), plus per-dim (index, window-length) tables to map choices back."""
    nd = len(in_size)
    tables = []
    index = [slice(None)] * (arr.ndim - nd)
    for i, (n, o) in enumerate(zip(in_size, out)):
        start, end = _adaptive_bounds(n, o)
        k = int((end - start).max()) if o else 0
        idx = np.minimum(start[:, None] + np.arange(k), end[:, None] - 1)
        tables.append(idx)
        shape = [1] * (2 * nd)
        shape[2 * i], shape[2 * i + 1] = o, k
        index.append(xp.asarray(idx.reshape(shape)))
    gathered = arr[tuple(index)]         # (..., o0, k0, o1, k1, ...)
    lead = arr.ndim - nd
    order = tuple(range(lead)) + tuple(lead + 2 * i for i in range(nd)) + \
        tuple(lead + 2 * i + 1 for i in range(nd))
    g = gathered.transpose(order)
    return g.reshape(g.shape[:lead + nd] + (-1,)), tables


def _adaptive_max_grad(grad, s):
    xp = xp_of(grad)
    shape = s.self_shape
    lead = int(np.prod(shape[:-len(s.in_size)], dtype=np.int64))
    gx = _scatter_back(xp, grad._data.reshape((lead, 1) + grad.shape[-len(s.in_size):]),
                       s.indices.reshape((lead, 1) + s.indices.shape[-len(s.in_size):]),
                       (lead, 1) + tuple(s.in_size), True, grad._dtype.numpy_dtype)
    return like(gx.reshape(shape), grad)


_AdaptiveMaxNodes = {nd: adjoint_node(f"AdaptiveMaxPool{nd}DBackward0",
                                      {"self": _adaptive_max_grad},
                                      saves_also=("indices", "self_shape", "in_size", "nd"),
                                      adjoint=_gather_adjoint, zero_self=True)
                     for nd in (2, 3)}


def _adaptive_max(input, nd, output_size, name):
    out = _check_adaptive(input, nd, output_size, name)
    xp = xp_of(input)
    in_size = tuple(input.shape[-nd:])
    flat, tables = _gather_windows(xp, input._data, in_size, out)
    choice = xp.argmax(flat, axis=-1) if flat.shape[-1] else xp.zeros(flat.shape[:-1], np.int64)
    values = flat.max(axis=-1) if flat.shape[-1] else flat[..., :0].sum(-1)
    ks = tuple(t.shape[1] for t in tables)
    offsets = np.unravel_index(choice, ks) if nd > 1 else (choice,)
    indices = 0
    for i, t in enumerate(tables):
        shape = [1] * nd
        shape[i] = out[i]
        o_idx = xp.arange(out[i]).reshape(shape)
        indices = indices * in_size[i] + xp.asarray(t)[o_idx, offsets[i]]
    kernels = _KERNELS_2D if nd == 2 else ()
    result = like(as_suggested(xp.ascontiguousarray(values), input._data, kernels), input)
    idx = like(as_suggested(xp.ascontiguousarray(xp.asarray(indices, dtype=np.int64)),
                            input._data, kernels), input, D.int64)
    if needs_grad(input):
        record(_AdaptiveMaxNodes[max(nd, 2)], (input,), (result,), indices=idx._data,
               self_shape=input._data.shape, in_size=in_size, nd=nd)
    return result, idx


def adaptive_max_pool1d(input, output_size):
    """Max pooling of the last dim to ``output_size``; returns (values, indices)."""
    return _adaptive_max(input, 1, output_size, "adaptive_max_pool1d")


def adaptive_max_pool2d(input, output_size):
    """Max pooling of the last two dims to ``output_size``; returns (values, indices)."""
    return _adaptive_max(input, 2, output_size, "adaptive_max_pool2d")


def adaptive_max_pool3d(input, output_size):
    """Max pooling of the last three dims to ``output_size``; returns (values, indices)."""
    return _adaptive_max(input, 3, output_size, "adaptive_max_pool3d")


register("adaptive_avg_pool1d", adaptive_avg_pool1d, method=False, family="nn.pool")
register("adaptive_max_pool1d", adaptive_max_pool1d, method=False, family="nn.pool")
for _fn in (adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool2d, adaptive_max_pool3d):
    register(_fn.__name__, _fn, method=False, function_too=False, family="nn.pool")

# ----------------------------------------------------------------------------------------------
# Max unpooling
# ----------------------------------------------------------------------------------------------


def _unpool_grad(grad, s):
    xp = xp_of(grad)
    g = grad._data.reshape(grad.shape[:2] + (-1,))
    idx = s.indices.reshape(s.indices.shape[:2] + (-1,))
    return like(xp.take_along_axis(g, idx, axis=-1).reshape(s.indices.shape), grad)


def _unpool_adjoint(gg, sv):
    """Unpooling of ``gg`` to the unpooled size: the derivative of unpooling's backward."""
    nd = len(sv.grad_shape) - 2
    return max_unpool(gg, index_tensor(sv.indices, gg), list(sv.grad_shape[2:]), nd)


_UnpoolNodes = {nd: adjoint_node(f"MaxUnpool{nd}DBackward0", {"self": _unpool_grad},
                                 saves_also=("indices",), adjoint=_unpool_adjoint)
                for nd in (2, 3)}


def max_unpool(input, indices, output_size, nd):
    """Scatter pooled values back to the positions of ``indices`` in a zero (N, C,
    *output_size) tensor: the partial inverse of max pooling."""
    xp = xp_of(input)
    unbatched = input._data.ndim == nd + 1
    x = input.unsqueeze(0) if unbatched else input
    ind = indices._data[None] if unbatched else indices._data
    if indices._dtype is not D.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{indices._dtype.scalar_name}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    n, c = x.shape[:2]
    per = int(np.prod(output_size, dtype=np.int64))
    flat_idx = ind.reshape(n, c, -1)
    if flat_idx.size and (int(flat_idx.min()) < 0 or int(flat_idx.max()) >= per):
        bad = int(flat_idx.max()) if int(flat_idx.max()) >= per else int(flat_idx.min())
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(map(str, output_size))}")
    out = xp.zeros((n, c, per), dtype=x._data.dtype)
    xp.put_along_axis(out, flat_idx, x._data.reshape(n, c, -1), axis=-1)
    result = like(out.reshape((n, c) + tuple(output_size)), x)
    if needs_grad(x):
        record(_UnpoolNodes[max(nd, 2)], (x,), (result,), indices=ind)
    return result.squeeze(0) if unbatched else result


register("max_unpool", max_unpool, method=False, function_too=False, family="nn.pool")

# ----------------------------------------------------------------------------------------------
# Fractional max pooling (pseudo-random window starts, one sequence per sample and channel)
# ----------------------------------------------------------------------------------------------


def _fractional_starts(samples, in_size, out_size, k, dtype):
    """Window starts (…, out_size) from the per-plane random samples (…,): PyTorch's
    generate_intervals, computed in the input's floating dtype as its kernel does."""
    alpha = dtype.type((in_size - k) / (out_size - 1)) if out_size > 1 else dtype.type(0)
    i = np.arange(out_size - 1, dtype=dtype)
    s = samples.astype(dtype)[..., None]
    seq = ((i + s) * alpha).astype(np.int64) - (s * alpha).astype(np.int64)
    last = np.full(samples.shape + (1,), in_size - k, dtype=np.int64)
    return np.concatenate([seq, last], axis=-1)


def _fractional_grad(grad, s):
    xp = xp_of(grad)
    gx = _scatter_back(xp, grad._data, s.indices, s.self_shape, True, grad._dtype.numpy_dtype)
    return like(gx, grad)


_FractionalNodes = {nd: adjoint_node(f"FractionalMaxPool{nd}DBackward0",
                                     {"self": _fractional_grad},
                                     saves_also=("indices", "self_shape", "nd"),
                                     adjoint=_gather_adjoint, zero_self=True)
                    for nd in (2, 3)}


def fractional_max_pool(input, kernel_size, output_size, random_samples):
    """Fractional max pooling of the last 2 or 3 dims (by ``len(kernel_size)``) of a batched
    or unbatched input; ``random_samples`` (N, C, nd) in [0, 1) fix the window starts.
    Returns (values, flat per-plane indices)."""
    nd = len(kernel_size)
    name = f"fractional_max_pool{nd}d"
    unbatched = input._data.ndim == nd + 1
    x = input.unsqueeze(0) if unbatched else input
    if x._data.ndim != nd + 2:
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    in_size = tuple(x.shape[2:])
    for n, o, k, dim in zip(in_size, output_size, kernel_size, ("height", "width")
                            if nd == 2 else ("time", "height", "width")):
        if o + k - 1 > n:
            raise RuntimeError(f"{name}(): pool {dim} {k} too large relative to input {dim} "
                               f"{n} and output {dim} {o}")
    xp = xp_of(x)
    samples = backend.to_numpy(random_samples._data)    # N x C x nd: indices built on the host
    dtype = np.dtype(np.float32) if x._dtype in (D.float16, D.bfloat16) else \
        x._dtype.numpy_dtype
    # PyTorch's sample order per plane is (w, h) in 2-d and (t, h, w) in 3-d.
    which = (1, 0) if nd == 2 else (0, 1, 2)
    n, c = x.shape[:2]
    index = [np.arange(n).reshape((n, 1) + (1,) * (2 * nd)),
             np.arange(c).reshape((1, c) + (1,) * (2 * nd))]
    planes = []
    for i in range(nd):
        starts = _fractional_starts(samples[..., which[i]], in_size[i], output_size[i],
                                    kernel_size[i], dtype)
        pos = starts[..., None] + np.arange(kernel_size[i])          # (N, C, out, k)
        planes.append(pos)
        shape = [n, c] + [1] * (2 * nd)
        shape[2 + 2 * i], shape[3 + 2 * i] = output_size[i], kernel_size[i]
        index.append(pos.reshape(shape))
    gathered = x._data[tuple(xp.asarray(a) for a in index)]       # (N, C, o0, k0, o1, k1...)
    order = (0, 1) + tuple(2 + 2 * i for i in range(nd)) + tuple(3 + 2 * i for i in range(nd))
    flat = gathered.transpose(order).reshape((n, c) + tuple(output_size) + (-1,))
    choice = flat.argmax(axis=-1)
    values = flat.max(axis=-1)
    offsets = xp.unravel_index(choice, tuple(kernel_size))
    flat_index = 0
    for i in range(nd):
        shape = [n, c] + [1] * nd
        shape[2 + i] = output_size[i]
        start = xp.asarray(planes[i][..., 0].reshape(shape))
        flat_index = flat_index * in_size[i] + start + offsets[i]
    result = like(xp.ascontiguousarray(values), x)
    idx = like(xp.asarray(flat_index, dtype=np.int64), x, D.int64)
    if needs_grad(x):
        record(_FractionalNodes[nd], (x,), (result,), indices=idx._data,
               self_shape=x._data.shape, nd=nd)
    if unbatched:
        return result.squeeze(0), idx.squeeze(0)
    return result, idx


register("fractional_max_pool", fractional_max_pool, method=False, function_too=False,
         family="nn.pool")
