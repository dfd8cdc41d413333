"""Normalisation kernels: batch, layer, group and RMS norm, fused with explicit backward.

Each forward computes the statistics once (in float32 at least) and saves the mean and the
reciprocal standard deviation, as PyTorch's native kernels do; the backward pass is the closed
form of the normalisation's gradient, two reductions and one pointwise pass over the input.
Under ``create_graph=True`` the gradients come instead from the same normalisation written in
differentiable cinder ops (the ``_*_ops`` functions), so higher-order gradients work.
"""

import numpy as np

from ... import _dtype as D
from ..._runtime import get_num_threads
from .._prep import xp_of
from .._layouts import as_suggested, row_major
from .._registry import needs_grad, record, register
from ._utils import like, recompute_node


def _acc(t):
    """Statistics are computed in float32 for the half types (PyTorch's accumulate type)."""
    return np.float32 if t._dtype in (D.float16, D.bfloat16) else t._dtype.numpy_dtype


def _arr(t, dtype):
    return t._data.astype(dtype, copy=False)


def _not_implemented(t, kernel):
    if t._dtype.category != D.FLOATING:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{t._dtype.scalar_name}\'')


def _normalize_ops(x, axes, eps):
    """``(x - mean) / sqrt(var + eps)`` over ``axes`` in differentiable ops."""
    centered = x - x.mean(axes, keepdim=True)
    return centered * ((centered * centered).mean(axes, keepdim=True) + eps).rsqrt()


def _affine_ops(y, weight, bias, shape):
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def _grad_norm(gy_w, xhat, rstd, axes, count):
    """d/dx of normalising over ``axes``: rstd * (g - mean(g) - xhat * mean(g * xhat)), where
    ``g`` is the gradient with respect to ``xhat`` (already scaled by the weight)."""
    mean_g = gy_w.sum(axis=axes, keepdims=True) / count
    mean_gx = (gy_w * xhat).sum(axis=axes, keepdims=True) / count
    return rstd * (gy_w - mean_g - xhat * mean_gx)


# ----------------------------------------------------------------------------------------------
# Batch norm
# ----------------------------------------------------------------------------------------------

def _channel_shape(ndim):
    return (1, -1) + (1,) * (ndim - 2)


def _bn_grads(grad, s, wanted):
    """(input, weight, bias) gradients together: xhat and the channel sums of gy and
    gy * xhat (the bias and weight gradients, and the input gradient's two means) are formed
    once; the input gradient is rstd * w * (gy - mean(gy) - xhat * mean(gy * xhat)) in
    training, gy * w * rstd in evaluation."""
    want_x, want_w, want_b = wanted
    acc = _acc(grad)
    gy = _arr(grad, acc)
    shape = _channel_shape(gy.ndim)
    axes = (0,) + tuple(range(2, gy.ndim))
    rstd = s.save_invstd.reshape(shape)
    w = 1 if s.weight is None else _arr(s.weight, acc).reshape(shape)
    stats = want_x and s.training
    sum_gy = gy.sum(axis=axes) if want_b or stats else None
    xhat = sum_gx = None
    if want_w or stats:
        xhat = _arr(s.input, acc) - s.save_mean.reshape(shape)
        xhat *= rstd
        sum_gx = (gy * xhat).sum(axis=axes)
    gx = None
    if stats:
        count = gy.size // gy.shape[1]
        xhat *= (sum_gx / count).reshape(shape)       # xhat is not needed after this
        gx = np.subtract(gy, xhat, out=xhat)
        gx -= (sum_gy / count).reshape(shape)
        gx *= rstd * w
    elif want_x:
        gx = gy * (rstd * w)
    return tuple(None if g is None else like(g, grad) for g in (gx, sum_gx, sum_gy))


def _bn_input_grad(grad, s):
    return _bn_grads(grad, s, (True, False, False))[0]


def _bn_weight_grad(grad, s):
    return _bn_grads(grad, s, (False, True, False))[1]


def _bn_bias_grad(grad, s):
    return _bn_grads(grad, s, (False, False, True))[2]


def _bn_ops(s, input, weight, bias):
    shape = _channel_shape(input.dim())
    if s.training:
        y = _normalize_ops(input, [0] + list(range(2, input.dim())), s.eps)
    else:
        y = (input - like(s.save_mean.reshape(shape), input)) * \
            like(s.save_invstd.reshape(shape), input)
    return _affine_ops(y, weight, bias, shape)


