"""How the DataLoader fails and cleans up, compared with PyTorch where PyTorch is the
reference: worker exceptions, killed workers, timeouts, bad arguments, pin_memory without an
accelerator, and no processes or /dev/shm segments left after any of it."""

import gc
import pickle
import os
import signal
import time
import warnings

import pytest
import torch

import cinder
from oracle import check
from utils.data.helpers import alive, shm_names


@pytest.fixture(autouse=True)
def no_hang():
    """A test that blocks for 20 s fails instead of hanging the suite."""
    def on_alarm(signum, frame):
        raise TimeoutError("test hung")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


class Failing:
    """Item ``bad`` fails in the way ``how`` says; the others are ``[i]``."""

    def __init__(self, how, bad=3, n=10):
        self.how, self.bad, self.n = how, bad, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.bad:
            if self.how == "raise":
                raise ValueError(f"bad sample {i}")
            if self.how == "keyerror":
                raise KeyError("missing")
            if self.how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            if self.how == "exit":
                os._exit(3)
            if self.how == "sleep":
                time.sleep(1)
        return [i]


def run_to_error(L, how, **kw):
    """Iterate until the failure; returns ((type, message, cause's message), worker pids).
    Only text is kept: the exception's traceback would keep the iterator (and its workers)
    alive, in PyTorch as here."""
    dl = L.utils.data.DataLoader(Failing(how), num_workers=2, **kw)
    it = iter(dl)
    pids = [w.pid for w in it._workers]
    err = None
    try:
        for _ in it:
            pass
    except Exception as e:      # noqa: BLE001 - the error is what is checked
        err = (type(e), str(e), str(e.__cause__))
    try:
        if L is torch:
            # PyTorch's re-raise leaves a reference cycle, so its iterator would be shut down
            # whenever (and in whichever thread) the garbage collector runs; do it now.
            it._shutdown_workers()
    except RuntimeError:
        # a dead worker's SIGCHLD can arrive after another check reported it (on a loaded
        # machine): the handler then raises the same failure again here, in both libraries
        if L is torch:
            it._shutdown_workers()
    del it, dl
    gc.collect()
    return err, pids


def assert_clean(pids, before):
    deadline = time.monotonic() + 5
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(p) for p in pids)
    assert shm_names() == before


@pytest.mark.parametrize("how", ["raise", "keyerror"])
def test_worker_exception_reraised_with_traceback(how):
    before = shm_names()
    results = {}
    for L in (torch, cinder):
        err, pids = run_to_error(L, how)
        assert_clean(pids, before)
        results[L.__name__] = err
    (t_type, t, _), (c_type, c, _) = results["torch"], results["cinder"]
    assert c_type is t_type
    assert c.split("\n")[:2] == t.split("\n")[:2]   # "Caught X in DataLoader worker process 1."
    assert "Traceback (most recent call last)" in c and "__getitem__" in c
    assert c.rstrip().split("\n")[-1] == t.rstrip().split("\n")[-1]


@pytest.mark.parametrize("how", ["kill", "exit"])
def test_dead_worker_is_reported_not_hung(how):
    before = shm_names()
    messages = {}
    for L in (torch, cinder):
        # Which check notices the dead worker first depends on timing, in PyTorch as here: the
        # usual one raises with the worker's fate as the cause; on a loaded machine the other
        # (no cause) can win, or, rarely, the data pipe's EOFError when the main process reads
        # it before it sees the worker gone. Up to three tries for the usual one, in each
        # library.
        for _ in range(3):
            start = time.monotonic()
            err, pids = run_to_error(L, how)
            elapsed = time.monotonic() - start
            assert err[0] in (RuntimeError, EOFError) and elapsed < 10
            assert_clean(pids, before)
            if err[0] is RuntimeError and ")" in err[2]:
                break
        assert err[0] is RuntimeError
        # The outer message names the pid; its cause says what happened to the worker.
        messages[L.__name__] = [err[1].split("(pid")[0], err[2].split("(pid")[0],
                                err[2].split(")", 1)[-1]]
    assert messages["cinder"] == messages["torch"]


