"""Activation kernels: softmax/log_softmax (fused) and the pointwise nonlinearities of
``nn.functional`` (gelu, silu, elu, leaky_relu, hardtanh, softplus, ...).

Each op computes on backend arrays and records a node named as PyTorch's; the derivatives are
formulas in cinder ops, so higher-order gradients work. Half-precision inputs compute in
float32 and round once at the end. Ops PyTorch keeps in ``torch._C._nn`` are in the op table
but not published as ``cinder.<name>``; ``nn.functional`` calls them.
"""

import math
import os

import numpy as np

from ... import _dtype as D
from ... import backend
from ..._runtime import get_num_threads
from ..._tensor import Tensor
from ...autograd import grad_mode
from .._layouts import row_major
from .._prep import not_implemented, wrap, xp_of
from .._pointwise_factory import _REDUCED
from ..pointwise import where
from ..unary import _zeros_grad
from .._registry import make_inplace, needs_grad, node_class, record, register
from ...random import default_generator

_HALF = (D.float16, D.bfloat16)
_SQRT1_2 = 1 / math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_K_TANH = math.sqrt(2 / math.pi)


def _check_input(input, fname):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _compute(input, kernel, kernel_name, int_ok=False):
    """Run ``kernel(xp, array)`` on ``input``; returns the result array in input's dtype."""
    dt = input._dtype
    if int_ok and dt is D.bool and kernel_name == "hardtanh_cpu":
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if dt.category != D.FLOATING and not (int_ok and dt.category < D.FLOATING
                                          and dt is not D.bool):
        not_implemented(kernel_name, dt)
    a = input._data
    if dt in _HALF:
        a = a.astype(np.float32)
    xp = np if input._device.type == "cpu" else xp_of(input)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        res = kernel(xp, a)
    if res.dtype != dt.numpy_dtype:
        res = res.astype(dt.numpy_dtype)
    return res


def inplace_node(node):
    """The node class PyTorch records for the in-place form of some activations: the same
    formulas under the name ``...Backward1`` (``elu_`` records ``EluBackward1``)."""
    return node_class(node.__name__.replace("Backward0", "Backward1"),
                      dict(zip(node._inputs, node._formulas)), saves_also=tuple(node._saves))


def activation(name, kernel, node, kernel_name, *, int_ok=False, inplace=True,
               publish=False, method=False, params=(), node_inplace=None, defaults=()):
    """Define ``name(input, *params)`` from ``kernel(xp, a, *params)`` and its node.

    ``params`` are the names of scalar arguments (saved for the formulas under those names);
    ``defaults`` the values of the last ones when left out (they may also be given by name).
    ``publish``: also ``cinder.<name>`` (only where PyTorch has ``torch.<name>``).
    ``node_inplace``: the node the in-place form records, when PyTorch names it differently.
    """
    def compute(input, args, record_as):
        _check_input(input, name)
        values = dict(zip(params, args))
        res = _compute(input, lambda xp, a: kernel(xp, a, *args), kernel_name, int_ok)
        result = wrap(res, input._dtype, input._device)
        if record_as is not None and input._requires_grad and needs_grad(input):
            record(record_as, (input,), (result,), self=input, **values)
        return result

    def fn(input, *args, **kwargs):
        if kwargs or len(args) < len(params):
            args = _full_params(name, params, defaults, args, kwargs)
        return compute(input, args, node)

    def fn_for_inplace(input, *args):
        return compute(input, args, node_inplace or node)

    fn.__name__ = fn.__qualname__ = name
    inp = make_inplace(fn_for_inplace, name) if inplace else None
    register(name, fn, method=method, inplace=None, family="nn.activation",
             nodes=(node,) if node_inplace is None else (node, node_inplace),
             function_too=publish)
    fn.inplace = inp
    return fn


