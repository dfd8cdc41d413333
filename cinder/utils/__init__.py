"""``torch.utils``: helpers shared across the library (hooks, data, ...)."""

import importlib


def __getattr__(name):
    # ``utils.data`` is imported on first use: core modules import ``cinder.utils.hooks``
    # while the tensor core is still initialising, before data loading can be imported.
    if name == "data":
        return importlib.import_module(".data", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
