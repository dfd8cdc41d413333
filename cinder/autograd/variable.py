"""``torch.autograd.Variable``: kept for old code; Variables and Tensors are one type now."""

import warnings

from .. import _dtype as D
from .._tensor import Tensor

__all__ = ["VariableMeta", "Variable"]


class VariableMeta(type):
    """Every tensor is a Variable: ``isinstance(t, Variable)`` is true for any Tensor."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)


class Variable(metaclass=VariableMeta):
    """The pre-0.4 wrapper. ``Variable(t, requires_grad)`` is ``t.detach()`` (same memory and
    version counter) with ``requires_grad`` set, as in PyTorch since the merge.

    ``volatile=True`` keeps the pre-0.4 meaning the seed material relies on: the result, and
    everything computed from it, records no graph and reports ``.volatile == True``. It warns
    (DeprecationWarning): ``torch.no_grad()`` is the modern form.
    """

    def __new__(cls, data, requires_grad=False, volatile=False, **kwargs):
        if kwargs:
            raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this "
                            "function")
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if volatile:
            warnings.warn("volatile is deprecated (PyTorch 2.x ignores it); cinder keeps its old "
                          "meaning. Use `with torch.no_grad():` instead.", DeprecationWarning,
                          stacklevel=2)
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        out = data.detach()
        if volatile:
            out._volatile = True
            out._requires_grad = True     # routes ops through record(); reported as False
        if requires_grad:
            if out._dtype.category < D.FLOATING:
                raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                                   "gradients")
            out._requires_grad = True
        return out