def _full_params(name, params, defaults, args, kwargs):
    """The scalar arguments in ``params`` order, filled from keywords and ``defaults``."""
    values = dict(zip(params[len(params) - len(defaults):], defaults))
    values.update(zip(params, args))
    for key, value in kwargs.items():
        if key not in params:
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
        values[key] = value
    missing = [p for p in params if p not in values]
    if missing:
        raise TypeError(f"{name}() missing required argument '{missing[0]}'")
    return tuple(values[p] for p in params)


# ----------------------------------------------------------------------------------------------
# Pointwise activations
# ----------------------------------------------------------------------------------------------

def _gelu_derivative(xp, x, approximate):
    """d gelu / dx as arrays (``x`` in float32 or wider)."""
    if approximate == "tanh":
        x2 = x * x
        t = xp.tanh(_K_TANH * (x + 0.044715 * x2 * x))
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _K_TANH * (1 + 3 * 0.044715 * x2)
    cdf = 0.5 * (1 + backend.special_module(xp).erf(x * _SQRT1_2))
    return cdf + x * (xp.exp(x * x * -0.5) * _INV_SQRT_2PI)


def _gelu_second_derivative(x, approximate):
    """d^2 gelu / dx^2 in differentiable cinder ops (for gradients of the gradient):
    ``pdf(x) (2 - x^2)``, or for the tanh form ``(1 - t^2)(u - x t u^2 + 3 k c x^2)`` with
    ``u = k (1 + 3 c x^2)``, ``t = tanh(k (x + c x^3))``."""
    x2 = x * x
    if approximate == "tanh":
        u = _K_TANH * (1 + 3 * 0.044715 * x2)
        t = ((x + 0.044715 * x2 * x) * _K_TANH).tanh()
        return (1 - t * t) * (u - x * t * u * u + 3 * _K_TANH * 0.044715 * x2)
    return (x2 * -0.5).exp() * _INV_SQRT_2PI * (2 - x2)


# gelu's gradient is an op of its own, as in PyTorch (``gelu_backward``): one NumPy pass
# (in float32 for the half types, rounded once) instead of a chain of tensor ops, and the
# node ``GeluBackwardBackward0`` under create_graph.
_GeluBackwardNode = node_class("GeluBackwardBackward0", {
    "grad_output": lambda grad, s: gelu_backward(grad, s.self, s.approximate),
    "self": lambda grad, s: grad * s.grad_output * _gelu_second_derivative(s.self,
                                                                           s.approximate)})


def gelu_backward(grad_output, self, approximate="none"):
    """``grad_output * gelu'(self)``."""
    xp = xp_of(grad_output)
    g, x = grad_output._data, self._data
    if grad_output._dtype in _REDUCED:          # float16/bfloat16: compute in float32
        g, x = g.astype(np.float32), x.astype(np.float32)
    res = wrap((g * _gelu_derivative(xp, x, approximate)).astype(grad_output._data.dtype,
                                                                 copy=False),
               grad_output._dtype, grad_output._device)
    if needs_grad(grad_output, self):
        record(_GeluBackwardNode, (grad_output, self), (res,), grad_output=grad_output,
               self=self, approximate=approximate)
    return res


register("gelu_backward", gelu_backward, method=False, function_too=False,
         family="nn.activation", nodes=(_GeluBackwardNode,))


def _gelu_kernel(xp, a, approximate):
    if approximate == "tanh":
        return 0.5 * a * (1 + xp.tanh(_K_TANH * (a + 0.044715 * a * a * a)))
    return 0.5 * a * (1 + backend.special_module(xp).erf(a * _SQRT1_2))


GeluNode = node_class("GeluBackward0", {
    "self": lambda grad, s: gelu_backward(grad, s.self, s.approximate)})
_gelu = activation("gelu", _gelu_kernel, GeluNode, "GeluKernelImpl", params=("approximate",))


