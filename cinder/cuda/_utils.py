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
    from . import device as cuda_device     # (the package imports this module)
    if isinstance(device, cuda_device):
        return device.idx
    return _utils._get_device_index(device, optional, allow_cpu)
