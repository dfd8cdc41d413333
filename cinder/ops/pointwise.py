"""Pointwise ops: binary arithmetic, comparisons, clamp, where (unary math is in ``unary.py``).

Most ops here are one ``binary(...)`` or ``unary(...)`` entry: a kernel on arrays plus the
derivative formulas. The factories generate the function, method, in-place and ``out=`` forms.
"""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ._inplace import make_inplace
from ._pointwise_factory import (
    _BOOL_COMPLEX,
    _COMPLEX,
    _NOT_INTEGRAL,
    _ONE,
    _REDUCED,
    _conj,
    _reduced_scalar_operands,
    binary,
    scaled_other,
    unary,  # noqa: F401  (re-exported: ``pointwise.unary``)
)
# re-exported: code written against ``pointwise.eq`` keeps working
from .comparison import eq, ge, gt, le, logical_and, logical_or, logical_xor, lt, ne  # noqa: F401
from ._layouts import iterator_layout, row_major
from ._prep import (
    as_compute,
    binary_operands,
    check_tensor_arg,
    checked_scalar,
    common_device,
    is_scalar,
    not_implemented,
    reraise_broadcast,
    result_type,
    scalar_as,
    wrap,
    xp_of,
)
from ._registry import (
    alias,
    needs_grad,
    node_class,
    record,
    register,
    write_out,
)

# ----------------------------------------------------------------------------------------------
# Arithmetic
# ----------------------------------------------------------------------------------------------

def _times_alpha(grad, alpha):
    """``grad * conj(alpha)`` (derivatives.yaml's ``maybe_multiply(grad, alpha.conj())``):
    the gradient of ``alpha * x`` for a complex ``alpha`` uses its conjugate."""
    return grad if alpha == 1 else grad * alpha.conjugate()


AddNode = node_class("AddBackward0", {
    "self": lambda grad, s: grad,
    "other": lambda grad, s: _times_alpha(grad, s.alpha)})
SubNode = node_class("SubBackward0", {
    "self": lambda grad, s: grad,
    "other": lambda grad, s: -_times_alpha(grad, s.alpha)})
RsubNode = node_class("RsubBackward0", {
    "self": lambda grad, s: -_times_alpha(grad, s.alpha),
    "other": lambda grad, s: grad})
RsubScalarNode = node_class("RsubBackward1", {
    "self": lambda grad, s: -_times_alpha(grad, s.alpha)})


def _check_bool_sub(input, other):
    """Subtraction refuses bool operands, Python ``True``/``False`` included."""
    a_bool = input._dtype is D.bool
    b_bool = other.__class__ is bool or getattr(other, "_dtype", None) is D.bool
    if a_bool and b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def _sub_precheck(input, other):
    if input._dtype is D.bool or other.__class__ is bool or \
            getattr(other, "_dtype", None) is D.bool:
        _check_bool_sub(input, other)


add = binary("add", lambda xp, a, b: xp.add(a, b), AddNode, alpha=True, inplace_any_dtype=True,
             ufunc="add")
sub = binary("sub", lambda xp, a, b: xp.subtract(a, b), SubNode, alpha=True,
             precheck=_sub_precheck, inplace_any_dtype=True, ufunc="subtract")
alias("subtract", "sub")