def gelu(input, approximate="none"):
    """Gaussian Error Linear Unit; ``approximate='tanh'`` uses the tanh formula."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _gelu(input, approximate)


def _sigmoid(xp, a):
    return 1 / (1 + xp.exp(-a))


def _silu_grad(grad, s):
    sig = s.self.sigmoid()
    return grad * sig * (1 + s.self * (1 - sig))


silu = activation("silu", lambda xp, a: a * _sigmoid(xp, a),
                  node_class("SiluBackward0", {"self": _silu_grad}, saves_also=("self",)),
                  "silu_cpu")


def _mish_grad(grad, s):
    x = s.self
    tsp = _softplus_t(x).tanh()
    return grad * (tsp + x * x.sigmoid() * (1 - tsp * tsp))


def _softplus_t(x):
    # softplus on tensors, for formulas: log1p(exp(-|x|)) + max(x, 0)
    return (-x.abs()).exp().log1p() + x.clamp_min(0)


def _softplus_arr(xp, a):
    return xp.log1p(xp.exp(-xp.abs(a))) + xp.maximum(a, 0)


mish = activation("mish", lambda xp, a: a * xp.tanh(_softplus_arr(xp, a)),
                  node_class("MishBackward0", {"self": _mish_grad}, saves_also=("self",)),
                  "mish_cpu")


def _elu_kernel(xp, a, alpha, scale, input_scale):
    neg = (xp.exp(xp.minimum(a, 0) * input_scale) - 1) * (alpha * scale)
    return xp.where(a > 0, a * scale, neg)


def _elu_grad(grad, s):
    x = s.self
    neg = grad * ((x.clamp_max(0) * s.input_scale).exp() * (s.alpha * s.scale * s.input_scale))
    return where(x > 0, grad * s.scale, neg)


_EluNode = node_class("EluBackward0", {"self": _elu_grad},
                      saves_also=("self", "alpha", "scale", "input_scale"))
elu = activation("elu", _elu_kernel, _EluNode, "elu_cpu", params=("alpha", "scale", "input_scale"),
                 node_inplace=inplace_node(_EluNode))
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input):
    """Scaled ELU with the self-normalising constants."""
    return elu(input, _SELU_ALPHA, _SELU_SCALE, 1.0)


def selu_(input):
    return elu.inplace(input, _SELU_ALPHA, _SELU_SCALE, 1.0)


_CeluNode = node_class("CeluBackward0", {"self": _elu_grad},
                       saves_also=("self", "alpha", "scale", "input_scale"))
_celu = activation("celu", _elu_kernel, _CeluNode, "elu_cpu",
                   params=("alpha", "scale", "input_scale"), node_inplace=inplace_node(_CeluNode))


def celu(input, alpha=1.0):
    """Continuously differentiable ELU: ``max(0,x) + min(0, alpha*(exp(x/alpha)-1))``."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _celu(input, alpha, 1.0, 1.0 / alpha)


def celu_(input, alpha=1.0):
    return _celu.inplace(input, alpha, 1.0, 1.0 / alpha)


register("selu", selu, method=False, inplace=None, family="nn.activation")
register("celu", celu, method=False, inplace=None, family="nn.activation")

# The backward of the piecewise-linear activations is an op of its own, as in PyTorch
# (``leaky_relu_backward``, ``hardtanh_backward``): linear in the gradient, with a zero
# derivative in ``self`` that keeps ``self`` in the graph, so a gradient taken with
# create_graph=True requires grad and prints PyTorch's ``...BackwardBackward0``.

def _masked_backward(node, grad_output, self, keep, values):
    """``grad_output`` where ``keep``, else ``grad_output`` times the scalar ``values[1]``
    (0 when None), recorded as ``node`` over (grad_output, self)."""
    xp = xp_of(grad_output)
    g = grad_output._data
    other = g * values[1] if values[1] is not None else xp.zeros_like(g)
    res = wrap(xp.where(keep, g, other).astype(g.dtype, copy=False), grad_output._dtype,
               grad_output._device)
    if needs_grad(grad_output, self):
        record(node, (grad_output, self), (res,), self=self, **values[0])
    return res


