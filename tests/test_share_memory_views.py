"""``share_memory_`` on tensors that other tensors view: which ones move (compared with PyTorch),
that views are recorded only once the process has shared memory (so that ordinary programs pay
nothing per view), that recorded views are found without scanning the heap, that unrecorded
aliases still move (the fallback), and that several threads can share different tensors at once."""

import threading

import numpy as np
import pytest
import torch

import cinder
import cinder._storage as storage_mod
from cinder._tensor import _VersionCounter, make_tensor


@pytest.fixture
def tracking(monkeypatch):
    """Aliases tracked, as after the first move to shared memory in a process."""
    monkeypatch.setattr(_VersionCounter, "track_aliases", True)


@pytest.fixture
def not_tracking(monkeypatch):
    """A process that has not moved memory to shared memory yet."""
    monkeypatch.setattr(_VersionCounter, "track_aliases", False)


@pytest.fixture
def no_heap_scan(tracking, monkeypatch):
    """Fail the test if share_memory_ falls back to scanning the garbage collector's objects."""
    def scan(root):
        raise AssertionError("share_memory_ scanned the heap")
    monkeypatch.setattr(storage_mod, "move_root_to_shared", scan)


def _family(L, base):
    """Tensors and a storage made from ``base`` before it is shared."""
    return {"base": base, "slice": base[2:6], "t": base.view(3, 4).t(), "detached": base.detach(),
            "row": base.view(3, 4)[1], "expanded": base[:1].expand(5),
            "storage": base.untyped_storage(), "param": L.nn.Parameter(base.view(3, 4))}


@pytest.mark.parametrize("mover", ["base", "slice", "t", "detached", "row", "storage", "param"])
def test_every_recorded_alias_moves_without_a_scan(mover, no_heap_scan):
    shared = {}
    for L in (torch, cinder):
        things = _family(L, L.arange(12.))
        things[mover].share_memory_()
        shared[L] = {name: obj.is_shared() for name, obj in things.items()}
        if L is cinder:
            things["slice"].fill_(-1.0)        # writes through an old view land in the same memory
            assert things["base"].tolist()[2:6] == [-1.0] * 4
            assert things["storage"][16] == 0 and things["param"][0, 2].item() == -1.0
    assert shared[cinder] == shared[torch]
    assert all(shared[cinder].values())


def test_from_numpy_twice_are_two_storages_as_in_torch(no_heap_scan):
    arr = np.arange(6.0)
    result = {}
    for L in (torch, cinder):
        a, b = L.from_numpy(arr), L.from_numpy(arr)
        view = a[1:]
        a.share_memory_()
        result[L] = (a.is_shared(), view.is_shared(), b.is_shared())
    assert result[cinder] == result[torch] == (True, True, False)


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("mover", ["base", "typed", "wrapped"])
def test_typed_storages_move_without_a_scan(mover, no_heap_scan):
    shared = {}
    for L in (torch, cinder):
        base = L.arange(8.)
        things = {"base": base, "typed": base.storage(), "wrapped": base[2:].storage(),
                  "view": base[1:3]}
        assert things["wrapped"]._untyped_storage is not None    # wrapped: an UntypedStorage
        things[mover].share_memory_()
        shared[L] = {name: obj.is_shared() for name, obj in things.items()}
    assert shared[cinder] == shared[torch]
    assert all(shared[cinder].values())


def _count_scans(monkeypatch):
    scans = []
    real_scan = storage_mod.move_root_to_shared
    monkeypatch.setattr(storage_mod, "move_root_to_shared",
                        lambda root: scans.append(root) or real_scan(root))
    return scans


def test_views_keep_no_record_until_the_process_shares_memory(not_tracking, monkeypatch):
    base = cinder.arange(12.)
    view, detached = base[2:6], base.detach()
    assert base._vc.aliases is None              # nothing noted: views cost no record
    scans = _count_scans(monkeypatch)
    base.share_memory_()                         # the first move: found by the fallback scan
    assert len(scans) == 1 and view.is_shared() and detached.is_shared()
    assert _VersionCounter.track_aliases         # and from now on aliases are recorded
    other = cinder.arange(12.)
    later = other.view(3, 4).t()
    noted = [r() for r in other._vc.aliases]
    assert noted[0] is other and noted[-1] is later
    other.share_memory_()
    assert len(scans) == 1 and later.is_shared()   # no second scan


def test_an_already_shared_tensor_does_not_start_tracking(not_tracking):
    base = cinder.arange(4.)
    base.share_memory_()
    _VersionCounter.track_aliases = False        # (restored by the fixture)
    base.share_memory_()                         # nothing to move: the switch stays off
    assert not _VersionCounter.track_aliases


def test_unrecorded_alias_still_moves_through_the_fallback(tracking, monkeypatch):
    scans = _count_scans(monkeypatch)
    arr = cinder.arange(8.)
    alias = make_tensor(arr._data[2:])        # an internal alias that keeps no record
    raw = arr._data[:4]                       # and a raw array held outside any tensor
    arr.share_memory_()
    assert len(scans) == 1                    # the reference proof failed: scanned once
    assert arr.is_shared() and alias.is_shared()
    assert not np.shares_memory(raw, arr._data)   # a raw array keeps the old memory


def test_many_dead_views_do_not_accumulate(tracking):
    base = cinder.zeros(100)
    for i in range(10000):
        base[i % 100]                          # a view each time, dropped at once
    assert len(base._vc.aliases) < 100
    keep = [base[i] for i in range(50)]
    base.share_memory_()
    assert all(v.is_shared() for v in keep)


def test_threads_share_different_tensors_at_once():
    tensors = [cinder.arange(1000.) + i for i in range(16)]
    views = [t[10:20] for t in tensors]
    errors = []
    start = threading.Barrier(4)

    def work(k):
        try:
            start.wait()
            for t in tensors[k::4]:
                t.share_memory_()
        except Exception as exc:                # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    for i, (t, v) in enumerate(zip(tensors, views)):
        assert t.is_shared() and v.is_shared()
        v.fill_(-5.0)
        assert t[15].item() == -5.0 and t[0].item() == float(i)


def test_threads_sharing_the_same_storage_agree():
    base = cinder.arange(64.)
    views = [base[i:i + 8] for i in range(0, 64, 8)]
    start = threading.Barrier(8)

    def work(v):
        start.wait()
        v.share_memory_()

    threads = [threading.Thread(target=work, args=(v,)) for v in views]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    base.fill_(3.0)                            # one segment: every view sees the write
    assert all(v.is_shared() and v.tolist() == [3.0] * 8 for v in views)


def _more_aliases(L, base):
    """Aliases made by other paths (some keep no record: they must still move)."""
    other = L.zeros(0)
    other.set_(base)
    parts = base.view(3, 4).unbind(0)
    return {"base": base, "as_strided": base.as_strided((2, 2), (3, 1), 1), "set_": other,
            "unbind": parts[1], "split": base.split(5)[1], "narrow": base.narrow(0, 3, 4),
            "diagonal": base.view(3, 4).diagonal(), "flatten": base.view(3, 4).flatten(),
            "reshape": base.reshape(2, 6), "real": L.view_as_real(L.zeros(3, dtype=L.complex64))}


def test_aliases_made_by_other_paths_match_torch():
    shared = {}
    for L in (torch, cinder):
        things = _more_aliases(L, L.arange(12.))
        things["base"].share_memory_()
        shared[L] = {name: obj.is_shared() for name, obj in things.items()}
    assert shared[cinder] == shared[torch]
