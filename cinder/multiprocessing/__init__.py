"""``torch.multiprocessing``: Python's ``multiprocessing`` with tensors passed as shared memory.

Everything ``multiprocessing`` offers is here under the same names. Importing this package
registers reducers with ``multiprocessing.reduction.ForkingPickler``, so a tensor put on a
``Queue`` or sent through a ``Pipe`` travels as a handle to shared memory (its storage is
moved there first) and the receiver maps the same bytes: writes on either side are seen by
both. ``spawn``/``start_processes`` run a function in several processes and re-raise the first
failure with the child's traceback.
"""

import multiprocessing
from multiprocessing import *  # noqa: F401,F403

from .._shared_memory import get_sharing_strategy as _get_strategy
from .._shared_memory import set_sharing_strategy as _set_strategy
from .reductions import init_reductions
from .spawn import (ProcessContext, ProcessException, ProcessExitedException,  # noqa: F401
                    ProcessRaisedException, SpawnContext, spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies",
           "ProcessContext", "ProcessException", "ProcessExitedException",
           "ProcessRaisedException", "SpawnContext", "spawn", "start_processes"]
__all__ += multiprocessing.__all__

_ALL_STRATEGIES = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy):
    """Choose how CPU tensors are shared with other processes: ``'file_descriptor'`` (the
    default on Linux; memory reached through a passed descriptor) or ``'file_system'``
    (memory reached through a name in /dev/shm)."""
    if new_strategy not in _ALL_STRATEGIES:
        raise AssertionError(f"Invalid sharing strategy: {new_strategy}")
    _set_strategy(new_strategy)


def get_sharing_strategy():
    """The strategy used for sharing CPU tensors (see ``set_sharing_strategy``)."""
    return _get_strategy()


def get_all_sharing_strategies():
    """The set of strategies this system supports."""
    return set(_ALL_STRATEGIES)


def _set_thread_name(name):
    """Accepted for compatibility (PyTorch names its C++ worker threads)."""


init_reductions()
