"""torch.multiprocessing: share_memory_/is_shared, tensors through Queue and Pipe as shared
memory (both sharing strategies, fork and spawn), spawn/start_processes error propagation,
and Hogwild-style training of shared parameters by several processes."""

import gc
import os
import pickle
import weakref

import numpy as np
import pytest
import torch

import cinder
import cinder.multiprocessing as mp
from multiprocessing.reduction import ForkingPickler

from utils.data.helpers import shm_names  # noqa: E402
from mp_children import (_child_adds_one, _exits, _fails, _hogwild_module,  # noqa: E402
                         _hogwild_plain, _ok, _pipe_child)




@pytest.fixture(params=["file_descriptor", "file_system"])
def strategy(request):
    before = shm_names()
    mp.set_sharing_strategy(request.param)
    yield request.param
    mp.set_sharing_strategy("file_descriptor")
    gc.collect()
    assert shm_names() == before


def test_sharing_strategy_api():
    for L in (torch, cinder):
        assert L.multiprocessing.get_sharing_strategy() == "file_descriptor"
        assert L.multiprocessing.get_all_sharing_strategies() == {"file_descriptor",
                                                                  "file_system"}
    with pytest.raises(AssertionError):
        mp.set_sharing_strategy("nope")
    assert set(torch.multiprocessing.__all__) - set(mp.__all__) <= {"Pool", "Queue",
                                                                    "SimpleQueue", "Process"}


def test_share_memory_in_place(strategy):
    for L in (torch, cinder):
        t = L.from_numpy(np.arange(12.).reshape(3, 4)).t()
        assert not t.is_shared()
        assert t.share_memory_() is t and t.is_shared()
        assert t.tolist() == np.arange(12.).reshape(3, 4).T.tolist()
        assert t.stride() == (1, 4) and t.storage_offset() == 0
        assert t.untyped_storage().is_shared()
        s = L.UntypedStorage(8)
        assert not s.is_shared() and s.share_memory_().is_shared()


def test_shared_memory_is_seen_by_a_forked_child(strategy):
    t = cinder.zeros(4).share_memory_()
    pid = os.fork()
    if pid == 0:                                   # the child writes; the parent sees it
        t[1] = 7.0
        os._exit(0)
    os.waitpid(pid, 0)
    assert t.tolist() == [0.0, 7.0, 0.0, 0.0]


def _views_of_one_storage(L):
    """A tensor with a view, a typed slice, a storage and a parameter made from it beforehand."""
    base = L.arange(12.)
    return {"base": base, "view": base[2:6], "matrix": base.view(3, 4).t(),
            "storage": base.untyped_storage(), "param": L.nn.Parameter(base.view(3, 4)),
            "typed": base.storage()}


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("mover", ["base", "view", "storage", "param"])
def test_share_memory_moves_views_made_before(strategy, mover):
    """PyTorch moves the storage object every view holds: all of them report shared memory,
    whichever one was moved, the same as in torch."""
    shared = {}
    for L in (torch, cinder):
        things = _views_of_one_storage(L)
        things[mover].share_memory_()
        shared[L] = {name: obj.is_shared() for name, obj in things.items()}
    assert shared[cinder] == shared[torch]
    assert all(shared[cinder].values())


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
def test_view_made_before_share_memory_is_written_by_a_forked_child(strategy):
    things = _views_of_one_storage(cinder)
    fresh = cinder.ones(3)
    dead = weakref.proxy(cinder.nn.Linear(1, 1))   # the search must not trip over it
    things["base"].share_memory_()
    fresh.share_memory_()                        # the lone-tensor path (nothing else views it)
    pid = os.fork()
    if pid == 0:                                 # the child writes through the old views
        things["view"].fill_(-1.0)
        things["matrix"][3, 2] = 100.0           # element 11 of the base
        things["storage"][0] = 0                 # the first byte of element 0 (0.0 stays 0.0)
        with cinder.no_grad():
            things["param"][0, 0] = 50.0
        fresh[1] = 9.0
        os._exit(0)
    os.waitpid(pid, 0)
    expected = [50.0, 1.0, -1.0, -1.0, -1.0, -1.0, 6.0, 7.0, 8.0, 9.0, 10.0, 100.0]
    assert things["base"].tolist() == expected
    assert things["typed"].tolist() == expected
    assert fresh.tolist() == [1.0, 9.0, 1.0]
    with pytest.raises(ReferenceError):          # it was dead all along
        _ = dead.weight


