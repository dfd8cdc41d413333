"""``DataLoader``: batches from a dataset, in the main process or in worker processes.

With ``num_workers=0`` batches are made in the calling process. With ``num_workers > 0`` that
many worker processes (forked by default on Linux, like PyTorch) each receive lists of indices
on their own queue and put collated batches on one result queue; tensors travel as
shared-memory handles (see ``cinder.multiprocessing``), and the main process hands batches out
in sampler order (or as they come, with ``in_order=False``). A worker's exception is re-raised
with its traceback; a worker that dies is reported at once (SIGCHLD) and never hangs the loop;
``timeout`` bounds each wait. Workers are shut down when the iterator is exhausted, deleted or
garbage collected, or (with ``persistent_workers``) when the loader goes away.
"""

import itertools
import os
import queue
import threading
import warnings

from . import _utils
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler
from ... import cuda

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

get_worker_info = _utils.worker.get_worker_info
default_collate = _utils.collate.default_collate
default_convert = _utils.collate.default_convert

# How often a waiting main process checks that its workers are alive when no SIGCHLD handler
# can be installed (a DataLoader iterated outside the main thread).
_WORKER_CHECK_INTERVAL = 1.0


class _DatasetKind:
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        if kind == _DatasetKind.Map:
            return _utils.fetch._MapDatasetFetcher(dataset, auto_collation, collate_fn,
                                                   drop_last)
        return _utils.fetch._IterableDatasetFetcher(dataset, auto_collation, collate_fn,
                                                    drop_last)


class _InfiniteConstantSampler(Sampler):
    """``None`` forever: the "indices" an IterableDataset is driven with."""

    def __iter__(self):
        while True:
            yield None


def _accelerator_available():
    return cuda.is_available()


def _cpu_count():
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count()


def _check_worker_args(num_workers, timeout, prefetch_factor, persistent_workers):
    """PyTorch's argument checks; returns the effective prefetch_factor."""
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; "
                         "use num_workers=0 to disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if num_workers > 0 and prefetch_factor is None:
        prefetch_factor = 2
    elif prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    return prefetch_factor