BatchNormNode = recompute_node("NativeBatchNormBackward0", {
    "input": _bn_input_grad, "weight": _bn_weight_grad, "bias": _bn_bias_grad},
    saves_also=("save_mean", "save_invstd", "training", "eps"), composite=_bn_ops,
    joint=_bn_grads)


def _check_bn(input, weight, bias, running_mean, running_var):
    _not_implemented(input, "batch_norm")
    c = input.shape[1] if input._data.ndim > 1 else 1
    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                    ("running_var", running_var)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                      eps):
    """Batch normalisation over every dim but the channel dim (1); returns (output, saved
    mean, saved inverse std). In training mode the batch statistics are used and the running
    statistics (when given) are updated in place with ``momentum`` (unbiased variance)."""
    _check_bn(input, weight, bias, running_mean, running_var)
    xp = xp_of(input)
    acc = _acc(input)
    x = _arr(input, acc)
    shape = _channel_shape(x.ndim)
    axes = (0,) + tuple(range(2, x.ndim))
    if training:
        x64 = x.astype(np.float64)
        mean, var_sum = _batch_stats(x, x64, axes, shape)
        count = x.size // x.shape[1]
        var = var_sum / x.dtype.type(count)
        invstd = (1.0 / xp.sqrt(var.astype(np.float64) + eps)).astype(acc)
        _update_running(running_mean, running_var, mean, var_sum, momentum, count)
    else:
        mean = running_mean._data.astype(acc)       # a copy: later updates must not leak
        invstd = 1.0 / xp.sqrt(_arr(running_var, acc) + eps)
    # One affine map per channel, y = x * alpha + beta with beta = bias - mean * alpha, both
    # fused multiply-adds in PyTorch's CPU kernel (one rounding each); computing them in
    # float64 and rounding once gives the same float32 results, in training and evaluation.
    alpha = invstd if weight is None else invstd * _arr(weight, acc)
    bias64 = 0.0 if bias is None else _arr(bias, np.float64)
    beta = (bias64 - mean.astype(np.float64) * alpha).astype(acc)
    # in place in one float64 buffer (x64 is a copy, no longer needed in training)
    y64 = x64 if training else x.astype(np.float64)
    y64 *= alpha.astype(np.float64).reshape(shape)
    y64 += beta.astype(np.float64).reshape(shape)
    y = y64.astype(acc)
    # PyTorch writes the output in the memory format the input suggests
    result = like(as_suggested(y, input._data), input)
    save_mean, save_invstd = (mean, invstd) if training else (xp.zeros(0, acc),) * 2
    if needs_grad(input, weight, bias):
        record(BatchNormNode, (input, weight, bias), (result,), input=input, weight=weight,
               bias=bias, save_mean=mean, save_invstd=invstd, training=training, eps=eps)
    dt = D.float32 if acc == np.float32 else input._dtype
    return result, like(save_mean, input, dt), like(save_invstd, input, dt)


def _batch_stats(x, x64, axes, shape):
    """(mean, sum of squared deviations) per channel, rounded as PyTorch's CPU kernel rounds
    them (``x64`` is ``x`` in float64). For one value per (sample, channel) see ``_row_stats``;
    otherwise the
    mean is a float64 sum (the acc type) divided by the count and rounded to the compute dtype,
    and the squared deviations from that rounded mean are formed in the compute dtype, summed in
    float64 and rounded."""
    if isinstance(x, np.ndarray) and x.size == x.shape[0] * x.shape[1] and x.shape[0] > 0:
        return _row_stats(x.reshape(x.shape[0], x.shape[1]))
    count = x.size // x.shape[1]
    mean = (x64.sum(axis=axes) / count).astype(x.dtype)
    dev = x - mean.reshape(shape)
    sq = np.multiply(dev, dev, out=dev)     # in place: dev is a fresh temporary
    return mean, sq.astype(np.float64).sum(axis=axes).astype(x.dtype)


# PyTorch's (N, C) kernel keeps one sequential partial sum per channel when N is at most the
# thread count and C is at most this many channels (measured on PyTorch 2.13's CPU build).
_SMALL_CHANNELS = 16