def test_forking_pickler_sends_handles_not_copies(strategy):
    big = cinder.ones(1000, 1000)
    payload = ForkingPickler.dumps(big)
    assert len(payload) < 2000 and big.is_shared()  # 4 MB tensor, a few hundred bytes
    back = pickle.loads(payload)
    back[0, 0] = 5.0                                # same memory
    assert big[0, 0].item() == 5.0
    view = pickle.loads(ForkingPickler.dumps(big[1:, 2:]))
    assert view.shape == (999, 998) and view.stride() == (1000, 1) and view[0, 0].item() == 1


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_queue_round_trip(strategy, method):
    ctx = mp.get_context(method)
    q, r, done = ctx.Queue(), ctx.Queue(), ctx.Event()
    p = ctx.Process(target=_child_adds_one, args=(q, r, done))
    p.start()
    t = cinder.arange(6.).share_memory_()
    q.put(t)
    q.put(cinder.nn.Parameter(t[2:]))
    doubled, shared, offset, kind = r.get(timeout=30)
    done.set()
    p.join(30)
    assert p.exitcode == 0
    assert t.tolist() == [1., 2., 3., 4., 5., 6.]
    assert doubled.tolist() == [2., 4., 6., 8., 10., 12.] and doubled.is_shared()
    assert shared and offset == 8 and kind == "Parameter"


def test_pipe(strategy):
    parent, child = mp.Pipe()
    p = mp.Process(target=_pipe_child, args=(child,))
    p.start()
    t = cinder.ones(3)
    parent.send(t)
    assert parent.recv() == "done"
    parent.send("bye")
    p.join(30)
    assert t.tolist() == [3.0, 3.0, 3.0]


def test_non_leaf_requires_grad_refused():
    for L in (torch, cinder):
        x = L.ones(2, requires_grad=True) * 2
        with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf"):
            ForkingPickler.dumps(x)


def test_start_processes_fork():
    out = cinder.zeros(3).share_memory_()
    assert mp.start_processes(_ok, args=(out,), nprocs=3, start_method="fork") is None
    assert out.tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("lib", [torch, cinder], ids=["torch", "cinder"])
def test_spawn_error_propagation(lib):
    with pytest.raises(lib.multiprocessing.ProcessRaisedException) as info:
        lib.multiprocessing.start_processes(_fails, nprocs=2, start_method="fork")
    assert info.value.error_index == 1
    assert "-- Process 1 terminated with the following error:" in str(info.value)
    assert "ValueError: rank one failed" in str(info.value)
    with pytest.raises(lib.multiprocessing.ProcessExitedException,
                       match="process 0 terminated with exit code 5") as info:
        lib.multiprocessing.start_processes(_exits, nprocs=2, start_method="fork")
    assert info.value.exit_code == 5


def test_spawn_context_join_false():
    ctx = mp.start_processes(_ok, args=(cinder.zeros(2).share_memory_(),), nprocs=2,
                             join=False, start_method="fork")
    assert isinstance(ctx, mp.ProcessContext) and len(ctx.pids()) == 2
    while not ctx.join():
        pass


# ----------------------------------------------------------------------------------------------
# Hogwild: processes update shared parameters without locks
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_hogwild_plain_tensors(method):
    w = cinder.zeros(1).share_memory_()
    b = cinder.zeros(1).share_memory_()
    mp.start_processes(_hogwild_plain, args=(w, b, 150), nprocs=2, start_method=method)
    assert abs(w.item() - 3) < 0.3 and abs(b.item() - 1) < 0.2


@pytest.mark.skipif(not (hasattr(cinder.nn, "Linear") and hasattr(cinder, "optim")),
                    reason="needs nn.Linear and optim.SGD (other helpers' branches)")
def test_hogwild_module_as_in_the_docs():
    """The documented Hogwild recipe: model.share_memory(), then processes train it."""
    cinder.manual_seed(0)
    model = cinder.nn.Linear(2, 1)
    model.share_memory()
    assert all(p.is_shared() for p in model.parameters())
    procs = []
    for rank in range(2):
        p = mp.Process(target=_hogwild_module, args=(rank, model, 200))
        p.start()
        procs.append(p)
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    w = model.weight.detach().reshape(-1).tolist()
    assert abs(w[0] - 2) < 0.3 and abs(w[1] + 1) < 0.3


def test_program_exit_removes_its_named_segments():
    """A message pickled but never received holds a reference; the program's first process
    removes its session's names when it exits."""
    import subprocess
    import sys
    code = ("import os, cinder, cinder.multiprocessing as mp\n"
            "from multiprocessing.reduction import ForkingPickler\n"
            "mp.set_sharing_strategy('file_system')\n"
            "t = cinder.ones(10)\n"
            "msg = ForkingPickler.dumps(t)\n"
            "print(os.environ['CINDER_SHM_SESSION'], len([n for n in os.listdir('/dev/shm')"
            " if n.startswith('cinder_' + os.environ['CINDER_SHM_SESSION'] + '_')]))\n")
    env = {k: v for k, v in os.environ.items() if k != "CINDER_SHM_SESSION"}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True)
    session, count = done.stdout.split()
    assert count == "1"
    assert not [n for n in os.listdir("/dev/shm") if n.startswith(f"cinder_{session}_")]
