"""``torch.get_device_module`` (the ``torch.cpu`` / ``torch.cuda`` module of a device, for
device-agnostic code) and ``torch.get_file_path`` (a path next to the installed package)."""

import functools
import importlib
import os

from . import backend
from ._device import device as _device_cls

__all__ = ["get_device_module", "get_file_path"]

# The directory holding the cinder package (PyTorch's ``torch_parent``).
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@functools.cache
def get_device_module(device=None):
    """The module for ``device``'s type (``cinder.cuda`` for "cuda:0", ``cinder.cpu`` for
    "cpu"); with no device, the accelerator's module, or ``cinder.cpu`` when there is none."""
    if isinstance(device, _device_cls):
        name = device.type
    elif isinstance(device, str):
        name = _device_cls(device).type
    elif device is None:
        name = "cuda" if backend.cuda_is_available() else "cpu"
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or "
                           "None")
    if name not in ("cpu", "cuda"):
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered "
                           f"as 'torch.{name}'.")
    return importlib.import_module(f"cinder.{name}")


def get_file_path(*path_components):
    """``path_components`` joined onto the directory that holds the installed package."""
    return os.path.join(_PACKAGE_PARENT, *path_components)
