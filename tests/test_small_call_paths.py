"""The short paths of small scatter_add / index_add / cumsum / cumprod calls (1-d operands, a
valid index) give PyTorch's values, and every call those paths pass by still meets PyTorch's
checks and errors."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from oracle import check

RNG = np.random.default_rng(5)
ENV = {"src": RNG.standard_normal(40).astype(np.float32),
       "idx": RNG.integers(0, 7, 40), "base": RNG.standard_normal(7).astype(np.float32)}


@pytest.mark.parametrize("expr", [
    "L.from_numpy(base).scatter_add(0, L.from_numpy(idx), L.from_numpy(src))",
    "L.from_numpy(base).scatter_add(0, L.from_numpy(idx[:30]), L.from_numpy(src))",
    "L.from_numpy(base).scatter_add(0, L.from_numpy(idx).int(), L.from_numpy(src))",
    "L.from_numpy(base).scatter_add(0, L.from_numpy(idx), L.from_numpy(src[:30]))",
    "L.from_numpy(base).scatter_add(0, L.from_numpy(idx[:0]), L.from_numpy(src))",
    "L.from_numpy(base).scatter_add(0, L.from_numpy(idx)[None], L.from_numpy(src))",
    "L.from_numpy(base).scatter_add(0, L.from_numpy(idx - 3), L.from_numpy(src))",
    "L.from_numpy(base).scatter_add(0, L.from_numpy(idx + 3), L.from_numpy(src))",
    "L.from_numpy(base).scatter_add(0, L.from_numpy(idx), L.tensor(2.0))",
    "L.from_numpy(base).scatter_add(0, L.from_numpy(idx), L.from_numpy(src)[None])",
    "L.from_numpy(base).scatter_add(-1, L.from_numpy(idx), L.from_numpy(src).double())",
    "L.from_numpy(base).scatter_add(0, L.from_numpy(idx).float(), L.from_numpy(src))",
    "L.from_numpy(base).scatter_add(0, L.from_numpy(idx[:0])[None], L.from_numpy(src))",
    "L.from_numpy(base).scatter_add(0, L.from_numpy(idx[:0]), L.ones(2, 2))",
    "L.from_numpy(base).scatter(0, L.from_numpy(idx).float(), L.from_numpy(src).double())",
    "L.from_numpy(base).scatter(0, L.from_numpy(idx[:0])[None], L.from_numpy(src))",
    "L.from_numpy(base).scatter(0, L.from_numpy(idx[:0])[None], 1.0)",
    "L.from_numpy(base).scatter_reduce(0, L.from_numpy(idx), L.from_numpy(src).double(), 'x')",
    "L.from_numpy(base).scatter_reduce(0, L.from_numpy(idx).float(), L.from_numpy(src), 'x')",
    "L.from_numpy(base).scatter_reduce(0, L.from_numpy(idx[:0])[None], L.from_numpy(src), "
    "'amax')",
    "L.from_numpy(base).gather(0, L.from_numpy(idx[:0])[None])",
    "L.from_numpy(base).gather(0, L.from_numpy(idx).float())",
    "L.from_numpy(base).gather(0, L.from_numpy(idx))",
    "L.from_numpy(base).gather(0, L.from_numpy(idx - 3))",
    "L.from_numpy(base).index_add(0, L.from_numpy(idx), L.from_numpy(src))",
    "L.from_numpy(base).index_add(0, L.from_numpy(idx), L.from_numpy(src), alpha=2.5)",
    "L.from_numpy(base).index_add(0, L.from_numpy(idx).int(), L.from_numpy(src))",
    "L.from_numpy(base).index_add(0, L.from_numpy(idx), L.from_numpy(src).double())",
    "L.from_numpy(base).index_add(0, L.from_numpy(idx - 3), L.from_numpy(src))",
    "L.from_numpy(base)[None].index_add(1, L.from_numpy(idx), L.from_numpy(src)[None])",
    "L.from_numpy(base).index_add(0, L.from_numpy(idx[:30]), L.from_numpy(src))",
    "L.from_numpy(base).index_add(0, L.from_numpy(idx + 9), L.from_numpy(src[:30]))",
    "L.from_numpy(base).index_add(0, L.from_numpy(idx), L.from_numpy(src)[None])",
    "L.tensor(1.5).index_add(0, L.tensor([0, 0]), L.tensor([1.0, 2.0]))",
    "L.tensor(1.5).index_add(0, L.tensor([0]), L.tensor(2.0))",
    "L.from_numpy(base).index_add(0, L.tensor([3]), L.tensor(2.0))",
    "L.zeros(3, 4).index_add(0, L.tensor([0, 1]), L.ones(2, 5))",
    "L.zeros(3, 4).index_add(0, L.tensor([0, 1]), L.ones(3, 5))",
    "L.zeros(3, 4).index_add(1, L.tensor([0, 1]), L.ones(2))",
    "L.zeros(3, 4).index_add(0, L.tensor([0, 1]), L.ones(2, 4, 1))",
    "L.zeros(3, 4).index_add(0, L.tensor([0, 9]), L.ones(2, 4))",
    "L.zeros(3, 4).index_add(1, L.tensor([0, 1]), L.ones(3, 2), alpha=3)",
    "L.zeros(7).index_add(0, L.tensor([0, 1]), L.ones(3).double())",
    "L.zeros(7).index_reduce(0, L.tensor([0, 1]), L.ones(2).double(), 'prod')",
    "L.zeros(3, 4).index_reduce(0, L.tensor([0, 1]), L.ones(2, 5), 'amax')",
    "L.zeros(3, 4).index_reduce(0, L.tensor([0, 1]), L.ones(3, 4), 'mean')",
    "L.zeros(3, 4).index_copy(0, L.tensor([0, 1]), L.ones(2, 4))",
    "L.cumsum(L.from_numpy(src), 0)", "L.cumsum(L.tensor(2.5), -1)",
    "L.cumprod(L.from_numpy(src), 0, dtype=L.float64)", "L.cumprod(L.tensor(2.5), 0)",
    "L.cumsum(L.from_numpy(idx), 0)", "L.cumsum(L.from_numpy(src).double(), 0, dtype=L.float32)",
])
def test_small_calls_match(expr):
    check(expr, ENV)


def test_inf_minus_inf_in_scatter_add_prints_no_warning():
    # (the short path runs NumPy's indexed add without an errstate block: the backend's
    # warning filter must keep inf - inf silent, as in PyTorch)
    script = ("import cinder as torch\n"
              "i = torch.tensor([0, 0, 1])\n"
              "v = torch.tensor([float('inf'), -float('inf'), 1.0])\n"
              "print(torch.zeros(2).scatter_add(0, i, v).tolist())\n"
              "print(torch.zeros(2).index_add(0, i, v).tolist())\n")
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=root)
    done = subprocess.run([sys.executable, "-W", "default", "-c", script], capture_output=True,
                          text=True, env=env, timeout=120, check=True)
    assert done.stdout.split() == ["[nan,", "1.0]"] * 2
    assert "encountered" not in done.stderr, done.stderr


@pytest.mark.parametrize("name", ["sum", "max", "amax", "argmax", "median", "matmul", "mm", "bmm",
                                  "addmm", "scatter_add", "index_add"])
def test_hot_ops_run_without_the_limited_uint_wrapper(name):
    # (the refusal of uint16/32/64 moved into the op, where the dtype is examined anyway)
    from cinder.ops._registry import OPS
    assert not getattr(OPS[name].impl, "_limited_uint_checked", False)


@pytest.mark.parametrize("expr", [
    "L.ones(2, 3, dtype=L.uint16).sum()", "L.sum(input=L.ones(2, 3, dtype=L.uint16), dim=1)",
    "L.ones(2, 3, dtype=L.uint16).max()",
    "L.ones(2, 3, dtype=L.uint16).max(1)", "L.ones(0, dtype=L.uint64).max()",
    "L.ones(2, 3, dtype=L.uint32).amax(5)", "L.ones(2, 3, dtype=L.uint16).median()",
    "L.ones(2, 2, dtype=L.uint16) @ L.ones(2, 3, dtype=L.uint16)",
    "L.ones(2, 2, dtype=L.uint16) @ L.ones(3, 3, dtype=L.uint16)",
    "L.ones(2, 0, dtype=L.uint16) @ L.ones(0, 3, dtype=L.uint16)",
    "L.ones(3, dtype=L.uint32) @ L.ones(3, dtype=L.uint32)",
    "L.mm(L.ones(2, 2, dtype=L.uint64), L.ones(2, 3, dtype=L.uint64))",
    "L.bmm(L.ones(1, 2, 2, dtype=L.uint64), L.ones(1, 2, 3, dtype=L.uint64))",
    "L.addmm(L.zeros(2, 3, dtype=L.uint16), L.ones(2, 2, dtype=L.uint16), "
    "L.ones(2, 3, dtype=L.uint16), beta=2)",
    "L.zeros(2, 3, dtype=L.uint16).addmm_(L.ones(2, 2, dtype=L.uint16), "
    "L.ones(2, 3, dtype=L.uint16))",
    "L.zeros(3, dtype=L.uint16).scatter_add(0, L.tensor([0, 1]), L.ones(2, dtype=L.uint16))",
    "L.zeros(3, dtype=L.uint16).scatter_add_(0, L.tensor([0, 1]), L.ones(2, dtype=L.uint16))",
    "L.zeros(0, dtype=L.uint16).scatter_add(0, L.tensor([], dtype=L.long), "
    "L.ones(0, dtype=L.uint16))",
    "L.zeros(3, dtype=L.uint32).index_add(0, L.tensor([0, 1]), L.ones(2, dtype=L.uint32))",
    "L.zeros(3, dtype=L.uint32).index_add_(0, L.tensor([0, 1]), L.ones(2, dtype=L.uint32))",
    "L.zeros(3, dtype=L.uint32).index_add(0, L.tensor([0, 1]), L.ones(2))",
])
def test_limited_uint_refusals_kept(expr):
    check(expr)


def test_one_d_scatter_add_with_a_two_d_source_is_refused_as_in_torch():
    import torch

    import cinder
    from oracle import outcome
    for expr in ("L.zeros(5).scatter_add(0, L.tensor([0, 1]), L.ones(5, 2))",
                 "L.zeros(5).scatter_add(0, L.tensor([0, 1]), L.ones(3))"):
        assert outcome(expr, cinder) == outcome(expr, torch), expr
