"""``torch.nn.grad``: gradients of convolutions with respect to their input or weight.

A convolution is linear in its input and in its weight, so each gradient is the
vector-Jacobian product of ``F.conv{1,2,3}d`` at any point (zeros here): one autograd call
through the convolution's own backward kernel (conv lives in ``functional``).
"""

from ..autograd import grad as _autograd_grad
from ..autograd.grad_mode import enable_grad
from ..ops import FUNCTIONS

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]


def _conv(n):
    from . import functional as F
    return getattr(F, f"conv{n}d")


def _vjp(n, wrt_input, shape, other, grad_output, stride, padding, dilation, groups):
    """The gradient of conv{n}d with respect to its input (``wrt_input``) or weight, of
    ``shape``, with ``other`` the weight or input held fixed."""
    with enable_grad():
        leaf = FUNCTIONS["zeros"](tuple(shape), dtype=grad_output.dtype,
                                  device=grad_output.device, requires_grad=True)
        x, w = (leaf, other.detach()) if wrt_input else (other.detach(), leaf)
        out = _conv(n)(x, w, None, stride, padding, dilation, groups)
        return _autograd_grad(out, leaf, grad_output)[0]


def _input_grad(n, input_size, weight, grad_output, *conv_args):
    return _vjp(n, True, input_size, weight, grad_output, *conv_args)


def _weight_grad(n, input, weight_size, grad_output, *conv_args):
    return _vjp(n, False, weight_size, input, grad_output, *conv_args)


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv1d with respect to an input of shape ``input_size``."""
    return _input_grad(1, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv1d with respect to a weight of shape ``weight_size``."""
    return _weight_grad(1, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv2d with respect to an input of shape ``input_size``."""
    return _input_grad(2, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv2d with respect to a weight of shape ``weight_size``."""
    return _weight_grad(2, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv3d with respect to an input of shape ``input_size``."""
    return _input_grad(3, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv3d with respect to a weight of shape ``weight_size``."""
    return _weight_grad(3, input, weight_size, grad_output, stride, padding, dilation, groups)
