"""Python operators on Tensor (``+``, ``-``, ``@``, ``<``, ``~``...), reflected and augmented.

Each operator calls the implementation of the op that defines it; unsupported operand types
return NotImplemented so Python can try the other operand (``t == None`` is then simply False).
Each operator is its own entry point into the dispatch point (a mode sees ``Tensor.__add__``,
as in PyTorch), with the flag check inlined: ``a + b`` is the hottest call there is.
"""

from .. import _C
from .. import _dtype as D
from .._tensor import Tensor
from ._dispatch import dispatch, enter, handlers_wanted, overloaded_args
from ._prep import is_scalar
from ._registry import OPS
from . import elementwise  # noqa: F401  (registers the shifts ``<<`` and ``>>`` call)

_FLAG = _C.FLAG


def _handler_func(op):
    """What handlers are given for an operator: PyTorch hands most operators over as the op's
    method (``a + b`` arrives as ``Tensor.add``), the rest as the operator itself."""
    reported = _REPORTED_AS.get(op.__name__)
    return op if reported is None else getattr(Tensor, reported)


def _run(op, body, args, kwargs):
    """An operator call past the flag check (``_dispatch.enter`` runs it, recorded when a
    profiler records): dispatched when handlers are wanted (a foreign right operand goes to
    ``_foreign``), otherwise ``body`` at once."""
    if not handlers_wanted(args):
        return body(*args)
    if len(args) == 2 and not _operand_ok(args[1]):
        return _foreign(op.__qualname__.split(".")[-1], *args)
    return dispatch(_handler_func(op), body, args, {})


def _operator(dunder, body):
    """``Tensor.<dunder>``: the dispatch check, then ``body(self, other)``."""
    def op(self, other):
        if _FLAG.active:
            return enter(op, _run, body, (self, other), {})
        return body(self, other)
    op.__name__ = dunder
    op.__qualname__ = "Tensor." + dunder
    return op


def _unary_operator(dunder, body):
    """``Tensor.<dunder>`` for a one-operand operator (``-t``, ``~t``, ``abs(t)``)."""
    def op(self):
        if _FLAG.active:
            return enter(op, _run, body, (self,), {})
        return body(self)
    op.__name__ = dunder
    op.__qualname__ = "Tensor." + dunder
    return op


def _foreign(dunder, self, other):
    """``other`` is neither a Tensor nor a scalar: an object with ``__torch_function__`` gets
    the call (PyTorch dispatches before it gives up); anything else, or a handler that
    declines, is NotImplemented (so Python raises its own operand TypeError)."""
    if not overloaded_args((other,)):
        return NotImplemented
    try:
        return dispatch(_handler_func(Tensor.__dict__[dunder]), _not_implemented,
                        (self, other), {})
    except TypeError:
        return NotImplemented


def _not_implemented(self, other):
    return NotImplemented


def _operand_ok(x):
    return isinstance(x, Tensor) or is_scalar(x)


def _binary(dunder, fn_name, reflected=False):
    """``a <op> b`` calling the op's implementation directly (the hottest calls there are:
    the check, the operand test and the call are inlined into one function)."""
    impl = OPS[fn_name].impl

    def body(self, other):
        if not _operand_ok(other):
            return _foreign(dunder, self, other)
        return impl(other, self) if reflected else impl(self, other)

    def op(self, other):
        if _FLAG.active:
            return enter(op, _run, body, (self, other), {})
        if other.__class__ is not Tensor and not _operand_ok(other):
            return _foreign(dunder, self, other)
        return impl(self, other)

    def reflected_op(self, other):
        if _FLAG.active:
            return enter(reflected_op, _run, body, (self, other), {})
        if other.__class__ is not Tensor and not _operand_ok(other):
            return _foreign(dunder, self, other)
        return impl(other, self)

    public = reflected_op if reflected else op
    public.__name__ = dunder
    public.__qualname__ = "Tensor." + dunder
    return public


def _inplace(dunder, method_name):
    def body(self, other):
        if not _operand_ok(other):
            return _foreign(dunder, self, other)
        return getattr(self, method_name)(other)
    return _operator(dunder, body)


