"""``torch.cuda.amp``: the deprecated spellings of ``torch.amp``'s CUDA autocast and GradScaler.

Scripts written before PyTorch 2.3 (nanoGPT's ``torch.cuda.amp.GradScaler(enabled=...)``, for
one) still use these names. Each one warns that it is deprecated, as PyTorch's does, and then
is exactly ``torch.amp``'s object for device ``"cuda"``.
"""

import warnings

from ... import backend
from ...amp import GradScaler as _GradScaler
from ...amp import autocast as _autocast
from ..._dtype import float16

__all__ = ["GradScaler", "amp_definitely_not_available", "autocast"]


def amp_definitely_not_available():
    """True when no CUDA device can be used (so CUDA autocast and loss scaling can do nothing)."""
    return not backend.cuda_is_available()


class autocast(_autocast):  # noqa: N801 - PyTorch's name
    """``torch.amp.autocast("cuda", ...)`` under its old name (warns that it is deprecated)."""

    def __init__(self, enabled=True, dtype=float16, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """``torch.amp.GradScaler("cuda", ...)`` under its old name (warns that it is deprecated).

    With ``enabled=False`` every method passes through: ``scale(loss)`` returns the loss and
    ``step(optimizer)`` just steps, so a script can keep one code path for float32 training.
    """

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
