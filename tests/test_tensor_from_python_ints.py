"""``tensor(data)`` with Python integers at and beyond 64 bits, int subclasses and uint64,
against PyTorch: the same values and dtypes, or the same exception type and message."""

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
]


def _outcome(expr, lib):
    try:
        return "value", repr(eval(expr, {"L": lib, "Colour": Colour}))
    except Exception as exc:    # noqa: BLE001 - the exception is the result compared
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("expr", CASES)
def test_matches_pytorch(expr):
    assert _outcome(expr, cinder) == _outcome(expr, torch)
