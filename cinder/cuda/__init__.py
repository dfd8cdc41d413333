"""``torch.cuda``: devices, streams, events, memory counters and the CUDA typed tensors,
served by CuPy when a GPU is present (``cinder.backend.cuda`` holds the CuPy calls).

Without CuPy or a GPU, the queries answer as PyTorch's CPU build does: ``is_available()`` is
False, counters are 0, and calls that need a device raise "Torch not compiled with CUDA
enabled".
"""

from .. import backend
from ..compat import missing_attribute_error as _missing_attribute_error
from .._device import device as _device_cls
from .._dtype import bfloat16 as _bfloat16
from ..ops.creation import tensor as _tensor
from .._legacy import CUDA_TYPES
from .memory import (  # noqa: F401
    empty_cache,
    max_memory_allocated,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_reserved,
    memory_stats,
    reset_max_memory_allocated,
    reset_peak_memory_stats,
)
from .random import manual_seed, manual_seed_all, seed, seed_all  # noqa: F401
from .streams import Event, Stream, StreamContext  # noqa: F401
from ._utils import _get_device_index

__all__ = ["is_available", "device_count", "current_device", "set_device", "device",
           "device_of", "get_device_name", "get_device_capability", "get_device_properties",
           "synchronize", "is_initialized", "init", "Stream", "Event", "StreamContext",
           "current_stream", "default_stream", "stream", "set_stream", "empty_cache",
           "is_bf16_supported",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "memory_stats", "reset_peak_memory_stats", "reset_max_memory_allocated",
           "mem_get_info", "manual_seed", "manual_seed_all", "seed", "seed_all"]

globals().update(CUDA_TYPES)


def is_available():
    """Whether a CUDA GPU and CuPy are usable."""
    return backend.cuda_is_available()


def device_count():
    """How many CUDA devices are visible (``CUDA_VISIBLE_DEVICES`` applies)."""
    return backend.cuda_device_count()


def is_initialized():
    """Whether CUDA has been set up in this process (CuPy loaded with a device)."""
    return backend.cuda_is_available()


def init():
    """Set CUDA up now rather than on first use."""
    backend.cupy_module()


def current_device():
    """The index of the currently selected device."""
    backend.cupy_module()
    return backend.cuda.current_device()


def set_device(device):
    """Select the device later CUDA work goes to (a negative index does nothing)."""
    index = _get_device_index(device)
    if index >= 0:
        backend.cuda.set_device(index)


class device:
    """Context manager that selects a device for its block and restores the previous one."""

    def __init__(self, device):
        # None means the current device (None itself on a machine without CUDA, as there)
        self.idx = _get_device_index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx < 0:
            return
        self.prev_idx = current_device()
        if self.prev_idx != self.idx:
            set_device(self.idx)

    def __exit__(self, *exc):
        if self.prev_idx >= 0 and self.prev_idx != self.idx:
            set_device(self.prev_idx)
        return False


class device_of(device):
    """``device`` for the device of tensor ``obj`` (nothing for a CPU tensor)."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


def synchronize(device=None):
    """Wait until all work queued on ``device`` (the current one by default) is done."""
    backend.cupy_module()
    backend.synchronize(_device_cls("cuda", _get_device_index(device, optional=True)))


class _CudaDeviceProperties:
    """What CUDA reports about one device (``torch.cuda.get_device_properties``)."""

    def __init__(self, props):
        self.name = props["name"].decode()
        self.major, self.minor = props["major"], props["minor"]
        self.total_memory = props["totalGlobalMem"]
        self.multi_processor_count = props["multiProcessorCount"]
        self.L2_cache_size = props["l2CacheSize"]
        self.warp_size = props["warpSize"]
        self.max_threads_per_multi_processor = props["maxThreadsPerMultiProcessor"]
        self.regs_per_multiprocessor = props["regsPerMultiprocessor"]
        self.is_integrated = props["integrated"]
        self.is_multi_gpu_board = props["isMultiGpuBoard"]
        self.pci_bus_id, self.pci_device_id = props["pciBusID"], props["pciDeviceID"]
        self.pci_domain_id = props["pciDomainID"]

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, "
                f"minor={self.minor}, total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count}, "
                f"L2_cache_size={self.L2_cache_size // (1024 * 1024)}MB)")


def get_device_properties(device=None):
    """The properties (name, capability, memory, SM count...) of ``device``."""
    backend.cupy_module()
    index = _get_device_index(device, optional=True)
    if not 0 <= index < device_count():
        raise AssertionError("Invalid device id")
    return _CudaDeviceProperties(backend.cuda.device_properties(index))


def get_device_name(device=None):
    """The marketing name of ``device``, e.g. 'NVIDIA H100 80GB HBM3'."""
    return get_device_properties(device).name


def get_device_capability(device=None):
    """(major, minor) compute capability of ``device``."""
    props = get_device_properties(device)
    return props.major, props.minor


def is_bf16_supported(including_emulation=True):
    """Whether the current CUDA device can compute in bfloat16 (False without a GPU).

    Devices of compute capability 8.0 and newer have it natively; for older ones, with
    ``including_emulation``, the answer is whether a bfloat16 tensor can be made there.
    """
    if not is_available():
        return False
    if get_device_properties(current_device()).major >= 8:
        return True
    if not including_emulation:
        return False
    try:
        _tensor([1.0], dtype=_bfloat16, device="cuda")
    except Exception:  # noqa: BLE001 - any failure means "not supported"
        return False
    return True


def current_stream(device=None):
    """The stream work on ``device`` goes to in this thread."""
    backend.cupy_module()
    index = _get_device_index(device, optional=True)
    return Stream._wrap(backend.cuda.current_stream(index), index)


def default_stream(device=None):
    """``device``'s default stream."""
    backend.cupy_module()
    index = _get_device_index(device, optional=True)
    return Stream._wrap(backend.cuda.default_stream(index), index)


def set_stream(stream):
    """Make ``stream`` the current stream of its device (None does nothing)."""
    if stream is not None:
        backend.cuda.set_current_stream(stream._handle)


def stream(stream):
    """Context manager: work in its block goes to ``stream`` (None: no change)."""
    return StreamContext(stream)


def __getattr__(name):
    # ``torch.cuda.amp`` loads on first use (it sits on torch.amp, above this module's import)
    if name == "amp":
        import importlib
        return importlib.import_module(__name__ + ".amp")
    raise _missing_attribute_error(__name__, name)
