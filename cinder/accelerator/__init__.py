"""``torch.accelerator``: device-agnostic access to "the" accelerator, for scripts that should
run wherever they land (pytorch/examples' ``torch.accelerator.is_available()``).

cinder's only accelerator is CUDA (through CuPy), so each function forwards to ``torch.cuda``
when a GPU is usable. Without one, ``is_available()`` is False, ``current_accelerator()`` is
None and ``device_count()`` is 0, as on PyTorch's CPU build; the functions that need a device
raise PyTorch's RuntimeError instead of reaching into CUDA.
"""

from contextlib import contextmanager

from .. import cuda
from .._device import device as _device

__all__ = ["current_accelerator", "current_device_idx", "current_device_index",
           "current_stream", "device_count", "device_index", "empty_cache", "is_available",
           "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved",
           "memory_stats", "reset_peak_memory_stats", "set_device_idx", "set_device_index",
           "set_stream", "synchronize"]


def is_available():
    """Whether an accelerator device can be used now."""
    return cuda.is_available()


def current_accelerator(check_available=False):
    """The accelerator's device type as a ``torch.device`` (``device(type='cuda')``), or None."""
    return _device("cuda") if cuda.is_available() else None


def device_count():
    """How many accelerator devices are visible (0 without one)."""
    return cuda.device_count() if cuda.is_available() else 0


def _require():
    if not cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")


def current_device_index():
    """The index of the accelerator device work goes to."""
    _require()
    return cuda.current_device()


current_device_idx = current_device_index     # the older name, kept as PyTorch keeps it


def set_device_index(device, /):
    """Make ``device`` (an index, 'cuda:N' or a device) the current accelerator device."""
    _require()
    cuda.set_device(device)


set_device_idx = set_device_index


@contextmanager
def device_index(device, /):
    """Select accelerator device ``device`` for a ``with`` block (None: change nothing)."""
    if device is None:
        yield
        return
    _require()
    with cuda.device(device):
        yield


def synchronize(device=None, /):
    """Wait for all work queued on the accelerator device to finish."""
    _require()
    cuda.synchronize(device)


def current_stream(device=None, /):
    """The stream work on the accelerator device goes to."""
    _require()
    return cuda.current_stream(device)


def set_stream(stream):
    """Make ``stream`` the current stream of its device."""
    _require()
    cuda.set_stream(stream)


def _on_the_accelerator(name, doc):
    """``torch.accelerator.<name>``: ``torch.cuda.<name>`` once an accelerator is known to exist."""
    def function(*args):
        _require()
        return getattr(cuda, name)(*args)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


empty_cache = _on_the_accelerator("empty_cache", "Give cached, unused device memory back.")
memory_stats = _on_the_accelerator("memory_stats", "The allocator's statistics, as a dict.")
memory_allocated = _on_the_accelerator("memory_allocated", "Bytes held by tensors now.")
max_memory_allocated = _on_the_accelerator("max_memory_allocated",
                                           "The most bytes tensors have held since the reset.")
memory_reserved = _on_the_accelerator("memory_reserved", "Bytes the caching allocator holds.")
max_memory_reserved = _on_the_accelerator("max_memory_reserved",
                                          "The most bytes the allocator has held.")
reset_peak_memory_stats = _on_the_accelerator("reset_peak_memory_stats",
                                              "Start the peak counters again from now.")
