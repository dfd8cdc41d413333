"""ForkingPickler reducers: tensors and storages cross process boundaries as shared memory.

Sending a CPU tensor moves its storage to shared memory (once; later sends reuse it) and
pickles a *handle* plus the tensor's dtype, shape, strides and offset. The handle is either a
duplicate of the memory's file descriptor (passed over a Unix socket by ``multiprocessing``'s
resource sharer) or the segment's /dev/shm name, depending on how the memory was made. The
receiver maps the same memory, so no tensor data is copied and both sides see each other's
writes. Receiving the same memory twice gives arrays over one mapping (a per-process cache),
so views sent separately still share their storage.
"""

import os
import weakref
from multiprocessing.reduction import DupFd, ForkingPickler

from .. import _dtype as D
from .. import _shared_memory as shm
from .. import backend
from .._storage import TypedStorage, UntypedStorage, storage_view
from .._tensor import Tensor, make_tensor

# Mapping key -> root array, so one segment is mapped once per process.
_shared_cache = weakref.WeakValueDictionary()


def _fd_key(fd):
    st = os.fstat(fd)
    return ("fd", st.st_dev, st.st_ino)


# ----------------------------------------------------------------------------------------------
# Memory handles
# ----------------------------------------------------------------------------------------------
def _share(root):
    """The Segment under ``root``; the caller has already moved the memory to shared memory."""
    seg = shm.segment_of(root)
    if seg is None:
        raise RuntimeError("internal error: storage is not in shared memory")
    return seg


def _handle(seg):
    """A picklable way for another process to reach ``seg``'s memory."""
    if seg.name is not None:
        shm.add_name_ref(seg.name)          # the message holds a reference until received
        return ("name", seg.name)
    return ("fd", DupFd(seg.fd))


def _attach(handle, nbytes):
    """The root byte array for a received handle (mapped once per process)."""
    kind, value = handle
    if kind == "name":
        root = _shared_cache.get(("name", value))
        if root is None:
            root = shm.attach_name(value, nbytes)
            _shared_cache[("name", value)] = root
        shm.release_name(value)             # the message's reference is handed over
        return root
    fd = value.detach()
    key = _fd_key(fd)
    root = _shared_cache.get(key)
    if root is not None and root.size >= nbytes:
        os.close(fd)
        return root
    root = shm.attach_fd(fd, nbytes)
    _shared_cache[key] = root
    return root


# ----------------------------------------------------------------------------------------------
# Tensors
# ----------------------------------------------------------------------------------------------
def reduce_tensor(tensor):
    """Reduce a tensor for ``ForkingPickler``: shared-memory handle plus its layout."""
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
            "does not support crossing process boundaries.  If you just want to transfer the "
            "data, call detach() on the tensor before serializing (e.g., putting it on the "
            "queue).")
    if tensor.device.type != "cpu" or tensor.numel() == 0:
        # No CUDA IPC here: a CUDA (or empty) tensor travels as a copy of its values.
        return tensor.__reduce_ex__(2)
    tensor.share_memory_()
    root = backend.storage_root(tensor._data)
    meta = (tensor._dtype.name, tuple(tensor.shape), tensor.stride(), tensor.storage_offset())
    return (rebuild_tensor, (type(tensor), _handle(_share(root)), root.nbytes, meta,
                             tensor.requires_grad))


def rebuild_tensor(cls, handle, nbytes, meta, requires_grad):
    dtype_name, shape, strides, offset = meta
    dtype = D.by_name(dtype_name)
    root = _attach(handle, nbytes)
    t = make_tensor(storage_view(root, dtype.numpy_dtype, shape, strides, offset), dtype)
    if cls is Tensor:
        t._requires_grad = bool(requires_grad)
        return t
    from ..nn.parameter import Parameter
    if issubclass(cls, Parameter):
        return cls(t, requires_grad)
    t._requires_grad = bool(requires_grad)
    return t


# ----------------------------------------------------------------------------------------------
# Storages
# ----------------------------------------------------------------------------------------------
def reduce_storage(storage):
    """Reduce an UntypedStorage or TypedStorage as a shared-memory handle."""
    if storage.is_cuda:
        raise RuntimeError("Cannot pickle CUDA storage; try pickling a CUDA tensor instead")
    untyped = storage._untyped if isinstance(storage, TypedStorage) else storage
    dtype = storage.dtype.name if isinstance(storage, TypedStorage) else None
    if untyped.nbytes() == 0:
        return (rebuild_storage_empty, (dtype,))
    untyped.share_memory_()
    root = backend.storage_root(untyped._bytes)
    start = backend.data_ptr(untyped._bytes) - backend.data_ptr(root)
    return (rebuild_storage, (_handle(_share(root)), root.nbytes, start, untyped.nbytes(),
                              dtype))


def rebuild_storage(handle, root_nbytes, start, nbytes, dtype):
    root = _attach(handle, root_nbytes)
    untyped = UntypedStorage._wrap(root[start:start + nbytes], UntypedStorage().device)
    if dtype is None:
        return untyped
    return TypedStorage(dtype=D.by_name(dtype), wrap_storage=untyped)


def rebuild_storage_empty(dtype):
    if dtype is None:
        return UntypedStorage()
    return TypedStorage(dtype=D.by_name(dtype))


def init_reductions():
    """Register the reducers with ``multiprocessing``'s ForkingPickler (done on import)."""
    from ..nn.parameter import Parameter
    for cls in (Tensor, Parameter):
        ForkingPickler.register(cls, reduce_tensor)
    for cls in (UntypedStorage, TypedStorage):
        ForkingPickler.register(cls, reduce_storage)
