"""Pointwise ops: arithmetic, comparisons, unary math, clamp, where.

Most ops here are one ``binary(...)`` or ``unary(...)`` entry: a kernel on arrays plus the
derivative formulas. The factories generate the function, method, in-place and ``out=`` forms.
"""

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ._prep import (
    as_compute,
    binary_operands,
    broadcast_shape,
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
    FUNCTIONS,
    _check_broadcast_into,
    cast_check,
    check_inplace,
    commit_inplace,
    make_inplace,
    needs_grad,
    node_class,
    record,
    register,
    write_out,
)

# ----------------------------------------------------------------------------------------------
# Factories
# ----------------------------------------------------------------------------------------------

_COMPLEX = frozenset((D.complex64, D.complex128))
_BOOL_COMPLEX = _COMPLEX | {D.bool}
_FLOATING = frozenset((D.float16, D.bfloat16, D.float32, D.float64))
_NOT_INTEGRAL = _FLOATING | _COMPLEX


def _dtype_check(name, check=None, unsupported=None, tensor_other=False):
    """Combine the argument checks of a binary op into one ``check(dt, input, other)``.

    ``unsupported`` is ``(kernel_name, dtypes)``: PyTorch has no kernel for those result dtypes
    (NotImplementedError). ``tensor_other``: ``other`` may not be a Python scalar.
    """
    if unsupported is None and not tensor_other:
        return check
    kernel_name, bad = unsupported if unsupported is not None else (None, ())

    def refuse(dt, input, other):
        # PyTorch checks that the shapes broadcast before it looks for a kernel
        broadcast_shape(input._data.shape, np.shape(getattr(other, "_data", other)))
        not_implemented(kernel_name, dt)

    if check is None and not tensor_other:
        def dtypes_only(dt, input, other):     # the common case, kept short
            if dt in bad:
                refuse(dt, input, other)
        return dtypes_only

    def combined(dt, input, other):
        if tensor_other:
            check_tensor_arg(other, name)
        if dt in bad:
            refuse(dt, input, other)
        if check is not None:
            check(dt, input, other)
    return combined


def binary(name, kernel, node=None, *, out_dtype=None, promote_int_to_float=False,
           check=None, method=True, inplace=True, unsupported=None, tensor_other=False,
           scalar_node=None):
    """Define a binary op ``name(input, other, *, out=None)`` from ``kernel(xp, a, b)``.

    ``node`` is the graph-node class (None: not differentiable); ``scalar_node`` the one used when
    ``other`` is a Python scalar, where PyTorch names it differently. ``out_dtype`` forces the
    result dtype (bool for comparisons); ``promote_int_to_float`` makes integer inputs compute
    in the default float dtype (true division). ``check(dt, input, other)`` may raise for bad
    arguments; ``unsupported``/``tensor_other`` add PyTorch's dtype and argument refusals.
    """
    check = _dtype_check(name, check, unsupported, tensor_other)

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
        try:
            res = kernel(xp, a, b)
        except ValueError as exc:
            reraise_broadcast(exc, a, b)
        result = wrap(res, out_dtype or dt, dev)
        if node is not None and (input._requires_grad or getattr(other, "_requires_grad", 0)) \
                and needs_grad(input, other if isinstance(other, Tensor) else None):
            tensor = isinstance(other, Tensor)
            record(node if tensor or scalar_node is None else scalar_node,
                   (input, other if tensor else None), (result,), self=input, other=other)
        if out is not None:
            return write_out(out, result)
        return result

    fn.__name__ = fn.__qualname__ = name
    if not inplace:
        inp = None
    elif out_dtype is not None:
        inp = _cast_back_inplace(fn, name)
    else:
        inp = _fast_inplace(name, kernel, fn, check)
    register(name, fn, method=method, inplace=inp, family="pointwise",
             nodes=(node,) if scalar_node is None else (node, scalar_node))
    return fn


def _fast_inplace(name, kernel, fn, check):
    """``a.op_(b)``: writes straight into ``a``'s array when nothing is recorded."""
    slow = make_inplace(fn, name, pointwise=True)

    def inplace(self, other):
        if needs_grad(self, other if isinstance(other, Tensor) else None):
            return slow(self, other)
        check_inplace(self)
        a, b, dt, dev = binary_operands(self, other, name)
        cast_check(dt, self._dtype)
        if check is not None:
            try:
                check(dt, self, other)
            except (NotImplementedError, RuntimeError):
                # the output shape is checked first, as in PyTorch
                _check_broadcast_into(self, (other,))
                raise
        if dt is self._dtype and dt.category >= D.FLOATING and name not in ("div", "pow"):
            xp = np if dev.type == "cpu" else xp_of(self)
            try:
                res = kernel(xp, a, b)
            except ValueError as exc:
                reraise_broadcast(exc, a, b)
            if res.shape != self._data.shape:
                return commit_inplace(self, wrap(res, dt, dev))
            self._data[...] = res
            self._bump_version()
            return self
        return slow(self, other)

    inplace.__name__ = name + "_"
    return inplace