def test_timeout():
    before = shm_names()
    msgs = []
    for L in (torch, cinder):
        err, pids = run_to_error(L, "sleep", timeout=0.3)
        assert_clean(pids, before)
        msgs.append(err[:2])
    assert msgs[0] == msgs[1] == (RuntimeError, "DataLoader timed out after 0.3 seconds")


@pytest.mark.parametrize("stop", ["del", "break", "exception", "exhausted"])
def test_no_leftovers(stop):
    before = shm_names()
    dl = cinder.utils.data.DataLoader(Failing("none"), batch_size=2, num_workers=2)
    it = iter(dl)
    pids = [w.pid for w in it._workers]
    if stop == "break":
        for _ in it:
            break
    elif stop == "exception":
        with pytest.raises(ZeroDivisionError):
            for _ in it:
                raise ZeroDivisionError
    elif stop == "exhausted":
        assert len(list(it)) == 5
    else:
        next(it)
    del it
    gc.collect()
    assert_clean(pids, before)


def test_persistent_workers_end_with_the_loader():
    dl = cinder.utils.data.DataLoader(Failing("none"), num_workers=2, persistent_workers=True)
    assert len(list(dl)) == 10 and len(list(dl)) == 10
    pids = [w.pid for w in dl._iterator._workers]
    assert all(alive(p) for p in pids)
    del dl
    gc.collect()
    assert_clean(pids, shm_names())


@pytest.mark.parametrize("stop", ["exhausted", "break"])
def test_file_system_strategy_leaves_nothing(stop):
    before = shm_names()
    cinder.multiprocessing.set_sharing_strategy("file_system")
    try:
        dl = cinder.utils.data.DataLoader(Failing("none"), batch_size=2, num_workers=2)
        batches = []
        for b in dl:
            batches.append(b)
            if stop == "break":
                time.sleep(0.2)         # let the workers fill the queue with prefetched batches
                break
        assert batches[0][0].is_shared() and len(shm_names()) > len(before)
        del batches, dl, b
        gc.collect()
    finally:
        cinder.multiprocessing.set_sharing_strategy("file_descriptor")
    assert shm_names() == before


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the behaviour without a GPU")
def test_pin_memory_without_accelerator_warns_and_passes_through():
    for L in (torch, cinder):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = list(L.utils.data.DataLoader(Failing("none", n=2), pin_memory=True))
        assert [str(m.message) for m in w] == [
            "'pin_memory' argument is set as true but no accelerator is found, then device "
            "pinned memory won't be used."]
        assert [b[0].tolist() for b in out] == [[0], [1]]


def test_pin_memory_thread_path(monkeypatch):
    """With an accelerator the batches pass through the pin-memory thread."""
    from cinder.utils.data import dataloader
    monkeypatch.setattr(dataloader, "_accelerator_available", lambda: True)
    # pinning itself needs the accelerator too (the CPU build refuses, as PyTorch's does)
    monkeypatch.setattr(cinder.Tensor, "pin_memory", lambda self, device=None: self.clone())
    dl = cinder.utils.data.DataLoader(Failing("none", n=6), batch_size=2, num_workers=2,
                                      pin_memory=True)
    it = iter(dl)
    assert it._pin_memory_thread.is_alive()
    assert [b[0].tolist() for b in it] == [[0, 1], [2, 3], [4, 5]]
    assert not it._pin_memory_thread.is_alive()


