"""``torch.cuda``: device queries and the CUDA typed tensors, served by CuPy when present."""

from . import backend
from ._legacy import CUDA_TYPES

__all__ = ["is_available", "device_count", "current_device", "synchronize", "manual_seed",
           "manual_seed_all"]

globals().update(CUDA_TYPES)


def is_available():
    """Whether a CUDA GPU and CuPy are usable."""
    return backend.cuda_is_available()


def device_count():
    return backend.cuda_device_count()


def current_device():
    backend.cupy_module()
    return 0


def synchronize(device=None):
    backend.synchronize(device)


def manual_seed(seed):
    """CUDA tensors draw from the CPU generator in cinder, so this seeds nothing extra."""


def manual_seed_all(seed):
    """See ``manual_seed``."""


def is_initialized():
    return backend.cuda_is_available()


def get_device_name(device=None):
    cp = backend.cupy_module()
    return cp.cuda.runtime.getDeviceProperties(0 if device is None else int(device))["name"] \
        .decode()
