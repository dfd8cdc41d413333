"""``torch.utils``: helpers around the core (``utils.hooks``; ``utils.data``: datasets and the
DataLoader; ``utils.safetensors``; ``utils.tensorboard``: the SummaryWriter)."""

import importlib

# Submodules load on first use: ``utils.hooks`` is imported while the core itself is still
# loading (autograd's graph needs it), before ``utils.data`` could be.
_LAZY = ("checkpoint", "data", "deterministic", "dlpack", "safetensors", "tensorboard")


def __getattr__(name):
    if name in _LAZY:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