_LeakyBackwardNode = node_class("LeakyReluBackwardBackward0", {
    "grad_output": lambda grad, s: leaky_relu_backward(grad, s.self, s.negative_slope,
                                                       s.self_is_result),
    "self": _zeros_grad})


def leaky_relu_backward(grad_output, self, negative_slope, self_is_result):
    """The gradient of leaky_relu: ``grad_output`` where ``self > 0``, else times
    ``negative_slope`` (``self`` may be the result, for the in-place form: same sign)."""
    return _masked_backward(_LeakyBackwardNode, grad_output, self, self._data > 0,
                            (dict(negative_slope=negative_slope,
                                  self_is_result=self_is_result), negative_slope))


_HardtanhBackwardNode = node_class("HardtanhBackwardBackward0", {
    "grad_output": lambda grad, s: hardtanh_backward(grad, s.self, s.min_val, s.max_val),
    "self": _zeros_grad})


def hardtanh_backward(grad_output, self, min_val, max_val):
    """The gradient of hardtanh: ``grad_output`` where ``min_val < self < max_val`` (and where
    ``self`` is NaN, as PyTorch's ``self <= min || self >= max ? 0 : grad``), else 0."""
    a = self._data
    keep = ~((a <= min_val) | (a >= max_val))
    return _masked_backward(_HardtanhBackwardNode, grad_output, self, keep,
                            (dict(min_val=min_val, max_val=max_val), None))


register("leaky_relu_backward", leaky_relu_backward, method=False, function_too=False,
         family="nn.activation", nodes=(_LeakyBackwardNode,))
register("hardtanh_backward", hardtanh_backward, method=False, function_too=False,
         family="nn.activation", nodes=(_HardtanhBackwardNode,))

_LeakyNode = node_class("LeakyReluBackward0", {
    "self": lambda grad, s: leaky_relu_backward(grad, s.self, s.negative_slope, False)})
leaky_relu = activation(
    "leaky_relu", lambda xp, a, slope: xp.where(a > 0, a, a * slope), _LeakyNode,
    "leaky_relu_cpu", params=("negative_slope",), node_inplace=inplace_node(_LeakyNode))


def _hardtanh_kernel(xp, a, lo, hi):
    return xp.minimum(xp.maximum(a, lo), hi)


hardtanh = activation(
    "hardtanh", _hardtanh_kernel,
    node_class("HardtanhBackward0", {
        "self": lambda grad, s: hardtanh_backward(grad, s.self, s.min_val, s.max_val)}),
    "hardtanh_cpu", int_ok=True, params=("min_val", "max_val"))

hardsigmoid = activation(
    "hardsigmoid", lambda xp, a: xp.minimum(xp.maximum(a / 6 + 0.5, 0), 1),
    node_class("HardsigmoidBackward0", {
        "self": lambda grad, s: grad * ((s.self > -3) & (s.self < 3)) / 6}),
    "hardsigmoid_cpu")


def _hardswish_grad(grad, s):
    x = s.self
    mid = grad * (x / 3 + 0.5)
    return where(x < -3, grad * 0, where(x <= 3, mid, grad))


hardswish = activation(
    "hardswish", lambda xp, a: a * xp.minimum(xp.maximum(a + 3, 0), 6) / 6,
    node_class("HardswishBackward0", {"self": _hardswish_grad}, saves_also=("self",)),
    "hardswish_cpu")


def _softplus_kernel(xp, a, beta, threshold):
    z = a * beta
    return xp.where(z > threshold, a, xp.log1p(xp.exp(xp.minimum(z, threshold))) / beta)


def _softplus_grad(grad, s):
    z = s.self * s.beta
    e = z.clamp_max(s.threshold).exp()
    return where(z > s.threshold, grad, grad * e / (e + 1))


softplus = activation("softplus", _softplus_kernel,
                      node_class("SoftplusBackward0", {"self": _softplus_grad},
                                 saves_also=("self", "beta", "threshold")), "softplus_cpu",
                      inplace=False, params=("beta", "threshold"))


