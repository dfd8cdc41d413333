"""``randperm`` against PyTorch for many sizes, seeds and dtypes, and the loop-free swap replay
(``cinder/_randperm.py``) against the sequential loops it replaces.

PyTorch's inside-out branch only starts at n >= (2**32 - 1) / 20 (hundreds of millions of
elements), too big to compare with torch here; its replay is checked against the loop instead.
"""

import numpy as np
import pytest
import torch

import cinder
from cinder._randperm import forward_swaps, inside_out_swaps

SIZES = [0, 1, 2, 3, 7, 64, 1000, 6400, 100003]
SEEDS = [0, 1, 12345, 2**32 - 1]


def _same_state():
    return bytes(cinder.get_rng_state().numpy()) == bytes(torch.get_rng_state().numpy())


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("seed", SEEDS)
def test_randperm_matches_torch(n, seed):
    torch.manual_seed(seed)
    cinder.manual_seed(seed)
    for _ in range(2):  # a second draw starts mid-block: the stream must line up after the first
        expected = torch.randperm(n)
        got = cinder.randperm(n)
        assert got.dtype == cinder.int64
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
    assert _same_state()


@pytest.mark.parametrize("name,n", [("int8", 128), ("uint8", 256), ("int16", 3000),
                                    ("int32", 6400), ("float16", 2049), ("bfloat16", 1000),
                                    ("float32", 6400), ("float64", 6400)])
def test_randperm_dtypes(name, n):
    gen_t = torch.Generator().manual_seed(7)
    gen_c = cinder.Generator().manual_seed(7)
    expected = torch.randperm(n, generator=gen_t, dtype=getattr(torch, name))
    got = cinder.randperm(n, generator=gen_c, dtype=getattr(cinder, name))
    assert str(got.dtype) == str(expected.dtype)
    np.testing.assert_array_equal(got.float().numpy(), expected.float().numpy())
    assert bytes(gen_c.get_state().numpy()) == bytes(gen_t.get_state().numpy())


def test_randperm_errors_match_torch():
    for args, kwargs in [((-1,), {}), ((129,), {"dtype": "int8"}), ((2051,), {"dtype": "float16"})]:
        for lib in (torch, cinder):
            kw = {k: getattr(lib, v) for k, v in kwargs.items()}
            with pytest.raises(RuntimeError):
                lib.randperm(*args, **kw)


def _forward_loop(offsets):
    perm = list(range(offsets.size + 1))
    for i, z in enumerate(offsets.tolist()):
        perm[i], perm[i + z] = perm[i + z], perm[i]
    return perm


def _inside_out_loop(picks):
    perm = list(range(picks.size))
    for i, z in enumerate(picks.tolist()):
        perm[i] = perm[z]
        perm[z] = i
    return perm


def _cases(n, rng):
    """Random draws plus the extremes (all offsets 0, all maximal)."""
    yield rng.integers(0, np.arange(n, 0, -1))
    yield np.zeros(n, dtype=np.int64)
    yield np.arange(n, 0, -1) - 1


@pytest.mark.parametrize("n", [1, 2, 3, 5, 17, 500, 4096])
def test_swap_replay_matches_loops(n):
    rng = np.random.default_rng(n)
    for _ in range(5):
        for draws in _cases(n, rng):
            offsets = draws[1:]  # n - 1 forward offsets, offsets[i] < n - i
            assert forward_swaps(offsets).tolist() == _forward_loop(offsets)
            picks = draws[::-1]  # picks[i] <= i
            assert inside_out_swaps(picks).tolist() == _inside_out_loop(picks)
