"""Shared pieces of the torch.utils.data tests: plain-Python views of results (so PyTorch's and
cinder's can be compared with ==) and datasets written against a library ``L``."""

import os
import random

import numpy as np

LEAK_PREFIX = "cinder_"


def plain(obj):
    """Tensors become (dtype, shape, values); containers are walked; the rest is kept."""
    if hasattr(obj, "dtype") and hasattr(obj, "tolist") and not isinstance(obj, np.ndarray):
        return ("T", str(obj.dtype).replace("torch.", ""), tuple(obj.shape), obj.tolist())
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return (type(obj).__name__, tuple(plain(v) for v in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(plain(v) for v in obj)
    return obj


class SeedReport:
    """Item ``i`` reports what the process serving it sees: its worker id and seed, the
    library's initial seed, and one draw from each random source."""

    def __init__(self, lib, n=8):
        self.L, self.n = lib, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        info = self.L.utils.data.get_worker_info()
        return {"i": i, "worker": -1 if info is None else info.id,
                "seed": self.L.initial_seed(), "info_seed": -1 if info is None else info.seed,
                "rand": self.L.rand(2), "np": int(np.random.randint(1 << 30)),
                "py": random.random()}


def iterable_range(lib, start, end, length=None):
    """An IterableDataset of ``lib`` over ``range(start, end)``, split between workers by
    worker info (the example in PyTorch's documentation); ``len`` is ``length`` if given."""

    class _Range(lib.utils.data.IterableDataset):
        def __iter__(self):
            info = lib.utils.data.get_worker_info()
            lo, hi = start, end
            if info is not None:
                per = -(-(end - start) // info.num_workers)
                lo = start + info.id * per
                hi = min(lo + per, end)
            return iter(range(lo, hi))

        def __len__(self):
            return end - start if length is None else length

    return _Range()


def _own_session():
    """Give this test process (and the children it starts) a shared-memory session of its
    own, so parallel test processes do not see each other's segments."""
    from cinder import _shared_memory
    os.environ[_shared_memory.SESSION_VARIABLE] = f"t{os.getpid()}"
    return f"{LEAK_PREFIX}t{os.getpid()}_"


_SESSION_PREFIX = _own_session()


def shm_names():
    """The /dev/shm segments of this test process and its children."""
    return sorted(n for n in os.listdir("/dev/shm") if n.startswith(_SESSION_PREFIX))


def alive(pid):
    """Whether ``pid`` still exists as a non-zombie process."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False
