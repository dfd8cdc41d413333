"""The linear layer's kernel: ``input @ weight.T + bias`` for a 2-d input, one GEMM.

The node is named ``AddmmBackward0``, as PyTorch's ``F.linear`` on a 2-d input with a bias
records. Its formulas are three cinder ops (two matrix products and a column sum), so they are
differentiable again; computing them directly (rather than through ``addmm`` on ``weight.t()``)
saves the transposed views, broadcasts and copies a general addmm needs.
"""

import numpy as np

from ... import _dtype as D
from ...autograd import grad_mode
from .._prep import wrap
from .._registry import needs_grad, node_class, record, register



def _bias_grad(grad, s):
    if grad_mode.STATE.grad_enabled:          # create_graph=True: stay differentiable
        return grad.sum(0)
    return wrap(grad._data.sum(0), grad._dtype, grad._device)


def _input_grad(grad, s):
    if grad_mode.STATE.grad_enabled:
        return grad.mm(s.weight)
    return wrap(np.matmul(grad._data, s.weight._data), grad._dtype, grad._device)


def _weight_grad(grad, s):
    if grad_mode.STATE.grad_enabled:
        return grad.t().mm(s.input)
    return wrap(np.matmul(grad._data.T, s.input._data), grad._dtype, grad._device)


# Inputs in addmm's order (bias, input, weight), so legacy module backward hooks see the
# gradients in the order PyTorch hands them over. Without create_graph the formulas are the
# bare GEMMs and column sum: the shapes and dtypes were checked by the forward.
LinearNode = node_class("AddmmBackward0", {
    "bias": _bias_grad, "input": _input_grad, "weight": _weight_grad})


def linear_2d(input, weight, bias):
    """``input (N, in) @ weight (out, in).T + bias (out,)``; shapes and dtypes are checked by
    the caller's fallback path (this is only taken for matching float tensors)."""
    a, w = input._data, weight._data
    out = np.matmul(a, w.T)
    out += bias._data
    result = wrap(out, input._dtype, input._device)
    if needs_grad(input, weight, bias):
        record(LinearNode, (bias, input, weight), (result,), input=input, weight=weight)
    return result


def can_use_linear_2d(input, weight, bias):
    """The fused path applies to 2-d float32/float64 CPU tensors of one dtype with matching
    inner sizes (everything else goes through addmm/matmul and their checks)."""
    dt = input._dtype
    return (bias is not None and input._data.ndim == 2 and weight._data.ndim == 2
            and bias._data.ndim == 1 and dt in (D.float32, D.float64)
            and weight._dtype is dt and bias._dtype is dt
            and input._device.type == "cpu" and weight._device.type == "cpu"
            and bias._device.type == "cpu"
            and input._data.shape[1] == weight._data.shape[1]
            and bias._data.shape[0] == weight._data.shape[0])


register("linear_2d", linear_2d, method=False, function_too=False, family="nn.linear",
         nodes=(LinearNode,))