class DataLoader:
    """Iterate over ``dataset`` in batches.

    Args (PyTorch's, with its defaults):
        dataset: a map-style ``Dataset`` (``__getitem__``/``__len__``) or an
            ``IterableDataset``.
        batch_size (int or None): samples per batch (default 1); ``None`` turns automatic
            batching off (each sample goes through ``default_convert``).
        shuffle (bool): reshuffle every epoch (a ``RandomSampler`` with ``generator``).
        sampler, batch_sampler: custom index order / custom index lists (exclusive with
            ``shuffle``, and ``batch_sampler`` with ``batch_size``/``drop_last`` too).
        num_workers (int): worker processes; 0 loads in the main process.
        collate_fn: merges a list of samples (default ``default_collate``).
        pin_memory (bool): page-lock batches for fast GPU copies (warns and does nothing
            without an accelerator, as PyTorch does).
        drop_last (bool): drop the last incomplete batch.
        timeout (float): seconds to wait for a batch from the workers before RuntimeError.
        worker_init_fn: called as ``fn(worker_id)`` in each worker after seeding.
        multiprocessing_context: a start method name ('fork', 'spawn', 'forkserver') or a
            context object.
        generator: draws the base seed of the workers and the shuffle order.
        prefetch_factor (int): batches each worker loads ahead (2 when ``num_workers > 0``).
        persistent_workers (bool): keep workers alive between epochs.
        pin_memory_device (str): deprecated; ignored with a warning.
        in_order (bool): hand batches out in sampler order (default) or as they arrive.
    """

    _initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        prefetch_factor = _check_worker_args(num_workers, timeout, prefetch_factor,
                                             persistent_workers)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        shuffle = self._check_dataset_kind(dataset, shuffle, sampler, batch_sampler)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None
        self.check_worker_number_rationality()

    def _check_dataset_kind(self, dataset, shuffle, sampler, batch_sampler):
        """Record whether the dataset is iterable-style; returns the effective shuffle."""
        if not isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Map
            return bool(shuffle)
        self._dataset_kind = _DatasetKind.Iterable
        if shuffle not in {False, None}:
            raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                             f"option, but got shuffle={shuffle}")
        if sampler is not None:
            raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                             f"option, but got sampler={sampler}")
        if batch_sampler is not None:
            raise ValueError("DataLoader with IterableDataset: expected unspecified "
                             f"batch_sampler option, but got batch_sampler={batch_sampler}")
        return shuffle

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context):
        import multiprocessing as python_multiprocessing
        if multiprocessing_context is not None:
            if self.num_workers <= 0:
                raise ValueError("multiprocessing_context can only be used with multi-process "
                                 "loading (num_workers > 0), but got "
                                 f"num_workers={self.num_workers}")
            if isinstance(multiprocessing_context, str):
                valid = python_multiprocessing.get_all_start_methods()
                if multiprocessing_context not in valid:
                    raise ValueError(
                        "multiprocessing_context option should specify a valid start method "
                        f"in {valid!r}, but got "
                        f"multiprocessing_context={multiprocessing_context!r}")
                multiprocessing_context = python_multiprocessing.get_context(
                    multiprocessing_context)
            if not isinstance(multiprocessing_context,
                              python_multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context "
                                "object or a string specifying the start method, but got "
                                f"multiprocessing_context={multiprocessing_context}")
        self.__multiprocessing_context = multiprocessing_context

    def __setattr__(self, attr, val):
        if self._initialized and attr in ("batch_size", "batch_sampler", "sampler",
                                          "drop_last", "dataset", "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        if self._dataset_kind == _DatasetKind.Iterable:
            # Remembered so that iterating past this many batches warns (the dataset's own
            # __len__ may not account for how workers split it).
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                if self.drop_last:
                    length = length // self.batch_size
                else:
                    length = -(-length // self.batch_size)
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self):
        """Warn when more workers are asked for than this process may use CPUs."""
        if not self.num_workers:
            return
        suggest = _cpu_count()
        if suggest is not None and self.num_workers <= suggest:
            return
        if suggest is None:
            hint = "DataLoader is not able to compute a suggested max number of worker in " \
                   "current system."
        else:
            cpuset = "" if hasattr(os, "sched_getaffinity") else \
                " (`cpuset` is not taken into account)"
            hint = (f"Our suggested max number of worker in current system is {suggest}"
                    f"{cpuset}, which is smaller than what this DataLoader is going to create.")
        warnings.warn(
            f"This DataLoader will create {self.num_workers} worker processes in total. {hint} "
            "Please be aware that excessive worker creation might get DataLoader running slow "
            "or even freeze, lower the worker number to avoid potential slowness/freeze if "
            "necessary.", stacklevel=2)


class _BaseDataLoaderIter:
    def __init__(self, loader):
        from ... import empty, int64
        self._dataset = loader.dataset
        self._shared_seed = None
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._pin_memory = self._pin_memory_setting(loader)
        self._pin_memory_device = "cuda" if self._pin_memory else None
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        # iter() of a sampler is lazy, so the base seed is drawn before any shuffle: the
        # same order of draws as PyTorch.
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = empty((), dtype=int64).random_(generator=loader.generator).item()
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    @staticmethod
    def _pin_memory_setting(loader):
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn("pin_memory_device is deprecated, the current accelerator will be "
                          "used as the device,ignore "
                          f"pin_memory_device='{loader.pin_memory_device}'.", stacklevel=3)
        if loader.pin_memory and not _accelerator_available():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=3)
        return loader.pin_memory and _accelerator_available()

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        if self._sampler_iter is None:
            self._reset()
        data = self._next_data()
        self._num_yielded += 1
        if self._dataset_kind == _DatasetKind.Iterable and \
                self._IterableDataset_len_called is not None and \
                self._num_yielded > self._IterableDataset_len_called:
            warn_msg = (f"Length of IterableDataset {self._dataset} was reported to be "
                        f"{self._IterableDataset_len_called}(when accessing len(dataloader)), "
                        f"but {self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                warn_msg += (
                    "For multiprocessing data-loading, this could be caused by not properly "
                    "configuring the IterableDataset replica at each worker. Please see "
                    "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset"
                    " for examples.")
            warnings.warn(warn_msg, stacklevel=2)
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled", self.__class__.__name__)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._dataset_fetcher = _DatasetKind.create_fetcher(
            self._dataset_kind, self._dataset, self._auto_collation, self._collate_fn,
            self._drop_last)

    def _next_data(self):
        index = self._next_index()
        data = self._dataset_fetcher.fetch(index)
        if self._pin_memory:
            data = _utils.pin_memory.pin_memory(data, self._pin_memory_device)
        return data



