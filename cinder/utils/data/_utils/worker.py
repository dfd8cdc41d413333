"""The DataLoader's worker processes: their loop, their seeds and ``get_worker_info``.

Each worker waits on its own index queue for ``(task_idx, indices)``, fetches and collates that
batch, and puts ``(task_idx, batch)`` on the shared result queue; an exception travels back as an
``ExceptionWrapper`` that the main process re-raises. Seeding follows PyTorch exactly: worker
``i`` seeds Python's ``random`` and cinder's default generator with ``base_seed + i`` and NumPy's
legacy global generator with a SeedSequence-style hash of ``(base_seed, i)``, so the same
``manual_seed`` gives the same worker seeds in PyTorch and cinder.
"""

import os
import pickle
import queue
import random
from dataclasses import dataclass
from multiprocessing.reduction import ForkingPickler

import numpy as np

from ...._utils import ExceptionWrapper
from . import MP_STATUS_CHECK_INTERVAL, signal_handling


class ManagerWatchdog:
    """Tells a worker whether the process that started it is still alive (if the parent dies,
    the worker is re-parented and ``getppid`` changes)."""

    def __init__(self):
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self):
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


_worker_info = None


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """What a worker knows about itself: ``id`` (0 to ``num_workers - 1``), ``num_workers``,
    ``seed`` (the seed its generators got) and its own copy of the ``dataset``. Frozen."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str = "multiprocessing"


def get_worker_info():
    """In a DataLoader worker process, its ``WorkerInfo`` (``id``, ``num_workers``, ``seed``,
    ``dataset``); in the main process, None. An IterableDataset uses it to give each worker
    its own share of the data."""
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """Sent by a worker whose IterableDataset copy is exhausted."""

    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Sent to persistent workers when a new epoch starts."""

    seed: object = None


def _generate_state(base_seed, worker_id):
    """Four 32-bit words seeding NumPy in worker ``worker_id``: NumPy's SeedSequence hashing
    (its constants and mixing steps) applied to ``[worker_id, base_seed low, base_seed high,
    0]``, the values PyTorch computes."""
    mask = 0xFFFFFFFF
    mult_a, mult_b = 0x931E8875, 0x58F38DED
    hash_const = [0x43B0D7E5]

    def hash32(value):
        value = (value ^ hash_const[0]) & mask
        hash_const[0] = (hash_const[0] * mult_a) & mask
        value = (value * hash_const[0]) & mask
        return (value ^ (value >> 16)) & mask

    def mix(x, y):
        result = ((0xCA01F9DD * x) - (0x4973F715 * y)) & mask
        return (result ^ (result >> 16)) & mask

    entropy = [worker_id, base_seed & mask, base_seed >> 32, 0]
    pool = [hash32(e) for e in entropy]
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hash32(pool[i_src]))
    state = []
    const_b = 0x8B51F9DD
    for value in pool:
        value = (value ^ const_b) & mask
        const_b = (const_b * mult_b) & mask
        value = (value * const_b) & mask
        state.append((value ^ (value >> 16)) & mask)
    return state


def _seed_worker(base_seed, worker_id):
    from .... import manual_seed
    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed)
    np.random.seed(_generate_state(base_seed, worker_id))
    return seed


class _Sealed:
    """A message pickled in advance by the worker; unpickling it unpickles the message."""

    def __init__(self, payload):
        self.payload = payload

    def __reduce__(self):
        return (pickle.loads, (self.payload,))


def _seal(message, fd_channel, worker_id):
    """``message`` pickled now with tensor descriptors sent through ``fd_channel`` (see
    ``cinder.multiprocessing.reductions``), or as it is when there is no channel. A batch that
    cannot be pickled becomes the error it raised, re-raised in the main process."""
    if fd_channel is None:
        return message
    from ....multiprocessing.reductions import sending_through
    try:
        with sending_through(*fd_channel):
            return _Sealed(bytes(ForkingPickler.dumps(message)))
    except Exception:
        error = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        return (message[0], error)


def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation,
                 collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers,
                 persistent_workers, shared_seed, fd_channel=None):
    """A worker's whole life: seed, run ``init_fn``, then serve index batches until told to
    stop (``None``) or the main process is gone. ``fd_channel`` (socket, id) is the fast path
    for shared-memory descriptors of a forked worker."""
    from ..dataloader import _DatasetKind
    global _worker_info
    try:
        signal_handling._set_worker_signal_handlers()
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        init_exception = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation,
                                                  collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        # After an IterableDataset copy runs dry, later requests of this epoch are ignored.
        iteration_end = False
        watchdog = ManagerWatchdog()
        while watchdog.is_alive():
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))
                iteration_end = False
                fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation,
                                                      collate_fn, drop_last)
                continue
            if r is None:
                break                          # the main process is shutting us down
            if done_event.is_set() or iteration_end:
                continue
            idx, index = r
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(
                            where=f"in DataLoader worker process {worker_id}")
            data_queue.put(_seal((idx, data), fd_channel, worker_id))
            del data, idx, index, r            # free the batch before waiting again
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
