"""DataLoader, samplers and random_split against PyTorch: the same seed gives the same batches,
the same shuffles and the same worker seeds, with 0 and 2 worker processes."""

import random
import warnings

import numpy as np
import pytest
import torch

import cinder
from utils.data.helpers import SeedReport, iterable_range, plain

LIBS = (torch, cinder)


def both(fn):
    """``fn(L)`` on each library from the same global seeds; returns (torch's, cinder's)."""
    out = []
    for L in LIBS:
        L.manual_seed(1234)
        np.random.seed(7)
        random.seed(7)
        out.append(plain(fn(L)))
    return out


def same(fn):
    ours_torch, ours_cinder = both(fn)
    assert ours_cinder == ours_torch


def _tensor_ds(L, n=10):
    x = L.from_numpy(np.arange(n * 3, dtype=np.float32).reshape(n, 3))
    return L.utils.data.TensorDataset(x, L.from_numpy(np.arange(n)))


@pytest.mark.parametrize("num_workers", [0, 2])
def test_shuffle_and_worker_seeds(num_workers):
    same(lambda L: list(L.utils.data.DataLoader(SeedReport(L), batch_size=3, shuffle=True,
                                                num_workers=num_workers)))


@pytest.mark.parametrize("num_workers", [0, 2])
def test_loader_generator_decides_base_seed_and_order(num_workers):
    def run(L):
        g = L.Generator().manual_seed(99)
        dl = L.utils.data.DataLoader(SeedReport(L, 6), batch_size=2, shuffle=True,
                                     num_workers=num_workers, generator=g)
        return [list(dl), list(dl)]             # two epochs: different shuffles
    same(run)


def test_worker_init_fn_sees_worker_seed():
    def run(L):
        def init(worker_id):
            info = L.utils.data.get_worker_info()
            assert info.id == worker_id and info.seed == L.initial_seed()
            np.random.seed(info.seed % 2**32)   # the documented recipe
        dl = L.utils.data.DataLoader(SeedReport(L), batch_size=2, num_workers=2,
                                     worker_init_fn=init)
        return list(dl)
    same(run)


@pytest.mark.parametrize("kwargs", [
    dict(batch_size=4), dict(batch_size=4, drop_last=True), dict(batch_size=None),
    dict(batch_size=3, shuffle=True), dict(batch_size=1),
])
@pytest.mark.parametrize("num_workers", [0, 2])
def test_tensor_dataset_batches(kwargs, num_workers):
    same(lambda L: list(L.utils.data.DataLoader(_tensor_ds(L), num_workers=num_workers,
                                                **kwargs)))


def test_len_of_loaders():
    same(lambda L: [len(L.utils.data.DataLoader(_tensor_ds(L), **kw)) for kw in
                    (dict(batch_size=3), dict(batch_size=3, drop_last=True),
                     dict(batch_size=None), dict(batch_size=20))])


SAMPLERS = {
    "random": lambda L, g: L.utils.data.RandomSampler(range(10), generator=g),
    "random_repl": lambda L, g: L.utils.data.RandomSampler(range(10), True, 70, generator=g),
    "random_more": lambda L, g: L.utils.data.RandomSampler(range(4), num_samples=11,
                                                           generator=g),
    "random_default_gen": lambda L, g: L.utils.data.RandomSampler(range(10)),
    "subset_random": lambda L, g: L.utils.data.SubsetRandomSampler([5, 3, 9, 1], g),
    "weighted": lambda L, g: L.utils.data.WeightedRandomSampler([.1, .9, .4, .7, 3., .6],
                                                                 12, generator=g),
    "weighted_norepl": lambda L, g: L.utils.data.WeightedRandomSampler(
        [.9, .4, .05, .2, .3, .1], 5, replacement=False, generator=g),
    "sequential": lambda L, g: L.utils.data.SequentialSampler(range(5)),
    "batch": lambda L, g: L.utils.data.BatchSampler(range(10), 3, False),
    "batch_drop": lambda L, g: L.utils.data.BatchSampler(range(10), 3, True),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_samplers(name):
    def run(L):
        s = SAMPLERS[name](L, L.Generator().manual_seed(5))
        return [list(s), list(s), len(s)]
    same(run)


@pytest.mark.parametrize("num_workers", [0, 2])
def test_sampler_in_loader(num_workers):
    def run(L):
        s = L.utils.data.WeightedRandomSampler([1, 2, 2, 1, 2, 1, 1, 2], 9)
        return list(L.utils.data.DataLoader(_tensor_ds(L, 8), batch_size=3, sampler=s,
                                            num_workers=num_workers))
    same(run)


@pytest.mark.parametrize("kw", [dict(), dict(shuffle=False), dict(drop_last=True),
                                dict(seed=3), dict(num_replicas=4)])
def test_distributed_sampler(kw):
    def run(L):
        reps = kw.get("num_replicas", 3)
        out = []
        for rank in range(reps):
            args = dict(num_replicas=reps, rank=rank, **{k: v for k, v in kw.items()
                                                         if k != "num_replicas"})
            s = L.utils.data.DistributedSampler(range(10), **args)
            first = list(s)
            s.set_epoch(1)
            out.append([first, list(s), len(s)])
        return out
    same(run)


@pytest.mark.parametrize("kw", [dict(), dict(num_replicas=2), dict(rank=0),
                                dict(num_replicas=2, rank=2), dict(num_replicas=2, rank=-1)])
def test_distributed_sampler_without_a_process_group(kw):
    """Left-out num_replicas/rank are asked of torch.distributed, whose default group is not
    initialised: the same exception type and message as PyTorch's."""
    errors = []
    for L in (torch, cinder):
        with pytest.raises((ValueError, RuntimeError)) as info:
            L.utils.data.DistributedSampler(range(10), **kw)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


def test_distributed_answers_like_torch_before_init():
    for name in ("is_available", "is_initialized"):
        assert getattr(cinder.distributed, name)() == getattr(torch.distributed, name)()
    for name in ("get_rank", "get_world_size"):
        messages = []
        for L in (torch, cinder):
            with pytest.raises(ValueError) as info:
                getattr(L.distributed, name)()
            messages.append(str(info.value))
        assert messages[0] == messages[1]


@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.7], [0.5, 0.25, 0.25], [1, 1, 8],
                                     [0.33, 0.33, 0.34]])
