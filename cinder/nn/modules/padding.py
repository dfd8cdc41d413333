"""Padding layers: constant, zero, reflection, replication and circular, 1-3d."""

from .. import functional as F
from .module import Module
from .utils import _ntuple

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d",
           "ZeroPad2d", "ZeroPad3d"]


class _PadNd(Module):
    """Pads the last ``_dims`` dims by ``padding`` (an int repeats over all 2*_dims sides)."""

    __constants__ = ["padding"]
    _dims = 1
    _mode = None

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(2 * self._dims, "_pad")(padding)

    def _check_input_dim(self, input):
        d = self._dims
        if input.dim() not in (d + 1, d + 2):
            raise ValueError(f"expected {d + 1}D or {d + 2}D input (got {input.dim()}D input)")

    def forward(self, input):
        if self._mode == "circular":
            self._check_input_dim(input)
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


def _pad_class(name, mode, dims, doc):
    return type(name, (_PadNd,), {"_mode": mode, "_dims": dims, "__doc__": doc,
                                  "__module__": __name__})


ReflectionPad1d = _pad_class("ReflectionPad1d", "reflect", 1, "Mirror-pad the last dim.")
ReflectionPad2d = _pad_class("ReflectionPad2d", "reflect", 2, "Mirror-pad the last 2 dims.")
ReflectionPad3d = _pad_class("ReflectionPad3d", "reflect", 3, "Mirror-pad the last 3 dims.")
ReplicationPad1d = _pad_class("ReplicationPad1d", "replicate", 1, "Edge-pad the last dim.")
ReplicationPad2d = _pad_class("ReplicationPad2d", "replicate", 2, "Edge-pad the last 2 dims.")
ReplicationPad3d = _pad_class("ReplicationPad3d", "replicate", 3, "Edge-pad the last 3 dims.")
CircularPad1d = _pad_class("CircularPad1d", "circular", 1, "Wrap-pad the last dim.")
CircularPad2d = _pad_class("CircularPad2d", "circular", 2, "Wrap-pad the last 2 dims.")
CircularPad3d = _pad_class("CircularPad3d", "circular", 3, "Wrap-pad the last 3 dims.")


class _ConstantPadNd(_PadNd):
    __constants__ = ["padding", "value"]
    _mode = "constant"

    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``."""

    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last 2 dims with ``value``."""

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last 3 dims with ``value``."""

    _dims = 3


class _ZeroPad:
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad, ConstantPad1d):
    """Pad the last dim with zeros."""


class ZeroPad2d(_ZeroPad, ConstantPad2d):
    """Pad the last 2 dims with zeros."""


class ZeroPad3d(_ZeroPad, ConstantPad3d):
    """Pad the last 3 dims with zeros."""
