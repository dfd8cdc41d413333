"""Gradient clipping: ``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm`` and
``clip_grads_with_norm_``."""

import functools
import types
import warnings

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops import FUNCTIONS, OPS
from ...ops.creation import tensor

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm"]


def _no_grad(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with no_grad():
            return fn(*args, **kwargs)
    return wrapper


def _vector_norm(t, p):
    return OPS["vector_norm"].function(t, p)


def _check_foreach(foreach, device):
    # cinder has no separate foreach kernels; foreach=True is accepted where PyTorch has them
    # (CPU and CUDA tensors), and the per-tensor loop below is the same arithmetic.
    if foreach and device.type not in ("cpu", "cuda"):
        raise RuntimeError(f"foreach=True was passed, but can't use the foreach API on "
                           f"{device.type} tensors")


@_no_grad
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type``-norm of all ``tensors`` together (the norm of their norms)."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    first_device = tensors[0].device
    norms = []
    for t in tensors:
        _check_foreach(foreach, t.device)
        norms.append(_vector_norm(t, norm_type))
    total = _vector_norm(FUNCTIONS["stack"]([n.to(first_device) for n in norms]), norm_type)
    if error_if_nonfinite and bool(total.isnan() | total.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
            "by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


@_no_grad
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients by ``max_norm / (total_norm + 1e-6)`` when that is below 1."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return
    coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
    for g in grads:
        _check_foreach(foreach, g.device)
        g.mul_(coef.to(g.device))


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Rescale the gradients of ``parameters`` so their total norm is at most ``max_norm``;
    returns the total norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of :func:`clip_grad_norm_`."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient to ``[-clip_value, clip_value]`` in place."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    for p in parameters:
        if p.grad is not None:
            _check_foreach(foreach, p.grad.device)
            p.grad.clamp_(min=-clip_value, max=clip_value)
