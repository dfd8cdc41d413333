"""The only layer that knows NumPy from CuPy.

Kernels are written once against an *array namespace* ``xp`` (``numpy`` or ``cupy``), picked by
``array_module(device)``. Moving arrays between devices, asking whether CUDA exists, and reading
the memory address of an array also live here.
"""

import warnings

import numpy as np

from .._device import CPU, device
from .._errors import AcceleratorError
from . import malloc  # noqa: F401  (keeps freed buffers in the heap; see malloc.py)
from . import cuda

# PyTorch computes inf/nan silently: an overflow, a division by zero or an invalid cast inside
# a cinder kernel must not print NumPy's "overflow encountered in multiply". An errstate block
# per op would cost microseconds; this filter costs nothing until a warning is raised, and it
# only covers NumPy's floating-point warnings raised from cinder's own modules (a user's NumPy
# code keeps its warnings).
warnings.filterwarnings("ignore", message=r".*encountered in ", category=RuntimeWarning,
                        module=r"cinder(\.|$)")

__all__ = ["array_module", "array_module_of", "cuda_is_available", "to_device", "data_ptr",
           "is_non_overlapping_and_dense", "storage_root"]

_cupy = None
_cupy_checked = False


def _load_cupy():
    """Import CuPy on first use; None when it is missing or no GPU is visible."""
    global _cupy, _cupy_checked
    if not _cupy_checked:
        _cupy_checked = True
        try:
            import cupy
            if cupy.cuda.runtime.getDeviceCount() > 0:
                _cupy = cupy
        except Exception:  # no cupy, no driver, or no device: CUDA is simply unavailable
            _cupy = None
    return _cupy


def cuda_is_available():
    return _load_cupy() is not None


def cuda_device_count():
    cp = _load_cupy()
    return 0 if cp is None else cp.cuda.runtime.getDeviceCount()


def cupy_module():
    """CuPy itself, or the RuntimeError PyTorch raises when CUDA is absent."""
    cp = _load_cupy()
    if cp is None:
        raise AssertionError("Torch not compiled with CUDA enabled")
    return cp


def array_module(dev):
    """``numpy`` for the CPU, ``cupy`` for CUDA devices."""
    if dev.type == "cpu":
        return np
    if dev.type == "cuda":
        return cupy_module()
    raise RuntimeError(f"no array backend for device type {dev.type!r}")


def array_module_of(arr):
    """The array namespace an array belongs to (``numpy`` or ``cupy``)."""
    return np if isinstance(arr, np.ndarray) else cupy_module()


def special_module(xp):
    """``scipy.special`` for NumPy arrays, ``cupyx.scipy.special`` for CuPy arrays."""
    if xp is np:
        from scipy import special
        return special
    import cupyx.scipy.special
    return cupyx.scipy.special


def strided_view(arr, shape, strides):
    """A read-only view of ``arr`` with the given shape and byte strides (windows, broadcast
    kernels). NumPy marks it read-only so no write can alias overlapping windows; CuPy's
    ``as_strided`` has no such flag, so its views are left writable."""
    if isinstance(arr, np.ndarray):
        return np.lib.stride_tricks.as_strided(arr, shape, strides, writeable=False)
    return cupy_module().lib.stride_tricks.as_strided(arr, shape, strides)


def device_kernel(kernel):
    """CuPy's counterpart of the NumPy/SciPy elementwise ``kernel`` (found by name in
    ``cupyx.scipy.special``, then ``cupy``); ``kernel`` itself when it has none, for kernels
    composed of array operations, which NumPy dispatches to CuPy."""
    name = getattr(kernel, "__name__", "")
    cp = cupy_module()
    found = getattr(special_module(cp), name, None) or getattr(cp, name, None)
    return kernel if found is None or name.startswith("<") else found


def accumulate(name, arr, axis):
    """The running ``name`` ufunc (``maximum``, ``minimum``, ``logaddexp``...) of ``arr``
    along ``axis``, like ``np.<name>.accumulate``; CuPy lacks it (see ``log_step_scan``)."""
    if isinstance(arr, np.ndarray):
        return getattr(np, name).accumulate(arr, axis=axis)
    cp = cupy_module()
    return log_step_scan(cp, getattr(cp, name), arr, axis)


def log_step_scan(xp, ufunc, arr, axis):
    """Inclusive scan of ``arr`` along ``axis`` with an associative, commutative ``ufunc`` in
    ceil(log2(n)) vectorised passes (Hillis-Steele): each pass combines every element with the
    one ``shift`` places before it, doubling ``shift``."""
    out = xp.moveaxis(arr, axis, -1)
    shift = 1
    while shift < out.shape[-1]:
        out = xp.concatenate([out[..., :shift], ufunc(out[..., shift:], out[..., :-shift])],
                             axis=-1)
        shift *= 2
    return xp.moveaxis(out, -1, axis)