def _rsub(self, other):
    if not _operand_ok(other):
        return _foreign("__rsub__", self, other)
    return OPS["rsub"].impl(self, other)


def _rtruediv(self, other):
    if not _operand_ok(other):
        return _foreign("__rtruediv__", self, other)
    if isinstance(other, Tensor):
        return OPS["div"].impl(other, self)
    return OPS["reciprocal"].impl(self) * other


def _rpow(self, other):
    if not _operand_ok(other):
        return _foreign("__rpow__", self, other)
    return OPS["pow"].impl(other, self)


def _matmul(self, other):
    if not isinstance(other, Tensor):
        return _foreign("__matmul__", self, other)
    return OPS["matmul"].impl(self, other)


def _rmatmul(self, other):
    if not isinstance(other, Tensor):
        return _foreign("__rmatmul__", self, other)
    return OPS["matmul"].impl(other, self)


def _neg(self):
    return OPS["neg"].impl(self)


def _abs(self):
    return OPS["abs"].impl(self)


def _pos(self):
    if self._dtype is D.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def _invert(self):
    if self._dtype.category >= D.FLOATING:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return OPS["bitwise_not"].impl(self)


# dunder -> the op it calls (a leading "i" marks the augmented form calling ``Tensor.<op>_``)
_FORWARD = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "div",
            "floordiv": "floor_divide", "mod": "remainder", "pow": "pow", "and": "bitwise_and",
            "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "bitwise_left_shift",
            "rshift": "bitwise_right_shift"}
# reflected forms: PyTorch's ``s + t``, ``s * t``, ``s & t``... compute ``t.op(s)`` (the tensor
# first, so a float16 ``1.1 * t`` is ``t.mul(1.1)``, with mul's float32 scalar); ``s // t`` and
# ``s % t`` (and the shifts) compute ``op(s, t)``
_COMMUTED = ("add", "mul", "and", "or", "xor")
_REFLECTED = _COMMUTED + ("floordiv", "mod", "lshift", "rshift")
_COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")
_SPECIAL = {"__rsub__": _rsub, "__rtruediv__": _rtruediv, "__rpow__": _rpow,
            "__matmul__": _matmul, "__rmatmul__": _rmatmul, "__neg__": _neg, "__pos__": _pos,
            "__abs__": _abs, "__invert__": _invert}


# The name PyTorch's handlers see for an operator, where it is not the operator's own.
_REPORTED_AS = {
    "__add__": "add", "__radd__": "add", "__sub__": "sub", "__mul__": "mul", "__rmul__": "mul",
    "__truediv__": "div", "__mod__": "remainder", "__pow__": "pow", "__matmul__": "matmul",
    "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge",
    "__rand__": "bitwise_and", "__ror__": "bitwise_or", "__rxor__": "bitwise_xor",
    "__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_",
    "__ifloordiv__": "floor_divide_", "__imod__": "remainder_", "__ipow__": "pow_",
    "__neg__": "neg", "__abs__": "abs",
}


def _operators():
    """Every operator, as the function to set on Tensor."""
    table = {}
    for short, op in _FORWARD.items():
        table[f"__{short}__"] = _binary(f"__{short}__", op)
        table[f"__i{short}__"] = _inplace(f"__i{short}__", op + "_")
    for short in _REFLECTED:
        table[f"__r{short}__"] = _binary(f"__r{short}__", _FORWARD[short],
                                         reflected=short not in _COMMUTED)
    for op in _COMPARISONS:
        table[f"__{op}__"] = _binary(f"__{op}__", op)
    for dunder, body in _SPECIAL.items():
        unary = dunder in ("__neg__", "__pos__", "__abs__", "__invert__")
        table[dunder] = (_unary_operator if unary else _operator)(dunder, body)
    table["__rtruediv__"].__name__ = "__rdiv__"      # PyTorch's name for it
    return table


OPERATORS = _operators()
for _name, _fn in OPERATORS.items():
    setattr(Tensor, _name, _fn)
Tensor.__hash__ = object.__hash__     # defining __eq__ would otherwise remove hashing
