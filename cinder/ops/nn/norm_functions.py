"""Normalisation helpers PyTorch publishes on ``torch``: ``instance_norm`` (batch norm over a
(1, N*C, ...) view), ``batch_norm_update_stats``, ``norm_except_dim`` (weight norm's norm),
and the deprecated ``frobenius_norm`` / ``nuclear_norm``."""

import numpy as np

from ..._runtime import warn_once
from .._prep import wrap
from .._registry import OPS, register
from .norm import _update_running, batch_norm


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
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=axes)
    var = x64.var(axis=axes)
    _update_running(running_mean, running_var, mean, var, momentum, x.size // x.shape[1])
    return (wrap(mean.astype(x.dtype), input._dtype, input._device),
            wrap(var.astype(x.dtype), input._dtype, input._device))


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
