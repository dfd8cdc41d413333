"""Python operators on Tensor (``+``, ``-``, ``@``, ``<``, ``~``...), reflected and augmented.

Each operator calls the op that defines it; unsupported operand types return NotImplemented so
Python can try the other operand (``t == None`` is then simply False).
"""

from .. import _dtype as D
from .._tensor import Tensor
from ._prep import is_scalar
from ._registry import FUNCTIONS


def _operand_ok(x):
    return isinstance(x, Tensor) or is_scalar(x)


def _binary(fn_name, reflected=False):
    def op(self, other):
        if not _operand_ok(other):
            return NotImplemented
        fn = FUNCTIONS[fn_name]
        return fn(other, self) if reflected else fn(self, other)
    return op


def _inplace(method_name):
    def op(self, other):
        if not _operand_ok(other):
            return NotImplemented
        return getattr(self, method_name)(other)
    return op


def _rsub(self, other):
    if not _operand_ok(other):
        return NotImplemented
    return FUNCTIONS["rsub"](self, other)


def _rtruediv(self, other):
    if not _operand_ok(other):
        return NotImplemented
    if isinstance(other, Tensor):
        return FUNCTIONS["div"](other, self)
    return FUNCTIONS["reciprocal"](self) * other


def _rpow(self, other):
    if not _operand_ok(other):
        return NotImplemented
    return FUNCTIONS["pow"](other, self)


def _rmatmul(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return FUNCTIONS["matmul"](other, self)


def _pos(self):
    if self._dtype is D.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def _invert(self):
    if self._dtype.category >= D.FLOATING:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return FUNCTIONS["bitwise_not"](self)


_TABLE = {
    "__add__": _binary("add"), "__radd__": _binary("add", True), "__iadd__": _inplace("add_"),
    "__sub__": _binary("sub"), "__rsub__": _rsub, "__isub__": _inplace("sub_"),
    "__mul__": _binary("mul"), "__rmul__": _binary("mul", True), "__imul__": _inplace("mul_"),
    "__truediv__": _binary("div"), "__rtruediv__": _rtruediv,
    "__itruediv__": _inplace("div_"),
    "__floordiv__": _binary("floor_divide"), "__rfloordiv__": _binary("floor_divide", True),
    "__ifloordiv__": _inplace("floor_divide_"),
    "__mod__": _binary("remainder"), "__rmod__": _binary("remainder", True),
    "__imod__": _inplace("remainder_"),
    "__pow__": _binary("pow"), "__rpow__": _rpow, "__ipow__": _inplace("pow_"),
    "__matmul__": lambda self, other: FUNCTIONS["matmul"](self, other)
    if isinstance(other, Tensor) else NotImplemented,
    "__rmatmul__": _rmatmul,
    "__and__": _binary("bitwise_and"), "__rand__": _binary("bitwise_and", True),
    "__iand__": _inplace("bitwise_and_"),
    "__or__": _binary("bitwise_or"), "__ror__": _binary("bitwise_or", True),
    "__ior__": _inplace("bitwise_or_"),
    "__xor__": _binary("bitwise_xor"), "__rxor__": _binary("bitwise_xor", True),
    "__ixor__": _inplace("bitwise_xor_"),
    "__eq__": _binary("eq"), "__ne__": _binary("ne"), "__lt__": _binary("lt"),
    "__le__": _binary("le"), "__gt__": _binary("gt"), "__ge__": _binary("ge"),
    "__neg__": lambda self: FUNCTIONS["neg"](self),
    "__pos__": _pos,
    "__abs__": lambda self: FUNCTIONS["abs"](self),
    "__invert__": _invert,
}

for _name, _fn in _TABLE.items():
    setattr(Tensor, _name, _fn)
Tensor.__hash__ = object.__hash__     # defining __eq__ would otherwise remove hashing
