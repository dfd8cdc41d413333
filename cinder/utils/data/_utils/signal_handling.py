"""Noticing dead DataLoader workers at once, from a SIGCHLD handler in the main process.

When a worker process dies the kernel sends SIGCHLD to the main process. The handler looks at
every registered worker with ``waitid(..., WNOWAIT)`` (which peeks without reaping, so
``multiprocessing`` can still join the process) and raises PyTorch's RuntimeError for the first
one that died abnormally. The exception surfaces wherever the main thread is, typically inside
the blocking ``queue.get`` of ``DataLoader.__next__``, so a killed worker never hangs the loop.
"""

import os
import signal
import threading

from . import IS_WINDOWS

# id(iterator) -> the pids of its workers.
_worker_pids = {}

_SIGCHLD_handler_set = False


def _set_worker_pids(key, pids):
    if key in _worker_pids:
        raise RuntimeError("_set_worker_pids should be called only once for each "
                           "_BaseDataLoaderIter.")
    _worker_pids[key] = tuple(pids)


def _remove_worker_pids(key):
    if _worker_pids.pop(key, None) is None:
        raise RuntimeError("Cannot find worker information for _BaseDataLoaderIter with id "
                           f"{key}")


def _failure_message(pid, info):
    """PyTorch's message for a worker that ended badly, or None if it ended well."""
    if info.si_code == os.CLD_EXITED:
        if info.si_status == 0:
            return None
        return (f"DataLoader worker (pid {pid}) exited unexpectedly with exit code "
                f"{info.si_status}. Details are lost due to multiprocessing. Rerunning with "
                "num_workers=0 may give better error trace.")
    if info.si_code in (os.CLD_KILLED, os.CLD_DUMPED):
        msg = f"DataLoader worker (pid {pid}) is killed by signal: " \
              f"{signal.strsignal(info.si_status)}. "
        if info.si_status == signal.SIGBUS:
            msg += ("It is possible that dataloader's workers are out of shared memory. "
                    "Please try to raise your shared memory limit.")
        return msg
    return None


def _error_if_any_worker_fails():
    """Raise RuntimeError if a registered worker has died with an error or a signal."""
    for pids in list(_worker_pids.values()):
        for pid in pids:
            try:
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                continue                       # already reaped by multiprocessing
            if info is None:
                continue                       # still running
            msg = _failure_message(pid, info)
            if msg is not None:
                raise RuntimeError(msg)


def _set_worker_signal_handlers():
    """In a worker: let a Ctrl-C meant for the main process end the worker quietly (the
    main process shuts workers down itself), and leave with status 0 on a SIGTERM from the
    main process.

    The second is for interpreter exit: ``multiprocessing`` terminates the daemonic workers
    of an iterator still alive then (persistent workers, or one a traceback holds) before
    ``__del__`` shuts them down, and the main process's SIGCHLD check would report each as
    "killed by signal: Terminated". A SIGTERM from anyone else still kills the worker, as in
    PyTorch. Python's handlers cannot see the sender, so SIGTERM is blocked and a thread takes
    it with ``sigwaitinfo``, which can."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if IS_WINDOWS:
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})   # threads made later too
    threading.Thread(target=_take_sigterm, args=(os.getppid(),), daemon=True,
                     name="cinder-worker-sigterm").start()


def _take_sigterm(parent):
    info = signal.sigwaitinfo({signal.SIGTERM})
    if info.si_pid == parent:
        os._exit(0)
    # from elsewhere: die of it, unblocked in this thread alone
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    signal.pthread_kill(threading.get_ident(), signal.SIGTERM)


def _set_SIGCHLD_handler():
    """Install (once, from the main thread) the handler that checks workers on SIGCHLD,
    chaining to a handler that was there before."""
    global _SIGCHLD_handler_set
    if IS_WINDOWS or _SIGCHLD_handler_set:
        return
    if threading.current_thread() is not threading.main_thread():
        return
    previous_handler = signal.getsignal(signal.SIGCHLD)
    if not callable(previous_handler):
        previous_handler = None

    def handler(signum, frame):
        _error_if_any_worker_fails()
        if previous_handler is not None:
            previous_handler(signum, frame)

    signal.signal(signal.SIGCHLD, handler)
    _SIGCHLD_handler_set = True
