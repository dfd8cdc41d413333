"""``torch.cuda``'s memory counters, read from CuPy's memory pool.

CuPy's pool plays the part of PyTorch's caching allocator: "allocated" is the bytes held by
live arrays, "reserved" the bytes the pool has taken from the driver (in use or cached for
reuse). Peaks are recorded by ``cinder.backend.cuda`` from the first counter call on.
"""

from collections import OrderedDict

from .. import backend
from ._utils import _get_device_index

__all__ = ["empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "memory_stats", "reset_peak_memory_stats",
           "reset_max_memory_allocated", "mem_get_info"]


def _stats(device):
    """The backend's counters for ``device``, or None when CUDA is not usable."""
    if not backend.cuda_is_available():
        return None
    return backend.cuda.memory_stats(_get_device_index(device, optional=True))


def memory_stats(device=None):
    """A subset of PyTorch's statistics dict: current and peak bytes allocated and reserved
    (empty without CUDA, as in PyTorch before CUDA is initialised)."""
    s = _stats(device)
    if s is None:
        return OrderedDict()
    return OrderedDict([
        ("allocated_bytes.all.current", s["allocated"]),
        ("allocated_bytes.all.peak", s["peak_allocated"]),
        ("reserved_bytes.all.current", s["reserved"]),
        ("reserved_bytes.all.peak", s["peak_reserved"]),
    ])


def memory_allocated(device=None):
    """Bytes held by tensors on ``device`` now."""
    s = _stats(device)
    return 0 if s is None else s["allocated"]


def max_memory_allocated(device=None):
    """The most bytes held by tensors since the start or the last peak reset."""
    s = _stats(device)
    return 0 if s is None else s["peak_allocated"]


def memory_reserved(device=None):
    """Bytes the allocator holds from the driver (in use or cached)."""
    s = _stats(device)
    return 0 if s is None else s["reserved"]


def max_memory_reserved(device=None):
    """The most bytes the allocator has held since the start or the last peak reset."""
    s = _stats(device)
    return 0 if s is None else s["peak_reserved"]


def reset_peak_memory_stats(device=None):
    """Restart the peak counters from the current usage."""
    backend.cupy_module()
    backend.cuda.reset_peak(_get_device_index(device, optional=True))


def reset_max_memory_allocated(device=None):
    """Deprecated alias of ``reset_peak_memory_stats`` (as in PyTorch)."""
    reset_peak_memory_stats(device)


def empty_cache():
    """Return cached, unused blocks to the driver (nothing to do without CUDA)."""
    if backend.cuda_is_available():
        backend.cuda.empty_cache()


def mem_get_info(device=None):
    """(free, total) bytes of ``device`` as the driver sees them."""
    backend.cupy_module()
    return backend.cuda.mem_get_info(_get_device_index(device, optional=True))
