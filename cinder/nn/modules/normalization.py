"""Normalisation layers over features: LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm,
CrossMapLRN2d."""

import numbers

from ... import ops as _ops
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..parameter import Parameter
from .module import Module

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm", "CrossMapLRN2d"]


def _shape_tuple(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(normalized_shape)


class LocalResponseNorm(Module):
    """Normalise each position by the squares of ``size`` neighbouring channels."""

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


class CrossMapLRN2d(LocalResponseNorm):
    """The legacy Lua-torch cross-channel LRN of 4-D inputs:
    ``x * (k + alpha / size * S) ** -beta`` with S a sum of squares over nearby channels.

    PyTorch's running-sum loop never subtracts channel 0 once the window has passed it, so
    from channel ``pre_pad`` on, S also holds channel 0's square; that is reproduced here.
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__(size, alpha, beta, k)

    def forward(self, input):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             "instead.")
        pre_pad = int((self.size - 1) / 2 + 1)
        half = pre_pad - 1
        squares = input * input
        padded = F.pad(squares.unsqueeze(1), (0, 0, 0, 0, half, half))
        sums = F.avg_pool3d(padded, (2 * half + 1, 1, 1), stride=1).squeeze(1) * (2 * half + 1)
        channels = input.size(1)
        if channels > pre_pad:
            stale = squares[:, :1].expand(-1, channels - pre_pad, -1, -1)
            sums = sums + F.pad(stale, (0, 0, 0, 0, pre_pad, 0))
        scale = sums * (self.alpha / self.size) + self.k
        return input * scale.pow(-self.beta)


class _AffineNorm(Module):
    """Weight (ones) and optional bias (zeros) of the trailing-shape norms."""

    def _make_affine(self, shape, elementwise_affine, bias, device, dtype):
        empty = _ops.FUNCTIONS["empty"]
        if elementwise_affine:
            self.weight = Parameter(empty(shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(shape, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight 1, bias 0 (no random numbers drawn)."""
        with no_grad():
            if self.weight is not None:
                self.weight.fill_(1)
            if getattr(self, "bias", None) is not None:
                self.bias.zero_()


class LayerNorm(_AffineNorm):
    """Normalise over the trailing ``normalized_shape`` dims, then scale and shift."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self._make_affine(self.normalized_shape, elementwise_affine, bias, device, dtype)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return ("{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}, "
                "bias={use_bias}".format(**self.__dict__, use_bias=self.bias is not None))


class RMSNorm(_AffineNorm):
    """Root-mean-square normalisation over the trailing ``normalized_shape`` dims."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self._make_affine(self.normalized_shape, elementwise_affine, False, device, dtype)
        del self._parameters["bias"]

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return ("{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}"
                .format(**self.__dict__))


class GroupNorm(_AffineNorm):
    """Normalise groups of channels of each sample, then scale and shift per channel."""

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        self._make_affine(num_channels, affine, bias, device, dtype)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return ("{num_groups}, {num_channels}, eps={eps}, affine={affine}, bias={use_bias}"
                .format(**self.__dict__, use_bias=self.bias is not None))
