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
    "L.from_numpy(base).gather(0, L.from_numpy(idx))",
    "L.from_numpy(base).gather(0, L.from_numpy(idx - 3))",
    "L.from_numpy(base).index_add(0, L.from_numpy(idx), L.from_numpy(src))",
    "L.from_numpy(base).index_add(0, L.from_numpy(idx), L.from_numpy(src), alpha=2.5)",
    "L.from_numpy(base).index_add(0, L.from_numpy(idx).int(), L.from_numpy(src))",
    "L.from_numpy(base).index_add(0, L.from_numpy(idx), L.from_numpy(src).double())",
    "L.from_numpy(base).index_add(0, L.from_numpy(idx - 3), L.from_numpy(src))",
    "L.from_numpy(base)[None].index_add(1, L.from_numpy(idx), L.from_numpy(src)[None])",
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
