"""Normalisation helpers PyTorch publishes on ``torch``: ``instance_norm`` (batch norm over a
(1, N*C, ...) view), ``batch_norm_update_stats``, ``norm_except_dim`` (weight norm's norm),
the deprecated ``frobenius_norm`` / ``nuclear_norm``, and SyncBatchNorm's building blocks
(``batch_norm_stats``, ``_elemt``, ``_gather_stats(_with_counts)``, ``_backward_reduce``,
``_backward_elemt``)."""

import numpy as np

from ..._runtime import warn_once
from .._prep import wrap
from ...autograd import grad_mode
from .._registry import FUNCTIONS, OPS, register
from .norm import _batch_stats, _channel_shape, _update_running, batch_norm


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """Normalise each channel of each sample on its own; running statistics, when given and
    ``use_input_stats``, are updated with the batch's average of the per-sample statistics."""
    n, c = input.shape[0], input.shape[1]
    shape = (1, n * c) + tuple(input.shape[2:])

    def per_sample(t):      # a per-channel tensor repeated for every sample
        return None if t is None else t.unsqueeze(0).expand(n, c).reshape(-1)

    rm, rv = per_sample(running_mean), per_sample(running_var)
    out = batch_norm(input.reshape(shape), per_sample(weight), per_sample(bias), rm, rv,
                     use_input_stats, momentum, eps)
    if use_input_stats:
        for running, repeated in ((running_mean, rm), (running_var, rv)):
            if running is not None:
                running._data[...] = repeated._data.reshape(n, c).mean(0)
                running._bump_version()
    return out.view(input.shape)