def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (what ``2 - t`` calls)."""
    tensor = isinstance(other, Tensor)
    if tensor:
        b, a, dt, dev = binary_operands(other, input, "rsub")
    else:
        a, b, dt, dev = binary_operands(input, other, "rsub")
        if dt in _REDUCED:
            a, b = _reduced_scalar_operands(a, b, dt, opmath_scalar=False)
    _check_bool_sub(input, other)
    if alpha is not _ONE:
        a = scaled_other(a, alpha, dt)
    xp = np if dev.type == "cpu" else xp_of(input)
    try:
        res = xp.subtract(b, a)
    except ValueError as exc:
        reraise_broadcast(exc, a, b)
    result = wrap(xp.asarray(res, dtype=dt.numpy_dtype), dt, dev)
    if needs_grad(input, other if tensor else None):
        record(RsubNode if tensor else RsubScalarNode, (input, other if tensor else None),
               (result,), alpha=alpha)
    return result


register("rsub", rsub, method=False, family="pointwise", nodes=(RsubNode, RsubScalarNode))

MulNode = node_class("MulBackward0", {
    "self": lambda grad, s: grad * _conj(s.other),
    "other": lambda grad, s: grad * _conj(s.self)})
mul = binary("mul", lambda xp, a, b: xp.multiply(a, b), MulNode, ufunc="multiply",
             opmath_scalar=True)
alias("multiply", "mul")


DivNode = node_class("DivBackward0", {
    "self": lambda grad, s: grad / _conj(s.other),
    "other": lambda grad, s: -grad * _conj(s.self / (s.other * s.other))})
# Rounded division is piecewise constant: zero gradients, under PyTorch's node name.
DivModeNode = node_class("DivBackward2", {
    "self": lambda grad, s: grad * 0 if s.rounding_mode is not None else grad / _conj(s.other),
    "other": lambda grad, s: grad * 0 if s.rounding_mode is not None else
    -grad * _conj(s.self / (s.other * s.other))})


def _no_derivative(name):
    def formula(grad, s):
        raise RuntimeError(f"the derivative for '{name}' is not implemented.")
    return formula


# floor_divide has no derivative in PyTorch: its node raises when backward reaches it.
FloorDivideNode = node_class("NotImplemented", {"self": _no_derivative("floor_divide"),
                                                "other": _no_derivative("floor_divide")})

_true_div = binary("true_divide", lambda xp, a, b: xp.true_divide(a, b), DivNode,
                   promote_int_to_float=True, ufunc="true_divide", opmath_scalar=True)


def _check_int_divisor(b):
    if (b == 0) if is_scalar(b) else bool((b == 0).any()):
        raise RuntimeError("ZeroDivisionError")


def _div_rounded(xp, a, b, mode, dt):
    if dt.category < D.FLOATING:
        if dt is D.bool:
            not_implemented("div_trunc_cpu" if mode == "trunc" else "div_floor_cpu", dt)
        _check_int_divisor(b)
        q = xp.floor_divide(a, b)
        if mode == "trunc":
            # floor and trunc differ when the signs differ and the division is inexact
            q = q + ((xp.remainder(a, b) != 0) & ((xp.asarray(a) < 0) != (xp.asarray(b) < 0)))
        return xp.asarray(q).astype(dt.numpy_dtype, copy=False)
    if dt.category == D.COMPLEX:
        not_implemented("div_trunc_cpu" if mode == "trunc" else "div_floor_cpu", dt)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if mode == "trunc":
            q = xp.trunc(xp.true_divide(a, b))
        elif a.dtype in _REDUCED_ARRAYS:
            q = _reduced_floor_divide(xp, a, b)
        else:
            # NumPy's floor_divide is PyTorch's div_floor algorithm (fmod, then correct the
            # quotient), which differs from floor(a / b) in the last place
            q = xp.floor_divide(a, b)
    return xp.asarray(q).astype(dt.numpy_dtype, copy=False)


def _reduced_floor_divide(xp, a, b):
    """PyTorch's div_floor for two float16/bfloat16 tensors: its steps in the tensors' own
    arithmetic, each rounded (a Python-scalar divisor is computed in float32 instead, by the
    caller)."""
    one, half = a.dtype.type(1), a.dtype.type(0.5)
    mod = xp.fmod(a, b)
    div = (a - mod) / b
    div = xp.where((mod != 0) & ((b < 0) != (mod < 0)), div - one, div)
    floor = xp.floor(div)
    floor = xp.where(div - floor > half, floor + one, floor)
    quotient = a / b
    floor = xp.where(div != 0, floor, xp.copysign(xp.zeros_like(div), quotient))
    return xp.where(b == 0, quotient, floor)     # x // 0 is x / 0 (inf or nan)


def _div_mode(input, other, mode, node, out):
    if not isinstance(input, Tensor):
        from .creation import scalar_tensor_like
        input = scalar_tensor_like(input, other)
    if mode is None:
        # div(..., rounding_mode=None) given explicitly: true division, under DivBackward2
        with no_grad():
            result = _true_div(input, other)
        if needs_grad(input, other if isinstance(other, Tensor) else None):
            record(node, (input, other if isinstance(other, Tensor) else None), (result,),
                   self=input, other=other, rounding_mode=None)
        return write_out(out, result) if out is not None else result
    a, b, dt, dev = binary_operands(input, other, "div")
    if dt in _REDUCED and not isinstance(other, Tensor):
        a, b = _reduced_scalar_operands(a, b, dt, opmath_scalar=True)
    xp = np if dev.type == "cpu" else xp_of(input)
    try:
        res = _div_rounded(xp, a, b, mode, dt)
    except ValueError as exc:
        reraise_broadcast(exc, a, b)
    result = wrap(res, dt, dev)
    if needs_grad(input, other if isinstance(other, Tensor) else None):
        record(node, (input, other if isinstance(other, Tensor) else None), (result,),
               rounding_mode=mode)
    return write_out(out, result) if out is not None else result


_TRUE_DIVISION = object()    # div's default: distinguishes an explicit rounding_mode=None


def div(input, other, *, rounding_mode=_TRUE_DIVISION, out=None):
    """Divide; ``rounding_mode`` None (true division), 'trunc' or 'floor'."""
    if rounding_mode is _TRUE_DIVISION:
        return _true_div(input, other, out=out)
    if rounding_mode not in (None, "trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    return _div_mode(input, other, rounding_mode, DivModeNode, out)


register("div", div, inplace=True, family="pointwise", nodes=(DivNode, DivModeNode))
alias("divide", "div")


def floor_divide(input, other, *, out=None):
    """Division rounded down (``//``)."""
    return _div_mode(input, other, "floor", FloorDivideNode, out)


register("floor_divide", floor_divide, inplace=True, family="pointwise",
         nodes=(FloorDivideNode,))

RemainderScalarNode = node_class("RemainderBackward0", {"self": lambda grad, s: grad})
RemainderNode = node_class("RemainderBackward1", {
    "self": lambda grad, s: grad,
    "other": lambda grad, s: -grad * s.self.div(s.other, rounding_mode="floor")})
FmodScalarNode = node_class("FmodBackward0", {"self": lambda grad, s: grad})
FmodNode = node_class("FmodBackward1", {
    "self": lambda grad, s: grad,
    "other": lambda grad, s: -grad * s.self.div(s.other, rounding_mode="trunc")})


def _modulo_kernel(ufunc):
    def kernel(xp, a, b):
        if a.dtype.kind in "iu":
            _check_int_divisor(b)
        with np.errstate(divide="ignore", invalid="ignore"):
            if ufunc == "remainder" and (a.dtype.kind == "f" or a.dtype in _REDUCED_ARRAYS):
                return _float_remainder(xp, *_in_float32(a, b))
            return getattr(xp, ufunc)(a, b)
    return kernel


_REDUCED_ARRAYS = frozenset(d.numpy_dtype for d in _REDUCED)


def _in_float32(a, b):
    """float16/bfloat16 operands as PyTorch's CPU kernels compute them: in float32 (the caller
    rounds the result once); other dtypes unchanged."""
    if a.dtype in _REDUCED_ARRAYS:
        return a.astype(np.float32), (np.float32(b) if is_scalar(b) else b.astype(np.float32))
    return a, b


def _float_remainder(xp, a, b):
    """PyTorch's floating remainder: ``fmod`` moved into the divisor's sign. Unlike NumPy's
    it keeps fmod's signed zero (``-3 % 3`` is -0.0)."""
    mod = xp.fmod(a, b)
    wrong_sign = (mod != 0) & ((xp.asarray(b) < 0) != (mod < 0))
    return xp.where(wrong_sign, mod + b, mod)


remainder = binary("remainder", _modulo_kernel("remainder"), RemainderNode,
                   scalar_node=RemainderScalarNode, unsupported=("remainder_cpu", _BOOL_COMPLEX))
fmod = binary("fmod", _modulo_kernel("fmod"), FmodNode, scalar_node=FmodScalarNode,
              unsupported=("fmod_cpu", _BOOL_COMPLEX))

# -- pow --------------------------------------------------------------------------------------

PowScalarNode = node_class("PowBackward0", {
    "self": lambda grad, s: grad * 0 if s.exponent == 0 else
    grad * _conj(s.exponent * s.self.pow(s.exponent - 1))})
PowTensorNode = node_class("PowBackward1", {
    "self": lambda grad, s: grad * _conj(s.exponent * s.self.pow(s.exponent - 1)),
    "exponent": lambda grad, s: grad * _conj(
        where((s.self == 0) & (s.exponent >= 0), 0.0, s.result * s.self.log()))})
PowBaseNode = node_class("PowBackward2", {
    "exponent": lambda grad, s: grad * _conj(s.result * _log_scalar(s.self_scalar))})


def _log_scalar(v):
    import cmath
    import math
    if isinstance(v, complex):
        return cmath.log(v)
    return math.log(v) if v > 0 else (float("-inf") if v == 0 else float("nan"))


def _int_power(xp, a, b):
    """Integer powers as PyTorch computes them: a negative exponent gives 0 unless the base
    is 1 or -1 (NumPy refuses negative integer exponents)."""
    negative = (b < 0) if is_scalar(b) else (xp.asarray(b) < 0)
    if not (negative if is_scalar(b) else xp.any(negative)):
        return xp.power(a, b)
    pos = xp.power(a, xp.where(negative, 0, b))
    odd = xp.asarray(b) % 2 != 0
    unit = xp.where(a == 1, 1, xp.where(a == -1, xp.where(odd, -1, 1), 0))
    return xp.where(negative, unit, pos)


def _power(xp, a, b, dt):
    if dt is D.bool:
        return xp.ones_like(a) if b == 0 else a.copy()
    if dt.category == D.INTEGRAL:
        return _int_power(xp, a, b)
    with np.errstate(all="ignore"):
        if is_scalar(b) and b == 2 and dt.category >= D.FLOATING:
            return xp.square(a)
        if is_scalar(b) and dt in (D.float32, D.float64) and b in _POW_SHORTCUTS:
            return _POW_SHORTCUTS[b](xp, a)
        if is_scalar(b) and dt in _REDUCED:
            if dt is D.bfloat16 and b in _BF16_POW_SHORTCUTS:
                return _POW_SHORTCUTS[b](xp, a)    # bfloat16 arithmetic: rounded at each step
            b = dt.numpy_dtype.type(b)              # the exponent rounded to the tensor's dtype
        return xp.power(a, b)


# PyTorch's CPU pow with these scalar exponents computes the expression, not pow(), so the
# last bit can differ from powf/pow (measured equal on 1e5 values each, float and double)
_POW_SHORTCUTS = {
    3: lambda xp, a: a * a * a,
    -0.5: lambda xp, a: 1 / xp.sqrt(a),
    -1: lambda xp, a: 1 / a,
    -2: lambda xp, a: 1 / (a * a),
}
# bfloat16 takes the expression for these, one bfloat16 rounding per operation (measured on
# 4,000 values: equal; float16 rounds once, like pow)
_BF16_POW_SHORTCUTS = frozenset((3, -1, -2))


def pow(input, exponent, *, out=None):
    """``input ** exponent``; either may be a Python scalar (not both)."""
    if not isinstance(input, Tensor):
        if not isinstance(exponent, Tensor):
            raise TypeError(f"pow() received an invalid combination of arguments - got "
                            f"({type(input).__name__}, {type(exponent).__name__})")
        a, b, dt, dev = binary_operands(exponent, input, "pow")
        if dt is D.bool:
            not_implemented("pow", dt)
        xp = np if dev.type == "cpu" else xp_of(exponent)
        res = xp.asarray(_power(xp, xp.asarray(b, dtype=dt.numpy_dtype), a, dt))
        if not a.flags.c_contiguous:
            res = row_major(res)    # PyTorch's pow(scalar, tensor) is row-major
        result = wrap(res.astype(dt.numpy_dtype, copy=False), dt, dev)
        if needs_grad(exponent):
            record(PowBaseNode, (exponent,), (result,), self_scalar=input)
        return write_out(out, result) if out is not None else result
    a, b, dt, dev = binary_operands(input, exponent, "pow")
    if dt is D.bool:
        if not (is_scalar(b) and b in (0, 1)):
            not_implemented("pow", dt)
        # PyTorch short-cuts x ** 1 (a copy) and x ** 0 (ones) before choosing a kernel
        b = int(b)
    if dt.category == D.INTEGRAL and is_scalar(b) and b < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    xp = np if dev.type == "cpu" else xp_of(input)
    try:
        res = _power(xp, a, b, dt)
    except ValueError as exc:
        reraise_broadcast(exc, a, b)
    result = wrap(xp.asarray(res).astype(dt.numpy_dtype, copy=False), dt, dev)
    if isinstance(exponent, Tensor):
        if needs_grad(input, exponent):
            record(PowTensorNode, (input, exponent), (result,), self=input, exponent=exponent)
    elif input._requires_grad and needs_grad(input):
        record(PowScalarNode, (input,), (result,), self=input, exponent=exponent)
    return write_out(out, result) if out is not None else result


register("pow", pow, inplace=True, family="pointwise",
         nodes=(PowScalarNode, PowTensorNode, PowBaseNode))


def _float_power_dtype(input, exponent):
    complex_ = any(isinstance(x, (complex, np.complexfloating)) or
                   (isinstance(x, Tensor) and x._dtype.category == D.COMPLEX)
                   for x in (input, exponent))
    return D.complex128 if complex_ else D.float64


def float_power(input, exponent, *, out=None):
    """``pow`` computed in double precision (complex128 when either operand is complex)."""
    dt = _float_power_dtype(input, exponent)
    return pow(input.to(dt) if isinstance(input, Tensor) else input,
               exponent.to(dt) if isinstance(exponent, Tensor) else exponent, out=out)


def float_power_(self, exponent):
    dt = _float_power_dtype(self, exponent)
    if self._dtype is not dt:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{self._dtype.scalar_name} but the operation's result requires "
                           f"dtype {dt.scalar_name}")
    return self.pow_(exponent.to(dt) if isinstance(exponent, Tensor) else exponent)


