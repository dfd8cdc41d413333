"""Accumulating index ops (scatter_add, index_add, scatter_reduce, index_reduce, put with
accumulate) on inputs with many repeated positions: PyTorch's CPU kernels combine the values
one after another in index order, and so does cinder's ``ufunc.at`` path, so float32 results
must agree bit for bit (a float64 ``bincount`` or a sorted ``reduceat`` would round
differently)."""

import numpy as np
import pytest
import torch

import cinder

RNG = np.random.default_rng(6)
N = 4000


def _pair(arr):
    return cinder.from_numpy(arr.copy()), torch.from_numpy(arr.copy())


def _same(c, t):
    assert str(c.dtype) == str(t.dtype)
    assert c.shape == t.shape
    np.testing.assert_array_equal(c.numpy(), t.numpy())


def _values(dtype, shape):
    if np.dtype(dtype).kind == "f":
        return RNG.standard_normal(shape).astype(dtype)
    return RNG.integers(-3, 4, shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32])
def test_scatter_add_and_index_add_are_exact(dtype):
    idx = RNG.integers(0, 37, N).astype(np.int64)
    src = _values(dtype, N)
    base = _values(dtype, 37)
    (cb, tb), (ci, ti), (cs, ts) = _pair(base), _pair(idx), _pair(src)
    _same(cb.scatter_add(0, ci, cs), tb.scatter_add(0, ti, ts))
    _same(cb.index_add(0, ci, cs, alpha=2), tb.index_add(0, ti, ts, alpha=2))
    _same(cb.put(ci, cs, accumulate=True), tb.put(ti, ts, accumulate=True))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_scatter_reduce_2d_is_exact(reduce, include_self, dtype):
    idx = RNG.integers(0, 5, (40, 6)).astype(np.int64)
    src = _values(dtype, (40, 6))
    if reduce == "prod" and dtype == np.float32:
        src = RNG.uniform(0.8, 1.25, (40, 6)).astype(dtype)
    base = _values(dtype, (7, 6))
    (cb, tb), (ci, ti), (cs, ts) = _pair(base), _pair(idx), _pair(src)
    _same(cb.scatter_reduce(0, ci, cs, reduce, include_self=include_self),
          tb.scatter_reduce(0, ti, ts, reduce, include_self=include_self))
    idx1 = RNG.integers(0, 6, 9).astype(np.int64)
    (ci1, ti1), (cs1, ts1) = _pair(idx1), _pair(_values(dtype, (7, 9)))
    _same(cb.index_reduce(1, ci1, cs1, reduce if reduce != "sum" else "mean",
                          include_self=include_self),
          tb.index_reduce(1, ti1, ts1, reduce if reduce != "sum" else "mean",
                          include_self=include_self))


def test_scatter_reduce_nan_propagates():
    base = np.zeros(3, np.float32)
    src = np.array([1.0, np.nan, 2.0, -1.0], np.float32)
    idx = np.array([0, 0, 1, 2], np.int64)
    (cb, tb), (ci, ti), (cs, ts) = _pair(base), _pair(idx), _pair(src)
    for reduce in ("amax", "amin", "sum"):
        for include_self in (True, False):
            _same(cb.scatter_reduce(0, ci, cs, reduce, include_self=include_self),
                  tb.scatter_reduce(0, ti, ts, reduce, include_self=include_self))