def reduceat(name, vals, starts):
    """``np.<name>.reduceat(vals, starts)`` along axis 0: one reduction per segment
    ``vals[starts[i]:starts[i + 1]]`` (``starts`` strictly increasing, beginning at 0); CuPy
    lacks it for most ufuncs (see ``segmented_reduce``)."""
    if isinstance(vals, np.ndarray):
        return getattr(np, name).reduceat(vals, starts, axis=0)
    cp = cupy_module()
    return segmented_reduce(cp, getattr(cp, name), vals, starts)


def segmented_reduce(xp, ufunc, vals, starts):
    """Per-segment reductions by a segmented log-step scan: an element combines with the one
    ``shift`` places before it only inside its own segment; each segment's last element then
    holds the segment's reduction."""
    n = vals.shape[0]
    segment = xp.cumsum(xp.bincount(starts, minlength=n)[:n]) - 1
    out = vals
    shift = 1
    while shift < n:
        same = (segment[shift:] == segment[:-shift]).reshape((-1,) + (1,) * (vals.ndim - 1))
        tail = xp.where(same, ufunc(out[shift:], out[:-shift]), out[shift:])
        out = xp.concatenate([out[:shift], tail], axis=0)
        shift *= 2
    ends = xp.concatenate([starts[1:], xp.asarray([n], dtype=starts.dtype)]) - 1
    return out[ends]


def is_numpy(arr):
    return isinstance(arr, np.ndarray)


def device_of_array(arr):
    """The cinder device an array lives on."""
    if isinstance(arr, np.ndarray):
        return CPU
    return device("cuda", arr.device.id)


def check_ordinal(index):
    """Raise PyTorch's ``AcceleratorError`` when CUDA device ``index`` does not exist."""
    cp = cupy_module()
    if not 0 <= index < cp.cuda.runtime.getDeviceCount():
        raise AcceleratorError(
            "CUDA error: invalid device ordinal\nGPU device may be out of range, do you have "
            "enough GPUs?\nCUDA kernel errors might be asynchronously reported at some other "
            "API call, so the stacktrace below might be incorrect.\nFor debugging consider "
            "passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable "
            "device-side assertions.\n")


def to_device(arr, dev, copy=False, non_blocking=False):
    """Move (or copy) an array to ``dev``; returns the same array when nothing has to change.

    With ``non_blocking`` a host array in page-locked memory is copied to the GPU
    asynchronously on the current stream (the call returns before the copy ends, as in
    PyTorch); from pageable memory the copy is synchronous whatever the flag says."""
    if dev.type == "cpu":
        if isinstance(arr, np.ndarray):
            return arr.copy() if copy else arr
        return arr.get()
    cp = cupy_module()
    index = cp.cuda.runtime.getDevice() if dev.index is None else dev.index
    check_ordinal(index)
    with cp.cuda.Device(index):
        if isinstance(arr, cp.ndarray) and arr.device.id == index and not copy:
            return arr
        if non_blocking and isinstance(arr, np.ndarray) and arr.flags.c_contiguous \
                and cuda.is_pinned(arr):
            out = cp.empty(arr.shape, arr.dtype)
            out.set(arr, stream=cp.cuda.get_current_stream())
            return out
        return cp.array(arr, copy=True)


def to_numpy(arr):
    """A NumPy array with the values of ``arr`` (the array itself when it already is one)."""
    return arr if isinstance(arr, np.ndarray) else arr.get()


def data_ptr(arr):
    """Address of the first element of ``arr``."""
    if isinstance(arr, np.ndarray):
        return arr.__array_interface__["data"][0]
    return arr.data.ptr


def storage_root(arr):
    """The array that owns the memory ``arr`` views.

    NumPy keeps ``base`` pointing at the owner for ordinary views; ``as_strided`` views reach
    it through an intermediate object, so follow ``base`` links and keep the last array seen.
    """
    root = arr
    node = arr.base
    while node is not None:
        if type(node) is type(arr):
            root = node
        node = getattr(node, "base", None)
    return root


def is_non_overlapping_and_dense(arr):
    """Whether ``arr``'s elements fill one block of memory exactly, with no gaps and no two
    elements at one address, in some order of its dims (PyTorch's
    ``is_non_overlapping_and_dense``; dims of size 0 or 1 have no say)."""
    expected = arr.itemsize
    for stride, n in sorted((s, n) for n, s in zip(arr.shape, arr.strides) if n > 1):
        if stride != expected:
            return False
        expected *= n
    return True


def synchronize(dev=None):
    cp = _load_cupy()
    if cp is not None:
        cp.cuda.Device(0 if dev is None or dev.index is None else dev.index).synchronize()