register("float_power", float_power, inplace=float_power_, family="pointwise")

# -- maximum / minimum ----------------------------------------------------------------------

MaximumNode = node_class("MaximumBackward0", {
    "self": lambda grad, s: where(s.self == s.other, grad / 2, grad).masked_fill(
        s.self < s.other, 0),
    "other": lambda grad, s: where(s.self == s.other, grad / 2, grad).masked_fill(
        s.self > s.other, 0)})
MinimumNode = node_class("MinimumBackward0", {
    "self": lambda grad, s: where(s.self == s.other, grad / 2, grad).masked_fill(
        s.self > s.other, 0),
    "other": lambda grad, s: where(s.self == s.other, grad / 2, grad).masked_fill(
        s.self < s.other, 0)})


def _real_only(name):
    def check(dt, a, b):
        if dt.category == D.COMPLEX:
            raise RuntimeError(f"{name} not implemented for complex tensors.")
    return check


maximum = binary("maximum", lambda xp, a, b: xp.maximum(a, b), MaximumNode,
                 check=_real_only("maximum"), tensor_other=True, inplace=False)
minimum = binary("minimum", lambda xp, a, b: xp.minimum(a, b), MinimumNode,
                 check=_real_only("minimum"), tensor_other=True, inplace=False)
Atan2Node = node_class("Atan2Backward0", {
    "self": lambda grad, s: grad * s.other / (s.self * s.self + s.other * s.other),
    "other": lambda grad, s: grad * -s.self / (s.self * s.self + s.other * s.other)})
