"""Unary pointwise math: neg, abs, sign, sqrt, exp, log, trigonometry, sigmoid, relu, rounding,
erf, conj. Most ops are one ``unary(...)`` entry: a kernel plus its derivative formula.
"""

import numpy as np

from .. import _dtype as D
from .. import backend
from .._tensor import Tensor
from ._pointwise_factory import _REDUCED, _conj, unary
from ._prep import (
    check_tensor_arg,
    not_implemented,
    wrap,
    xp_of,
)
from ._registry import (
    alias,
    make_inplace,
    needs_grad,
    node_class,
    record,
    register,
    write_out,
)
from .pointwise import pow

# ----------------------------------------------------------------------------------------------
# Unary math
# ----------------------------------------------------------------------------------------------

NegNode = node_class("NegBackward0", {"self": lambda grad, s: -grad})


def _neg_kernel(xp, a):
    if a.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return xp.negative(a)


def _refuse(kernel, a):
    """NotImplementedError for an array dtype PyTorch has no ``kernel`` for."""
    not_implemented(kernel, D.from_numpy_dtype(a.dtype))


def _abs_kernel(xp, a):
    if a.dtype == np.bool_:
        _refuse("abs_cpu", a)
    return xp.abs(a)


def _sign_kernel(xp, a):
    if a.dtype == np.bool_:
        return a.copy()
    if a.dtype.kind == "c":
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex "
                                  "numbers. Please use torch.sgn instead.")
    return xp.sign(a)


def _sgn_kernel(xp, a):
    if a.dtype.kind != "c":
        return _sign_kernel(xp, a)
    with np.errstate(all="ignore"):
        return xp.where(a == 0, 0, a / xp.where(a == 0, 1, xp.abs(a))).astype(a.dtype)


neg = unary("neg", _neg_kernel, NegNode)
alias("negative", "neg")
AbsNode = node_class("AbsBackward0", {"self": lambda grad, s: grad * s.self.sgn()})
abs = unary("abs", _abs_kernel, AbsNode, complex_to_real=True, inplace=False)


def _no_complex_abs_(self):
    if self._dtype.category == D.COMPLEX:
        raise RuntimeError("In-place abs is not supported for complex tensors.")


register("abs", abs, inplace=make_inplace(abs, "abs", pointwise=True, precheck=_no_complex_abs_),
         family="pointwise", nodes=(AbsNode,))
alias("absolute", "abs")
sign = unary("sign", _sign_kernel,
             node_class("SignBackward0", {"self": lambda grad, s: grad * 0}))
sgn = unary("sgn", _sgn_kernel, node_class("SgnBackward0", {"self": lambda grad, s: grad * 0}))

_F = {"float_only": True}
reciprocal = unary("reciprocal", lambda xp, a: _errstate(xp.reciprocal, a),
                   node_class("ReciprocalBackward0", {
                       "self": lambda grad, s: -grad * _conj(s.result * s.result)}), **_F)
sqrt = unary("sqrt", lambda xp, a: _errstate(xp.sqrt, a), node_class("SqrtBackward0", {
    "self": lambda grad, s: grad / (2 * _conj(s.result))}), **_F)
rsqrt = unary("rsqrt", lambda xp, a: _errstate(lambda x: 1 / xp.sqrt(x), a),
              node_class("RsqrtBackward0", {
                  "self": lambda grad, s: -0.5 * grad * _conj(s.result.pow(3))}), **_F)
exp = unary("exp", lambda xp, a: _errstate(xp.exp, a), node_class("ExpBackward0", {
    "self": lambda grad, s: grad * _conj(s.result)}), **_F)
exp2 = unary("exp2", lambda xp, a: _errstate(xp.exp2, a), node_class("Exp2Backward0", {
    "self": lambda grad, s: grad * _conj(s.result) * 0.6931471805599453}), **_F)
expm1 = unary("expm1", lambda xp, a: _errstate(xp.expm1, a), node_class("Expm1Backward0", {
    "self": lambda grad, s: grad * _conj(s.result + 1)}), **_F)
log = unary("log", lambda xp, a: _errstate(xp.log, a), node_class("LogBackward0", {
    "self": lambda grad, s: grad / _conj(s.self)}), **_F)
