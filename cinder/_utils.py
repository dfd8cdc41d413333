"""Small helpers PyTorch keeps in ``torch._utils``.

- ``ExceptionWrapper``: an exception carried across a thread or process boundary with its
  formatted traceback (DataLoader workers).
- The functions a checkpoint's ``data.pkl`` names (``torch._utils._rebuild_tensor_v2``...), which
  ``cinder.load`` maps here. Each checks that the view it is asked to build stays inside its
  storage: the numbers come from a file that may be hostile, and a view running past the end of
  its buffer would read foreign memory.
"""

import sys
import traceback
from collections import OrderedDict

import numpy as np

from . import _dtype as D
from . import backend
from ._device import device as device_cls
from ._storage import TypedStorage, UntypedStorage, storage_view
from ._tensor import make_tensor


class KeyErrorMessage(str):
    """A str whose repr is itself: KeyError reprs its argument, which would mangle a
    multi-line traceback message."""

    __slots__ = ()

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception's type and formatted traceback, picklable, to re-raise elsewhere.

    ``where`` says where it happened ("in DataLoader worker process 0"); ``reraise`` raises an
    exception of the same type whose message starts "Caught <Type> <where>." followed by the
    original traceback.
    """

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        # Only text is kept: holding the traceback object would keep every frame alive.
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            # An exception type that cannot be built from one message string.
            raise RuntimeError(msg) from None
        try:
            raise exception
        finally:
            # Without this the frame and the exception would hold each other, and whatever the
            # caller's frames hold (a DataLoader iterator and its workers) would wait for the
            # cyclic garbage collector.
            del exception


__all__ = ["_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_tensor_v3", "_rebuild_parameter",
           "_rebuild_parameter_with_state", "STORAGE_DTYPES", "storage_type_name"]

# Storage class names as PyTorch pickles them, and the dtype each one holds.
STORAGE_DTYPES = {d._storage_name: d for d in D.ALL_DTYPES}
STORAGE_DTYPES["UntypedStorage"] = D.uint8


def storage_type_name(dtype):
    """``'FloatStorage'`` for float32...: the class a checkpoint names for a storage."""
    return dtype._storage_name


def _int_tuple(values, what):
    """``values`` as a tuple of Python ints, or a RuntimeError saying which field is bad."""
    if not isinstance(values, (tuple, list)):
        raise RuntimeError(f"invalid checkpoint: tensor {what} must be a tuple, got "
                           f"{type(values).__name__}")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise RuntimeError(f"invalid checkpoint: tensor {what} must hold ints, got {values!r}")
    return tuple(values)


def _check_bounds(size, stride, offset, itemsize, nbytes):
    """Raise PyTorch's ``setStorage`` error when the view would reach past the storage."""
    if any(n < 0 for n in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: "
                           f"{list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    numel = 1
    for n in size:
        numel *= n
    needed = 0 if numel == 0 else \
        (offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))) * itemsize
    if needed > nbytes:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {itemsize} requiring a storage size of {needed} are out of bounds "
            f"for storage of size {nbytes}")


def _tensor_on(storage, storage_offset, size, stride):
    """A tensor viewing ``storage`` (shared memory, no copy) after checking the bounds."""
    if isinstance(storage, UntypedStorage):
        storage = TypedStorage(dtype=D.uint8, wrap_storage=storage)
    if not isinstance(storage, TypedStorage):
        raise RuntimeError(f"invalid checkpoint: expected a storage, got "
                           f"{type(storage).__name__}")
    if not isinstance(storage_offset, int) or isinstance(storage_offset, bool):
        raise RuntimeError(f"invalid checkpoint: storage offset must be an int, got "
                           f"{storage_offset!r}")
    size = _int_tuple(size, "size")
    stride = _int_tuple(stride, "stride")
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape ({len(stride)} != "
                           f"{len(size)})")
    dtype = storage.dtype
    raw = storage._untyped._bytes
    _check_bounds(size, stride, storage_offset, dtype.itemsize, raw.size)
    if raw.size == 0 or 0 in size:
        xp = np if isinstance(raw, np.ndarray) else None
        if xp is not None:
            return make_tensor(np.empty(size, dtype.numpy_dtype), dtype, storage.device)
    arr = storage_view(raw, dtype.numpy_dtype, size, stride, storage_offset)
    return make_tensor(arr, dtype, storage.device)