def test_random_split(lengths):
    def run(L):
        parts = L.utils.data.random_split(range(10), lengths,
                                          generator=L.Generator().manual_seed(42))
        default = L.utils.data.random_split(range(10), lengths)
        return [[list(p) for p in parts], [list(p) for p in default]]
    same(run)


@pytest.mark.parametrize("num_workers", [0, 2])
def test_iterable_dataset_sharding(num_workers):
    same(lambda L: list(L.utils.data.DataLoader(iterable_range(L, 3, 12), batch_size=2,
                                                num_workers=num_workers)))


def test_iterable_dataset_len_warning():
    def run(L):
        dl = L.utils.data.DataLoader(iterable_range(L, 0, 6, length=4), batch_size=None)
        n = len(dl)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            items = list(dl)
        return [n, items, [str(m.message).replace("cinder", "torch") for m in w]]
    ours_torch, ours_cinder = both(run)
    assert ours_cinder[:2] == ours_torch[:2]
    # The message names the dataset object, whose repr differs: compare the rest.
    strip = [m.split(" was reported")[1] for m in ours_torch[2]]
    assert [m.split(" was reported")[1] for m in ours_cinder[2]] == strip and len(strip) == 2


def test_persistent_workers_two_epochs():
    def run(L):
        dl = L.utils.data.DataLoader(SeedReport(L, 6), batch_size=2, shuffle=True,
                                     num_workers=2, persistent_workers=True,
                                     prefetch_factor=1)
        first = list(dl)
        it = dl._iterator
        second = list(dl)
        assert dl._iterator is it               # the same workers served both epochs
        return [first, second]
    same(run)


def test_in_order_false_gives_every_batch():
    def run(L):
        dl = L.utils.data.DataLoader(_tensor_ds(L, 12), batch_size=2, num_workers=2,
                                     in_order=False)
        return sorted(b[1].tolist() for b in dl)
    same(run)


def test_stack_and_concat_datasets():
    def run(L):
        D = L.utils.data
        a, b = _tensor_ds(L, 4), _tensor_ds(L, 3)
        cat = D.ConcatDataset([a, b])
        stack = D.StackDataset(a, D.Subset(a, [3, 2, 1, 0]))
        named = D.StackDataset(x=a, y=range(4))
        return [len(cat), cat[5], cat[-1], cat.cumulative_sizes, stack[1],
                stack.__getitems__([0, 2]), named[2], named.__getitems__([1]),
                list(D.DataLoader(named, batch_size=2)), list(D.ChainDataset(
                    [iterable_range(L, 0, 2), iterable_range(L, 5, 7)])), (a + b)[6]]
    same(run)


@pytest.mark.parametrize("kw", [dict(batch_size=None), dict(batch_size=3, drop_last=True),
                                dict(batch_size=2, persistent_workers=True)])
def test_iterable_dataset_with_workers(kw):
    def run(L):
        dl = L.utils.data.DataLoader(iterable_range(L, 0, 11), num_workers=2, **kw)
        return [list(dl), list(dl)]
    same(run)


@pytest.mark.parametrize("lib", [cinder, torch])
def test_thread_safe_generator_is_none_outside_thread_workers(lib):
    """``torch.random.thread_safe_generator()`` gives None in the main process and in worker
    processes (only thread workers own one)."""
    assert lib.random.thread_safe_generator() is None
    dl = lib.utils.data.DataLoader(range(2), num_workers=1, collate_fn=lambda b: (
        b, lib.random.thread_safe_generator() is None))
    seen = [flag for _, flag in dl]
    assert seen == [True, True]