log2 = unary("log2", lambda xp, a: _errstate(xp.log2, a), node_class("Log2Backward0", {
    "self": lambda grad, s: grad / (_conj(s.self) * 0.6931471805599453)}), **_F)
log10 = unary("log10", lambda xp, a: _errstate(xp.log10, a), node_class("Log10Backward0", {
    "self": lambda grad, s: grad / (_conj(s.self) * 2.302585092994046)}), **_F)
log1p = unary("log1p", lambda xp, a: _errstate(xp.log1p, a), node_class("Log1PBackward0", {
    "self": lambda grad, s: grad / _conj(s.self + 1)}), **_F)
sin = unary("sin", lambda xp, a: xp.sin(a), node_class("SinBackward0", {
    "self": lambda grad, s: grad * _conj(s.self.cos())}), **_F)
cos = unary("cos", lambda xp, a: xp.cos(a), node_class("CosBackward0", {
    "self": lambda grad, s: grad * -_conj(s.self.sin())}), **_F)
tan = unary("tan", lambda xp, a: xp.tan(a), node_class("TanBackward0", {
    "self": lambda grad, s: grad * _conj(1 + s.result * s.result)}), **_F)
asin = unary("asin", lambda xp, a: _errstate(xp.arcsin, a), node_class("AsinBackward0", {
    "self": lambda grad, s: grad / _conj((1 - s.self * s.self).sqrt())}), **_F)
acos = unary("acos", lambda xp, a: _errstate(xp.arccos, a), node_class("AcosBackward0", {
    "self": lambda grad, s: -grad / _conj((1 - s.self * s.self).sqrt())}), **_F)
atan = unary("atan", lambda xp, a: xp.arctan(a), node_class("AtanBackward0", {
    "self": lambda grad, s: grad / _conj(1 + s.self * s.self)}), **_F)
sinh = unary("sinh", lambda xp, a: _errstate(xp.sinh, a), node_class("SinhBackward0", {
    "self": lambda grad, s: grad * _conj(s.self.cosh())}), **_F)
cosh = unary("cosh", lambda xp, a: _errstate(xp.cosh, a), node_class("CoshBackward0", {
    "self": lambda grad, s: grad * _conj(s.self.sinh())}), **_F)
# ---- tanh and sigmoid differentiate through ops of their own, as in PyTorch ----------------
# (``tanh_backward(grad, output)``, ``sigmoid_backward(grad, output)``: one pass computed in
# float32 for the half types and rounded once, and a node of their own under create_graph,
# ``TanhBackwardBackward0``, whose formulas are PyTorch's derivatives.yaml entries.)

def _output_backward(name, factor, node):
    """``name(grad_output, output) = grad_output * conj(factor(output))``, recorded as
    ``node``."""
    def op(grad_output, output):
        xp = xp_of(grad_output)
        g, o = grad_output._data, output._data
        if grad_output._dtype in _REDUCED:      # float16/bfloat16: compute in float32
            g, o = g.astype(np.float32), o.astype(np.float32)
        f = factor(o)
        res = g * (xp.conj(f) if f.dtype.kind == "c" else f)
        res = wrap(res.astype(grad_output._data.dtype, copy=False), grad_output._dtype,
                   grad_output._device)
        if needs_grad(grad_output, output):
            record(node, (grad_output, output), (res,), grad_output=grad_output, output=output)
        return res
    op.__name__ = op.__qualname__ = name
    register(name, op, method=False, function_too=False, family="pointwise", nodes=(node,))
    return op


_TanhBackwardNode = node_class("TanhBackwardBackward0", {
    "grad_output": lambda grad, s: tanh_backward(grad, _conj(s.output)),
    "output": lambda grad, s: _conj(grad) * _conj(-2 * _conj(s.output) * s.grad_output)})
tanh_backward = _output_backward("tanh_backward", lambda o: 1 - o * o, _TanhBackwardNode)

_SigmoidBackwardNode = node_class("SigmoidBackwardBackward0", {
    "grad_output": lambda grad, s: sigmoid_backward(grad, _conj(s.output)),
    "output": lambda grad, s: _conj(grad) * s.grad_output * (-2 * _conj(s.output) + 1)})