atan2 = binary("atan2", lambda xp, a, b: xp.arctan2(a, b), Atan2Node,
               promote_int_to_float=True, tensor_other=True,
               unsupported=("atan2_cpu", _COMPLEX))
alias("arctan2", "atan2")

# -- comparisons and logic (bool results, never differentiable) are built by the comparison
# factory in ``comparison.py`` (re-exported above).

bitwise_and = binary("bitwise_and", lambda xp, a, b: xp.bitwise_and(a, b), None,
                     unsupported=("bitwise_and_cpu", _NOT_INTEGRAL))
bitwise_or = binary("bitwise_or", lambda xp, a, b: xp.bitwise_or(a, b), None,
                    unsupported=("bitwise_or_cpu", _NOT_INTEGRAL))
bitwise_xor = binary("bitwise_xor", lambda xp, a, b: xp.bitwise_xor(a, b), None,
                     unsupported=("bitwise_xor_cpu", _NOT_INTEGRAL))


def logical_not(input, *, out=None):
    check_tensor_arg(input, "logical_not", "input", 1)
    xp = xp_of(input)
    result = wrap(xp.logical_not(input._data), D.bool, input._device)
    return write_out(out, result) if out is not None else result


register("logical_not", logical_not, family="pointwise",
         inplace=make_inplace(logical_not, "logical_not", pointwise=True, bool_result=True))


