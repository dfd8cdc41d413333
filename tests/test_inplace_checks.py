"""In-place writes into overlapping memory, factory requires_grad errors and from_numpy
storage geometry, against PyTorch."""

import numpy as np
import pytest
import torch

import cinder

CASES = {
    "add_ on expanded": lambda L: L.zeros(3, 1).expand(3, 4).add_(1),
    "mul_ on expanded": lambda L: L.zeros(3, 1).expand(3, 4).mul_(2),
    "exp_ on expanded": lambda L: L.zeros(3, 1).expand(3, 4).exp_(),
    "copy_ into expanded": lambda L: L.zeros(3, 1).expand(3, 4).copy_(L.ones(3, 4)),
    "row of expanded": lambda L: L.zeros(1, 3).expand(4, 3)[0].add_(1),
    "column of expanded": lambda L: L.zeros(3, 1).expand(3, 4)[:, 0].add_(1),
    "fill_ on expanded": lambda L: L.zeros(3, 1).expand(3, 4).fill_(2),
    "zero_ on expanded": lambda L: L.ones(3, 1).expand(3, 4).zero_(),
    "add_ on empty expanded": lambda L: L.zeros(0, 1).expand(0, 4).add_(1),
    "int zeros requiring grad": lambda L: L.zeros(2, dtype=L.int64, requires_grad=True),
    "int full requiring grad": lambda L: L.full((2,), 3, requires_grad=True),
    "int arange requiring grad": lambda L: L.arange(3, requires_grad=True),
}


def _outcome(L, fn):
    try:
        out = fn(L)
    except Exception as e:
        return type(e).__name__, str(e)
    return "ok", out.tolist()


@pytest.mark.parametrize("case", list(CASES))
def test_matches_torch(case):
    assert _outcome(cinder, CASES[case]) == _outcome(torch, CASES[case])


@pytest.mark.parametrize("key", [np.s_[2:8:2], np.s_[1:], np.s_[::3], np.s_[5:5]])
def test_from_numpy_storage_is_the_span_of_the_array(key):
    def record(L):
        a = np.arange(10.0)
        t = L.from_numpy(a[key])
        rec = [t.storage_offset(), t.stride(), len(t.untyped_storage()), t.tolist()]
        if t.numel():
            t[0] = -1.0
            rec.append(a.tolist())
        return rec
    assert record(cinder) == record(torch)