sigmoid_backward = _output_backward("sigmoid_backward", lambda o: o * (1 - o),
                                    _SigmoidBackwardNode)

tanh = unary("tanh", lambda xp, a: xp.tanh(a), node_class("TanhBackward0", {
    "self": lambda grad, s: tanh_backward(grad, s.result)}), **_F)
for _alias, _target in (("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan")):
    alias(_alias, _target)


def _sigmoid_kernel(xp, a):
    # 1 / (1 + exp(-x)) overflows exp for very negative x; the two-branch form does not.
    with np.errstate(over="ignore"):
        return (1 / (1 + xp.exp(-a))).astype(a.dtype, copy=False)


sigmoid = unary("sigmoid", _sigmoid_kernel, node_class("SigmoidBackward0", {
    "self": lambda grad, s: sigmoid_backward(grad, s.result)}), **_F)


def _relu_kernel(xp, a):
    if a.dtype == np.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    if a.dtype.kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")
    if xp is np and a.ndim and a.shape[-1] >= 16 and a.dtype.kind == "f":
        # NumPy's maximum with a broadcast scalar runs its slow strided loop (~4x slower on
        # 32K floats); a row of zeros broadcast over the rows keeps the vectorised loop.
        # Same values as below.
        return np.maximum(np.zeros(a.shape[-1], a.dtype), a)
    # zero first: where x is -0.0 the maximum hands back its second operand, so -0.0 stays
    # -0.0, as in PyTorch; NaN propagates
    return xp.maximum(0, a).astype(a.dtype, copy=False)


def _zeros_grad(grad, s):
    return wrap(xp_of(grad).zeros_like(grad._data), grad._dtype, grad._device)


ThresholdBackwardNode = node_class("ThresholdBackwardBackward0", {
    "grad_output": lambda grad, s: threshold_backward(grad, s.self, s.threshold),
    "self": _zeros_grad})


def threshold_backward(grad_output, self, threshold):
    """``grad_output`` where ``self > threshold``, else 0: the gradient of relu/threshold as one
    pass (PyTorch's ``aten::threshold_backward``; a NaN in ``self`` lets the gradient through,
    as PyTorch's ``self <= threshold ? 0 : grad`` does)."""
    xp = np if grad_output._device.type == "cpu" else xp_of(grad_output)
    g = grad_output._data
    keep = self._data <= threshold
    # NaN in self keeps the gradient (0-d inputs give a NumPy scalar here, not an array)
    keep = xp.logical_not(keep, out=keep) if keep.ndim else xp.logical_not(keep)
    # Multiplying by the 0/1 mask is ~10x faster than ``where`` on a random mask; ``+= 0``
    # turns the -0.0 of masked negative gradients into PyTorch's 0. A NaN in the product
    # means a non-finite gradient met the mask (inf * 0): then ``where`` gives the exact zeros.
    with np.errstate(invalid="ignore"):
        res = xp.multiply(g, keep)
    res += 0
    if res.dtype.kind in "fc" and xp.isnan(res).any():
        res = xp.where(keep, g, g.dtype.type(0))
    result = wrap(res, grad_output._dtype, grad_output._device)
    if needs_grad(grad_output, self):
        record(ThresholdBackwardNode, (grad_output, self), (result,), self=self,
               threshold=threshold)
    return result


register("threshold_backward", threshold_backward, method=False, function_too=False,
         family="pointwise", nodes=(ThresholdBackwardNode,))


# PyTorch's derivative: threshold_backward(grad, result, 0), one fused pass over the gradient.
relu = unary("relu", _relu_kernel, node_class("ReluBackward0", {
    "self": lambda grad, s: threshold_backward(grad, s.result, 0)}))
SquareNode = node_class("PowBackward0", {"self": lambda grad, s: grad * 2 * _conj(s.self)})
_square = unary("square", lambda xp, a: xp.square(a), SquareNode)


def square(input, *, out=None):
    """``input * input``; bool squares to int64, like ``pow(input, 2)``."""
    if isinstance(input, Tensor) and input._dtype is D.bool:
        return pow(input, 2, out=out)
    return _square(input, out=out)


register("square", square, inplace=True, family="pointwise", nodes=(SquareNode,))