BAD_ARGS = [
    "L.utils.data.DataLoader(range(4), num_workers=-1)",
    "L.utils.data.DataLoader(range(4), timeout=-1)",
    "L.utils.data.DataLoader(range(4), prefetch_factor=2)",
    "L.utils.data.DataLoader(range(4), num_workers=1, prefetch_factor=-1)",
    "L.utils.data.DataLoader(range(4), persistent_workers=True)",
    "L.utils.data.DataLoader(range(4), sampler=[0, 1], shuffle=True)",
    "L.utils.data.DataLoader(range(4), batch_sampler=[[0]], batch_size=2)",
    "L.utils.data.DataLoader(range(4), batch_size=None, drop_last=True)",
    "L.utils.data.DataLoader(range(4), multiprocessing_context='fork')",
    "L.utils.data.DataLoader(range(4), num_workers=1, multiprocessing_context='nope')",
    "L.utils.data.DataLoader(range(4), num_workers=1, multiprocessing_context=3)",
    "L.utils.data.DataLoader(range(4), batch_size=0)",
    "L.utils.data.DataLoader(range(4), batch_size=2, drop_last=1)",
    "setattr(L.utils.data.DataLoader(range(4)), 'batch_size', 3)",
    "L.utils.data.DataLoader(it, shuffle=True)",
    "L.utils.data.DataLoader(it, sampler=[1])",
    "L.utils.data.DataLoader(it, batch_sampler=[[1]])",
    "L.utils.data.RandomSampler(range(3), replacement=1)",
    "L.utils.data.RandomSampler(range(3), num_samples=0)",
    "L.utils.data.RandomSampler([])",
    "L.utils.data.WeightedRandomSampler([1., 2.], 0)",
    "L.utils.data.WeightedRandomSampler([1., 2.], 2, replacement=0)",
    "L.utils.data.WeightedRandomSampler([[1., 2.]], 2)",
    "L.utils.data.DistributedSampler(range(4), num_replicas=2, rank=2)",
    "L.utils.data.random_split(range(4), [1, 2])",
    "L.utils.data.random_split(range(4), [1.5, -0.5])",
    "L.utils.data.TensorDataset(L.ones(2), L.ones(3))",
    "L.utils.data.StackDataset(range(2), range(3))",
    "L.utils.data.StackDataset()",
    "L.utils.data.StackDataset(range(2), a=range(2))",
    "L.utils.data.ConcatDataset([])",
    "L.utils.data.ConcatDataset([it])",
    "L.utils.data.ConcatDataset([range(3)])[-4]",
    "L.utils.data.Dataset()[0]",
    "list(L.utils.data.Sampler())",
    "list(L.utils.data.ChainDataset([range(2)]))",
    "iter(L.utils.data.DataLoader(range(2)))._dataset",
]


@pytest.mark.parametrize("expr", BAD_ARGS)
def test_bad_arguments(expr):
    def env(L):
        class It(L.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(3))
        return {"it": It()}
    from oracle import outcome
    t = outcome(expr, torch, env(torch))
    c = outcome(expr, cinder, env(cinder))
    assert _without_address(c) == _without_address(t), expr


def _without_address(out):
    return out if out[0] == "value" else (out[0], out[1], out[2].split(" object at ")[0])


def test_get_worker_info_in_main_process():
    check("L.utils.data.get_worker_info()")


def test_ctrl_c_leaves_nothing():
    before = shm_names()
    ds = cinder.utils.data.TensorDataset(cinder.arange(20.).reshape(10, 2))
    it = iter(cinder.utils.data.DataLoader(ds, batch_size=1, num_workers=2))
    pids = [w.pid for w in it._workers]
    # Python's own Ctrl-C handler, whatever the test runner installed (a pytest-xdist worker
    # may ignore SIGINT, so the signal would never become a KeyboardInterrupt)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            for i, _ in enumerate(it):
                if i == 2:
                    os.kill(os.getpid(), signal.SIGINT)     # what Ctrl-C sends
    finally:
        signal.signal(signal.SIGINT, previous)
    del it
    gc.collect()
    assert_clean(pids, before)


@pytest.mark.parametrize("context", ["spawn", "forkserver"])
def test_other_start_methods(context):
    ds = cinder.utils.data.TensorDataset(cinder.arange(20.).reshape(10, 2), cinder.arange(10))
    dl = cinder.utils.data.DataLoader(ds, batch_size=4, num_workers=2,
                                      multiprocessing_context=context)
    batches = list(dl)
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert batches[0][0].is_shared() and batches[2][0].tolist() == [[16., 17.], [18., 19.]]


class Unpicklable:
    """Item 2 carries a lambda next to its tensor: the worker cannot pickle that batch."""

    def __len__(self):
        return 6

    def __getitem__(self, i):
        return (cinder.full((3,), float(i)), (lambda: i) if i == 2 else i)


