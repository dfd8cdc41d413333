"""``torch.utils``: helpers around the core (``utils.hooks``; ``utils.data``: datasets and the
DataLoader)."""

from . import data  # noqa: F401