def _shrink_mask(s):
    return (s.self > s.lambd) | (s.self < -s.lambd)


softshrink = activation(
    "softshrink",
    lambda xp, a, l: xp.where(a > l, a - l, xp.where(a < -l, a + l, xp.zeros_like(a))),
    node_class("SoftshrinkBackward0", {"self": lambda grad, s: grad * _shrink_mask(s)},
               saves_also=("self", "lambd")),
    "softshrink_check", inplace=False, params=("lambd",))
hardshrink = activation(
    "hardshrink", lambda xp, a, l: xp.where((a > l) | (a < -l), a, xp.zeros_like(a)),
    node_class("HardshrinkBackward0", {"self": lambda grad, s: grad * _shrink_mask(s)},
               saves_also=("self", "lambd")),
    "hardshrink_cpu", inplace=False, publish=True, method=True, params=("lambd",),
    defaults=(0.5,))
_ThresholdNode = node_class("ThresholdBackward0", {
    "self": lambda grad, s: grad * (s.self > s.threshold)})
threshold = activation(
    "threshold", lambda xp, a, th, value: xp.where(a > th, a, xp.asarray(value, dtype=a.dtype)),
    _ThresholdNode, "threshold_cpu", int_ok=True, publish=True, params=("threshold", "value"),
    node_inplace=inplace_node(_ThresholdNode))


def _log_sigmoid_kernel(xp, a):
    out = xp.minimum(a, 0) - xp.log1p(xp.exp(-xp.abs(a)))
    # PyTorch's forward writes into a row-major buffer whatever the input's layout
    return out if a.flags.c_contiguous else row_major(out)


log_sigmoid = activation(
    "log_sigmoid", _log_sigmoid_kernel,
    node_class("LogSigmoidBackward0", {"self": lambda grad, s: grad * (-s.self).sigmoid()}),
    "log_sigmoid_cpu", inplace=False)


# ----------------------------------------------------------------------------------------------
# PReLU (learnable slope per channel)
# ----------------------------------------------------------------------------------------------

def _prelu_weight_shape(input, weight):
    n = weight.numel()
    if n != 1 and input.dim() >= 2 and n != input._data.shape[1] or \
            n != 1 and input.dim() < 2:
        channels = input._data.shape[1] if input.dim() >= 2 else 1
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {n} and channel size = {channels}.")
    if n == 1 or input.dim() < 2:
        return ()
    return (1, n) + (1,) * (input.dim() - 2)


def _prelu_self_grad(grad, s):
    w = s.weight.reshape(s.wshape) if s.wshape else s.weight.reshape(())
    return where(s.self > 0, grad, grad * w)


def _prelu_weight_grad(grad, s):
    g = where(s.self > 0, grad * 0, grad * s.self)
    if s.wshape:
        return g.sum_to_size(s.wshape).reshape(s.weight.shape)
    return g.sum().reshape(s.weight.shape)


PreluNode = node_class("PreluKernelBackward0", {"self": _prelu_self_grad,
                                                "weight": _prelu_weight_grad},
                       saves_also=("self", "weight", "wshape"))


def prelu(input, weight):
    """``max(0, x) + weight * min(0, x)`` with ``weight`` shared or one per channel (dim 1)."""
    _check_input(input, "prelu")
    if input._dtype.category != D.FLOATING:
        not_implemented("prelu_cpu", input._dtype)
    wshape = _prelu_weight_shape(input, weight)
    w = weight._data.reshape(wshape) if wshape else weight._data.reshape(())
    a = input._data
    res = np.where(a > 0, a, a * w).astype(input._dtype.numpy_dtype, copy=False)
    result = wrap(res, input._dtype, input._device)
    if needs_grad(input, weight):
        record(PreluNode, (input, weight), (result,), self=input, weight=weight, wshape=wshape)
    return result


register("prelu", prelu, method=True, family="nn.activation", nodes=(PreluNode,))


# ----------------------------------------------------------------------------------------------
# softmax / log_softmax (fused)
# ----------------------------------------------------------------------------------------------

