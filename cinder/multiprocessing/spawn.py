"""``spawn`` and ``start_processes``: run ``fn(i, *args)`` in ``nprocs`` processes.

A child that raises writes its formatted traceback to a private error file and exits with
status 1; ``ProcessContext.join`` notices the first process that ended badly, stops the others
and raises ``ProcessRaisedException`` (with that traceback) or ``ProcessExitedException`` (exit
code or signal), as PyTorch does.
"""

import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import warnings

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException",
           "ProcessRaisedException", "spawn", "SpawnContext", "start_processes"]

log = logging.getLogger(__name__)


class ProcessException(Exception):
    """A process started by ``spawn``/``start_processes`` failed."""

    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """The process's function raised; the message holds the child's traceback."""


class ProcessExitedException(ProcessException):
    """The process ended with a non-zero exit code or was killed by a signal."""

    __slots__ = ["exit_code"]

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return (type(self), (self.msg, self.error_index, self.error_pid, self.exit_code,
                             self.signal_name))


def _wrap(fn, i, args, error_file):
    """The child's entry point: run ``fn`` and leave its traceback behind if it raises."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass                       # the parent is stopping us
    except Exception:
        import traceback
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The processes of one ``start_processes`` call; ``join`` waits and reports failures."""

    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {p.sentinel: index for index, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def _join_procs_with_timeout(self, timeout):
        end = time.monotonic() + timeout
        for p in self.processes:
            p.join(max(0, end - time.monotonic()))

    def join(self, timeout=None, grace_period=None):
        """Wait for processes to end. Returns True once all ended well, False when some are
        still running after ``timeout``; raises for the first one that failed, after stopping
        the rest (SIGTERM, then SIGKILL after the grace period)."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return not self.sentinels
        self._stop_all(grace_period)
        self._raise_for(error_index)

    def _stop_all(self, grace_period):
        if grace_period is not None:
            self._join_procs_with_timeout(grace_period)
        for p in self.processes:
            if p.is_alive():
                log.warning("Terminating process %s via signal SIGTERM", p.pid)
                p.terminate()
        self._join_procs_with_timeout(30 if grace_period is None else grace_period)
        for p in self.processes:
            if p.is_alive():
                log.warning("Unable to shutdown process %s via SIGTERM , forcefully exiting "
                            "via SIGKILL", p.pid)
                p.kill()
            p.join()

    def _raise_for(self, index):
        failed = self.processes[index]
        error_file = self.error_files[index]
        if not os.access(error_file, os.R_OK):
            code = failed.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                raise ProcessExitedException(
                    f"process {index:d} terminated with signal {name}", error_index=index,
                    error_pid=failed.pid, exit_code=code, signal_name=name)
            raise ProcessExitedException(
                f"process {index:d} terminated with exit code {code:d}", error_index=index,
                error_pid=failed.pid, exit_code=code)
        with open(error_file, "rb") as fh:
            original_trace = pickle.load(fh)
        os.unlink(error_file)
        msg = f"\n\n-- Process {index:d} terminated with the following error:\n"
        raise ProcessRaisedException(msg + original_trace, index, failed.pid)


class SpawnContext(ProcessContext):
    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.",
                      stacklevel=2)
        super().__init__(processes, error_files)


def _error_file_name():
    # A name no one holds yet: the child creates the file only when it fails.
    tf = tempfile.NamedTemporaryFile(prefix="pytorch-errorfile-", suffix=".pickle",
                                     delete=False)
    tf.close()
    os.unlink(tf.name)
    return tf.name


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` processes of ``start_method`` running ``fn(i, *args)``; with ``join``
    wait for all (raising on the first failure), otherwise return their ProcessContext."""
    mp = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        name = _error_file_name()
        p = mp.Process(target=_wrap, args=(fn, i, args, name), daemon=daemon)
        p.start()
        processes.append(p)
        error_files.append(name)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` fresh interpreter processes running ``fn(i, *args)`` (``fn`` must be
    importable: defined at module top level). See ``start_processes``."""
    if start_method != "spawn":
        msg = (f"This method only supports start_method=spawn (got: {start_method}).\n"
               "To use a different start_method use:\n\t\t"
               " torch.multiprocessing.start_processes(...)")
        warnings.warn(msg, FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
