"""Fold an eval-mode BatchNorm into the preceding Conv or Linear (one layer, same output)."""

import copy

from ...autograd.grad_mode import no_grad
from ..parameter import Parameter
from ...ops import FUNCTIONS

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of ``conv`` whose weights include ``bn``'s normalisation (both in eval mode)."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def _ones_zeros(like, weight, bias):
    w = FUNCTIONS["ones_like"](like) if weight is None else weight
    b = FUNCTIONS["zeros_like"](like) if bias is None else bias
    return w, b


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """Conv weight and bias with BatchNorm statistics and affine parameters folded in."""
    with no_grad():
        conv_dtype, weight_dtype = conv_w.dtype, conv_w.dtype
        if conv_b is None:
            conv_b = FUNCTIONS["zeros_like"](bn_rm)
        bn_w, bn_b = _ones_zeros(bn_rm, bn_w, bn_b)
        bn_var_rsqrt = (bn_rv + bn_eps).rsqrt()
        shape = [1] * conv_w.dim()
        shape[1 if transpose else 0] = -1
        fused_w = (conv_w * (bn_w * bn_var_rsqrt).reshape(shape)).to(dtype=weight_dtype)
        fused_b = ((conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b).to(dtype=conv_dtype)
    return (Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad))


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` whose weights include ``bn``'s normalisation (both in eval mode)."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(linear)
    if not (linear.out_features == bn.num_features or bn.num_features == 1):
        raise AssertionError("To fuse, linear.out_features == bn.num_features or "
                             "bn.num_features == 1")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """Linear weight and bias with BatchNorm statistics and affine parameters folded in."""
    with no_grad():
        if linear_b is None:
            linear_b = FUNCTIONS["zeros_like"](bn_rm)
        bn_scale = bn_w * (bn_rv + bn_eps).rsqrt()
        fused_w = linear_w * bn_scale.unsqueeze(-1)
        fused_b = (linear_b - bn_rm) * bn_scale + bn_b
    return (Parameter(fused_w, linear_w.requires_grad),
            Parameter(fused_b, linear_b.requires_grad))