def bitwise_not(input, *, out=None):
    check_tensor_arg(input, "bitwise_not", "input", 1)
    if input._dtype.category >= D.FLOATING:
        not_implemented("bitwise_not_cpu", input._dtype)
    xp = xp_of(input)
    res = xp.logical_not(input._data) if input._dtype is D.bool else xp.invert(input._data)
    result = wrap(res, input._dtype, input._device)
    return write_out(out, result) if out is not None else result


register("bitwise_not", bitwise_not, inplace=True, family="pointwise")

# -- floating-point classification (bool results) ------------------------------------------


def _classifier(name, kernel, with_out=False, real_only=False):
    """isnan/isinf/isfinite/isposinf/isneginf: integer and bool inputs are always finite."""
    def fn(input, *, out=None):
        check_tensor_arg(input, name, "input", 1)
        dt = input._dtype
        if real_only and dt.category == D.COMPLEX:
            raise RuntimeError(f"{name} does not support complex inputs.")
        xp = xp_of(input)
        if dt.category >= D.FLOATING:
            res = kernel(xp, input._data)
        else:
            res = xp.full(input._data.shape, name == "isfinite", dtype=np.bool_)
        result = wrap(res, D.bool, input._device)
        return write_out(out, result) if out is not None else result
    if not with_out:
        def no_out(input):
            return fn(input)
        no_out.__name__ = no_out.__qualname__ = name
        register(name, no_out, family="pointwise")
        return no_out
    fn.__name__ = fn.__qualname__ = name
    register(name, fn, family="pointwise")
    return fn


