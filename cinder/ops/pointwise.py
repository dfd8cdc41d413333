"""Pointwise ops: arithmetic, comparisons, unary math, clamp, where.

Most ops here are one ``binary(...)`` or ``unary(...)`` entry: a kernel on arrays plus the
derivative formulas. The factories generate the function, method, in-place and ``out=`` forms.
"""

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ._prep import binary_operands, is_scalar, result_type, wrap, xp_of, common_device, \
    as_compute, scalar_as
from ._registry import FUNCTIONS, node_class, needs_grad, record, register, write_out, check_inplace, \
    cast_check, commit_inplace, make_inplace

# ----------------------------------------------------------------------------------------------
# Factories
# ----------------------------------------------------------------------------------------------


def binary(name, kernel, node=None, *, out_dtype=None, promote_int_to_float=False,
           check=None, method=True, inplace=True, extra_names=()):
    """Define a binary op ``name(input, other, *, out=None)`` from ``kernel(xp, a, b)``.

    ``node`` is the graph-node class (None: not differentiable). ``out_dtype`` forces the
    result dtype (bool for comparisons); ``promote_int_to_float`` makes integer inputs compute
    in the default float dtype (true division). ``check(a_dtype)`` may raise for bad dtypes.
    """
    def fn(input, other, *, out=None):
        if not isinstance(input, Tensor):
            # torch.add(2, t): the first argument may be a scalar when the second is a tensor
            from .creation import scalar_tensor_like
            input = scalar_tensor_like(input, other)
        a, b, dt, dev = binary_operands(input, other, name)
        if check is not None:
            check(dt, input, other)
        if promote_int_to_float and dt.category < D.FLOATING:
            dt = D.get_default_dtype()
            a = a.astype(dt.numpy_dtype)
            if not is_scalar(b):
                b = b.astype(dt.numpy_dtype)
            else:
                b = float(b)
        xp = np if dev.type == "cpu" else xp_of(input)
        result = wrap(kernel(xp, a, b), out_dtype or dt, dev)
        if node is not None and (input._requires_grad or getattr(other, "_requires_grad", 0)) \
                and needs_grad(input, other if isinstance(other, Tensor) else None):
            record(node, (input, other if isinstance(other, Tensor) else None), (result,),
                   self=input, other=other)
        if out is not None:
            return write_out(out, result)
        return result

    fn.__name__ = fn.__qualname__ = name
    fast_inplace = _fast_inplace(name, kernel, fn) if inplace and out_dtype is None else None
    register(name, fn, method=method, inplace=fast_inplace, family="pointwise", nodes=(node,))
    return fn


def _fast_inplace(name, kernel, fn):
    """``a.op_(b)``: writes straight into ``a``'s array when nothing is recorded."""
    slow = make_inplace(fn, name)

    def inplace(self, other):
        if needs_grad(self, other if isinstance(other, Tensor) else None):
            return slow(self, other)
        check_inplace(self)
        a, b, dt, dev = binary_operands(self, other, name)
        cast_check(dt, self._dtype)
        if dt is self._dtype and dt.category >= D.FLOATING and name not in ("div", "pow"):
            xp = np if dev.type == "cpu" else xp_of(self)
            res = kernel(xp, a, b)
            if res.shape != self._data.shape:
                return commit_inplace(self, wrap(res, dt, dev))
            self._data[...] = res
            self._bump_version()
            return self
        return slow(self, other)

    inplace.__name__ = name + "_"
    return inplace


