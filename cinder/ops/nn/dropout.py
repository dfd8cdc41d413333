"""Dropout kernels: ``torch.dropout``, ``feature_dropout``, ``alpha_dropout``,
``feature_alpha_dropout`` (and their in-place ``_`` forms).

They follow PyTorch's CPU path step by step: a noise tensor is drawn with ``bernoulli_(1 - p)``
from the default generator (so the masks match PyTorch's after the same ``manual_seed``), scaled,
and multiplied in; the gradient is therefore the ``MulBackward0`` of that product.
"""

from ..._tensor import Tensor
from .._registry import register

_ALPHA = 1.7580993408473766        # SELU's alpha * scale: alpha dropout keeps SELU's fixed point


def _check_p(p):
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def _noise_like(input, feature):
    """An uninitialized tensor for the mask: one value per element, or per (sample, channel)
    for the feature (channel-wise) variants."""
    from ..creation import empty
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = tuple(input._data.shape[:2]) + (1,) * (input.dim() - 2)
        return empty(shape, dtype=input._dtype, device=input._device)
    # empty_like keeps a dense input's strides, as PyTorch's does, so the Bernoulli draws
    # land on the same elements of a transposed input (e.g. batch_first attention output).
    from ..creation import empty_like
    return empty_like(input)


def _dropout_impl(input, p, train, feature, alpha, inplace):
    if not isinstance(input, Tensor):
        raise TypeError(f"dropout(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    _check_p(p)
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = input.new_zeros(())
        return input.mul_(zero) if inplace else input * zero
    noise = _noise_like(input, feature)
    noise.bernoulli_(1 - p)
    b = None
    if alpha:
        a = 1.0 / ((_ALPHA * _ALPHA * p + 1) * (1 - p)) ** 0.5
        b = noise.add(-1).mul_(_ALPHA * a).add_(_ALPHA * a * p)
        noise.mul_(a)
    else:
        noise.div_(1 - p)
    out = input.mul_(noise) if inplace else input * noise
    if b is not None:
        out = out.add_(b)
    return out


def dropout(input, p, train):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``."""
    return _dropout_impl(input, p, train, False, False, False)


def dropout_(input, p, train):
    return _dropout_impl(input, p, train, False, False, True)


def feature_dropout(input, p, train):
    """Zero whole channels (dim 1) with probability ``p``."""
    return _dropout_impl(input, p, train, True, False, False)


def feature_dropout_(input, p, train):
    return _dropout_impl(input, p, train, True, False, True)


def alpha_dropout(input, p, train):
    """Dropout that keeps SELU's zero mean and unit variance (dropped values go to SELU's
    negative saturation, then an affine map restores the statistics)."""
    return _dropout_impl(input, p, train, False, True, False)


def alpha_dropout_(input, p, train):
    return _dropout_impl(input, p, train, False, True, True)


def feature_alpha_dropout(input, p, train):
    """Alpha dropout of whole channels."""
    return _dropout_impl(input, p, train, True, True, False)


def feature_alpha_dropout_(input, p, train):
    return _dropout_impl(input, p, train, True, True, True)


for _fn in (dropout, dropout_, feature_dropout, feature_dropout_, alpha_dropout, alpha_dropout_,
            feature_alpha_dropout, feature_alpha_dropout_):
    register(_fn.__name__, _fn, method=False, family="nn.dropout")
