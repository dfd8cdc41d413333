"""The CUDA runtime as ``torch.cuda`` needs it, served by CuPy: devices, page-locked host
memory, streams and events, and the memory pool's counters.

Everything that touches CuPy for ``cinder.cuda`` lives here, so the layers above stay free of
CuPy imports. Each function asks for CuPy on call: importing this module needs no GPU.
"""

import numpy as np

__all__ = ["pinned_empty", "is_pinned", "device_properties", "mem_get_info", "memory_stats",
           "reset_peak", "empty_cache", "new_stream", "current_stream", "default_stream",
           "set_current_stream", "new_event", "event_elapsed_ms", "current_device", "set_device",
           "runtime_version"]

# cudaMemoryTypeHost: the pointer is page-locked host memory registered with CUDA
_MEMORY_TYPE_HOST = 1


def _cp():
    from . import cupy_module
    return cupy_module()


# ----------------------------------------------------------------------------------------------
# Devices
# ----------------------------------------------------------------------------------------------


def runtime_version():
    """The CUDA runtime's version as PyTorch spells it ("12.4"), or None without CUDA."""
    from . import cuda_is_available
    if not cuda_is_available():
        return None
    number = _cp().cuda.runtime.runtimeGetVersion()        # e.g. 12040
    return f"{number // 1000}.{number % 1000 // 10}"


def current_device():
    """The index of the device CUDA work goes to in this thread."""
    return _cp().cuda.runtime.getDevice()


def set_device(index):
    """Make device ``index`` the current one (PyTorch's error for a missing ordinal)."""
    from . import check_ordinal
    check_ordinal(index)
    _cp().cuda.Device(index).use()


def device_properties(index):
    """CUDA's properties of device ``index`` as a dict (``cudaGetDeviceProperties``)."""
    from . import check_ordinal
    check_ordinal(index)
    return _cp().cuda.runtime.getDeviceProperties(index)


def mem_get_info(index):
    """(free bytes, total bytes) of device ``index``, as the driver reports them."""
    cp = _cp()
    with cp.cuda.Device(index):
        return cp.cuda.runtime.memGetInfo()


# ----------------------------------------------------------------------------------------------
# Page-locked host memory
# ----------------------------------------------------------------------------------------------


def pinned_empty(shape, dtype):
    """A NumPy array of ``shape`` whose buffer is page-locked (pinned) host memory, so copies
    to the GPU can run asynchronously. The array keeps the allocation alive."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    mem = _cp().cuda.alloc_pinned_memory(max(count * dtype.itemsize, 1))
    return np.frombuffer(mem, dtype, count).reshape(shape)


def is_pinned(arr):
    """Whether NumPy array ``arr`` lives in page-locked memory known to CUDA."""
    from . import cuda_is_available
    if not isinstance(arr, np.ndarray) or arr.size == 0 or not cuda_is_available():
        return False
    ptr = arr.__array_interface__["data"][0]
    attrs = _cp().cuda.runtime.pointerGetAttributes(ptr)
    return attrs.type == _MEMORY_TYPE_HOST


# ----------------------------------------------------------------------------------------------
# Memory pool counters (PyTorch's caching allocator numbers, from CuPy's pool)
# ----------------------------------------------------------------------------------------------

_peaks = {}          # device index -> [peak bytes in use, peak bytes reserved]
_tracking = False


def _track_allocations():
    """Route CuPy's allocations through a wrapper that records peak usage per device (the
    pool itself only knows current numbers); done once, on first use of the counters."""
    global _tracking
    if _tracking:
        return
    cp = _cp()
    pool = cp.get_default_memory_pool()

    def malloc(size):
        mem = pool.malloc(size)
        peak = _peaks.setdefault(mem.device_id, [0, 0])
        peak[0] = max(peak[0], pool.used_bytes())
        peak[1] = max(peak[1], pool.total_bytes())
        return mem
    cp.cuda.set_allocator(malloc)
    _tracking = True


def memory_stats(index):
    """{'allocated', 'reserved', 'peak_allocated', 'peak_reserved'} bytes of device
    ``index``'s pool."""
    _track_allocations()
    cp = _cp()
    with cp.cuda.Device(index):
        pool = cp.get_default_memory_pool()
        used, total = pool.used_bytes(), pool.total_bytes()
    peak = _peaks.setdefault(index, [0, 0])
    peak[0], peak[1] = max(peak[0], used), max(peak[1], total)
    return {"allocated": used, "reserved": total, "peak_allocated": peak[0],
            "peak_reserved": peak[1]}


def reset_peak(index):
    """Start the peak counters of device ``index`` again from the current usage."""
    stats = memory_stats(index)
    _peaks[index] = [stats["allocated"], stats["reserved"]]


def empty_cache():
    """Give the pool's unused blocks (device and pinned host) back to the driver."""
    cp = _cp()
    cp.get_default_memory_pool().free_all_blocks()
    cp.get_default_pinned_memory_pool().free_all_blocks()


# ----------------------------------------------------------------------------------------------
# Streams and events: thin handles the cinder.cuda classes wrap
# ----------------------------------------------------------------------------------------------


def new_stream(index, priority=0):
    """A new non-default stream on device ``index``."""
    cp = _cp()
    with cp.cuda.Device(index):
        return cp.cuda.Stream(non_blocking=False, priority=priority)


def current_stream(index):
    """The stream work on device ``index`` goes to in this thread."""
    cp = _cp()
    with cp.cuda.Device(index):
        return cp.cuda.get_current_stream()


def default_stream(index):
    """Device ``index``'s legacy default stream."""
    cp = _cp()
    with cp.cuda.Device(index):
        return cp.cuda.Stream.null


def set_current_stream(handle):
    """Make ``handle`` the current stream of its device for this thread."""
    handle.use()


def new_event(enable_timing=False, blocking=False, interprocess=False):
    """A CUDA event (CuPy's), timing disabled unless asked, as in PyTorch."""
    return _cp().cuda.Event(block=blocking, disable_timing=not enable_timing,
                            interprocess=interprocess)


def event_elapsed_ms(start, end):
    """Milliseconds between two recorded events."""
    return _cp().cuda.get_elapsed_time(start, end)
