"""Convolution layers: Conv1d/2d/3d, ConvTranspose1d/2d/3d and their Lazy variants."""

import math

from ... import ops as _ops
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from .utils import _pair, _reverse_repeat_tuple, _single, _triple
from .. import init

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d"]

_VALID_PADDING_STRINGS = {"same", "valid"}
_VALID_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _same_padding_pairs(dilation, kernel_size):
    """F.pad's argument (last dim first) that keeps a stride-1 output the input's size."""
    pads = [0, 0] * len(kernel_size)
    for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
        total = d * (k - 1)
        pads[2 * i] = total // 2
        pads[2 * i + 1] = total - total // 2
    return pads


class _ConvNd(Module):
    """What every convolution layer shares: argument checks, the weight/bias parameters,
    PyTorch's initialisation and the repr."""

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode",
                     "output_padding", "in_channels", "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        super().__init__()
        _check_conv_args(in_channels, out_channels, stride, padding, groups, padding_mode)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = (
                _same_padding_pairs(dilation, kernel_size) if padding == "same"
                else [0, 0] * len(kernel_size))
        else:
            self._reversed_padding_repeated_twice = _reverse_repeat_tuple(padding, 2)
        shape = ((in_channels, out_channels // groups) if transposed
                 else (out_channels, in_channels // groups)) + tuple(kernel_size)
        empty = _ops.FUNCTIONS["empty"]
        self.weight = Parameter(empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """PyTorch's default: kaiming-uniform weight (a = sqrt(5)), bias uniform in
        +-1/sqrt(fan_in) — the same RNG calls, so the same weights after manual_seed."""
        with no_grad():
            init.kaiming_uniform_(self.weight, a=math.sqrt(5))
            if self.bias is not None:
                fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
                bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


def _check_conv_args(in_channels, out_channels, stride, padding, groups, padding_mode):
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    if in_channels % groups != 0:
        raise ValueError("in_channels must be divisible by groups")
    if out_channels % groups != 0:
        raise ValueError("out_channels must be divisible by groups")
    if isinstance(padding, str):
        if padding not in _VALID_PADDING_STRINGS:
            raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                             f"{_VALID_PADDING_STRINGS}")
        if padding == "same" and any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
    if padding_mode not in _VALID_PADDING_MODES:
        raise ValueError(f"padding_mode must be one of {_VALID_PADDING_MODES}, but got "
                         f"padding_mode='{padding_mode}'")


class _ConvForward:
    """Forward of the plain convolutions: non-zero padding modes pad with F.pad first."""

    _conv = None           # F.conv1d / conv2d / conv3d
    _tuple = None          # _single / _pair / _triple

    def _conv_forward(self, input, weight, bias):
        conv = type(self)._conv
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, type(self)._tuple(0), self.dilation,
                        self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


def _conv_init(self, tup, in_channels, out_channels, kernel_size, stride, padding, dilation,
               groups, bias, padding_mode, device, dtype):
    padding_ = padding if isinstance(padding, str) else tup(padding)
    _ConvNd.__init__(self, in_channels, out_channels, tup(kernel_size), tup(stride), padding_,
                     tup(dilation), False, tup(0), groups, bias, padding_mode, device, dtype)


class Conv1d(_ConvForward, _ConvNd):
    """1-d convolution over (N, C_in, L) or (C_in, L) inputs."""

    _conv = staticmethod(F.conv1d)
    _tuple = staticmethod(_single)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        _conv_init(self, _single, in_channels, out_channels, kernel_size, stride, padding,
                   dilation, groups, bias, padding_mode, device, dtype)


class Conv2d(_ConvForward, _ConvNd):
    """2-d convolution over (N, C_in, H, W) or (C_in, H, W) inputs."""

    _conv = staticmethod(F.conv2d)
    _tuple = staticmethod(_pair)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        _conv_init(self, _pair, in_channels, out_channels, kernel_size, stride, padding,
                   dilation, groups, bias, padding_mode, device, dtype)


class Conv3d(_ConvForward, _ConvNd):
    """3-d convolution over (N, C_in, D, H, W) or (C_in, D, H, W) inputs."""

    _conv = staticmethod(F.conv3d)
    _tuple = staticmethod(_triple)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        _conv_init(self, _triple, in_channels, out_channels, kernel_size, stride, padding,
                   dilation, groups, bias, padding_mode, device, dtype)


# ----------------------------------------------------------------------------------------------
# Transposed convolutions
# ----------------------------------------------------------------------------------------------

class _ConvTransposeNd(_ConvNd):
    """Transposed convolutions: zero padding only; ``forward(input, output_size)`` picks the
    output_padding that reaches ``output_size``."""

    _conv = None
    _tuple = None

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{self.__class__.__name__}")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         transposed, output_padding, groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size,
                        num_spatial_dims, dilation=None):
        if output_size is None:
            return _single(self.output_padding)
        has_batch = input.dim() == num_spatial_dims + 2
        non_spatial = 2 if has_batch else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + num_spatial_dims:
            output_size = output_size[non_spatial:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, "
                             f"output_size must have {num_spatial_dims} or "
                             f"{non_spatial + num_spatial_dims} elements (got "
                             f"{len(output_size)})")
        min_sizes, max_sizes = [], []
        for d in range(num_spatial_dims):
            size = ((input.size(d + non_spatial) - 1) * stride[d] - 2 * padding[d]
                    + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1)
            min_sizes.append(size)
            max_sizes.append(size + stride[d] - 1)
        for want, lo, hi in zip(output_size, min_sizes, max_sizes):
            if want < lo or want > hi:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {min_sizes} to {max_sizes} (for an input of "
                                 f"{input.size()[2:]})")
        return [want - lo for want, lo in zip(output_size, min_sizes)]

    def forward(self, input, output_size=None):
        nd = len(self.kernel_size)
        output_padding = self._output_padding(input, output_size, self.stride, self.padding,
                                              self.kernel_size, nd, self.dilation)
        return type(self)._conv(input, self.weight, self.bias, self.stride, self.padding,
                                output_padding, self.groups, self.dilation)


def _convT_init(self, tup, in_channels, out_channels, kernel_size, stride, padding,
                output_padding, groups, bias, dilation, padding_mode, device, dtype):
    _ConvTransposeNd.__init__(self, in_channels, out_channels, tup(kernel_size), tup(stride),
                              tup(padding), tup(dilation), True, tup(output_padding), groups,
                              bias, padding_mode, device, dtype)


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution (the gradient of Conv1d with respect to its input)."""

    _conv = staticmethod(F.conv_transpose1d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        _convT_init(self, _single, in_channels, out_channels, kernel_size, stride, padding,
                    output_padding, groups, bias, dilation, padding_mode, device, dtype)


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution (the gradient of Conv2d with respect to its input)."""

    _conv = staticmethod(F.conv_transpose2d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        _convT_init(self, _pair, in_channels, out_channels, kernel_size, stride, padding,
                    output_padding, groups, bias, dilation, padding_mode, device, dtype)


class ConvTranspose3d(_ConvTransposeNd):
    """3-d transposed convolution (the gradient of Conv3d with respect to its input)."""

    _conv = staticmethod(F.conv_transpose3d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        _convT_init(self, _triple, in_channels, out_channels, kernel_size, stride, padding,
                    output_padding, groups, bias, dilation, padding_mode, device, dtype)


# ----------------------------------------------------------------------------------------------
# Lazy variants: in_channels comes from the first input
# ----------------------------------------------------------------------------------------------

class _LazyConvXdMixin(LazyModuleMixin):
    """Shared by the LazyConv classes: parameters stay uninitialized until the first call."""

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            with no_grad():
                if self.transposed:
                    self.weight.materialize((self.in_channels, self.out_channels // self.groups,
                                             *self.kernel_size))
                else:
                    self.weight.materialize((self.out_channels, self.in_channels // self.groups,
                                             *self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()

    def _get_in_channels(self, input):
        spatial = len(self.kernel_size)
        unbatched, batched = spatial + 1, spatial + 2
        if input.dim() not in (unbatched, batched):
            raise ValueError(f"Expected {unbatched}D (unbatched) or {batched}D (batched) input "
                             f"to {self.__class__.__name__}, but got input of size: "
                             f"{input.shape}")
        return input.shape[1] if input.dim() == batched else input.shape[0]


def _lazy_class(name, base, doc):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, *rest, bias=True,
                 device=None, dtype=None, **kwargs):
        # The eager class builds empty placeholders (in_channels=0, no bias); then the
        # parameters are replaced by uninitialized ones, materialized on the first call.
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, *rest, bias=False,
                                 device=device, dtype=dtype, **kwargs)
        self.out_channels = out_channels
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    return type(name, (_LazyConvXdMixin, base), {
        "__init__": __init__, "cls_to_become": base, "__doc__": doc, "__module__": __name__})


LazyConv1d = _lazy_class("LazyConv1d", Conv1d, "Conv1d whose in_channels is inferred.")
LazyConv2d = _lazy_class("LazyConv2d", Conv2d, "Conv2d whose in_channels is inferred.")
LazyConv3d = _lazy_class("LazyConv3d", Conv3d, "Conv3d whose in_channels is inferred.")
LazyConvTranspose1d = _lazy_class("LazyConvTranspose1d", ConvTranspose1d,
                                  "ConvTranspose1d whose in_channels is inferred.")
LazyConvTranspose2d = _lazy_class("LazyConvTranspose2d", ConvTranspose2d,
                                  "ConvTranspose2d whose in_channels is inferred.")
LazyConvTranspose3d = _lazy_class("LazyConvTranspose3d", ConvTranspose3d,
                                  "ConvTranspose3d whose in_channels is inferred.")
