"""Tensors over existing memory: ``torch.frombuffer`` (any object with the buffer protocol,
shared) and ``torch.from_file`` (a file's bytes: memory-mapped and written back with
``shared=True``, else a private copy)."""

import numpy as np

from .. import _dtype as D
from .._device import CPU
from .._runtime import warn_once
from .._storage import adopt_numpy
from ._registry import register
from .creation import _finish


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-d tensor over the bytes of ``buffer`` from ``offset``: ``count`` elements of
    ``dtype`` (-1: as many as fit). It shares the memory of a writable buffer; a read-only one
    (``bytes``) is copied, after PyTorch's warning."""
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length, item = view.nbytes, dtype.itemsize
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % item:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({item})")
        count = (length - offset) // item
    elif offset + count * item > length:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    arr = np.frombuffer(view.cast("B"), dtype=dtype.numpy_dtype, count=count, offset=offset)
    if view.readonly:
        warn_once("frombuffer_readonly",
                  "The given buffer is not writable, and PyTorch does not support non-writable "
                  "tensors. This means you can write to the underlying (supposedly "
                  "non-writable) buffer using the tensor. You may want to copy the buffer to "
                  "protect its data or make it writable before converting it to a tensor. This "
                  "type of warning will be suppressed for the rest of this program.")
        arr = arr.copy()        # NumPy cannot write through a read-only buffer
    return _finish(adopt_numpy(arr), dtype, CPU, requires_grad)


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
              pin_memory=False, requires_grad=False):
    """A 1-d tensor of the first ``size`` elements of ``dtype`` stored in ``filename``. With
    ``shared=True`` the file is memory-mapped and writes to the tensor reach the file."""
    dtype = D.get_default_dtype() if dtype is None else dtype
    nbytes = size * dtype.itemsize
    try:
        with open(filename, "rb") as f:
            have = f.seek(0, 2)
    except OSError as e:
        raise RuntimeError(f"unable to open file <{filename}> in read-only mode: "
                           f"{e.strerror} ({e.errno})") from None
    if have < nbytes:
        raise RuntimeError(f"file <{filename}> size <{have}> is smaller than the required "
                           f"mapping size <{nbytes}>")
    if size == 0:
        arr = np.empty(0, dtype.numpy_dtype)
    elif shared:
        arr = np.memmap(filename, dtype=dtype.numpy_dtype, mode="r+", shape=(size,))
    else:
        arr = np.fromfile(filename, dtype=dtype.numpy_dtype, count=size)
    return _finish(adopt_numpy(np.asarray(arr)), dtype, CPU, requires_grad)


register("frombuffer", frombuffer, method=False, family="creation")
register("from_file", from_file, method=False, family="creation")
