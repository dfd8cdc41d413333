"""Python numbers converted into tensors, against PyTorch: ``tensor(data)`` with integers at and
beyond 64 bits, int subclasses and uint64; fill values (``full``, ``new_full``, ``full_like``,
``fill_``, clamp bounds, a scalar operand) with PyTorch's overflow errors and float16 reached
through float32. The same values and dtypes, or the same exception type and message."""

import enum

import pytest
import torch

import cinder


class Colour(enum.IntEnum):
    RED = 1
    GREEN = 2


CASES = [
    "L.tensor([2**63 - 1, 1])", "L.tensor([-2**63, 1])", "L.tensor([-2**63 - 1])",
    "L.tensor([[1, 2**63]])", "L.tensor(2**63)", "L.tensor([True, 2**63])",
    "L.tensor([1.5, 2**70])", "L.tensor([1j, 2**70])", "L.tensor([Colour.RED, Colour.GREEN])",
    "L.tensor(Colour.GREEN)", "L.tensor([2**63], dtype=L.uint64)",
    "L.tensor([1, 2**63], dtype=L.uint64)", "L.tensor([1, 2], dtype=L.uint64) == 1",
    "L.tensor([1, 2], dtype=L.uint64) * 2",
    # 1 + 2**-11 + 2**-40 rounds onto a float16 midpoint in float32, then to even (1.0)
    "L.full((1,), 1 + 2**-11 + 2**-40, dtype=L.float16)",
    "L.zeros(1, dtype=L.float16).fill_(1 + 2**-11 + 2**-40)",
    "L.zeros(1, dtype=L.float16) + (1 + 2**-11 + 2**-40)",
    "L.clamp(L.zeros(1, dtype=L.float16), min=1 + 2**-11 + 2**-40)",
    "L.full((1,), 300, dtype=L.uint8)", "L.full((1,), -1, dtype=L.uint8)",
    "L.full((1,), 2**63, dtype=L.int64)", "L.zeros(1, dtype=L.uint8).new_full((1,), 300)",
    "L.full_like(L.zeros(1, dtype=L.uint8), 300)", "L.full((1,), 1e300, dtype=L.float32)",
    "L.zeros(1).fill_(1e300)", "L.clamp(L.zeros(1), max=1e300)",
    "L.full((1,), 1e39, dtype=L.bfloat16)", "L.zeros(1, dtype=L.float16).fill_(-70000.)",
    "L.full((1,), float('inf'))",
]


def _outcome(expr, lib):
    try:
        return "value", repr(eval(expr, {"L": lib, "Colour": Colour}))
    except Exception as exc:    # noqa: BLE001 - the exception is the result compared
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("expr", CASES)
def test_matches_pytorch(expr):
    assert _outcome(expr, cinder) == _outcome(expr, torch)
