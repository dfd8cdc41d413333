"""Values built from Python scalars, bit for bit against PyTorch: ``linspace`` in every dtype
(PyTorch's kernel fuses ``start + step * i`` into one rounding for float and double, rounds
after every operation in the half types, and works in double from truncated endpoints for
integers), and the overflow checks a Python number meets on its way into a tensor (``fill_``,
``full``, ``masked_fill``, ``index_fill``, ``scatter``, ``t[i] = v``)."""

import numpy as np
import pytest
import torch

import cinder
from tests.oracle import outcome

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8"]
ENDPOINTS = [(-1, 1), (0, 1), (-3.5, 7.25), (0, 10), (2, -5.3), (1e-3, 1e3), (-7, -7),
             (0, 255), (5, 200), (-1e6, 2e5)]
COUNTS = list(range(1, 70)) + [100, 127, 1000, 2049, 4097, 40001]


def _values(lib, dtype, start, end, steps):
    try:
        t = lib.linspace(start, end, steps, dtype=getattr(lib, dtype))
    except RuntimeError as e:
        return ("raises", str(e))
    return t.to(lib.float64).numpy()


@pytest.mark.parametrize("dtype", DTYPES)
def test_linspace_is_bit_exact(dtype):
    for start, end in ENDPOINTS:
        for steps in COUNTS:
            got = _values(cinder, dtype, start, end, steps)
            want = _values(torch, dtype, start, end, steps)
            if isinstance(want, tuple):
                assert got == want, (start, end, steps)
            else:
                np.testing.assert_array_equal(got, want, err_msg=f"{start, end, steps}")


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64",
                                   "uint8"])
def test_logspace_is_bit_exact(dtype):
    for start, end, base in [(0, 2, 10), (-1, 2.5, 3), (0.5, -3, 2.0), (-2, 2, 0.5),
                             (0, 3, 10), (-400, 0, 10), (0, 0.5, -2)]:
        for steps in list(range(1, 40)) + [100, 1000]:
            got = _values_log(cinder, dtype, start, end, steps, base)
            want = _values_log(torch, dtype, start, end, steps, base)
            if isinstance(want, tuple):
                assert got == want, (start, end, steps, base)
            else:
                np.testing.assert_array_equal(got, want,
                                              err_msg=f"{start, end, steps, base}")


def _values_log(lib, dtype, start, end, steps, base):
    try:
        t = lib.logspace(start, end, steps, base=base, dtype=getattr(lib, dtype))
    except RuntimeError as e:
        return ("raises", str(e))
    return t.to(lib.float64).numpy()


def test_affine_grid_is_bit_exact():
    # grid_sample's gradient jumps where a coordinate crosses a pixel centre, so the
    # identity grid must be PyTorch's to the last bit
    theta = np.array([[[1, 0, 0], [0, 1, 0]]], np.float32)
    for size in [(1, 1, 28, 28), (1, 1, 7, 13), (1, 2, 64, 33)]:
        for align in (False, True):
            want = torch.nn.functional.affine_grid(torch.tensor(theta), size,
                                                   align_corners=align)
            got = cinder.nn.functional.affine_grid(cinder.tensor(theta), size,
                                                   align_corners=align)
            np.testing.assert_array_equal(got.numpy(), want.numpy())


SET = "(lambda x: (x.__setitem__(0, {v}), x)[1])(L.zeros(2, dtype=L.{d}))"

OVERFLOW = [
    "L.zeros(2, dtype=L.uint8).fill_(-3.5)", "L.zeros(2, dtype=L.uint8).fill_(300.5)",
    "L.zeros(2, dtype=L.uint8).fill_(-0.5)", "L.zeros(2, dtype=L.int8).fill_(-0.5)",
    "L.zeros(2, dtype=L.uint8).fill_(-1)", "L.zeros(2, dtype=L.uint8).fill_(-256)",
    "L.zeros(2, dtype=L.int32).fill_(float('nan'))", "L.zeros(2, dtype=L.int32).fill_(2**40)",
    "L.zeros(2, dtype=L.int32).fill_(float('inf'))", "L.zeros(2, dtype=L.int32).fill_(2**70)",
    "L.zeros(2, dtype=L.int64).fill_(2**63)", "L.zeros(2, dtype=L.int64).fill_(-2**63)",
    "L.zeros(2, dtype=L.int16).fill_(2**40)", "L.zeros(2).fill_(1e39)",
    "L.zeros(2, dtype=L.float16).fill_(1e5)", "L.zeros(2, dtype=L.float16).fill_(65519.0)",
    "L.zeros(2, dtype=L.float16).fill_(65504.0)", "L.zeros(2, dtype=L.float16).fill_(1e39)",
    "L.zeros(2, dtype=L.float16).fill_(float('-inf'))",
    "L.zeros(2, dtype=L.bfloat16).fill_(3.395e38)", "L.zeros(2, dtype=L.bool).fill_(2.5)",
    "L.full((2,), -3.5, dtype=L.uint8)", "L.full((2,), 1e5, dtype=L.float16)",
    # a one-element fill stores the half types' value unchecked
    "L.full((1,), 1e5, dtype=L.float16)", "L.zeros(1, dtype=L.bfloat16).fill_(1e39)",
    "L.zeros(0, dtype=L.float16).fill_(1e5)", "L.full((1,), 1e39)",
    "L.zeros(1, dtype=L.uint8).fill_(300)",
    "L.zeros(2, dtype=L.uint8).masked_fill(L.tensor([True, False]), -3.5)",
    "L.zeros(2, dtype=L.float16).masked_fill(L.tensor([True, False]), 1e5)",
    "L.zeros(2, dtype=L.uint8).masked_fill(L.tensor([True, False]), -1)",
    "L.zeros(3, dtype=L.uint8).index_fill(0, L.tensor([1]), -3.5)",
    "L.zeros(3, dtype=L.uint8).index_fill(0, L.tensor([1]), 300)",
    "L.zeros(3, dtype=L.float16).scatter(0, L.tensor([1]), 1e5)",
    "L.zeros(3, dtype=L.uint8).scatter(0, L.tensor([1]), -3.5)",
    SET.format(v=300, d="uint8"), SET.format(v=-1, d="uint8"), SET.format(v=1e39, d="float32"),
    SET.format(v=2**40, d="int32"), SET.format(v=2.5, d="int32"),
    # the half types take any double here: PyTorch casts without the check
    SET.format(v=1e5, d="float16"), SET.format(v=1e39, d="bfloat16"),
    "L.linspace(-3.5, 7.25, 4, dtype=L.uint8)", "L.linspace(-1, 1, 5, dtype=L.uint8)",
    "L.linspace(float('nan'), 1, 5, dtype=L.int32)", "L.linspace(0, 2**40, 3, dtype=L.int32)",
    "L.linspace(0.001, 1000.0, 1, dtype=L.int8)", "L.linspace(-1e6, 2e5, 3, dtype=L.float16)",
    "L.linspace(1 + 1j, 2, 3)", "L.logspace(1 + 1j, 2, 3)", "L.linspace(0, 1, 3, dtype=L.bool)",
    "L.linspace(0, 1, -1)",
]


@pytest.mark.parametrize("expr", ["L.linspace(0, 1, 2.5)", "L.logspace(0, 1, True)"])
def test_steps_must_be_an_int(expr):
    assert outcome(expr, cinder)[:2] == outcome(expr, torch)[:2] == ("raises", "TypeError")


@pytest.mark.parametrize("expr", OVERFLOW)
def test_scalar_overflow_checks_match_torch(expr):
    assert outcome(expr, cinder) == outcome(expr, torch)
