"""``nn.Parameter``, ``nn.Buffer`` and the uninitialized kinds used by lazy modules."""

from .._C import _disabled_torch_function_impl
from .._tensor import Tensor
from ..ops.creation import empty

__all__ = ["Buffer", "Parameter", "UninitializedBuffer", "UninitializedParameter", "is_lazy"]


def _empty(device=None, dtype=None):
    return empty(0, device=device, dtype=dtype)


class Parameter(Tensor):
    """A leaf tensor marked as a module parameter (``requires_grad=True`` by default).

    It shares memory with ``data``; printing adds the ``Parameter containing:`` header.
    """

    __slots__ = ()

    # Ops on a Parameter return plain Tensors and take the fast path, as in PyTorch.
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _empty()
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


class _BufferMeta(type):
    # A tensor marked by Buffer(...) keeps its own class but still counts as a Buffer.
    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and \
                getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor that, assigned as a Module attribute, is registered as a buffer
    (module state that is not a parameter, such as BatchNorm's running mean).

    ``persistent=False`` keeps it out of ``state_dict``.
    """

    # Buffer(...) hands back the tensor itself, so the class never reaches an op: opting out
    # keeps the dispatch point's fast path (a participating subclass switches it off for all).
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _empty()
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t

    def __init__(self, *args, **kwargs):
        pass


_UNINIT_SHAPE = ("Can't access the shape of an uninitialized parameter or buffer. This error "
                 "usually happens in `load_state_dict` when trying to load an uninitialized "
                 "parameter into an initialized one. Call `forward` to initialize the "
                 "parameters before accessing their attributes.")


class UninitializedTensorMixin:
    """Shared behaviour of tensors whose shape is not known yet (lazy modules)."""

    # Ops on these behave as on plain tensors (cinder's shape property raises instead of
    # PyTorch's own __torch_function__ refusals), and the dispatch point keeps its fast path:
    # defining a participating subclass would switch it off process-wide.
    __torch_function__ = _disabled_torch_function_impl

    def materialize(self, shape, device=None, dtype=None):
        """Give the tensor ``shape`` (uninitialized memory) and turn it into its final class
        (``Parameter`` or ``Tensor``), keeping device and dtype unless given."""
        device = self._device if device is None else device
        dtype = self._dtype if dtype is None else dtype
        self.data = empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(_UNINIT_SHAPE)

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call "
                           "`forward` to initialize the parameters before calling "
                           "`module.share_memory()`.")

    def __repr__(self):
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, proto):
        return (type(self), (self.requires_grad,))


def is_lazy(param):
    """Whether ``param`` is an ``UninitializedParameter`` or ``UninitializedBuffer``."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is decided later (by a lazy module's first forward)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        t = _empty(device, dtype)
        t.__class__ = cls
        t._requires_grad = False
        t.requires_grad_(requires_grad)
        return t

    def __init__(self, requires_grad=True, device=None, dtype=None):
        # Everything happened in __new__; Parameter.__init__ does not take device/dtype.
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self._device, self._dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is decided later (by a lazy module's first forward)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = _empty(device, dtype)
        t.__class__ = cls
        t.requires_grad_(requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t

    def __init__(self, *args, **kwargs):
        pass