def _row_max(a, axis):
    """``a.max(axis, keepdims=True)``. NumPy reduces a short contiguous last axis (a
    classifier's (N, C) logits) one row at a time, ~4x slower than reducing the transposed
    copy across rows with the vectorised elementwise maximum; the maximum is exact either
    way (NaN propagates in both)."""
    if (axis == 1 and a.ndim == 2 and a.shape[1] <= 128 and a.shape[0] >= 64
            and isinstance(a, np.ndarray)):      # (CuPy reduces rows in parallel anyway)
        return np.ascontiguousarray(a.T).max(axis=0)[:, None]
    return a.max(axis=axis, keepdims=True)


def _reduced_float_lanes():
    """How many float16/bfloat16 elements one of PyTorch's CPU vectors holds: 32 where ATen
    runs its AVX512 kernels (the CPU has avx512f/bw/vl/dq and ``ATEN_CPU_CAPABILITY`` does not
    lower it), else 16 (AVX2 and the portable build use 32-byte vectors)."""
    global _LANES
    if _LANES is None:
        wanted = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
        flags = set()
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("flags"):
                        flags = set(line.split(":", 1)[1].split())
                        break
        except OSError:
            pass
        avx512 = {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags
        _LANES = 32 if avx512 and wanted in ("", "avx512") else 16
    return _LANES


_LANES = None


def _scalar_positions(outer, inner):
    """Which (outer, inner) positions PyTorch's non-last-dim softmax for float16/bfloat16
    handles in its scalar loop, as a boolean array of shape ``(outer, inner)``.

    The kernel splits the ``outer * inner`` positions into one contiguous chunk per intra-op
    thread; inside a chunk it runs over each row's stretch (the part of one inner row that lies
    in the chunk) a vector of lanes at a time, and what is left of a stretch, too short for a
    whole vector, goes to the scalar loop."""
    n = outer * inner
    lanes = _reduced_float_lanes()
    tasks = max(1, min(get_num_threads(), n))
    size = -(-n // tasks)
    p = np.arange(n)
    begin = p // size * size
    end = np.minimum(begin + size, n)
    row = p - p % inner
    start = np.maximum(begin, row)
    stop = np.minimum(end, row + inner)
    return ((p - start) >= (stop - start) // lanes * lanes).reshape(outer, inner)


def _scalar_pieces(scalar):
    """The positions of ``scalar`` (outer, inner) as a few (row slice, column selector) blocks:
    runs of rows whose scalar positions are the usual tail of the row (a column slice, a view),
    and the rows a chunk boundary cuts, each with its own columns."""
    outer, inner = scalar.shape
    cut = inner // _reduced_float_lanes() * _reduced_float_lanes()
    typical = scalar[:, cut:].all(axis=1) & ~scalar[:, :cut].any(axis=1)
    pieces, start = [], 0
    for i in np.flatnonzero(~typical).tolist() + [outer]:
        if start < i and cut < inner:
            pieces.append((slice(start, i), slice(cut, inner)))
        if i < outer and scalar[i].any():
            pieces.append((slice(i, i + 1), np.flatnonzero(scalar[i])))
        start = i + 1
    return pieces


def _scalar_loop_softmax(e, shifted, axis, half):
    """Softmax over ``axis`` (not the last) as PyTorch's float16/bfloat16 kernel computes it.

    Its scalar loop takes the C library's float32 exponential (correctly rounded, where NumPy's
    vector one can be an ulp off), adds it to the float32 sum as is, and stores it in the
    tensor's dtype before the division: the positions that loop handles get those three
    steps; the vector lanes divide the float32 exponential. Works on ``e`` in place."""
    outer = int(np.prod(e.shape[:axis]))
    inner = int(np.prod(e.shape[axis + 1:]))
    rows = e.reshape(outer, e.shape[axis], inner)
    src = shifted.reshape(rows.shape)
    pieces = _scalar_pieces(_scalar_positions(outer, inner))
    for r, cols in pieces:
        rows[r, :, cols] = np.exp(src[r, :, cols].astype(np.float64))
    total = e.sum(axis=axis, keepdims=True)
    for r, cols in pieces:
        rows[r, :, cols] = rows[r, :, cols].astype(half)
    e /= total
    return e


def _softmax_arr(a, axis, half=None):
    shifted = a - _row_max(a, axis)
    e = np.exp(shifted)
    if half is None:
        e /= e.sum(axis=axis, keepdims=True)
    elif axis == a.ndim - 1:
        e *= 1 / e.sum(axis=axis, keepdims=True)    # PyTorch's last-dim kernel: times 1 / sum
    else:
        _scalar_loop_softmax(e, shifted, axis, half)
    return e


def _log_softmax_arr(a, axis, half=None):
    shifted = a - _row_max(a, axis)
    total = np.exp(shifted).sum(axis=axis, keepdims=True)
    if half is not None and axis == a.ndim - 1:
        # PyTorch's last-dim kernel for float16/bfloat16 keeps the sum of exponentials and
        # its log in the tensor's dtype (other dims stay in float32 throughout)
        shifted -= np.log(total.astype(half)).astype(half)
    else:
        shifted -= np.log(total)
    return shifted


def _plain_arrays(grad):
    """Whether a backward formula may compute on the bare NumPy arrays: no graph of the
    gradient is wanted (no ``create_graph``) and the dtype computes natively (float32/64 on
    the CPU), so the NumPy expression rounds exactly as the same expression in cinder ops."""
    return (not grad_mode.STATE.grad_enabled and grad._device.type == "cpu"
            and grad._dtype in (D.float32, D.float64) and grad._data.ndim > 0)


def _softmax_grad(grad, s):
    if _plain_arrays(grad):
        g, r = grad._data, s.result._data
        res = g * r
        res = r * (g - res.sum(s.dim, keepdims=True))
        return wrap(res, grad._dtype, grad._device)
    return s.result * (grad - (grad * s.result).sum(s.dim, keepdim=True))


def _log_softmax_grad(grad, s):
    if _plain_arrays(grad):
        g, r = grad._data, s.result._data
        res = np.exp(r)
        res *= g.sum(s.dim, keepdims=True)
        return wrap(np.subtract(g, res, out=res), grad._dtype, grad._device)
    return grad - s.result.exp() * grad.sum(s.dim, keepdim=True)


# Without create_graph the formulas run on the arrays (the same expressions, rounded alike):
# the op layer's checks cost more than the arithmetic on a classifier's (N, C) logits.
SoftmaxNode = node_class("SoftmaxBackward0", {"self": _softmax_grad}, saves_also=("result", "dim"))
LogSoftmaxNode = node_class("LogSoftmaxBackward0", {"self": _log_softmax_grad},
                            saves_also=("result", "dim"))


def _softmax_family(name, arr_fn, node, kernel_name):
    def fn(input, dim, dtype=None, *, out=None):
        _check_input(input, name)
        if dtype is not None:
            input = input.to(dtype)
        dt = input._dtype
        if dt.category != D.FLOATING:
            not_implemented(kernel_name, dt)
        nd = input._data.ndim
        if not -max(nd, 1) <= dim < max(nd, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(nd, 1)}, {max(nd, 1) - 1}], but got {dim})")
        axis = dim % max(nd, 1)
        a = input._data
        extra = {}
        if dt in _HALF:
            a = a.astype(np.float32)
            extra["half"] = dt.numpy_dtype
        if nd == 0:
            res = arr_fn(a.reshape(1), 0, **extra).reshape(())
        elif a.size == 0:
            res = a.copy()
        else:
            with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                res = arr_fn(a, axis, **extra)
        # (row-major whatever the input's layout, as PyTorch's kernel writes it)
        result = wrap(res.astype(dt.numpy_dtype, order="C", copy=False), dt, input._device)
        if input._requires_grad and needs_grad(input):
            record(node, (input,), (result,), dim=axis if nd else 0)
        if out is not None:
            from .._registry import write_out
            return write_out(out, result)
        return result

    fn.__name__ = fn.__qualname__ = name
    register(name, fn, family="nn.activation", nodes=(node,))
    return fn


softmax = _softmax_family("softmax", _softmax_arr, SoftmaxNode, "softmax_lastdim_kernel_impl")
log_softmax = _softmax_family("log_softmax", _log_softmax_arr, LogSoftmaxNode,
                              "log_softmax_lastdim_kernel_impl")


# ----------------------------------------------------------------------------------------------
# RReLU (random slopes in training)
# ----------------------------------------------------------------------------------------------

RreluNode = node_class("RreluWithNoiseBackward0", {"self": lambda grad, s: grad * s.noise})
RreluInplaceNode = inplace_node(RreluNode)


def _rrelu_noise(input, lower, upper, training, generator):
    """One slope per element: 1 where x > 0; for x <= 0 a draw from U(lower, upper) in
    element order (PyTorch draws one double per non-positive element), or their mean in eval."""
    a = backend.to_numpy(input._data)       # slopes are drawn on the host, in element order
    neg = a <= 0
    noise = np.ones(a.shape, dtype=np.float64)
    if training:
        eng = (generator or default_generator)._impl
        k = int(neg.sum())
        noise[neg] = eng.uniform(k, np.float64, lower, upper) if k else 0
    else:
        noise[neg] = (lower + upper) / 2
    noise = noise.astype(a.dtype if input._dtype not in _HALF else np.float32)
    return backend.to_device(noise, input._device)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None, *,
          _node=RreluNode):
    """Randomized leaky ReLU (slopes drawn from U(lower, upper) when ``training``)."""
    _check_input(input, "rrelu")
    if input._dtype.category != D.FLOATING:
        not_implemented("rrelu_with_noise_out_cpu", input._dtype)
    noise = _rrelu_noise(input, lower, upper, training, generator)
    res = (input._data * noise).astype(input._dtype.numpy_dtype, copy=False)
    result = wrap(res, input._dtype, input._device)
    if needs_grad(input):
        record(_node, (input,), (result,),
               noise=wrap(noise.astype(input._dtype.numpy_dtype), input._dtype, input._device))
    return result