isnan = _classifier("isnan", lambda xp, a: xp.isnan(a))
isinf = _classifier("isinf", lambda xp, a: xp.isinf(a))
isfinite = _classifier("isfinite", lambda xp, a: xp.isfinite(a))
isposinf = _classifier("isposinf", lambda xp, a: xp.isposinf(a), with_out=True, real_only=True)
isneginf = _classifier("isneginf", lambda xp, a: xp.isneginf(a), with_out=True, real_only=True)

# ----------------------------------------------------------------------------------------------
# clamp and where
# ----------------------------------------------------------------------------------------------

ClampScalarNode = node_class("ClampBackward1", {
    "self": lambda grad, s: grad * _clamp_mask(s.self, s.min, s.max)})
ClampTensorNode = node_class("ClampBackward0", {
    "self": lambda grad, s: grad * _clamp_mask(s.self, s.min, s.max),
    "min": lambda grad, s: grad * (s.self < s.min) if s.max is None else
    grad * ((s.self < s.min) & (s.min < s.max)),
    "max": lambda grad, s: grad * (s.self > s.max) if s.min is None else
    grad * ((s.self > s.max) | (s.max < s.min))})
ClampMinScalarNode = node_class("ClampMinBackward0", {
    "self": lambda grad, s: grad * (s.self >= s.min)})
ClampMinTensorNode = node_class("ClampMinBackward1", {
    "self": lambda grad, s: grad * (s.self >= s.min),
    "min": lambda grad, s: grad * (s.self < s.min)})
ClampMaxScalarNode = node_class("ClampMaxBackward0", {
    "self": lambda grad, s: grad * (s.self <= s.max)})
ClampMaxTensorNode = node_class("ClampMaxBackward1", {
    "self": lambda grad, s: grad * (s.self <= s.max),
    "max": lambda grad, s: grad * (s.self > s.max)})


def _clamp_mask(x, lo, hi):
    mask = None
    if lo is not None:
        mask = x >= lo
    if hi is not None:
        m = x <= hi
        mask = m if mask is None else mask & m
    return mask


def _as_number(v):
    if isinstance(v, Tensor) and v._data.ndim == 0 and not v._requires_grad:
        return v.item()
    return v