def test_unpicklable_batch_is_an_error_not_a_hang():
    """The tensor's descriptor went ahead on the worker's channel before pickling failed; the
    error reaches the main process and the following batches still get their own memory."""
    from cinder.multiprocessing import reductions
    dl = cinder.utils.data.DataLoader(Unpicklable(), batch_size=None, num_workers=1,
                                      collate_fn=lambda x: x)
    it = iter(dl)
    assert len(reductions._receivers) >= 1             # forked workers use the fast path
    got = [next(it)[0].tolist(), next(it)[0].tolist()]
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError),
                       match="Caught .* in DataLoader worker process 0"):
        next(it)
    got += [b[0].tolist() for b in it]
    assert got == [[0.0] * 3, [1.0] * 3, [3.0] * 3, [4.0] * 3, [5.0] * 3]


def test_argument_warnings_match():
    """pin_memory_device is deprecated; more workers than CPUs is warned about (twice: at
    construction and again when iterating starts)."""
    seen = []
    for L in (torch, cinder):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            list(L.utils.data.DataLoader(range(2), pin_memory=True, pin_memory_device="cuda"))
            L.utils.data.DataLoader(range(2), num_workers=os.cpu_count() + 1)
        seen.append([(m.category, str(m.message)) for m in w])
    # Without a GPU, pin_memory=True is also warned about ("no accelerator is found").
    assert seen[1] == seen[0] and len(seen[0]) == (2 if torch.cuda.is_available() else 3)


class ManyTensors:
    """Samples of 300 small tensors each: a batch carries more descriptors than a socket
    buffer holds."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return {f"t{k}": cinder.full((2,), float(i * 1000 + k)) for k in range(300)}


def test_batch_with_many_tensors():
    dl = cinder.utils.data.DataLoader(ManyTensors(), batch_size=2, num_workers=2)
    batches = list(dl)
    assert len(batches) == 2 and len(batches[1]) == 300
    assert batches[1]["t299"].tolist() == [[2299.0, 2299.0], [3299.0, 3299.0]]
    assert all(t.is_shared() for t in batches[0].values())


_EXIT_WITH_WORKERS = """
import sys
L = __import__(sys.argv[1])
dl = L.utils.data.DataLoader(range(8), batch_size=2, num_workers=2, persistent_workers=True)
print([b.tolist() for b in dl])
it = iter(L.utils.data.DataLoader(range(8), num_workers=2))
print(next(it).tolist())
"""


def test_exit_with_live_workers_is_quiet(tmp_path):
    """The interpreter exits while iterators still hold workers (persistent ones, one left
    half-read): multiprocessing terminates them, and the workers leave quietly on the main
    process's SIGTERM, so the SIGCHLD check reports nothing (as in PyTorch)."""
    import subprocess
    import sys
    script = tmp_path / "exit_with_workers.py"
    script.write_text(_EXIT_WITH_WORKERS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (
        os.path.dirname(os.path.dirname(cinder.__file__)), os.environ.get("PYTHONPATH")) if p))
    runs = [subprocess.run([sys.executable, str(script), lib], capture_output=True, text=True,
                           env=env, timeout=60) for lib in ("cinder", "torch")]
    assert runs[0].returncode == runs[1].returncode == 0
    assert runs[0].stdout == runs[1].stdout
    assert runs[0].stderr == runs[1].stderr == ""


@pytest.mark.parametrize("sender", ["main", "other"])
def test_sigterm_to_a_worker(sender):
    """A worker that gets SIGTERM, from the main process (it leaves with status 0) or from
    another (it dies of the signal), is reported as PyTorch reports it."""
    import subprocess
    messages = []
    for L in (cinder, torch):
        it = iter(L.utils.data.DataLoader(Failing("sleep", bad=0), num_workers=1))
        pid = it._workers[0].pid
        time.sleep(0.3)                    # the worker is running (sleeping in item 0)
        if sender == "main":
            os.kill(pid, signal.SIGTERM)
        else:
            subprocess.run(["kill", "-TERM", str(pid)], check=True)
        with pytest.raises(RuntimeError) as info:
            for _ in range(5):
                next(it)
        messages.append(str(info.value).replace(str(pid), "PID"))
        del it, info
        gc.collect()
    assert messages[0] == messages[1], messages
