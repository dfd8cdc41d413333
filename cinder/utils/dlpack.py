"""``torch.utils.dlpack`` (also ``torch.from_dlpack`` / ``torch.to_dlpack``): exchange tensors
with other array libraries without copying, through DLPack capsules.

``to_dlpack(t)`` returns a capsule over ``t``'s memory; ``from_dlpack(obj)`` accepts an object
with ``__dlpack__`` (a NumPy array, a cinder or PyTorch tensor...) or a capsule, and returns a
cinder tensor sharing its memory. CPU memory goes through NumPy's DLPack support, CUDA memory
through CuPy's.
"""

import ctypes
import weakref

import numpy as np

from .. import _dtype as D
from .. import backend
from .._device import CPU, device as _device
from .._storage import adopt_numpy
from .._tensor import Tensor, make_tensor

__all__ = ["from_dlpack", "to_dlpack"]

_CPU, _CUDA = 1, 2          # DLPack device types


def to_dlpack(tensor):
    """A DLPack capsule over ``tensor``'s memory (consumed once by an importer)."""
    return tensor._data.__dlpack__()


class _Capsule:
    """A bare capsule dressed as an exporter, for ``numpy.from_dlpack``."""

    def __init__(self, capsule, device_type):
        self.capsule = capsule
        self.device_type = device_type

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (self.device_type, 0)


def _writable(arr):
    """A writable array over ``arr``'s memory (NumPy marks arrays from unversioned capsules
    read-only; PyTorch's importer does not). ``arr`` is kept alive as long as the view is."""
    if arr.flags.writeable or arr.size == 0:
        return arr
    span = arr.itemsize + sum((n - 1) * st for n, st in zip(arr.shape, arr.strides))
    raw = (ctypes.c_char * span).from_address(arr.__array_interface__["data"][0])
    flat = np.frombuffer(raw, dtype=np.uint8)
    view = np.ndarray(arr.shape, arr.dtype, buffer=flat, strides=arr.strides)
    weakref.finalize(flat, _release, arr)     # holds ``arr`` until ``flat`` goes
    return view


def _release(arr):
    """Nothing to do: dropping the reference to ``arr`` frees the exporter's memory."""


def from_dlpack(ext_tensor):
    """A cinder tensor sharing the memory of ``ext_tensor`` (an object with ``__dlpack__``, or
    a DLPack capsule)."""
    if isinstance(ext_tensor, Tensor):
        return ext_tensor
    if hasattr(ext_tensor, "__dlpack__"):
        dev_type = ext_tensor.__dlpack_device__()[0]
        source = ext_tensor
    else:
        dev_type, source = _CPU, _Capsule(ext_tensor, _CPU)
    if dev_type == _CUDA:
        cp = backend.cupy_module()
        arr = cp.from_dlpack(source)
        return make_tensor(arr, D.from_numpy_dtype(arr.dtype), _device("cuda", arr.device.id))
    if dev_type != _CPU:
        raise RuntimeError(f"Unsupported device_type: {dev_type}")
    arr = _writable(np.from_dlpack(source))
    return make_tensor(adopt_numpy(arr), D.from_numpy_dtype(arr.dtype), CPU)


def _tensor_dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """The DLPack export protocol: a capsule over this tensor's memory."""
    if self._requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    kwargs = {} if max_version is None else {"max_version": max_version}
    return self._data.__dlpack__(**kwargs)


def _tensor_dlpack_device(self):
    """``(device type, index)`` in DLPack's numbering (1: CPU, 2: CUDA)."""
    if self._device.type == "cuda":
        return (_CUDA, self._device.index or 0)
    return (_CPU, 0)


Tensor.__dlpack__ = _tensor_dlpack
Tensor.__dlpack_device__ = _tensor_dlpack_device
