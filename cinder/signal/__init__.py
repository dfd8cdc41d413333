"""``torch.signal``: signal-processing helpers (window functions)."""

from . import windows  # noqa: F401
