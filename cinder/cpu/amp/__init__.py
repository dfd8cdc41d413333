"""``torch.cpu.amp``: the deprecated spelling of ``torch.amp.autocast("cpu", ...)``."""

import warnings

from ...amp import autocast as _autocast
from ..._dtype import bfloat16

__all__ = ["autocast"]


class autocast(_autocast):  # noqa: N801 - PyTorch's name
    """``torch.amp.autocast("cpu", ...)`` under its old name (warns that it is deprecated)."""

    def __init__(self, enabled=True, dtype=bfloat16, cache_enabled=True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