def _clamp_args(name, input, min, max):
    """Result dtype, after PyTorch's refusals: no bounds, mixed Tensor/Number bounds, complex
    and bool results."""
    if min is None and max is None:
        raise RuntimeError(f"torch.{name}: At least one of 'min' or 'max' must not be None")
    tensors = isinstance(min, Tensor) or isinstance(max, Tensor)
    if tensors and not all(v is None or isinstance(v, Tensor) for v in (min, max)):
        # PyTorch's argument parser reads a 0-d tensor that needs no grad as a Number
        min, max = (_as_number(v) for v in (min, max))
        tensors = isinstance(min, Tensor) or isinstance(max, Tensor)
    if tensors and not all(v is None or isinstance(v, Tensor) for v in (min, max)):
        got = ", ".join(type(v).__name__ if not isinstance(v, Tensor) else "Tensor"
                        for v in (input, min, max) if v is not None)
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                        "but expected one of:\n * (Tensor input, Tensor min = None, Tensor max "
                        "= None, *, Tensor out = None)\n * (Tensor input, Number min = None, "
                        "Number max = None, *, Tensor out = None)")
    dt = result_type(input, min, max)
    if dt.category < input._dtype.category:
        dt = input._dtype
    if dt.category == D.COMPLEX:
        raise NotImplementedError("clamp is not supported for complex types")
    if dt is D.bool and not (tensors and (min is None or max is None)):
        # (a single tensor bound is a maximum/minimum, which bool supports)
        kernel = "clamp_cpu" if tensors else ("clamp_scalar_cpu" if min is not None and
                                              max is not None else
                                              "clamp_min_scalar_cpu" if min is not None else
                                              "clamp_max_scalar_cpu")
        not_implemented(kernel, dt)
    return dt, tensors, min, max


def _clamp(input, min, max, out, scalar_node, tensor_node, name="clamp"):
    check_tensor_arg(input, name, "input", 1)
    dt, tensors, min, max = _clamp_args(name, input, min, max)
    dev = common_device([t for t in (input, min, max) if isinstance(t, Tensor)])
    xp = xp_of(input)
    res = as_compute(input, dt, dev)

    def arr(v):   # (scalar bounds are converted with PyTorch's overflow check)
        return as_compute(v, dt, dev) if isinstance(v, Tensor) else checked_scalar(v, dt)
    try:
        if min is not None:
            res = xp.maximum(res, arr(min))
        if max is not None:
            res = xp.minimum(res, arr(max))
    except ValueError as exc:
        reraise_broadcast(exc, input._data, *(v._data for v in (min, max)
                                              if isinstance(v, Tensor)))
    res = iterator_layout(xp.asarray(res), (input, min, max))
    result = wrap(res.astype(dt.numpy_dtype, copy=False), dt, dev)
    if tensors:
        if needs_grad(input, *(t for t in (min, max) if isinstance(t, Tensor))):
            ins = (input,) + tuple(t for t in (min, max) if t is not None) \
                if tensor_node is not ClampTensorNode else \
                (input, min if isinstance(min, Tensor) else None,
                 max if isinstance(max, Tensor) else None)
            record(tensor_node, ins, (result,), self=input, min=min, max=max)
    elif input._requires_grad and needs_grad(input):
        record(scalar_node, (input,), (result,), self=input, min=min, max=max)
    return write_out(out, result) if out is not None else result


def clamp(input, min=None, max=None, *, out=None):
    """Clamp into [min, max]; bounds may be scalars or tensors (max wins when min > max)."""
    return _clamp(input, min, max, out, ClampScalarNode, ClampTensorNode)


def clamp_min(input, min, *, out=None):
    """``max(input, min)`` elementwise (``min`` a scalar or tensor)."""
    return _clamp(input, min, None, out, ClampMinScalarNode, ClampMinTensorNode, "clamp_min")


def clamp_max(input, max, *, out=None):
    """``min(input, max)`` elementwise (``max`` a scalar or tensor)."""
    return _clamp(input, None, max, out, ClampMaxScalarNode, ClampMaxTensorNode, "clamp_max")


register("clamp", clamp, inplace=True, family="pointwise",
         nodes=(ClampScalarNode, ClampTensorNode))
alias("clip", "clamp")
register("clamp_min", clamp_min, inplace=True, family="pointwise",
         nodes=(ClampMinScalarNode, ClampMinTensorNode))
register("clamp_max", clamp_max, inplace=True, family="pointwise",
         nodes=(ClampMaxScalarNode, ClampMaxTensorNode))

