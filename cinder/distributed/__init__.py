"""``torch.distributed``'s questions about the default process group.

cinder runs in one process and has no process groups (no ``init_process_group``, no
collectives). What it answers is what PyTorch's CPU build answers before
``init_process_group`` has been called: the package is available, no default group is
initialised, and asking for the rank or world size raises PyTorch's ``ValueError``. Code that
checks ``is_available() and is_initialized()`` before going distributed (``DistributedSampler``
without ``num_replicas``/``rank`` among it) therefore behaves as on PyTorch.
"""

__all__ = ["get_rank", "get_world_size", "is_available", "is_initialized"]

_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                    "init_process_group.")


def is_available():
    """Whether the distributed package exists: True, as in PyTorch's CPU builds."""
    return True


def is_initialized():
    """Whether the default process group has been initialised: never, in cinder."""
    return False


def get_rank(group=None):
    """This process's rank in ``group``; without a process group, PyTorch's ``ValueError``."""
    raise ValueError(_NOT_INITIALIZED)


def get_world_size(group=None):
    """The number of processes in ``group``; without a process group, PyTorch's
    ``ValueError``."""
    raise ValueError(_NOT_INITIALIZED)
