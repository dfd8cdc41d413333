"""``torch.utils``: helpers shared across the library (hooks, data, ...)."""