rrelu_ = make_inplace(lambda input, *args, **kw: rrelu(input, *args, _node=RreluInplaceNode,
                                                      **kw), "rrelu")
register("rrelu", rrelu, method=False, family="nn.activation", nodes=(RreluNode,))
register("rrelu_", rrelu_, method=False, family="nn.activation")


# ----------------------------------------------------------------------------------------------
# GLU (gated linear unit)
# ----------------------------------------------------------------------------------------------

def _glu_grad(grad, s):
    from ..shape import cat
    a, b = s.self.chunk(2, s.dim)
    sig = b.sigmoid()
    return cat([grad * sig, grad * a * sig * (1 - sig)], s.dim)


GluNode = node_class("GluBackward0", {"self": _glu_grad}, saves_also=("self", "dim"))


def glu(input, dim=-1):
    """``a * sigmoid(b)`` for the two halves ``a, b`` of ``input`` along ``dim``."""
    _check_input(input, "glu")
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if input._dtype.category != D.FLOATING:
        not_implemented("glu_cpu", input._dtype)
    axis = dim % input.dim()
    n = input._data.shape[axis]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size {n}")
    dt = input._dtype
    a, b = np.split(input._data.astype(np.float32) if dt in _HALF else input._data, 2, axis)
    with np.errstate(over="ignore"):
        res = (a * (1 / (1 + np.exp(-b)))).astype(dt.numpy_dtype, copy=False)
    result = wrap(res, dt, input._device)
    if needs_grad(input):
        record(GluNode, (input,), (result,), self=input, dim=axis)
    return result


register("glu", glu, method=False, function_too=False, family="nn.activation",
         nodes=(GluNode,))
