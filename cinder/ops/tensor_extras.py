"""Tensor attributes PyTorch defines in Python (``torch/_tensor.py``) or on ``TensorBase`` that
are not computations: ``output_nr``, ``const_data_ptr``, ``dim_order``, ``storage_type``,
``module_load``, ``pin_memory``, the deprecated ``resize``/``resize_as``, ``record_stream``,
``name``, ``grad_dtype``, ``is_distributed``, and the function form ``torch.detach``.
"""

import warnings

from .. import backend
from .._runtime import warn_once
from .._tensor import make_tensor
from ..autograd import grad_mode
from .._layout import memory_format
from ._registry import needs_grad, node_class, publish_attribute, record, register
from ._prep import shape_arg

# ----------------------------------------------------------------------------------------------
# Metadata
# ----------------------------------------------------------------------------------------------


def _output_nr(self):
    """Which output of its ``grad_fn`` this tensor is (0 for leaves and single outputs)."""
    return self._output_nr if self._grad_fn is not None else 0


def _const_data_ptr(self):
    """The address of the first element, for read-only use (0 for a tensor with no elements)."""
    return self.data_ptr()


def _name(self):
    """The tensor's name: always None (named tensors are not implemented)."""
    return None


def _grad_dtype(self):
    """The dtype a gradient of this tensor has: its own dtype."""
    return self._dtype


def _has_several_dim_orders(shape, strides):
    """Whether more than one dim order describes the layout: a size-1 dim may go anywhere, and
    neighbouring dims of equal stride may be swapped."""
    return any(n == 1 for n in shape) or any(a == b for a, b in zip(strides, strides[1:]))


def _is_one_of(self, formats):
    """Whether exactly one of the memory formats ``formats`` describes the layout."""
    return sum(1 for f in formats if self.is_contiguous(memory_format=f)) == 1


def _dim_order(self, *, ambiguity_check=False):
    """The order of the dimensions from outermost to innermost in memory (PyTorch's
    ``Tensor.dim_order``): by decreasing stride, ties in dimension order. ``ambiguity_check``
    True refuses a layout that several orders describe; a list of memory formats refuses it
    unless exactly one of those formats describes the tensor."""
    bad_arg = TypeError("The ambiguity_check argument must be a bool or a list of memory "
                        "formats.")
    if not isinstance(ambiguity_check, bool):
        if not isinstance(ambiguity_check, list) or \
                not all(isinstance(f, memory_format) for f in ambiguity_check):
            raise bad_arg
    shape, strides = tuple(self.shape), tuple(self.stride())
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    check = ambiguity_check if isinstance(ambiguity_check, bool) else True
    if check and _has_several_dim_orders(shape, strides) and not _is_one_of(self, formats):
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact "
                           "one of the given memory formats.")
    return tuple(sorted(range(len(shape)), key=lambda d: -strides[d]))


def _storage_type(self):
    """The legacy typed-storage class of this tensor's dtype (``torch.FloatStorage``...)."""
    from .._legacy import STORAGE_TYPES
    warn_once("typed_storage_removal",
              "TypedStorage is deprecated. It will be removed in the future and UntypedStorage "
              "will be the only storage class. This should only matter to you if you are using "
              "storages directly.  To access UntypedStorage directly, use "
              "tensor.untyped_storage() instead of tensor.storage()")
    return STORAGE_TYPES[self._dtype._tensor_name.replace("Tensor", "Storage")]


def _is_distributed(input):
    """Whether the tensor is spread over several processes (never, in cinder)."""
    return False


def detach(input):
    """A new tensor sharing ``input``'s data, cut from the autograd graph."""
    return input.detach()


register("detach", detach, method=False, family="tensor_extras")
register("is_distributed", _is_distributed, family="tensor_extras")
for _attr, _fn in (("const_data_ptr", _const_data_ptr), ("dim_order", _dim_order),
                   ("storage_type", _storage_type)):
    publish_attribute(_attr, _fn)
for _attr, _fn in (("output_nr", _output_nr), ("name", _name), ("grad_dtype", _grad_dtype)):
    publish_attribute(_attr, _fn, prop=True)

# ----------------------------------------------------------------------------------------------
# Module loading, pinning, streams
# ----------------------------------------------------------------------------------------------


def _module_load(self, other, assign=False):
    """How ``Module.load_state_dict`` turns the state-dict value ``other`` into the new value
    of the parameter/buffer ``self``: ``other`` detached (``assign=True``), else ``self``
    overwritten with ``other``'s values, detached."""
    if assign:
        return other.detach()
    return self.copy_(other).detach()


def _pin_memory(self, device=None):
    """A copy in page-locked (pinned) host memory, from which ``to('cuda', non_blocking=True)``
    copies asynchronously. PyTorch needs an accelerator for this, so without a usable CUDA
    device it refuses, as PyTorch's CPU build does."""
    if device is not None and str(device) == "cpu":
        raise RuntimeError("CPU device type not an accelerator.")
    if not backend.cuda_is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if self._device.type != "cpu":
        raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
    if self.is_pinned():
        return self
    arr = backend.cuda.pinned_empty(self._data.shape, self._data.dtype)
    arr[...] = self._data
    return make_tensor(arr, self._dtype, self._device)


def _record_stream(self, stream):
    """Mark the tensor's memory as used by a CUDA ``stream`` (CUDA tensors only)."""
    if self._device.type != "cuda":
        raise NotImplementedError(
            "Could not run 'aten::record_stream' with arguments from the 'CPU' backend. This "
            "could be because the operator doesn't exist for this backend.")
    # CuPy's memory pool already keeps a block alive until the work using it is done.


for _attr, _fn in (("module_load", _module_load), ("pin_memory", _pin_memory),
                   ("record_stream", _record_stream)):
    publish_attribute(_attr, _fn)

# ----------------------------------------------------------------------------------------------
# The deprecated out-of-place resize: a reshape that keeps the number of elements
# ----------------------------------------------------------------------------------------------

ResizeNode = node_class("ResizeBackward", {
    "self": lambda grad, s: grad.contiguous().view(s.self_sizes)}, saves_also=("self_sizes",))


def _size_text(shape):
    return "x".join(str(n) for n in shape) if shape else "[]"


def _resize_to(self, shape):
    numel = 1
    for n in shape:
        numel *= n
    if numel != self.numel():
        raise RuntimeError(
            f"requested resize to {_size_text(shape)} ({numel} elements in total), but the "
            f"given tensor has a size of {_size_text(tuple(self.shape))} ({self.numel()} "
            "elements). autograd's resize can only change the shape of a given tensor, while "
            "preserving the number of elements. ")
    with grad_mode.no_grad():
        result = self.contiguous().view(shape)
    result = result.detach() if result._base is not None else result
    if needs_grad(self):
        record(ResizeNode, (self,), (result,), self_sizes=tuple(self.shape))
    return result


def _resize(self, *sizes):
    """Deprecated: ``self``'s elements with the shape ``sizes`` (the number of elements must
    stay the same); use ``reshape``."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=3)
    return _resize_to(self, shape_arg(sizes, "resize"))


def _resize_as(self, tensor):
    """Deprecated: ``self`` resized to ``tensor``'s shape (see :meth:`resize`)."""
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=3)
    return _resize_to(self, tuple(tensor.shape))


for _attr, _fn in (("resize", _resize), ("resize_as", _resize_as)):
    publish_attribute(_attr, _fn)