def _rebuild_tensor(storage, storage_offset, size, stride):
    """A tensor over ``storage`` (the pre-0.4 form; also used by ``_rebuild_tensor_v2``)."""
    return _tensor_on(storage, storage_offset, size, stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    """A tensor over ``storage`` with its ``requires_grad`` flag (PyTorch ≥ 0.4's form).

    ``backward_hooks`` is always empty in files PyTorch writes; ``metadata`` carries conj/neg
    bits, which cinder tensors do not have, so it is accepted and ignored.
    """
    t = _tensor_on(storage, storage_offset, size, stride)
    t._requires_grad = bool(requires_grad)
    return t


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    """The variant that names the dtype explicitly (storage is then untyped bytes)."""
    if isinstance(storage, TypedStorage):
        storage = storage._untyped
    typed = TypedStorage(dtype=dtype, wrap_storage=storage)
    return _rebuild_tensor_v2(typed, storage_offset, size, stride, requires_grad,
                              backward_hooks, metadata)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """An ``nn.Parameter`` around ``data`` (sharing its memory)."""
    from .nn.parameter import Parameter    # nn sits above this layer; needed only on load
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """A Parameter that also carries Python attributes set on it before saving."""
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    if isinstance(state, dict):
        param.__dict__.update(state)
    elif isinstance(state, tuple) and len(state) == 2:
        for part in state:
            if part:
                param.__dict__.update(part)
    return param


def _rebuild_from_type_v2(func, new_type, args, state):
    """A tensor (possibly of a Tensor subclass) with extra attributes, ``torch._tensor``'s way."""
    ret = func(*args)
    if new_type is not type(ret) and isinstance(new_type, type):
        ret.__class__ = new_type
    if state:
        if isinstance(state, tuple) and len(state) == 2:
            state = {**(state[0] or {}), **(state[1] or {})}
        ret.__dict__.update(state)
    return ret


def empty_hooks():
    """The ``backward_hooks`` argument PyTorch always writes: an empty OrderedDict."""
    return OrderedDict()


# ----------------------------------------------------------------------------------------------
# Coalescing: many small tensors packed into one flat buffer and back (torch.cuda.comm's
# broadcast_coalesced / reduce_add_coalesced move one buffer instead of many tensors).
# ----------------------------------------------------------------------------------------------


def _flatten_dense_tensors(tensors):
    """One contiguous 1-D tensor holding the elements of ``tensors`` (same dtype), in order.
    A single tensor comes back as a flat view of itself when it is contiguous, as in PyTorch."""
    if len(tensors) == 1:
        return tensors[0].contiguous().view(-1)
    from . import cat
    return cat([t.contiguous().view(-1) for t in tensors])


def _unflatten_dense_tensors(flat, tensors):
    """Views of the 1-D ``flat`` shaped like each of ``tensors`` (inverse of the flatten)."""
    outputs, offset = [], 0
    for t in tensors:
        numel = t.numel()
        outputs.append(flat.narrow(0, offset, numel).view_as(t) if numel else
                       flat.new_empty(t.shape))
        offset += numel
    return tuple(outputs)


def _take_tensors(tensors, size_limit):
    """Yield groups of ``tensors`` of one type each, every group at most ``size_limit`` bytes
    (a tensor larger than the limit forms a group alone). Within a type the order is kept."""
    groups = {}
    for t in tensors:
        if t.is_sparse:
            values = t._values()
            size = t._indices().numel() * 8 + values.numel() * values.element_size()
        else:
            size = t.numel() * t.element_size()
        key = t.type()
        group = groups.setdefault(key, [[], 0])
        if group[1] + size > size_limit and group[1] > 0:
            yield group[0]
            group = groups[key] = [[], 0]
        group[0].append(t)
        group[1] += size
    for members, _ in groups.values():
        if members:
            yield members


def _reorder_tensors_as(tensors, ordered_tensors):
    """``tensors`` (in ``_take_tensors``' per-type order) put back in the order of
    ``ordered_tensors``, matched by type."""
    by_type = {}
    for t in tensors:
        by_type.setdefault(t.type(), []).append(t)
    iters = {k: iter(v) for k, v in by_type.items()}
    return tuple(next(iters[t.type()]) for t in ordered_tensors)


def _handle_complex(tensor):
    """A real view (last dimension 2) of a complex tensor; any other tensor unchanged."""
    # A lazy module's uninitialized parameter has no dtype to ask yet (it carries the
    # ``cls_to_become`` of the class it turns into once materialised).
    if not hasattr(tensor, "cls_to_become") and tensor.is_complex():
        from . import view_as_real
        return view_as_real(tensor)
    return tensor


def _get_device_index(device, optional=False, allow_cpu=False):
    """The device index ``device`` (an int, a string or a ``torch.device``) names: -1 for the
    CPU when ``allow_cpu``, the current CUDA device for ``None`` or a device without an index
    when ``optional``. The accelerator-neutral form of ``torch.cuda._utils``' function."""
    if isinstance(device, str):
        device = device_cls(device)
    index = None
    if isinstance(device, device_cls):
        if not allow_cpu and device.type == "cpu":
            raise ValueError(f"Expected a non cpu device, but got: {device}")
        index = -1 if device.type == "cpu" else device.index
    if isinstance(device, int):
        index = device
    if index is None:
        if not optional:
            raise ValueError("Expected a torch.device with a specified index or an integer, "
                             f"but got:{device}")
        # PyTorch's CPU build has no current device to offer: None, as there.
        index = backend.cuda.current_device() if backend.cuda_is_available() else None
    return index