def unary(name, kernel, node=None, *, float_only=False, int_ok=True, method=True,
          inplace=True, complex_to_real=False):
    """Define ``name(input, *, out=None)`` from ``kernel(xp, a)``.

    ``float_only``: integer/bool inputs compute in the default float dtype (exp, sqrt, ...).
    """
    def fn(input, *, out=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        a, dt = input._data, input._dtype
        if float_only and dt.category < D.FLOATING:
            dt = D.get_default_dtype()
            a = a.astype(dt.numpy_dtype)
        elif not int_ok and dt.category < D.FLOATING:
            raise RuntimeError(f'"{name}_cpu" not implemented for \'{_tname(dt)}\'')
        xp = np if input._device.type == "cpu" else xp_of(input)
        res = kernel(xp, a)
        out_dt = dt.to_real() if complex_to_real else dt
        if res.dtype != out_dt.numpy_dtype:
            res = res.astype(out_dt.numpy_dtype)
        result = wrap(res, out_dt, input._device)
        if node is not None and input._requires_grad and needs_grad(input):
            record(node, (input,), (result,), self=input)
        if out is not None:
            return write_out(out, result)
        return result

    fn.__name__ = fn.__qualname__ = name
    register(name, fn, method=method, inplace=True if inplace else None, family="pointwise",
             nodes=(node,))
    return fn


def _tname(dt):
    from ._registry import _type_name
    return _type_name(dt)


# ----------------------------------------------------------------------------------------------
# Arithmetic
# ----------------------------------------------------------------------------------------------

AddNode = node_class("AddBackward0", {
    "self": lambda grad, s: grad,
    "other": lambda grad, s: grad if s.alpha == 1 else grad * s.alpha})
SubNode = node_class("SubBackward0", {
    "self": lambda grad, s: grad,
    "other": lambda grad, s: -grad if s.alpha == 1 else -grad * s.alpha})
RsubNode = node_class("RsubBackward1", {"self": lambda grad, s: -grad if s.alpha == 1
                                        else -grad * s.alpha})


def _check_bool_sub(dt, a, b):
    if dt is D.bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")


def _add_like(name, sign, node):
    def fn(input, other, *, alpha=1, out=None):
        if not isinstance(input, Tensor):
            from .creation import scalar_tensor_like
            input = scalar_tensor_like(input, other)
        a, b, dt, dev = binary_operands(input, other, name)
        if sign < 0:
            _check_bool_sub(dt, input, other)
        xp = np if dev.type == "cpu" else xp_of(input)
        if alpha != 1:
            if dt.category < D.FLOATING and not isinstance(alpha, (int, np.integer)):
                raise RuntimeError("For integral input tensors, argument alpha must not be a "
                                   "floating point number.")
            b = b * alpha
        res = xp.add(a, b) if sign > 0 else xp.subtract(a, b)
        result = wrap(res, dt, dev)
        if (input._requires_grad or getattr(other, "_requires_grad", 0)) and \
                needs_grad(input, other if isinstance(other, Tensor) else None):
            record(node, (input, other if isinstance(other, Tensor) else None), (result,),
                   alpha=alpha)
        if out is not None:
            return write_out(out, result)
        return result

    def inplace(self, other, *, alpha=1):
        if alpha == 1 and not needs_grad(self, other if isinstance(other, Tensor) else None):
            check_inplace(self)
            a, b, dt, dev = binary_operands(self, other, name)
            if dt is self._dtype and (dt is not D.bool or sign > 0):
                xp = np if dev.type == "cpu" else xp_of(self)
                res = xp.add(a, b) if sign > 0 else xp.subtract(a, b)
                if res.shape == self._data.shape:
                    self._data[...] = res
                    self._bump_version()
                    return self
        return slow(self, other, alpha=alpha)

    fn.__name__ = fn.__qualname__ = name
    slow = make_inplace(fn, name)
    inplace.__name__ = name + "_"
    register(name, fn, inplace=inplace, family="pointwise", nodes=(node,))
    return fn


add = _add_like("add", +1, AddNode)
sub = _add_like("sub", -1, SubNode)
register("subtract", lambda input, other, *, alpha=1, out=None: sub(input, other, alpha=alpha,
                                                                     out=out),
         inplace=lambda self, other, *, alpha=1: self.sub_(other, alpha=alpha), family="alias")


def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (what ``2 - t`` calls)."""
    if isinstance(other, Tensor):
        return sub(other, input, alpha=alpha)
    a, b, dt, dev = binary_operands(input, other, "rsub")
    _check_bool_sub(dt, input, other)
    xp = np if dev.type == "cpu" else xp_of(input)
    result = wrap(xp.subtract(b, a * alpha if alpha != 1 else a), dt, dev)
    if input._requires_grad and needs_grad(input):
        record(RsubNode, (input, None), (result,), alpha=alpha)
    return result


register("rsub", rsub, method=False, family="pointwise", nodes=(RsubNode,))

MulNode = node_class("MulBackward0", {
    "self": lambda grad, s: grad * _conj(s.other),
    "other": lambda grad, s: grad * _conj(s.self)})
mul = binary("mul", lambda xp, a, b: xp.multiply(a, b), MulNode)
register("multiply", lambda input, other, *, out=None: mul(input, other, out=out),
         inplace=lambda self, other: self.mul_(other), family="alias")


def _conj(x):
    return x.conj() if isinstance(x, Tensor) and x._dtype.category == D.COMPLEX else x


DivNode = node_class("DivBackward0", {
    "self": lambda grad, s: grad / _conj(s.other),
    "other": lambda grad, s: -grad * _conj(s.self / (s.other * s.other))})
DivModeNode = node_class("DivBackward1", {
    "self": lambda grad, s: grad * 0, "other": lambda grad, s: grad * 0})

_true_div = binary("true_divide", lambda xp, a, b: xp.true_divide(a, b), DivNode,
                   promote_int_to_float=True)


def _div_rounded(xp, a, b, mode, dt):
    if dt.category < D.FLOATING:
        if (xp.asarray(b) == 0).any():
            raise ZeroDivisionError("ZeroDivisionError")
        q = xp.floor_divide(a, b)
        if mode == "trunc":
            # floor and trunc differ when the signs differ and the division is inexact
            q = q + ((xp.remainder(a, b) != 0) & ((xp.asarray(a) < 0) != (xp.asarray(b) < 0)))
        return q.astype(dt.numpy_dtype, copy=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = xp.true_divide(a, b)
        q = xp.trunc(q) if mode == "trunc" else xp.floor(q)
    return q.astype(dt.numpy_dtype, copy=False)


def div(input, other, *, rounding_mode=None, out=None):
    """Divide; ``rounding_mode`` None (true division), 'trunc' or 'floor'."""
    if rounding_mode is None:
        return _true_div(input, other, out=out)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    if not isinstance(input, Tensor):
        from .creation import scalar_tensor_like
        input = scalar_tensor_like(input, other)
    a, b, dt, dev = binary_operands(input, other, "div")
    xp = np if dev.type == "cpu" else xp_of(input)
    result = wrap(_div_rounded(xp, a, b, rounding_mode, dt), dt, dev)
    if needs_grad(input, other if isinstance(other, Tensor) else None):
        record(DivModeNode, (input, other if isinstance(other, Tensor) else None), (result,))
    return write_out(out, result) if out is not None else result


register("div", div, inplace=True, family="pointwise", nodes=(DivNode, DivModeNode))
register("divide", lambda input, other, *, rounding_mode=None, out=None:
         div(input, other, rounding_mode=rounding_mode, out=out),
         inplace=lambda self, other, *, rounding_mode=None:
         self.div_(other, rounding_mode=rounding_mode), family="alias")


def floor_divide(input, other, *, out=None):
    return div(input, other, rounding_mode="floor", out=out)


register("floor_divide", floor_divide, inplace=True, family="pointwise")

RemainderNode = node_class("RemainderBackward0", {
    "self": lambda grad, s: grad,
    "other": lambda grad, s: -grad * s.self.div(s.other, rounding_mode="floor")})
FmodNode = node_class("FmodBackward0", {
    "self": lambda grad, s: grad,
    "other": lambda grad, s: -grad * s.self.div(s.other, rounding_mode="trunc")})
remainder = binary("remainder", lambda xp, a, b: xp.remainder(a, b), RemainderNode)
fmod = binary("fmod", lambda xp, a, b: xp.fmod(a, b), FmodNode)

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
    import math
    import cmath
    if isinstance(v, complex):
        return cmath.log(v)
    return math.log(v) if v > 0 else (float("-inf") if v == 0 else float("nan"))


def pow(input, exponent, *, out=None):
    """``input ** exponent``; either may be a Python scalar (not both)."""
    if not isinstance(input, Tensor):
        a, b, dt, dev = binary_operands(exponent, input, "pow")
        xp = np if dev.type == "cpu" else xp_of(exponent)
        with np.errstate(all="ignore"):
            result = wrap(xp.power(b, a).astype(dt.numpy_dtype, copy=False), dt, dev)
        if needs_grad(exponent):
            record(PowBaseNode, (exponent,), (result,), self_scalar=input)
        return write_out(out, result) if out is not None else result
    a, b, dt, dev = binary_operands(input, exponent, "pow")
    if dt.category == D.INTEGRAL:
        neg = (b < 0) if is_scalar(b) else bool((b < 0).any())
        if neg:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
    xp = np if dev.type == "cpu" else xp_of(input)
    with np.errstate(all="ignore"):
        res = xp.square(a) if is_scalar(b) and b == 2 and dt.category >= D.FLOATING else \
            xp.power(a, b)
    result = wrap(res.astype(dt.numpy_dtype, copy=False), dt, dev)
    if isinstance(exponent, Tensor):
        if needs_grad(input, exponent):
            record(PowTensorNode, (input, exponent), (result,), self=input, exponent=exponent)
    elif input._requires_grad and needs_grad(input):
        record(PowScalarNode, (input,), (result,), self=input, exponent=exponent)
    return write_out(out, result) if out is not None else result


register("pow", pow, inplace=True, family="pointwise",
         nodes=(PowScalarNode, PowTensorNode, PowBaseNode))
register("float_power", lambda input, exponent, *, out=None: pow(
    input.double() if isinstance(input, Tensor) else input,
    exponent.double() if isinstance(exponent, Tensor) else exponent, out=out),
    family="pointwise")

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


def _tensor_other(dt, a, b):
    if not isinstance(b, Tensor):
        raise TypeError("maximum(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(b).__name__}")


maximum = binary("maximum", lambda xp, a, b: xp.maximum(a, b), MaximumNode,
                 check=_tensor_other, inplace=False)
minimum = binary("minimum", lambda xp, a, b: xp.minimum(a, b), MinimumNode,
                 check=_tensor_other, inplace=False)
register("max_elementwise", maximum, method=False)   # internal name used by max(a, b)
Atan2Node = node_class("Atan2Backward0", {
    "self": lambda grad, s: grad * s.other / (s.self * s.self + s.other * s.other),
    "other": lambda grad, s: grad * -s.self / (s.self * s.self + s.other * s.other)})
atan2 = binary("atan2", lambda xp, a, b: xp.arctan2(a, b), Atan2Node,
               promote_int_to_float=True)
register("arctan2", atan2, inplace=True, family="alias")

# -- comparisons and logic (results are bool, never differentiable) -------------------------

for _name, _ufunc in (("eq", "equal"), ("ne", "not_equal"), ("lt", "less"),
                      ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal")):
    binary(_name, (lambda u: lambda xp, a, b: getattr(xp, u)(a, b))(_ufunc), None,
           out_dtype=D.bool, inplace=False)
eq, ne, lt, le, gt, ge = (FUNCTIONS[n] for n in ("eq", "ne", "lt", "le", "gt", "ge"))
for _alias, _target in (("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"),
                        ("less_equal", "le"), ("not_equal", "ne")):
    register(_alias, FUNCTIONS[_target], family="alias")


def _comparison_inplace(name):
    fn = FUNCTIONS[name]

    def inplace(self, other):
        check_inplace(self)
        res = fn(self, other)
        self._data[...] = res._data
        self._bump_version()
        return self
    inplace.__name__ = name + "_"
    return inplace


for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(Tensor, _name + "_", _comparison_inplace(_name))

logical_and = binary("logical_and", lambda xp, a, b: xp.logical_and(a, b), None,
                     out_dtype=D.bool, inplace=False)
logical_or = binary("logical_or", lambda xp, a, b: xp.logical_or(a, b), None,
                    out_dtype=D.bool, inplace=False)
logical_xor = binary("logical_xor", lambda xp, a, b: xp.logical_xor(a, b), None,
                     out_dtype=D.bool, inplace=False)


def _int_or_bool(dt, a, b):
    if dt.category >= D.FLOATING:
        raise RuntimeError(f'"bitwise_cpu" not implemented for \'{_tname(dt)}\'')


bitwise_and = binary("bitwise_and", lambda xp, a, b: xp.bitwise_and(a, b), None,
                     check=_int_or_bool)
bitwise_or = binary("bitwise_or", lambda xp, a, b: xp.bitwise_or(a, b), None,
                    check=_int_or_bool)
bitwise_xor = binary("bitwise_xor", lambda xp, a, b: xp.bitwise_xor(a, b), None,
                     check=_int_or_bool)


def logical_not(input, *, out=None):
    xp = xp_of(input)
    result = wrap(xp.logical_not(input._data), D.bool, input._device)
    return write_out(out, result) if out is not None else result


register("logical_not", logical_not, family="pointwise")


def bitwise_not(input, *, out=None):
    if input._dtype.category >= D.FLOATING:
        raise RuntimeError(f'"bitwise_not_cpu" not implemented for \'{_tname(input._dtype)}\'')
    xp = xp_of(input)
    res = xp.logical_not(input._data) if input._dtype is D.bool else xp.invert(input._data)
    result = wrap(res, input._dtype, input._device)
    return write_out(out, result) if out is not None else result


register("bitwise_not", bitwise_not, inplace=True, family="pointwise")

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


neg = unary("neg", _neg_kernel, NegNode)
register("negative", neg, inplace=True, family="alias")
abs = unary("abs", lambda xp, a: xp.abs(a) if a.dtype != np.bool_ else a.copy(),
            node_class("AbsBackward0", {"self": lambda grad, s: grad * s.self.sgn()}),
            complex_to_real=True)
register("absolute", abs, inplace=True, family="alias")
sign = unary("sign", lambda xp, a: xp.sign(a) if a.dtype != np.bool_ else a.copy(),
             node_class("SignBackward0", {"self": lambda grad, s: grad * 0}))
sgn = unary("sgn", lambda xp, a: xp.sign(a) if a.dtype.kind != "c" else
            xp.where(a == 0, 0, a / xp.where(a == 0, 1, xp.abs(a))).astype(a.dtype),
            node_class("SgnBackward0", {"self": lambda grad, s: grad * 0}))

_F = dict(float_only=True)
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
tanh = unary("tanh", lambda xp, a: xp.tanh(a), node_class("TanhBackward0", {
    "self": lambda grad, s: grad * _conj(1 - s.result * s.result)}), **_F)
for _alias, _target in (("arcsin", asin), ("arccos", acos), ("arctan", atan)):
    register(_alias, _target, inplace=True, family="alias")


def _sigmoid_kernel(xp, a):
    # 1 / (1 + exp(-x)) overflows exp for very negative x; the two-branch form does not.
    with np.errstate(over="ignore"):
        return (1 / (1 + xp.exp(-a))).astype(a.dtype, copy=False)


sigmoid = unary("sigmoid", _sigmoid_kernel, node_class("SigmoidBackward0", {
    "self": lambda grad, s: grad * _conj(s.result * (1 - s.result))}), **_F)
relu = unary("relu", lambda xp, a: xp.maximum(a, 0).astype(a.dtype, copy=False)
             if a.dtype != np.bool_ else _no_bool_relu(), node_class("ReluBackward0", {
                 "self": lambda grad, s: grad * (s.result > 0)}))
square = unary("square", lambda xp, a: xp.square(a) if a.dtype != np.bool_ else
               a.astype(np.int64), node_class("PowBackward0", {
                   "self": lambda grad, s: grad * 2 * _conj(s.self)}))


def _no_bool_relu():
    raise RuntimeError("\"clamp_min_cpu\" not implemented for 'Bool'")


def _rounding(name, fname):
    return unary(name, lambda xp, a: getattr(xp, fname)(a) if a.dtype.kind == "f" or
                 a.dtype == np.dtype("bfloat16") else a.copy(),
                 node_class(name.capitalize() + "Backward0", {"self": lambda grad, s: grad * 0}))


floor = _rounding("floor", "floor")
ceil = _rounding("ceil", "ceil")
trunc = _rounding("trunc", "trunc")
register("fix", trunc, inplace=True, family="alias")
frac = unary("frac", lambda xp, a: a - xp.trunc(a), node_class("FracBackward0", {
    "self": lambda grad, s: grad}), int_ok=False)


def round(input, *, decimals=0, out=None):
    """Round half to even (like PyTorch), optionally to ``decimals`` places."""
    xp = xp_of(input)
    if input._dtype.category < D.FLOATING:
        result = wrap(input._data.copy(), input._dtype, input._device)
    else:
        res = xp.round(input._data, decimals) if decimals else xp.rint(input._data)
        result = wrap(res.astype(input._dtype.numpy_dtype, copy=False), input._dtype,
                      input._device)
    if needs_grad(input):
        record(RoundNode, (input,), (result,))
    return write_out(out, result) if out is not None else result


RoundNode = node_class("RoundBackward0", {"self": lambda grad, s: grad * 0})
register("round", round, inplace=True, family="pointwise", nodes=(RoundNode,))


def _errstate(f, a):
    with np.errstate(all="ignore"):
        return f(a)


def _erf(xp, a):
    if xp is np:
        from scipy import special
        return special.erf(a).astype(a.dtype, copy=False)
    import cupyx.scipy.special as cs   # noqa: only reached for CUDA arrays
    return cs.erf(a)


erf = unary("erf", _erf, node_class("ErfBackward0", {
    "self": lambda grad, s: grad * 1.1283791670955126 * (-(s.self * s.self)).exp()}), **_F)

# -- conj / real / imag (views for complex) -------------------------------------------------


def conj(input):
    """Complex conjugate (returns ``input`` itself for real tensors, as PyTorch does)."""
    if input._dtype.category != D.COMPLEX:
        return input
    xp = xp_of(input)
    result = wrap(xp.conj(input._data), input._dtype, input._device)
    if needs_grad(input):
        record(ConjNode, (input,), (result,))
    return result


ConjNode = node_class("ConjBackward0", {"self": lambda grad, s: grad.conj()})
register("conj", conj, family="pointwise", nodes=(ConjNode,))
register("conj_physical", conj, inplace=True, family="pointwise")
register("resolve_conj", lambda input: input, family="pointwise")
register("resolve_neg", lambda input: input, family="pointwise")

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
    grad * ((s.self > s.max) & (s.min < s.max) | (s.min >= s.max))})


def _clamp_mask(x, lo, hi):
    mask = None
    if lo is not None:
        mask = x >= lo
    if hi is not None:
        m = x <= hi
        mask = m if mask is None else mask & m
    return mask


def clamp(input, min=None, max=None, *, out=None):
    """Clamp into [min, max]; bounds may be scalars or tensors (min wins when min > max)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    tensors = isinstance(min, Tensor) or isinstance(max, Tensor)
    dt = result_type(input, min, max)
    if dt.category < input._dtype.category:
        dt = input._dtype
    dev = common_device([t for t in (input, min, max) if isinstance(t, Tensor)])
    xp = xp_of(input)
    res = as_compute(input, dt, dev)

    def arr(v):
        return as_compute(v, dt, dev) if isinstance(v, Tensor) else scalar_as(v, dt)
    if min is not None:
        res = xp.maximum(res, arr(min))
    if max is not None:
        res = xp.minimum(res, arr(max))
    if min is not None and max is not None and not tensors:
        pass
    result = wrap(xp.asarray(res).astype(dt.numpy_dtype, copy=False), dt, dev)
    if tensors:
        if needs_grad(input, *(t for t in (min, max) if isinstance(t, Tensor))):
            record(ClampTensorNode, (input, min if isinstance(min, Tensor) else None,
                                     max if isinstance(max, Tensor) else None), (result,),
                   self=input, min=min, max=max)
    elif input._requires_grad and needs_grad(input):
        record(ClampScalarNode, (input,), (result,), self=input, min=min, max=max)
    return write_out(out, result) if out is not None else result


register("clamp", clamp, inplace=True, family="pointwise",
         nodes=(ClampScalarNode, ClampTensorNode))
register("clip", clamp, inplace=True, family="alias")
register("clamp_min", lambda input, min, *, out=None: clamp(input, min, None, out=out),
         inplace=lambda self, min: self.clamp_(min, None), family="pointwise")
register("clamp_max", lambda input, max, *, out=None: clamp(input, None, max, out=out),
         inplace=lambda self, max: self.clamp_(None, max), family="pointwise")

WhereNode = node_class("WhereBackward0", {
    "self": lambda grad, s: where(s.condition, grad, 0),
    "other": lambda grad, s: where(s.condition, 0, grad)})


def where(condition, input=None, other=None, *, out=None):
    """Elements of ``input`` where ``condition`` holds, else of ``other``.

    With only ``condition``, the same as ``condition.nonzero(as_tuple=True)``.
    """
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    if not isinstance(condition, Tensor) or condition._dtype is not D.bool:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {_tname(condition._dtype) if isinstance(condition, Tensor) else type(condition).__name__}")
    tensors = [t for t in (condition, input, other) if isinstance(t, Tensor)]
    dev = common_device(tensors)
    dt = result_type(*(v for v in (input, other)))
    xp = xp_of(condition) if dev is condition._device else xp_of(tensors[-1])

    def arr(v):
        return as_compute(v, dt, dev) if isinstance(v, Tensor) else scalar_as(v, dt)
    res = xp.where(as_compute(condition, D.bool, dev), arr(input), arr(other))
    result = wrap(xp.asarray(res).astype(dt.numpy_dtype, copy=False), dt, dev)
    ins = (input if isinstance(input, Tensor) else None,
           other if isinstance(other, Tensor) else None)
    if needs_grad(*ins):
        record(WhereNode, ins, (result,), condition=condition)
    return write_out(out, result) if out is not None else result


register("where", where, family="pointwise", nodes=(WhereNode,))


def _where_method(self, condition, other):
    return where(condition, self, other)


setattr(Tensor, "where", _where_method)


def lerp(input, end, weight, *, out=None):
    return add(input, mul(sub(end, input), weight), out=out)


register("lerp", lerp, inplace=True, family="pointwise")