def _cast_back_inplace(fn, name):
    """``a.eq_(b)``: a bool result (comparisons, logical ops) written back in ``a``'s dtype."""
    def inplace(self, other):
        check_inplace(self)
        _check_broadcast_into(self, (other,))
        return commit_inplace(self, fn(self, other))
    inplace.__name__ = name + "_"
    return inplace


def unary(name, kernel, node=None, *, float_only=False, int_ok=True, method=True,
          inplace=True, complex_to_real=False, kernel_name=None):
    """Define ``name(input, *, out=None)`` from ``kernel(xp, a)``.

    ``float_only``: integer/bool inputs compute in the default float dtype (exp, sqrt, ...).
    ``int_ok=False``: integer/bool inputs are refused (NotImplementedError for ``kernel_name``).
    """
    def fn(input, *, out=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        a, dt = input._data, input._dtype
        if float_only and dt.category < D.FLOATING:
            dt = D.get_default_dtype()
            a = a.astype(dt.numpy_dtype)
        elif not int_ok and dt.category != D.FLOATING:
            not_implemented(kernel_name or name + "_cpu", dt)
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


# ----------------------------------------------------------------------------------------------
# Arithmetic
# ----------------------------------------------------------------------------------------------

AddNode = node_class("AddBackward0", {
    "self": lambda grad, s: grad,
    "other": lambda grad, s: grad if s.alpha == 1 else grad * s.alpha})
SubNode = node_class("SubBackward0", {
    "self": lambda grad, s: grad,
    "other": lambda grad, s: -grad if s.alpha == 1 else -grad * s.alpha})
RsubNode = node_class("RsubBackward0", {
    "self": lambda grad, s: -grad if s.alpha == 1 else -grad * s.alpha,
    "other": lambda grad, s: grad})
RsubScalarNode = node_class("RsubBackward1", {
    "self": lambda grad, s: -grad if s.alpha == 1 else -grad * s.alpha})


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


_BOOL = D.bool
_ONE = 1    # the default alpha: an identity test keeps ``add``'s common path short


def _check_alpha(alpha, dt):
    """PyTorch's refusals of an ``alpha`` that the result dtype cannot hold."""
    if isinstance(alpha, (bool, np.bool_)):
        if dt is not D.bool:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, (complex, np.complexfloating)):
        if dt.category != D.COMPLEX:
            raise RuntimeError("For non-complex input tensors, argument alpha must not be a "
                               "complex number.")
    elif not isinstance(alpha, (int, np.integer)) and dt.category < D.FLOATING:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")


def _scaled_other(b, alpha, dt):
    """``alpha * other`` in the result dtype (bool stays bool: alpha=2 means True)."""
    _check_alpha(alpha, dt)
    if dt is D.bool:
        return b if alpha else (b & False)
    return b * scalar_as(alpha, dt)


def _add_like(name, sign, node):
    def fn(input, other, *, alpha=1, out=None):
        if not isinstance(input, Tensor):
            from .creation import scalar_tensor_like
            input = scalar_tensor_like(input, other)
        if sign < 0 and (input._dtype is _BOOL or other.__class__ is bool or
                         getattr(other, "_dtype", None) is _BOOL):
            _check_bool_sub(input, other)
        a, b, dt, dev = binary_operands(input, other, name)
        xp = np if dev.type == "cpu" else xp_of(input)
        if alpha is not _ONE:
            b = _scaled_other(b, alpha, dt)
        try:
            res = xp.add(a, b) if sign > 0 else xp.subtract(a, b)
        except ValueError as exc:
            reraise_broadcast(exc, a, b)
        result = wrap(res, dt, dev)
        if (input._requires_grad or getattr(other, "_requires_grad", 0)) and \
                needs_grad(input, other if isinstance(other, Tensor) else None):
            record(node, (input, other if isinstance(other, Tensor) else None), (result,),
                   alpha=alpha)
        if out is not None:
            return write_out(out, result)
        return result

    def inplace(self, other, *, alpha=1):
        if sign < 0:
            _check_bool_sub(self, other)
        if (alpha is _ONE or self._dtype.category == D.FLOATING) and \
                not needs_grad(self, other if isinstance(other, Tensor) else None):
            check_inplace(self)
            a, b, dt, dev = binary_operands(self, other, name)
            if dt is self._dtype and (dt is not D.bool or sign > 0) and \
                    broadcast_shape(a.shape, np.shape(b)) == a.shape:
                if alpha is not _ONE:
                    b = _scaled_other(b, alpha, dt)
                xp = np if dev.type == "cpu" else xp_of(self)
                # written straight into self's memory: one pass, no temporary (an optimizer's
                # p.add_(g, alpha=-lr) on every parameter takes this path)
                (xp.add if sign > 0 else xp.subtract)(a, b, out=self._data)
                self._bump_version()
                return self
        return slow(self, other, alpha=alpha)

    fn.__name__ = fn.__qualname__ = name
    slow = make_inplace(fn, name, pointwise=True)
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
    tensor = isinstance(other, Tensor)
    if tensor:
        b, a, dt, dev = binary_operands(other, input, "rsub")
    else:
        a, b, dt, dev = binary_operands(input, other, "rsub")
    _check_bool_sub(input, other)
    if alpha is not _ONE:
        a = _scaled_other(a, alpha, dt)
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
mul = binary("mul", lambda xp, a, b: xp.multiply(a, b), MulNode)
register("multiply", lambda input, other, *, out=None: mul(input, other, out=out),
         inplace=lambda self, other: self.mul_(other), family="alias")


