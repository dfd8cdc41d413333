"""Storages: the flat memory under tensors (``untyped_storage()`` and the typed ``storage()``).

A storage here is a view of the root array's bytes, so it shares memory with every tensor made
from it, the way PyTorch's storages do.
"""

import warnings

import numpy as np

from . import _dtype as D
from . import backend
from ._device import CPU


def _flat_bytes(root):
    """The whole buffer of ``root`` (an array that owns dense memory) as 1-D uint8 (a view)."""
    flat = root if root.ndim == 1 else root.reshape(-1, order="K")
    return flat.view(np.uint8)


class UntypedStorage:
    """Bytes on a device. ``nbytes()``, ``data_ptr()``, indexing by byte, ``tolist()``."""

    def __init__(self, size=0, *, device=None):
        if isinstance(size, (bytes, bytearray)):
            self._bytes = np.frombuffer(bytearray(size), dtype=np.uint8)
        else:
            self._bytes = np.zeros(int(size), dtype=np.uint8)
        self.device = CPU if device is None else device

    @classmethod
    def _from_root(cls, root, device):
        self = object.__new__(cls)
        self._bytes = _flat_bytes(root)
        self.device = device
        return self

    def nbytes(self):
        return self._bytes.size

    size = nbytes

    def __len__(self):
        return self._bytes.size

    def data_ptr(self):
        return backend.data_ptr(self._bytes)

    def __getitem__(self, i):
        return int(self._bytes[i])

    def __setitem__(self, i, v):
        self._bytes[i] = v

    def tolist(self):
        return backend.to_numpy(self._bytes).tolist()

    def element_size(self):
        return 1

    @property
    def dtype(self):
        return D.uint8

    def __repr__(self):
        body = "\n".join(f" {v}" for v in self.tolist())
        head = f"[torch.storage.UntypedStorage(device={self.device}) of size {self.nbytes()}]"
        return f"{body}\n{head}" if body else head

    def _as_tensor(self, dtype):
        from ._tensor import make_tensor
        arr = self._bytes.view(dtype.numpy_dtype)
        return make_tensor(arr, dtype, self.device)

    def fill_(self, value):
        self._bytes[...] = value
        return self


class TypedStorage:
    """A storage seen as elements of one dtype (``tensor.storage()``; deprecated in PyTorch)."""

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None):
        self.dtype = D.get_default_dtype() if dtype is None else dtype
        if wrap_storage is not None:
            self._untyped = wrap_storage
        else:
            n = args[0] if args and isinstance(args[0], int) else 0
            self._untyped = UntypedStorage(n * self.dtype.itemsize, device=device)
            if args and isinstance(args[0], (list, tuple)):
                arr = np.array(args[0], dtype=self.dtype.numpy_dtype)
                self._untyped = UntypedStorage._from_root(arr, CPU)

    @classmethod
    def _from_tensor(cls, t):
        warnings.warn(
            "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will "
            "be the only storage class. This should only matter to you if you are using storages "
            "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead "
            "of tensor.storage()", UserWarning, stacklevel=3)
        return cls(dtype=t._dtype, wrap_storage=t.untyped_storage())

    @property
    def device(self):
        return self._untyped.device

    def _array(self):
        return self._untyped._bytes.view(self.dtype.numpy_dtype)

    def size(self):
        return self._untyped.nbytes() // self.dtype.itemsize

    __len__ = size

    def nbytes(self):
        return self._untyped.nbytes()

    def element_size(self):
        return self.dtype.itemsize

    def data_ptr(self):
        return self._untyped.data_ptr()

    def untyped(self):
        return self._untyped

    def __getitem__(self, i):
        return self._array()[i].item()

    def __setitem__(self, i, v):
        self._array()[i] = v

    def tolist(self):
        return backend.to_numpy(self._array()).tolist()

    def fill_(self, value):
        self._array()[...] = value
        return self

    def _as_tensor(self, dtype):
        from ._tensor import make_tensor
        if dtype is not self.dtype:
            raise TypeError(f"expected {dtype} (got {self.dtype})")
        return make_tensor(self._array(), self.dtype, self.device)

    def __repr__(self):
        vals = self.tolist()
        if self.dtype.category == D.FLOATING:
            body = "\n".join(f" {v}" for v in vals)
        else:
            body = "\n".join(f" {v}" for v in vals)
        head = (f"[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size "
                f"{self.size()}]")
        return f"{body}\n{head}" if body else head

    def __iter__(self):
        return iter(self.tolist())
