"""``torch.cuda._utils._get_device_index``: the device index that an int, a 'cuda:N' string, a
``torch.device`` or a ``torch.cuda.device`` names."""

from .. import _utils
from .._device import device as _device_cls

__all__ = ["_get_device_index"]


def _get_device_index(device, optional=False, allow_cpu=False):
    """The CUDA device index ``device`` names (-1 for the CPU when ``allow_cpu``).

    ``None``, or a device without an index, means the current device when ``optional`` is
    true; otherwise they raise ValueError, as do non-CUDA devices.
    """
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = _device_cls(device)
    if isinstance(device, _device_cls):
        if allow_cpu:
            if device.type not in ("cuda", "cpu"):
                raise ValueError(f"Expected a cuda or cpu device, but got: {device}")
        elif device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
    if isinstance(device, _cuda_device_class()):
        return device.idx
    return _utils._get_device_index(device, optional, allow_cpu)


_CUDA_DEVICE = []


def _cuda_device_class():
    """``torch.cuda.device``, looked up once (the package imports this module first)."""
    if not _CUDA_DEVICE:
        from . import device
        _CUDA_DEVICE.append(device)
    return _CUDA_DEVICE[0]
