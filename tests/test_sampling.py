"""geometric_, log_normal_ and cauchy_ (cinder/ops/sampling.py): after the same seed, the
same numbers as PyTorch bit for bit, on several dtypes, sizes and layouts; and PyTorch's
errors for bad parameters and dtypes."""

import numpy as np
import pytest
import torch
from oracle import check

import cinder

CASES = [
    ("geometric_", (0.3,), "float32"), ("geometric_", (0.9,), "float64"),
    ("geometric_", (0.5,), "int64"), ("geometric_", (0.2,), "int32"),
    ("log_normal_", (), "float32"), ("log_normal_", (0.5, 0.25), "float64"),
    ("cauchy_", (), "float32"), ("cauchy_", (1.0, 3.0), "float64"),
]


@pytest.mark.parametrize("name,args,dtype", CASES)
@pytest.mark.parametrize("shape", [(5,), (3, 7), (40,)])
def test_same_stream_as_pytorch(name, args, dtype, shape):
    results = []
    for lib in (torch, cinder):
        lib.manual_seed(1234)
        t = lib.empty(shape, dtype=getattr(lib, dtype))
        out = getattr(t, name)(*args)
        assert out is t
        results.append(np.asarray(t.numpy()))
    np.testing.assert_array_equal(results[1], results[0])


@pytest.mark.parametrize("name", ["geometric_", "log_normal_", "cauchy_"])
def test_non_contiguous_and_generator(name):
    args = (0.4,) if name == "geometric_" else ()
    results = []
    for lib in (torch, cinder):
        g = lib.Generator().manual_seed(7)
        t = lib.zeros(4, 6).t()
        getattr(t, name)(*args, generator=g)
        results.append(np.asarray(t.numpy()))
    np.testing.assert_array_equal(results[1], results[0])


@pytest.mark.parametrize("expr", [
    "L.empty(3).geometric_(1.5)", "L.empty(3).geometric_(0)",
    "L.empty(3).log_normal_(0, -1.0)", "L.empty(3, dtype=L.int64).log_normal_()",
    "L.empty(3).cauchy_(0, -1.0)", "L.empty(3, dtype=L.int64).cauchy_()",
    "L.ones(3, requires_grad=True).geometric_(0.5)",
])
def test_errors(expr):
    check(expr)