def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """Per-channel (dim 1) mean and biased variance of ``input``; the running statistics, when
    given, move towards the mean and the unbiased variance by ``momentum``."""
    x = input._data
    axes = (0,) + tuple(range(2, x.ndim))
    shape = _channel_shape(x.ndim)
    count = x.size // x.shape[1]
    mean, var_sum = _batch_stats(x, x.astype(np.float64), axes, shape)
    _update_running(running_mean, running_var, mean, var_sum, momentum, count)
    var = (var_sum / var_sum.dtype.type(count)).astype(x.dtype)
    return (wrap(mean, input._dtype, input._device), wrap(var, input._dtype, input._device))


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dimension but ``dim`` (kept with size 1 elsewhere);
    ``dim=-1`` is the norm of all elements."""
    if dim == -1:
        return v.norm(pow)
    last = v.dim() - 1
    if dim == 0:
        return v.contiguous().view(v.shape[0], -1).norm(pow, 1).view(
            (v.shape[0],) + (1,) * last)
    if dim == last:
        return v.contiguous().view(-1, v.shape[last]).norm(pow, 0).view(
            (1,) * last + (v.shape[last],))
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def frobenius_norm(input, dim, keepdim=False):
    """Deprecated: ``linalg.vector_norm(input, 2, dim, keepdim)`` over at most two dims."""
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions "
                           "instead.")
    warn_once("frobenius_norm", "at::frobenius_norm is deprecated and it is just left for JIT "
              "compatibility. It will be removed in a future PyTorch release. Please use "
              "`linalg.vector_norm(A, 2., dim, keepdim)` instead")
    return OPS["vector_norm"].impl(input, 2, dims, keepdim)


def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """Deprecated: ``linalg.matrix_norm(input, 'nuc', dim, keepdim)`` (default: the last two
    dims). ``nuclear_norm(input, keepdim)`` is accepted too, as in PyTorch."""
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    warn_once("nuclear_norm", "at::nuclear_norm is deprecated and it is just left for JIT "
              "compatibility. It will be removed in a future PyTorch release. Please use "
              "`linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")
    dims = (-2, -1) if dim is None else tuple(dim)
    return OPS["linalg_matrix_norm"].impl(input, "nuc", dims, keepdim, out=out)


for _fn in (instance_norm, batch_norm_update_stats, norm_except_dim, frobenius_norm,
            nuclear_norm):
    register(_fn.__name__, _fn, method=False, family="nn.norm")

# ----------------------------------------------------------------------------------------------
# The SyncBatchNorm building blocks. PyTorch provides them for CUDA only (its CPU build raises
# NotImplementedError); cinder computes them on any device, with the CUDA kernels' formulas.
# Channels are dim 1; statistics reduce over every other dim.
# ----------------------------------------------------------------------------------------------


def _channel_view(t, ndim):
    """A per-channel (C,) tensor shaped to broadcast against an (N, C, *) input."""
    return t.view(_channel_shape(ndim))


def _reduce_dims(input):
    return (0,) + tuple(range(2, input.dim()))


def batch_norm_stats(input, eps):
    """Per-channel ``(mean, invstd)``, ``invstd = 1 / sqrt(biased variance + eps)``."""
    var, mean = FUNCTIONS["var_mean"](input, _reduce_dims(input), correction=0)
    return mean, (var + eps).rsqrt()


def batch_norm_elemt(input, weight, bias, mean, invstd, eps):
    """``(input - mean) * invstd * weight + bias`` per channel."""
    nd = input.dim()
    out = (input - _channel_view(mean, nd)) * _channel_view(invstd, nd)
    if weight is not None:
        out = out * _channel_view(weight, nd)
    return out if bias is None else out + _channel_view(bias, nd)


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var,
                                        momentum, eps, counts):
    """Combine per-replica ``mean``/``invstd`` rows (each over ``counts[i]`` elements) into
    the global ``(mean, invstd)``; update the running statistics (unbiased variance)."""
    counts = counts.to(mean.dtype).unsqueeze(1)
    total = counts.sum(0)
    global_mean = (counts * mean).sum(0) / total
    var = invstd.pow(-2) - eps
    global_var = (counts * (var + (mean - global_mean).pow(2))).sum(0) / total
    with grad_mode.no_grad():
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(global_mean * momentum)
        if running_var is not None:
            running_var.mul_(1 - momentum).add_(global_var * (total / (total - 1)) * momentum)
    return global_mean, (global_var + eps).rsqrt()


def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps,
                            count):
    """:func:`batch_norm_gather_stats_with_counts` with ``count`` elements per replica."""
    counts = FUNCTIONS["full"]((mean.shape[0],), count, dtype=mean.dtype, device=mean.device)
    return batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var,
                                               momentum, eps, counts)


def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g,
                               bias_g):
    """Per-channel ``(sum_dy, sum_dy_xmu, grad_weight, grad_bias)`` of the batch-norm backward
    (``sum_dy``/``sum_dy_xmu`` None unless ``input_g``; the others None unless asked)."""
    dims, nd = _reduce_dims(input), input.dim()
    sum_dy = grad_out.sum(dims)
    sum_dy_xmu = (grad_out * (input - _channel_view(mean, nd))).sum(dims)
    grad_weight = sum_dy_xmu * invstd if weight_g else None
    grad_bias = sum_dy if bias_g else None
    if not input_g:
        sum_dy = sum_dy_xmu = None
    return sum_dy, sum_dy_xmu, grad_weight, grad_bias


def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu,
                              count):
    """The input gradient from the reduced sums, with ``count`` the elements per replica."""
    nd = input.dim()
    total = count.sum().to(grad_out.dtype)
    mean_dy = _channel_view(sum_dy, nd) / total
    mean_dy_xmu = _channel_view(sum_dy_xmu, nd) / total
    inv = _channel_view(invstd, nd)
    scale = inv if weight is None else inv * _channel_view(weight, nd)
    xmu = input - _channel_view(mean, nd)
    return (grad_out - mean_dy - xmu * inv * inv * mean_dy_xmu) * scale


for _fn in (batch_norm_stats, batch_norm_elemt, batch_norm_gather_stats,
            batch_norm_gather_stats_with_counts, batch_norm_backward_reduce,
            batch_norm_backward_elemt):
    register(_fn.__name__, _fn, method=False, family="nn.norm")