def _conj(x):
    if isinstance(x, Tensor):
        return x.conj() if x._dtype.category == D.COMPLEX else x
    return x.conjugate() if isinstance(x, complex) else x


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
                   promote_int_to_float=True)


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
    with np.errstate(divide="ignore", invalid="ignore"):
        q = xp.true_divide(a, b)
        q = xp.trunc(q) if mode == "trunc" else xp.floor(q)
    return xp.asarray(q).astype(dt.numpy_dtype, copy=False)


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
register("divide", lambda input, other, *, rounding_mode=_TRUE_DIVISION, out=None:
         div(input, other, rounding_mode=rounding_mode, out=out),
         inplace=lambda self, other, *, rounding_mode=_TRUE_DIVISION:
         self.div_(other, rounding_mode=rounding_mode), family="alias")


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
            return getattr(xp, ufunc)(a, b)
    return kernel


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
    if not xp.any(negative):
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
        return xp.power(a, b)


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
        result = wrap(xp.asarray(_power(xp, xp.asarray(b, dtype=dt.numpy_dtype), a, dt))
                      .astype(dt.numpy_dtype, copy=False), dt, dev)
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
register("arctan2", atan2, inplace=True, family="alias")

# -- comparisons and logic (results are bool, never differentiable) -------------------------
# In-place forms (``a.eq_(b)``) write the bool result back in ``a``'s dtype.


def _ufunc_kernel(ufunc_name):
    def kernel(xp, a, b):
        return getattr(xp, ufunc_name)(a, b)
    return kernel


for _name, _ufunc in (("eq", "equal"), ("ne", "not_equal"), ("lt", "less"),
                      ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal")):
    binary(_name, _ufunc_kernel(_ufunc), None,
           out_dtype=D.bool, unsupported=None if _name in ("eq", "ne") else
           (f"{_name}_cpu", _COMPLEX))
eq, ne, lt, le, gt, ge = (FUNCTIONS[n] for n in ("eq", "ne", "lt", "le", "gt", "ge"))
for _alias, _target in (("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"),
                        ("less_equal", "le"), ("not_equal", "ne")):
    register(_alias, FUNCTIONS[_target], inplace=getattr(Tensor, _target + "_"),
             family="alias")

logical_and = binary("logical_and", lambda xp, a, b: xp.logical_and(a, b), None,
                     out_dtype=D.bool, tensor_other=True)
logical_or = binary("logical_or", lambda xp, a, b: xp.logical_or(a, b), None,
                    out_dtype=D.bool, tensor_other=True)
logical_xor = binary("logical_xor", lambda xp, a, b: xp.logical_xor(a, b), None,
                     out_dtype=D.bool, tensor_other=True)

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


def _logical_not_(self):
    check_inplace(self)
    return commit_inplace(self, logical_not(self))


register("logical_not", logical_not, inplace=_logical_not_, family="pointwise")


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
register("negative", neg, inplace=True, family="alias")
AbsNode = node_class("AbsBackward0", {"self": lambda grad, s: grad * s.self.sgn()})
abs = unary("abs", _abs_kernel, AbsNode, complex_to_real=True, inplace=False)


def _abs_(self):
    if self._dtype.category == D.COMPLEX:
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    return _abs_slow(self)


_abs_slow = make_inplace(abs, "abs", pointwise=True)
register("abs", abs, inplace=_abs_, family="pointwise", nodes=(AbsNode,))
register("absolute", abs, inplace=_abs_, family="alias")
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


def _relu_kernel(xp, a):
    if a.dtype == np.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    if a.dtype.kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")
    return xp.maximum(a, 0).astype(a.dtype, copy=False)


relu = unary("relu", _relu_kernel, node_class("ReluBackward0", {
    "self": lambda grad, s: grad * (s.result > 0)}))
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
register("fix", trunc, inplace=True, family="alias")
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
    from .. import backend
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
    """The conjugate as a new tensor (a copy for real tensors)."""
    result = conj(input)
    if result is input:
        from .conversion import clone
        result = clone(input)
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
    result = wrap(xp.asarray(res).astype(dt.numpy_dtype, copy=False), dt, dev)
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
register("clip", clamp, inplace=True, family="alias")
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
    result = wrap(xp.asarray(res).astype(dt.numpy_dtype, copy=False), dt, dev)
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
    result = wrap(xp.asarray(res).astype(dt.numpy_dtype, copy=False), dt, dev)
    if needs_grad(input, end, weight if tensor_w else None):
        if tensor_w:
            record(LerpTensorNode, (input, end, weight), (result,), self=input, end=end,
                   weight=weight)
        else:
            record(LerpScalarNode, (input, end), (result,), weight=weight)
    return write_out(out, result) if out is not None else result


register("lerp", lerp, inplace=True, family="pointwise", nodes=(LerpScalarNode, LerpTensorNode))
