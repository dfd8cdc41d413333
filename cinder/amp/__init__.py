"""``torch.amp``: mixed precision: ``autocast`` regions and the ``GradScaler``."""

from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401