def _rows_per_block(n, channels, threads):
    """How many consecutive rows PyTorch's (N, C) statistics kernel sums into one partial sum
    in the compute dtype: with more rows than threads, ``at::parallel_for`` gives each thread
    a block of ceil(N / threads) rows; otherwise few channels mean one block of all rows and
    many channels one row per block (each row exact, all summed in float64)."""
    if n > threads:
        return -(-n // threads)
    return n if channels <= _SMALL_CHANNELS else 1


def _row_stats(x):
    """(mean, sum of squared deviations) per channel of a (N, C) input, bit for bit as
    PyTorch's CPU kernel forms them with ``get_num_threads()`` threads: each block of rows is
    summed in the compute dtype in row order (the squared deviations with a fused
    multiply-add, one rounding per row), and the blocks' partial sums are added in float64
    in block order. Loops run over the rows of one block, each step vectorised over the
    blocks and channels."""
    n, c = x.shape
    rows = _rows_per_block(n, c, get_num_threads())
    blocks = -(-n // rows)
    padded = np.zeros((blocks * rows, c), x.dtype)
    padded[:n] = x
    grid = padded.reshape(blocks, rows, c)
    mean = (_sum_blocks(_row_order_sums(grid)) / n).astype(x.dtype)
    dev = np.subtract(padded, mean, out=padded)
    dev[n:] = 0                              # padding rows add nothing to the deviations
    if rows > _EXACT_ROWS:
        # long blocks: the squares rounded to the compute dtype, then summed in row order (one
        # rounding more than the fused multiply-add, so the last bit can differ) instead of a
        # loop of ``rows`` NumPy steps (2.2 ms for a 1024 x 512 batch on two threads)
        dev *= dev
        return mean, _sum_blocks(_row_order_sums(dev.reshape(blocks, rows, c))).astype(x.dtype)
    sq = dev.astype(np.float64) if x.dtype == np.float32 else dev
    sq *= sq                                 # exact in float64 for float32 deviations
    sq = sq.reshape(blocks, rows, c)
    part = np.zeros((blocks, c), x.dtype)
    for i in range(rows):
        # part + d * d rounded once to the compute dtype: the fused multiply-add's result
        np.add(part, sq[:, i], out=part, casting="unsafe")
    return mean, _sum_blocks(part).astype(x.dtype)


# Blocks of at most this many rows get the exact fused multiply-add loop (batches up to
# 64 x the thread count); longer ones the vectorised sum of rounded squares.
_EXACT_ROWS = 64


def _row_order_sums(grid):
    """Per block and channel, the rows of ``grid`` (blocks, rows, C) added one after another
    in its dtype: NumPy adds row after row when the rows are not its inner loop (several
    channels); over one channel a reduce pairs terms, an accumulate does not."""
    if grid.shape[2] > 1:
        return grid.sum(axis=1)
    return np.add.accumulate(grid[:, :, 0], axis=1)[:, -1:]


def _sum_blocks(part):
    """The blocks' partial sums added in float64, in block order (a short loop: one step per
    thread)."""
    total = np.zeros(part.shape[1], np.float64)
    for block in part:
        total += block
    return total


def _update_running(running_mean, running_var, mean, var_sum, momentum, count):
    """running <- (1 - momentum) * running + momentum * batch statistic, in place. The
    variance term as PyTorch's CPU kernel rounds it: the unbiased variance and the decayed
    running value in the compute dtype, their weighted sum in float64."""
    if running_mean is not None:
        rm = running_mean._data
        rm[...] = (1 - momentum) * rm + momentum * mean.astype(rm.dtype)
        running_mean._bump_version()
    if running_var is not None:
        rv = running_var._data
        m = rv.dtype.type(momentum)
        with np.errstate(divide="ignore", invalid="ignore"):
            unbiased = (var_sum / var_sum.dtype.type(count - 1)).astype(rv.dtype)
        decayed = ((1 - m) * rv).astype(rv.dtype)
        rv[...] = (np.float64(m) * unbiased.astype(np.float64) + decayed).astype(rv.dtype)
        running_var._bump_version()


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled=True):
    """``torch.batch_norm``: the normalised output of ``native_batch_norm``."""
    return native_batch_norm(input, weight, bias, running_mean, running_var, training,
                             momentum, eps)[0]


register("native_batch_norm", native_batch_norm, method=False, family="nn.norm",
         nodes=(BatchNormNode,))
register("batch_norm", batch_norm, method=False, family="nn.norm")

# ----------------------------------------------------------------------------------------------
# Layer norm and RMS norm (normalise over the trailing ``normalized_shape`` dims)
# ----------------------------------------------------------------------------------------------


def _trailing(input, normalized_shape, weight, bias, star="*, "):
    shape = tuple(normalized_shape) if isinstance(normalized_shape, (list, tuple)) else \
        (int(normalized_shape),)
    nd = len(shape)
    if nd and (input._data.ndim < nd or tuple(input.shape[-nd:]) != shape):
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[{star}{', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(shape)}")
    return shape, tuple(range(input._data.ndim - nd, input._data.ndim))


def _ln_parts(grad, s):
    acc = _acc(grad)
    x = _arr(s.input, acc)
    xhat = (x - s.mean) * s.rstd
    return _arr(grad, acc), xhat


def _ln_input_grad(grad, s):
    gy, xhat = _ln_parts(grad, s)
    w = 1 if s.weight is None else _arr(s.weight, gy.dtype)
    count = int(np.prod([gy.shape[a] for a in s.axes], dtype=np.int64))
    return like(_grad_norm(gy * w, xhat, s.rstd, s.axes, count), grad)


def _lead_axes(s, ndim):
    return tuple(range(ndim - len(s.axes)))


def _ln_weight_grad(grad, s):
    gy, xhat = _ln_parts(grad, s)
    return like((gy * xhat).sum(axis=_lead_axes(s, gy.ndim)), grad)


def _ln_bias_grad(grad, s):
    gy = _arr(grad, _acc(grad))
    return like(gy.sum(axis=_lead_axes(s, gy.ndim)), grad)


def _ln_ops(s, input, weight, bias):
    return _affine_ops(_normalize_ops(input, list(s.axes), s.eps), weight, bias,
                       tuple(input.shape[a] for a in s.axes))


LayerNormNode = recompute_node("NativeLayerNormBackward0", {
    "input": _ln_input_grad, "weight": _ln_weight_grad, "bias": _ln_bias_grad},
    saves_also=("mean", "rstd", "axes", "eps"), composite=_ln_ops)


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """Layer normalisation over the trailing ``normalized_shape`` dims; returns (output, mean,
    rstd) with the statistics keeping reduced dims as size 1."""
    shape, axes = _trailing(input, normalized_shape, weight, bias)
    _not_implemented(input, "LayerNormKernelImpl")
    xp = xp_of(input)
    acc = _acc(input)
    x = _arr(input, acc)
    mean = x.mean(axis=axes, keepdims=True)
    centered = x - mean
    rstd = 1.0 / xp.sqrt((centered * centered).mean(axis=axes, keepdims=True) + eps)
    y = centered * rstd
    if weight is not None:
        y *= _arr(weight, acc)
    if bias is not None:
        y += _arr(bias, acc)
    if not x.flags.c_contiguous:
        # PyTorch's output and statistics are row-major whatever the input's layout
        y, mean, rstd = row_major(y), row_major(mean), row_major(rstd)
    result = like(y, input)
    if needs_grad(input, weight, bias):
        record(LayerNormNode, (input, weight, bias), (result,), input=input, weight=weight,
               bias=bias, mean=mean, rstd=rstd, axes=axes, eps=eps)
    dt = D.float32 if acc == np.float32 else input._dtype
    return result, like(mean, input, dt), like(rstd, input, dt)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5,
               cudnn_enable=True):
    """``torch.layer_norm``: the normalised output of ``native_layer_norm``."""
    return native_layer_norm(input, normalized_shape, weight, bias, eps)[0]


register("native_layer_norm", native_layer_norm, method=False, family="nn.norm",
         nodes=(LayerNormNode,))
register("layer_norm", layer_norm, method=False, family="nn.norm")


def _rms_input_grad(grad, s):
    acc = _acc(grad)
    gy = _arr(grad, acc)
    x = _arr(s.input, acc)
    w = 1 if s.weight is None else _arr(s.weight, acc)
    gyw = gy * w
    count = int(np.prod([gy.shape[a] for a in s.axes], dtype=np.int64))
    xhat = x * s.rstd
    gx = s.rstd * (gyw - xhat * (gyw * xhat).sum(axis=s.axes, keepdims=True) / count)
    return like(gx, grad)


def _rms_weight_grad(grad, s):
    acc = _acc(grad)
    xhat = _arr(s.input, acc) * s.rstd
    lead = tuple(range(grad._data.ndim - len(s.axes)))
    return like((_arr(grad, acc) * xhat).sum(axis=lead), grad)


def _rms_ops(s, input, weight):
    axes = list(s.axes)
    y = input * ((input * input).mean(axes, keepdim=True) + s.eps).rsqrt()
    return _affine_ops(y, weight, None, tuple(input.shape[a] for a in axes))


RmsNormNode = recompute_node("FusedRmsNormBackward0", {
    "input": _rms_input_grad, "weight": _rms_weight_grad},
    saves_also=("rstd", "axes", "eps"), composite=_rms_ops)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Root-mean-square normalisation over the trailing ``normalized_shape`` dims:
    ``x / sqrt(mean(x**2) + eps) * weight``; ``eps`` defaults to the dtype's machine epsilon."""
    _, axes = _trailing(input, normalized_shape, weight, None, star="*")
    _not_implemented(input, "rms_norm")
    xp = xp_of(input)
    acc = _acc(input)
    if eps is None:
        eps = D.finfo(input._dtype).eps
    x = _arr(input, acc)
    rstd = 1.0 / xp.sqrt((x * x).mean(axis=axes, keepdims=True) + eps)
    y = x * rstd
    if weight is not None:
        y *= _arr(weight, acc)
    result = like(y, input)
    if needs_grad(input, weight):
        record(RmsNormNode, (input, weight), (result,), input=input, weight=weight, rstd=rstd,
               axes=axes, eps=eps)
    return result


register("rms_norm", rms_norm, method=False, family="nn.norm", nodes=(RmsNormNode,))

# ----------------------------------------------------------------------------------------------
# Group norm
# ----------------------------------------------------------------------------------------------


def _gn_parts(grad, s):
    acc = _acc(grad)
    x = _arr(s.input, acc)
    n, c = x.shape[:2]
    xg = x.reshape(n, s.groups, -1)
    xhat = ((xg - s.mean) * s.rstd).reshape(x.shape)
    return _arr(grad, acc), xhat


def _gn_input_grad(grad, s):
    gy, xhat = _gn_parts(grad, s)
    n, c = gy.shape[:2]
    w = 1 if s.weight is None else _arr(s.weight, gy.dtype).reshape(_channel_shape(gy.ndim))
    g = (gy * w).reshape(n, s.groups, -1)
    count = g.shape[2]
    gx = _grad_norm(g, xhat.reshape(n, s.groups, -1), s.rstd, (2,), count)
    return like(gx.reshape(gy.shape), grad)


def _gn_weight_grad(grad, s):
    gy, xhat = _gn_parts(grad, s)
    return like((gy * xhat).sum(axis=(0,) + tuple(range(2, gy.ndim))), grad)


def _gn_bias_grad(grad, s):
    gy = _arr(grad, _acc(grad))
    return like(gy.sum(axis=(0,) + tuple(range(2, gy.ndim))), grad)


def _gn_ops(s, input, weight, bias):
    n = input.shape[0]
    y = _normalize_ops(input.reshape(n, s.groups, -1), [2], s.eps).reshape(input.shape)
    return _affine_ops(y, weight, bias, _channel_shape(input.dim()))


GroupNormNode = recompute_node("NativeGroupNormBackward0", {
    "input": _gn_input_grad, "weight": _gn_weight_grad, "bias": _gn_bias_grad},
    saves_also=("mean", "rstd", "groups", "eps"), composite=_gn_ops)


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """Group normalisation: channels split into ``group`` groups, each normalised over its
    channels and all positions; returns (output, mean, rstd) of shape (N, group)."""
    _not_implemented(input, "group_norm")
    xp = xp_of(input)
    acc = _acc(input)
    x = _arr(input, acc)
    xg = x.reshape(N, group, -1)
    mean = xg.mean(axis=2, keepdims=True)
    centered = xg - mean
    rstd = 1.0 / xp.sqrt((centered * centered).mean(axis=2, keepdims=True) + eps)
    y = (centered * rstd).reshape(x.shape)
    shape = _channel_shape(x.ndim)
    if weight is not None:
        y *= _arr(weight, acc).reshape(shape)
    if bias is not None:
        y += _arr(bias, acc).reshape(shape)
    result = like(as_suggested(y, input._data), input)
    if needs_grad(input, weight, bias):
        record(GroupNormNode, (input, weight, bias), (result,), input=input, weight=weight,
               bias=bias, mean=mean, rstd=rstd, groups=group, eps=eps)
    dt = D.float32 if acc == np.float32 else input._dtype
    return result, like(mean.reshape(N, group), input, dt), like(rstd.reshape(N, group),
                                                                  input, dt)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """``torch.group_norm`` of a (N, C, *) input with ``num_groups`` groups."""
    n, c = input.shape[0], input.shape[1] if input._data.ndim > 1 else 1
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t._data.ndim != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {list(t.shape)} "
                               f"and input of shape {list(input.shape)}")
    hxw = input.numel() // max(n * c, 1)
    return native_group_norm(input, weight, bias, n, c, hxw, num_groups, eps)[0]


register("native_group_norm", native_group_norm, method=False, family="nn.norm",
         nodes=(GroupNormNode,))
register("group_norm", group_norm, method=False, family="nn.norm")
