"""``skip_init``: build a module without running its parameter initialisation."""

import inspect
from ...random import get_rng_state, set_rng_state

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """Build ``module_cls(*args, **kwargs)`` with uninitialized parameters and buffers.

    PyTorch builds on the meta device so no initialiser runs; cinder has no meta device, so it
    builds normally and then puts the random generator back where it was: the result has
    uninitialized values and the random stream is untouched, as in PyTorch.
    """
    from ..modules.module import Module
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    state = get_rng_state()
    try:
        module = module_cls(*args, **kwargs)
    finally:
        set_rng_state(state)
    return module.to_empty(device=final_device)
