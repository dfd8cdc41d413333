"""``torch.amp``: mixed-precision helpers (``GradScaler``)."""

from .grad_scaler import GradScaler  # noqa: F401