class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Batches made by worker processes.

    Task ``k`` (the k-th index list from the sampler) goes to worker ``k % num_workers`` (the
    next live one); up to ``prefetch_factor * num_workers`` tasks are outstanding. Results that
    arrive early wait in ``_task_info`` until their turn, so batches come out in sampler order.
    """

    def __init__(self, loader):
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        if loader.multiprocessing_context is None:
            from ... import multiprocessing as context
        else:
            context = loader.multiprocessing_context
        self._worker_init_fn = loader.worker_init_fn
        self._worker_result_queue = context.Queue()
        self._worker_pids_set = False
        self._shutdown = False
        self._workers_done_event = context.Event()
        self._index_queues = []
        self._workers = []
        self._fd_channels = []
        forked = context.get_start_method() == "fork"
        for i in range(self._num_workers):
            index_queue = context.Queue()
            # Never block on exit flushing indices nobody will read.
            index_queue.cancel_join_thread()
            fd_channel = self._open_fd_channel(i) if forked else None
            w = context.Process(
                target=_utils.worker._worker_loop,
                args=(self._dataset_kind, self._dataset, index_queue,
                      self._worker_result_queue, self._workers_done_event,
                      self._auto_collation, self._collate_fn, self._drop_last,
                      self._base_seed, self._worker_init_fn, i, self._num_workers,
                      self._persistent_workers, self._shared_seed, fd_channel))
            w.daemon = True
            w.start()
            if fd_channel is not None:
                fd_channel[0].close()           # the worker has its own copy
            self._index_queues.append(index_queue)
            self._workers.append(w)
        if self._pin_memory:
            self._start_pin_memory_thread()
        else:
            self._data_queue = self._worker_result_queue
        _utils.signal_handling._set_worker_pids(id(self), tuple(w.pid for w in self._workers))
        _utils.signal_handling._set_SIGCHLD_handler()
        self._worker_pids_set = True
        self._reset(loader, first_iter=True)

    def _open_fd_channel(self, worker_id):
        """A socket pair for worker ``worker_id``'s shared-memory descriptors (forked workers
        only); returns the worker's end and the channel id."""
        import socket
        from ...multiprocessing import reductions
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        channel_id = f"{os.getpid()}-{id(self)}-{worker_id}"
        reductions.open_fd_channel(channel_id, mine)
        self._fd_channels.append(channel_id)
        return theirs, channel_id

    def _start_pin_memory_thread(self):
        self._pin_memory_thread_done_event = threading.Event()
        self._data_queue = queue.Queue()
        thread = threading.Thread(
            target=_utils.pin_memory._pin_memory_loop,
            args=(self._worker_result_queue, self._data_queue, 0,
                  self._pin_memory_thread_done_event, self._pin_memory_device),
            daemon=True)
        thread.start()
        self._pin_memory_thread = thread

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0              # index of the next task to send to a worker
        self._rcvd_idx = 0              # index of the next task to hand out
        # task index -> (worker_id,) while outstanding, (worker_id, data) once arrived early
        self._task_info = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # Persistent workers: tell each one a new epoch begins and wait until all know.
            for index_queue in self._index_queues:
                index_queue.put(_utils.worker._ResumeIteration(self._shared_seed))
            remaining = self._num_workers
            while remaining > 0:
                return_idx, _ = self._get_data()
                if isinstance(return_idx, _utils.worker._ResumeIteration):
                    remaining -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_get_data(self, timeout=_WORKER_CHECK_INTERVAL):
        """``(True, item)`` from the data queue, or ``(False, None)`` after ``timeout``;
        RuntimeError if a worker has died meanwhile."""
        try:
            return True, self._data_queue.get(timeout=timeout)
        except Exception as e:
            failed = [w for worker_id, w in enumerate(self._workers)
                      if self._workers_status[worker_id] and not w.is_alive()]
            for w in failed:
                self._mark_worker_as_unavailable(self._workers.index(w))
            if failed:
                pids = ", ".join(str(w.pid) for w in failed)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") \
                    from e
            if isinstance(e, queue.Empty):
                return False, None
            raise

    def _get_data(self):
        if self._timeout > 0:
            success, data = self._try_get_data(self._timeout)
            if success:
                return data
            raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        if self._pin_memory:
            while self._pin_memory_thread.is_alive():
                success, data = self._try_get_data()
                if success:
                    return data
            raise RuntimeError("Pin memory thread exited unexpectedly")
        while True:
            success, data = self._try_get_data()
            if success:
                return data

    def _next_data(self):
        while True:
            # Skip tasks whose worker has stopped (an exhausted IterableDataset copy).
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info:
                    if len(info) == 2 or self._workers_status[info[0]]:
                        break
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if self._dataset_kind == _DatasetKind.Iterable and \
                    isinstance(data, _utils.worker._IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if not self._in_order:
                    worker_id = self._task_info.pop(idx)[0]
                    return self._process_data(data, worker_id)
                self._task_info[idx] += (data,)        # early: keep it for its turn
            else:
                worker_id = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

    def _try_put_index(self):
        max_tasks = self._prefetch_factor * self._num_workers
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):      # the next live worker, if any
            worker_queue_idx = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_queue_idx]:
                if self._in_order or self._workers_num_tasks[worker_queue_idx] < \
                        max_tasks // sum(self._workers_status):
                    break
        else:
            return
        self._index_queues[worker_queue_idx].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_queue_idx,)
        self._workers_num_tasks[worker_queue_idx] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data, worker_idx):
        self._workers_num_tasks[worker_idx] -= 1
        self._try_put_index()
        if isinstance(data, _utils.ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id, shutdown=False):
        """Tell worker ``worker_id`` to stop (it exits its loop on ``None``)."""
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self, join_timeout=_utils.MP_STATUS_CHECK_INTERVAL):
        """Stop the workers and the pin-memory thread, join them (terminating stragglers
        after ``join_timeout`` seconds), and close the queues. Safe to call more than once."""
        if _utils is None or _utils.python_exit_status is True or \
                _utils.python_exit_status is None:
            return
        if self._shutdown:
            return
        self._shutdown = True
        try:
            if hasattr(self, "_pin_memory_thread"):
                self._pin_memory_thread_done_event.set()
                self._worker_result_queue.put((None, None))   # wake the thread up
                self._pin_memory_thread.join()
                self._worker_result_queue.cancel_join_thread()
                self._worker_result_queue.close()
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id, shutdown=True)
            for w in self._workers:
                w.join(timeout=join_timeout)
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
            self._drain_results()
        finally:
            from ...multiprocessing import reductions
            for channel_id in self._fd_channels:
                reductions.close_fd_channel(channel_id)
            if self._worker_pids_set:
                _utils.signal_handling._remove_worker_pids(id(self))
                self._worker_pids_set = False
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)

    def _drain_results(self):
        """Receive and drop batches nobody will ask for: a batch in a named shared-memory
        segment (file_system strategy) is freed only once received."""
        from ... import multiprocessing as cinder_mp
        if cinder_mp.get_sharing_strategy() != "file_system" or \
                hasattr(self, "_pin_memory_thread"):
            return
        while True:
            try:
                self._worker_result_queue.get(timeout=0.01)
            except queue.Empty:
                return
            except Exception:      # noqa: BLE001 - a half-written message from a dead worker
                return

    def __del__(self):
        # The garbage collector may run this in any thread, even in a queue's feeder thread,
        # which must return before the workers can read their stop message: elsewhere than
        # in the main thread, stop the workers without waiting for them.
        main = threading.current_thread() is threading.main_thread()
        self._shutdown_workers(_utils.MP_STATUS_CHECK_INTERVAL if main else 0)