WhereNode = node_class("WhereBackward0", {
    "self": lambda grad, s: where(s.condition, grad, 0),
    "other": lambda grad, s: where(s.condition, 0, grad)})


def where(condition, input=None, other=None, *, out=None):
    """Elements of ``input`` where ``condition`` holds, else of ``other``.

    With only ``condition``, the same as ``condition.nonzero(as_tuple=True)``.
    """
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    if out is not None:
        check_tensor_arg(input, "where", "input", 2)
        check_tensor_arg(other, "where", "other", 3)
    if not isinstance(condition, Tensor) or condition._dtype is not D.bool:
        got = condition._dtype.scalar_name if isinstance(condition, Tensor) else \
            type(condition).__name__
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {got}")
    tensors = [t for t in (condition, input, other) if isinstance(t, Tensor)]
    dev = common_device(tensors)
    dt = result_type(*(v for v in (input, other)))
    xp = xp_of(condition) if dev is condition._device else xp_of(tensors[-1])

    def arr(v):
        return as_compute(v, dt, dev) if isinstance(v, Tensor) else scalar_as(v, dt)
    try:
        res = xp.where(as_compute(condition, D.bool, dev), arr(input), arr(other))
    except ValueError as exc:
        reraise_broadcast(exc, *(v._data for v in (condition, input, other)
                                 if isinstance(v, Tensor)))
    res = iterator_layout(xp.asarray(res), (condition, input, other))
    result = wrap(res.astype(dt.numpy_dtype, copy=False), dt, dev)
    ins = (input if isinstance(input, Tensor) else None,
           other if isinstance(other, Tensor) else None)
    if needs_grad(*ins):
        record(WhereNode, ins, (result,), condition=condition)
    return write_out(out, result) if out is not None else result




def _where_method(self, condition, other):
    return where(condition, self, other)


register("where", where, method=_where_method, family="pointwise", nodes=(WhereNode,))


LerpScalarNode = node_class("LerpBackward0", {
    "self": lambda grad, s: grad * (1 - s.weight),
    "end": lambda grad, s: grad * s.weight})
LerpTensorNode = node_class("LerpBackward1", {
    "self": lambda grad, s: grad * (1 - s.weight),
    "end": lambda grad, s: grad * s.weight,
    "weight": lambda grad, s: grad * (s.end - s.self)})


def lerp(input, end, weight, *, out=None):
    """``input + weight * (end - input)``, computed as PyTorch does (from the nearer end)."""
    check_tensor_arg(end, "lerp", "end", 2)
    dt = input._dtype
    if end._dtype is not dt:
        raise RuntimeError(f"expected dtype {dt.name.replace('float32', 'float')} for `end` but "
                           f"got dtype {end._dtype.name.replace('float64', 'double')}")
    tensor_w = isinstance(weight, Tensor)
    if dt.category < D.FLOATING:
        not_implemented("lerp_kernel_tensor" if tensor_w else "lerp_kernel_scalar", dt)
    dev = common_device([input, end] + ([weight] if tensor_w else []))
    xp = xp_of(input)
    acc = np.float32 if dt in (D.float16, D.bfloat16) else dt.numpy_dtype
    a = input._data.astype(acc, copy=False)
    b = end._data.astype(acc, copy=False)
    w = weight._data.astype(acc, copy=False) if tensor_w else scalar_as(weight, dt)
    try:
        diff = b - a
        with np.errstate(all="ignore"):
            res = xp.where(xp.abs(w) < 0.5, a + w * diff, b - diff * (1 - w))
    except ValueError as exc:
        reraise_broadcast(exc, a, b, w)
    res = iterator_layout(xp.asarray(res), (a, b, w))
    result = wrap(res.astype(dt.numpy_dtype, copy=False), dt, dev)
    if needs_grad(input, end, weight if tensor_w else None):
        if tensor_w:
            record(LerpTensorNode, (input, end, weight), (result,), self=input, end=end,
                   weight=weight)
        else:
            record(LerpScalarNode, (input, end), (result,), weight=weight)
    return write_out(out, result) if out is not None else result


register("lerp", lerp, inplace=True, family="pointwise", nodes=(LerpScalarNode, LerpTensorNode))
