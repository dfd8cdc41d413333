"""Storages: the flat memory under tensors (``untyped_storage()`` and the typed ``storage()``).

A storage here is a byte view of the array that owns a tensor's memory (its *root*), so it
shares memory with every tensor made from it, the way PyTorch's storages do: writing through a
storage changes the tensors, and ``Tensor(storage)`` / ``t.set_(storage)`` build tensors over it.
"""

import gc
import itertools
import pickle
import sys
import threading
import warnings
import weakref

import numpy as np

from . import _dtype as D
from . import backend
from ._device import CPU
from ._device import as_device
from ._device import device as device_cls
from ._shared_memory import segment_of
from ._shared_memory import share_root
from ._shared_memory import new_segment


def _flat_bytes(root):
    """The whole buffer of ``root`` (the array that owns the memory) as 1-D uint8, a view.

    The owner may be laid out in any axis order (F-ordered results, permuted ``empty_like``),
    so the buffer is described by its extent from the first element rather than reshaped.
    """
    item = root.itemsize
    span = item + sum((n - 1) * s for n, s in zip(root.shape, root.strides)) if root.size else 0
    if isinstance(root, np.ndarray):
        flat = np.lib.stride_tricks.as_strided(root, (span // item,), (item,))
    else:
        flat = backend.cupy_module().lib.stride_tricks.as_strided(root, (span // item,), (item,))
    return flat.view(np.uint8)


def storage_view(root, np_dtype, shape, strides, offset):
    """An array of ``np_dtype`` laid over ``root``'s buffer with element ``strides`` starting
    ``offset`` elements in: what ``as_strided``, ``set_`` and ``Tensor(storage)`` build on."""
    flat = _flat_bytes(root)
    item = np.dtype(np_dtype).itemsize
    byte_strides = tuple(st * item for st in strides)
    if isinstance(flat, np.ndarray):
        return np.ndarray(tuple(shape), np_dtype, buffer=flat, offset=offset * item,
                          strides=byte_strides)
    cp = backend.cupy_module()
    return cp.ndarray(tuple(shape), np_dtype, memptr=flat.data + offset * item,
                      strides=byte_strides)


def adopt_numpy(arr):
    """A view of the NumPy array ``arr`` whose storage is exactly the memory ``arr`` spans, as
    ``torch.from_numpy`` makes it (storage offset 0, not the offset inside ``arr``'s owner).

    The bytes are re-exposed through a memoryview, which ends the ``base`` chain that
    ``storage_root`` follows while keeping the original array alive.
    """
    if not arr.size:
        return np.empty(arr.shape, arr.dtype)     # an empty tensor owns an empty storage
    if arr.flags.c_contiguous:
        # The common case (a DataLoader does this for every sample), in a few microseconds.
        try:
            owner = np.frombuffer(memoryview(arr), arr.dtype)   # raw bytes, read as dtype
        except (ValueError, TypeError):       # dtypes without a buffer format (bfloat16)
            owner = np.frombuffer(memoryview(arr.reshape(-1).view(np.uint8)), np.uint8)
            owner = owner.view(arr.dtype)
        out = owner.reshape(arr.shape)
        if out.strides == arr.strides:      # size-1 dims may carry any stride: keep those
            return out
    if any(st < 0 for st in arr.strides):
        return arr
    item = arr.itemsize
    span = item + sum((n - 1) * st for n, st in zip(arr.shape, arr.strides))
    if span % item:
        return arr
    flat = np.lib.stride_tricks.as_strided(arr, (span // item,), (item,),
                                           writeable=arr.flags.writeable)
    owner = np.frombuffer(memoryview(flat.view(np.uint8)), np.uint8)
    return np.ndarray(arr.shape, arr.dtype, buffer=owner, strides=arr.strides)


def _storage_repr(values, head):
    return " " + "\n ".join(str(v) for v in values) + f"\n[{head}]"


def _allocate(nbytes, device):
    xp = np if device is None or device.type == "cpu" else backend.array_module(device)
    return xp.zeros(int(nbytes), dtype=np.uint8)


class StorageBase:
    """``torch._C.StorageBase``: the base class of :class:`UntypedStorage`."""

    __module__ = "torch._C"


class UntypedStorage(StorageBase):
    """Bytes on a device: ``nbytes()``, ``data_ptr()``, byte indexing and slicing (slices share
    memory), ``tolist()``, ``fill_``, ``copy_``, ``clone``, ``resize_``."""

    is_sparse = False

    def __init__(self, size=0, *, device=None):
        dev = CPU if device is None else as_device(device)
        if isinstance(size, (bytes, bytearray)):
            self._bytes = np.frombuffer(bytearray(size), dtype=np.uint8)
        elif isinstance(size, (list, tuple)):
            self._bytes = np.array(size, dtype=np.uint8)
        else:
            self._bytes = _allocate(size, dev)
        if dev.type != "cpu":
            self._bytes = backend.to_device(self._bytes, dev)
        self.device = dev

    @classmethod
    def _from_root(cls, root, device):
        self = object.__new__(cls)
        self._bytes = _flat_bytes(root)
        self.device = device
        return self

    @classmethod
    def _wrap(cls, flat, device):
        self = object.__new__(cls)
        self._bytes = flat
        self.device = device
        return self

    def nbytes(self):
        return self._bytes.size

    size = nbytes

    def __len__(self):
        return self._bytes.size

    def data_ptr(self):
        return backend.data_ptr(self._bytes) if self._bytes.size else 0

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def element_size(self):
        return 1

    def type(self):
        return "torch.storage.UntypedStorage"

    def __getitem__(self, i):
        if isinstance(i, slice):
            return UntypedStorage._wrap(self._bytes[i], self.device)
        n = self._bytes.size
        if not -n <= i < n:
            raise IndexError(f"index {i} out of range for storage of size {n}")
        return int(self._bytes[i])

    def __setitem__(self, i, v):
        self._bytes[i] = v

    def tolist(self):
        return backend.to_numpy(self._bytes).tolist()

    def fill_(self, value):
        self._bytes[...] = value
        return self

    def copy_(self, src, non_blocking=False):
        src_bytes = src._untyped._bytes if isinstance(src, TypedStorage) else src._bytes
        if src_bytes.size != self._bytes.size:
            raise RuntimeError(f"size mismatch, expected {self._bytes.size} bytes, got "
                               f"{src_bytes.size}")
        self._bytes[...] = backend.to_device(src_bytes, self.device)
        return self

    def clone(self):
        return UntypedStorage._wrap(self._bytes.copy(), self.device)

    def cpu(self):
        return self if self.device.type == "cpu" else \
            UntypedStorage._wrap(backend.to_device(self._bytes, CPU), CPU)

    def is_shared(self):
        """Whether these bytes live in shared memory."""
        return self.device.type == "cpu" and \
            segment_of(backend.storage_root(self._bytes)) is not None

    def is_pinned(self, device="cuda"):
        """Whether these bytes are page-locked host memory."""
        return self.device.type == "cpu" and backend.cuda.is_pinned(self._bytes)

    def share_memory_(self):
        """Move the bytes to shared memory in place (a no-op when already shared or not on the
        CPU): every tensor and storage viewing them sees the shared memory from then on, as
        in PyTorch. Returns self."""
        if self.device.type == "cpu":
            move_to_shared(self)
        return self

    @classmethod
    def _new_shared(cls, size, *, device=None):
        """A new storage of ``size`` bytes, allocated in shared memory."""
        return cls._wrap(new_segment(int(size)), CPU)

    def resize_(self, size):
        """Resize to ``size`` bytes, keeping the leading bytes. New memory is allocated, so
        tensors made earlier keep the old bytes (PyTorch would grow them in place)."""
        new = _allocate(size, self.device)
        keep = min(int(size), self._bytes.size)
        new[:keep] = self._bytes[:keep]
        self._bytes = new
        return self

    def untyped(self):
        return self

    def __repr__(self):
        return _storage_repr(self.tolist(), f"torch.storage.UntypedStorage(device={self.device}) "
                                            f"of size {self.nbytes()}")

    __str__ = __repr__

    def __reduce__(self):
        return (_rebuild_untyped, (bytes(backend.to_numpy(self._bytes)), str(self.device)))

    def _as_tensor(self, dtype):
        from ._tensor import make_tensor
        numel = self.nbytes() // dtype.itemsize
        arr = storage_view(self._bytes, dtype.numpy_dtype, (numel,), (1,), 0)
        return make_tensor(arr, dtype, self.device)


def _rebuild_untyped(data, device):
    return UntypedStorage(bytearray(data), device=device_cls(device))


class TypedStorage:
    """A storage seen as elements of one dtype (``tensor.storage()``; deprecated in PyTorch).

    ``TypedStorage(n)``, ``TypedStorage([1, 2], dtype=...)``, ``torch.FloatStorage(3)``.
    """

    # _vc and _base: the record share_memory_ uses to find the tensors over the same memory.
    __slots__ = ("dtype", "_wrapped", "_root", "_root_device", "_vc", "_base", "__weakref__")
    is_sparse = False

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None):
        self.dtype = D.get_default_dtype() if dtype is None else dtype
        self._root = None
        if wrap_storage is not None:
            self._untyped = wrap_storage
            return
        data = args[0] if args else 0
        if isinstance(data, (list, tuple)):
            arr = np.array(data, dtype=self.dtype.numpy_dtype).reshape(-1)
            self._untyped = UntypedStorage._from_root(arr, CPU)
            if device is not None:
                self._untyped = UntypedStorage._wrap(
                    backend.to_device(self._untyped._bytes, device), device)
        else:
            self._untyped = UntypedStorage(int(data) * self.dtype.itemsize, device=device)

    @classmethod
    def _from_tensor(cls, t):
        warnings.warn(
            "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will "
            "be the only storage class. This should only matter to you if you are using storages "
            "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead "
            "of tensor.storage()", UserWarning, stacklevel=3)
        # One allocation only; the UntypedStorage is made when first needed. (Like PyTorch's
        # temporaries, ``id(a.storage()) == id(b.storage())`` then holds, as the book shows.)
        self = object.__new__(cls)
        self.dtype = t._dtype
        self._root = backend.storage_root(t._data)
        self._root_device = t._device
        return self

    @property
    def _untyped(self):
        if self._root is not None:
            self._wrapped = UntypedStorage._from_root(self._root, self._root_device)
            self._root = None
            vc = getattr(self, "_vc", None)
            if vc is not None:      # the wrapper takes over this storage's record
                self._wrapped._vc, self._wrapped._base = vc, self._base
                vc.note_alias(self._wrapped)
        return self._wrapped

    @_untyped.setter
    def _untyped(self, storage):
        self._wrapped = storage
        self._root = None

    @property
    def device(self):
        return self._root_device if self._root is not None else self._wrapped.device

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    @property
    def _untyped_storage(self):
        return self._untyped

    def _array(self):
        raw = self._untyped._bytes
        usable = raw.size - raw.size % self.dtype.itemsize
        return raw[:usable].view(self.dtype.numpy_dtype)

    def size(self):
        return self._untyped.nbytes() // self.dtype.itemsize

    def __len__(self):
        return self.size()

    def nbytes(self):
        return self._untyped.nbytes()

    def element_size(self):
        return self.dtype.itemsize

    def data_ptr(self):
        return self._untyped.data_ptr()

    def untyped(self):
        return self._untyped

    def type(self):
        return "torch." + self.dtype._tensor_name.replace("Tensor", "Storage")

    def pickle_storage_type(self):
        return self.dtype._tensor_name.replace("Tensor", "Storage")

    def __getitem__(self, i):
        if isinstance(i, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        n = self.size()
        if not -n <= i < n:
            raise IndexError(f"index {i} out of range for storage of size {n}")
        return self._array()[i].item()

    def __setitem__(self, i, v):
        self._array()[i] = v

    def tolist(self):
        return backend.to_numpy(self._array()).tolist()

    def __iter__(self):
        return iter(self.tolist())

    def fill_(self, value):
        self._array()[...] = value
        return self

    def copy_(self, src, non_blocking=False):
        src_arr = src._array() if isinstance(src, TypedStorage) else src._bytes
        self._array()[...] = backend.to_device(src_arr, self.device)
        return self

    def clone(self):
        return TypedStorage(dtype=self.dtype, wrap_storage=self._untyped.clone())

    def cpu(self):
        return TypedStorage(dtype=self.dtype, wrap_storage=self._untyped.cpu().clone()
                            if self.device.type != "cpu" else self._untyped)

    def is_shared(self):
        return self._untyped.is_shared()

    def is_pinned(self, device="cuda"):
        return self._untyped.is_pinned(device)

    def share_memory_(self):
        self._untyped.share_memory_()
        return self

    def _new_shared(self, size, *, device=None):
        """A new storage of ``size`` elements of this dtype, in shared memory."""
        untyped = UntypedStorage._new_shared(int(size) * self.dtype.itemsize)
        return TypedStorage(dtype=self.dtype, wrap_storage=untyped)

    def resize_(self, size):
        self._untyped.resize_(int(size) * self.dtype.itemsize)

    def _to(self, dtype):
        arr = self._array().astype(dtype.numpy_dtype)
        return TypedStorage(dtype=dtype, wrap_storage=UntypedStorage._from_root(arr, self.device))

    def double(self):
        return self._to(D.float64)

    def float(self):
        return self._to(D.float32)

    def half(self):
        return self._to(D.float16)

    def long(self):
        return self._to(D.int64)

    def int(self):
        return self._to(D.int32)

    def short(self):
        return self._to(D.int16)

    def char(self):
        return self._to(D.int8)

    def byte(self):
        return self._to(D.uint8)

    def bool(self):
        return self._to(D.bool)

    def _as_tensor(self, dtype):
        from ._tensor import make_tensor
        if dtype is not self.dtype:
            raise TypeError(f"expected {dtype} (got {self.dtype})")
        return make_tensor(self._array(), self.dtype, self.device)

    def __repr__(self):
        head = (f"torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size "
                f"{self.size()}")
        return _storage_repr(self.tolist(), head)

    __str__ = __repr__

    def __reduce__(self):
        return (_rebuild_typed, (pickle.dumps(self._untyped), self.dtype))


def _rebuild_typed(untyped, dtype):
    return TypedStorage(dtype=dtype, wrap_storage=pickle.loads(untyped))


# ----------------------------------------------------------------------------------------------
# Moving a storage to shared memory
# ----------------------------------------------------------------------------------------------
# PyTorch moves the storage object that every view of it holds, so all of them see shared
# memory afterwards. Here a tensor or storage holds an array whose ``base`` chain leads to the
# root array owning the bytes (the root plays the part of PyTorch's storage). The tensors that
# may view a root are known without searching: the tensor itself, its ``_base`` and the views
# and detached aliases its version counter remembers (``_VersionCounter.note_alias``, from the
# first move in the process on: views made before it are found by the fallback below).
# Reference counts then prove that nothing else refers to the arrays of those tensors; only
# when something unexplained does (an alias made by a path that keeps no record, or a raw
# array) are the objects the garbage collector tracks scanned, as the last resort.

_MOVE_LOCK = threading.RLock()   # one move at a time: the check and the repointing are atomic


def _holder_array(holder):
    """The array a tensor (``_data``), untyped storage (``_bytes``) or typed storage not yet
    wrapped (``_root``) views, or None."""
    if hasattr(holder, "_dtype"):
        arr = getattr(holder, "_data", None)
    elif isinstance(holder, TypedStorage):
        arr = getattr(holder, "_root", None)
    else:
        arr = getattr(holder, "_bytes", None)
    return arr if isinstance(arr, np.ndarray) else None


def _candidates(holder):
    """``holder`` and the live tensors recorded as aliasing it (its base and its views)."""
    found = {id(holder): holder}
    base = getattr(holder, "_base", None)
    if isinstance(base, weakref.ref):       # a storage refers to its tensor weakly
        base = base()
    if base is not None:
        found[id(base)] = base
    for t in list(found.values()):
        vc = getattr(t, "_vc", None)
        for ref in (vc.aliases or ()) if vc is not None else ():
            alias = ref()
            if alias is not None:
                found[id(alias)] = alias
    return list(found.values())


def _excess_references(arrays):
    """The largest number of references to a link of the arrays' ``base`` chains (up to the
    last array of each chain) that neither the holders of ``arrays`` (one each), the list
    ``arrays`` itself (one per entry) nor the links of the chains explain, plus this
    function's own temporaries (``_BASELINE``)."""
    links, expected, checked = {}, {}, set()
    for arr in arrays:
        expected[id(arr)] = expected.get(id(arr), 0) + 2
        chain, node = [], arr
        while node is not None and id(node) not in links:
            links[id(node)] = node
            chain.append(id(node))
            node = getattr(node, "base", None)
            if node is not None:
                expected[id(node)] = expected.get(id(node), 0) + 1
        # Every link up to the chain's last array (the root, when the walk got that far);
        # what lies beyond the root (a memoryview, a memory map) is the root's own business.
        last = max((i for i, key in enumerate(chain) if isinstance(links[key], np.ndarray)),
                   default=-1)
        checked.update(chain[:last + 1])
    arr = node = None
    excess = 0
    for key, link in links.items():
        if key in checked:
            excess = max(excess, sys.getrefcount(link) - expected[key])
    return excess


class _Holder:
    __slots__ = ("_bytes",)


def _baseline_excess():
    """What ``_excess_references`` reports when every reference is explained (its own
    temporaries: that depends on the Python version, so it is measured, not assumed)."""
    a, b = _Holder(), _Holder()
    a._bytes = np.zeros(4)
    b._bytes = a._bytes[1:]
    return _excess_references([a._bytes, b._bytes])


_BASELINE = _baseline_excess()


def _views_of_same_root(holder):
    """The candidates (``_candidates``) whose array has the same root as ``holder``'s."""
    root_id = id(backend.storage_root(_holder_array(holder)))
    group = []
    for h in _candidates(holder):
        arr = _holder_array(h)
        if arr is not None and id(backend.storage_root(arr)) == root_id:
            group.append(h)
    return group


def _start_tracking_aliases():
    """From now on views and aliases note themselves on their version counter (see
    ``_VersionCounter.track_aliases``): a process that moves memory once is likely to again."""
    from ._tensor import _VersionCounter       # _tensor imports this module
    _VersionCounter.track_aliases = True


def move_to_shared(holder):
    """Move the memory under ``holder`` (a CPU tensor or untyped storage) to shared memory and
    repoint every tensor and storage that views it. Safe to call from several threads."""
    with _MOVE_LOCK:
        arr = _holder_array(holder)
        if arr is None or segment_of(backend.storage_root(arr)) is not None:
            return
        arr = None
        _start_tracking_aliases()
        group = _views_of_same_root(holder)
        arrays = [_holder_array(h) for h in group]
        complete = _excess_references(arrays) <= _BASELINE
        root = backend.storage_root(arrays[0])
        if not complete:
            move_root_to_shared(root)
            return
        shared = share_root(root)
        for h, data in zip(group, arrays):
            new = _rebased(data, root, shared)
            if hasattr(h, "_dtype"):
                h._data = new
            elif isinstance(h, TypedStorage):
                h._root = shared            # its data is the root itself
            else:
                h._bytes = new


def _rebased(arr, root, new_root):
    """``arr`` (a view into ``root``) laid the same way over ``new_root`` (a copy of it)."""
    start = backend.data_ptr(arr) - backend.data_ptr(root)
    flat = _flat_bytes(new_root)
    return np.ndarray(arr.shape, arr.dtype, buffer=flat, offset=start, strides=arr.strides)


def _with_subclasses(cls):
    found, todo = set(), [cls]
    while todo:
        kind = todo.pop()
        if kind not in found:
            found.add(kind)
            todo.extend(kind.__subclasses__())
    return found


def move_root_to_shared(root):
    """Copy ``root``'s bytes to shared memory and repoint every live tensor and storage that
    views them, found by a scan of the objects the garbage collector tracks (the fallback of
    ``move_to_shared``); returns the shared root."""
    from ._tensor import Tensor       # _tensor imports this module
    shared = share_root(root)
    tensors, untyped = _with_subclasses(Tensor), _with_subclasses(UntypedStorage)
    typed = _with_subclasses(TypedStorage)
    # Exact types are looked up in a set, not tested with isinstance(): the filter over every
    # tracked object then runs in C (map/compress, no Python loop), and isinstance would ask
    # proxies for __class__ (a dead weakref.proxy raises ReferenceError).
    holders = tensors | untyped | typed
    objects = gc.get_objects()
    for obj in itertools.compress(objects, map(holders.__contains__, map(type, objects))):
        kind = type(obj)
        if kind in tensors:
            data = getattr(obj, "_data", None)      # unset while a tensor is being built
            if isinstance(data, np.ndarray) and backend.storage_root(data) is root:
                obj._data = _rebased(data, root, shared)
        elif kind in untyped:
            data = getattr(obj, "_bytes", None)
            if isinstance(data, np.ndarray) and backend.storage_root(data) is root:
                obj._bytes = _rebased(data, root, shared)
        elif kind in typed and getattr(obj, "_root", None) is root:
            obj._root = shared             # a typed storage not yet wrapped (see _from_tensor)
    return shared