_BFLOAT16 = D.bfloat16.numpy_dtype


def _rounding(name, fname):
    """floor/ceil/trunc: integers are returned as they are; bool and complex are refused."""
    def kernel(xp, a):
        if a.dtype.kind == "f" or a.dtype == _BFLOAT16:
            return getattr(xp, fname)(a)
        if a.dtype == np.bool_:
            _refuse(f"{fname}_vml_cpu", a)
        if a.dtype.kind == "c":
            raise NotImplementedError(f"{fname} is not supported for complex inputs")
        return a.copy()
    return unary(name, kernel,
                 node_class(name.capitalize() + "Backward0", {"self": lambda grad, s: grad * 0}))


floor = _rounding("floor", "floor")
ceil = _rounding("ceil", "ceil")
trunc = _rounding("trunc", "trunc")
alias("fix", "trunc")
frac = unary("frac", lambda xp, a: a - xp.trunc(a), node_class("FracBackward0", {
    "self": lambda grad, s: grad}), int_ok=False)


def round(input, *, decimals=0, out=None):
    """Round half to even (like PyTorch), optionally to ``decimals`` places."""
    check_tensor_arg(input, "round", "input", 1)
    xp = xp_of(input)
    dt = input._dtype
    if dt.category != D.FLOATING:
        if dt is D.bool or dt.category == D.COMPLEX:
            not_implemented("round_vml_cpu" if not decimals else "round_cpu", dt)
        if decimals:
            not_implemented("round_cpu", dt)
        result = wrap(input._data.copy(), dt, input._device)
    else:
        with np.errstate(all="ignore"):
            res = xp.round(input._data, decimals) if decimals else xp.rint(input._data)
        result = wrap(res.astype(dt.numpy_dtype, copy=False), dt, input._device)
    if needs_grad(input):
        record(RoundDecimalsNode if decimals else RoundNode, (input,), (result,))
    return write_out(out, result) if out is not None else result


RoundNode = node_class("RoundBackward0", {"self": lambda grad, s: grad * 0})
RoundDecimalsNode = node_class("RoundBackward1", {"self": lambda grad, s: grad * 0})
register("round", round, inplace=True, family="pointwise", nodes=(RoundNode, RoundDecimalsNode))


def _errstate(f, a):
    with np.errstate(all="ignore"):
        return f(a)


def _erf(xp, a):
    if a.dtype.kind == "c":
        _refuse("erf_vml_cpu", a)
    return backend.special_module(xp).erf(a).astype(a.dtype, copy=False)


erf = unary("erf", _erf, node_class("ErfBackward0", {
    "self": lambda grad, s: grad * 1.1283791670955126 * (-(s.self * s.self)).exp()}), **_F)

# -- conj / real / imag (views for complex) -------------------------------------------------


def conj(input):
    """Complex conjugate (returns ``input`` itself for real tensors, as PyTorch does)."""
    check_tensor_arg(input, "conj", "input", 1)
    if input._dtype.category != D.COMPLEX:
        return input
    xp = xp_of(input)
    result = wrap(xp.conj(input._data), input._dtype, input._device)
    if needs_grad(input):
        record(ConjNode, (input,), (result,))
    return result


ConjNode = node_class("ConjBackward0", {"self": lambda grad, s: grad.conj()})
register("conj", conj, family="pointwise", nodes=(ConjNode,))


def conj_physical(input, *, out=None):
    """The conjugate as a new tensor; a real tensor is its own conjugate and comes back
    itself (PyTorch's kernel returns the input there, strides, storage and graph node
    included)."""
    result = conj(input)
    return write_out(out, result) if out is not None else result


register("conj_physical", conj_physical, inplace=True, family="pointwise")


def resolve_conj(input):
    """``input`` itself: cinder materialises conjugates eagerly (no lazy conj bit)."""
    check_tensor_arg(input, "resolve_conj", "input", 1)
    return input


def resolve_neg(input):
    """``input`` itself: cinder has no lazy negation bit."""
    check_tensor_arg(input, "resolve_neg", "input", 1)
    return input


register("resolve_conj", resolve_conj, family="pointwise")
register("resolve_neg", resolve_neg, family="pointwise")
