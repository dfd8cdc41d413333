"""``nn.Parameter``: a tensor that a Module registers as one of its parameters."""

from .._C import _disabled_torch_function_impl
from .._tensor import Tensor


class Parameter(Tensor):
    """A leaf tensor marked as a module parameter (``requires_grad=True`` by default).

    It shares memory with ``data``; printing adds the ``Parameter containing:`` header.
    """

    __slots__ = ()

    # Ops on a Parameter return plain Tensors and take the fast path, as in PyTorch.
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from ..ops.creation import empty
            data = empty(0)
        # Non-tensor data fails on .detach() with an AttributeError, exactly as in PyTorch.
        t = data.detach()
        t.__class__ = cls
        t._requires_grad = False
        t.requires_grad_(requires_grad)
        return t

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        from ..serialization import rebuild_parameter
        return (rebuild_parameter, (self.data, self.requires_grad))
