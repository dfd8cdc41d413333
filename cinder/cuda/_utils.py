"""``torch.cuda._utils._get_device_index``: the device index that an int, a 'cuda:N' string, a
``torch.device`` or a ``torch.cuda.device`` names."""

from .. import backend
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
    from . import device as cuda_device
    if isinstance(device, cuda_device):
        return device.idx
    index = None
    if isinstance(device, _device_cls):
        index = -1 if device.type == "cpu" else device.index
    if index is None:
        if not optional:
            raise ValueError("Expected a torch.device with a specified index or an integer, "
                             f"but got:{device}")
        # PyTorch's CPU build has no current device to offer: None, as there.
        index = backend.cuda.current_device() if backend.cuda_is_available() else None
    return index
