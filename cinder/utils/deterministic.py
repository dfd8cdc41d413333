"""``torch.utils.deterministic``: the ``fill_uninitialized_memory`` switch.

While deterministic algorithms are on (``cinder.use_deterministic_algorithms(True)``) and this
switch is True (the default), tensors from the ``empty`` family start filled with NaN (floating
dtypes) or the largest value (integers, bool), so results never depend on leftover memory.
"""

import sys
import types

from .._runtime import SWITCHES


class _DeterministicModule(types.ModuleType):
    """The module object: ``fill_uninitialized_memory`` reads and writes the switch."""

    @property
    def fill_uninitialized_memory(self):
        """Whether uninitialised memory is filled while deterministic algorithms are on."""
        return SWITCHES.fill_uninitialized_memory

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, value):
        if not isinstance(value, bool):
            raise RuntimeError(f"expected a bool, but got {type(value).__name__}")
        SWITCHES.fill_uninitialized_memory = value


sys.modules[__name__].__class__ = _DeterministicModule
