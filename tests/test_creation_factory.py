"""The creation factory (``ops/_creation_factory.py``) against PyTorch: one ``filled`` entry
gives ``zeros``/``ones``/``empty``/``full``, their ``_like`` forms and ``Tensor.new_*``; each
call below must answer as PyTorch does (shape, dtype, strides, requires_grad, values where
they are defined), or raise PyTorch's exception type with its message."""

import pytest
import torch

import cinder
from cinder.ops._registry import OPS
from tests.oracle import check, outcome


def describe(t, values=True):
    """What a created tensor must match: geometry, dtype, grad flag, and its values."""
    return (tuple(t.shape), str(t.dtype), t.stride(), t.requires_grad,
            t.tolist() if values else None)


SIZES = [
    "L.zeros(2, 3)", "L.zeros((2, 3))", "L.zeros([2, 3])", "L.zeros(L.Size([2, 3]))",
    "L.zeros(size=(2, 3))", "L.zeros(())", "L.zeros(np.int64(3))", "L.zeros(L.tensor(3))",
    "L.zeros(2, L.tensor(3))", "L.ones(size=[2], dtype=L.int32)", "L.ones(0, 4)",
    # size errors
    "L.zeros()", "L.zeros(size=2)", "L.zeros(2, 3.0)", "L.zeros((2, 3.0))", "L.zeros(2.0)",
    "L.zeros((2, 3), 4)", "L.zeros('a')", "L.zeros(None)", "L.zeros(True)", "L.zeros(2, None)",
    "L.zeros(L.tensor([2, 3]))", "L.zeros((2,), size=(3,))", "L.zeros(-1)", "L.zeros(2, -3)",
    "L.zeros(size=(-1,))", "L.ones(-1)", "L.empty(-2)", "L.full((-1,), 1.0)",
]

OPTIONS = [
    "L.zeros(2, dtype='float')", "L.zeros(2, dtype=L.int64, requires_grad=True)",
    "L.zeros(2, dtype=L.complex64, requires_grad=True)", "L.zeros(2, layout=L.strided)",
    "L.zeros(2, layout=5)", "L.zeros(2, memory_format=L.contiguous_format)",
    "L.zeros(2, pin_memory=True)", "L.zeros(2, foo=1)", "L.zeros(2, fill_value=1)",
    "L.zeros(2, names=None)", "L.zeros(2, device='cpu')", "L.ones(2, 3, dtype=L.bool)",
    "L.zeros(2, dtype=L.float16)", "L.ones(2, requires_grad=True)",
]

OUT = [
    "L.zeros(2, 3, out=out)", "L.zeros(2, 3, out=outi)",
    "L.zeros(2, 3, out=out, dtype=L.float64)", "L.zeros(2, 3, out=out, dtype=L.float32)",
    "L.ones(2, out=out, requires_grad=True)", "L.zeros(2, 3, out=5)",
    "L.full((2,), 1, out=L.empty(0, dtype=L.float64))",
    "L.full((2,), 1.5, out=L.empty(0, dtype=L.int64))", "L.eye(3, out=out)",
]

FULL = [
    "L.full((2, 3), 1.5)", "L.full((2, 3), 1)", "L.full((2, 3), True)", "L.full((2, 3), 1j)",
    "L.full([2, 3], fill_value=1.0)", "L.full(size=[2, 3], fill_value=1.0)",
    "L.full((2, 3), 1.5, dtype=L.int64)", "L.full((2, 3), L.tensor(2.0))",
    "L.full((2,), 1.0, requires_grad=True)", "L.full((2,), 1, requires_grad=True)",
    "L.full(2, 1.0)", "L.full((2, 3), 'a')", "L.full((2,))", "L.full((2,), 1, 2)",
    "L.full((2,), 1, fill_value=2)",
]

LIKE = [
    "L.zeros_like(x)", "L.zeros_like(x, dtype=L.int32)", "L.zeros_like(x, requires_grad=True)",
    "L.zeros_like(x, dtype=L.int32, requires_grad=True)", "L.zeros_like(3)",
    "L.zeros_like(x.t())", "L.zeros_like(x.t(), memory_format=L.contiguous_format)",
    "L.ones_like(x4.permute(0, 2, 3, 1))", "L.zeros_like(x4, memory_format=L.channels_last)",
    "L.ones_like(x, dtype='a')", "L.ones_like(input=x)", "L.ones_like(x, pin_memory=True)",
    "L.zeros_like(x, 1)", "L.zeros_like(x, foo=1)", "L.full_like(x, 7)",
    "L.full_like(x, 7, dtype=L.int64)", "L.full_like(x, fill_value=2.5)",
    "L.full_like(x.t(), 2.5)", "L.full_like(x, 2.5, requires_grad=True)", "L.full_like(x, 'a')",
    "L.full_like(x, L.tensor(3.0))", "L.full_like(x)", "L.full_like(x, 1, 2)",
    "L.full_like(x, 1, fill_value=2)",
]

NEW = [
    "x.new_zeros(2, 3)", "x.new_zeros((2, 3))", "x.new_zeros(size=(2, 3))", "x.new_zeros(-1)",
    "x.new_zeros(2, dtype=L.int64)", "x.new_zeros(2, requires_grad=True)",
    "x.new_zeros(2, dtype=L.int64, requires_grad=True)", "x.new_zeros()", "x.new_zeros(2.0)",
    "x.new_ones(2, 3)", "x.new_empty(-1)", "x.new_full((2, 3), 5)", "x.new_full(2, 5)",
    "x.new_full((2, 3), fill_value=5)", "x.new_full(size=(2, 3), fill_value=5)",
    "x.new_full((2, -3), 5)", "x.new_full((2, 3), 5, dtype=L.int64)",
    "x.new_full((2, 3), 5, requires_grad=True)", "x.new_full((2,), 'a')",
    "x.new_full((2,), 1, dtype='x')", "x.new_full((2,))", "x.new_zeros(2, out=out)",
    "x.new_empty(2, 3, memory_format=L.channels_last)",
]

OTHERS = [
    "L.eye(3)", "L.eye(3, 4)", "L.eye(-1)", "L.eye(3, -1)", "L.eye(3.0)", "L.eye(True)",
    "L.eye(3, dtype=L.int64, requires_grad=True)", "L.eye(n=3, m=2)",
]


def _env(lib):
    return {"x": lib.ones(2, 3), "x4": lib.ones(2, 3, 4, 5), "out": lib.empty(0),
            "outi": lib.empty(0, dtype=lib.int64)}


@pytest.mark.parametrize("expr", SIZES + OPTIONS + OUT + FULL + LIKE + NEW + OTHERS)
def test_filled_family_matches_torch(expr):
    _check(f"describe({expr})", expr)


EMPTY = [
    "L.empty(2, 3)", "L.empty(size=(2,))", "L.empty((2, 3), out=out)",
    "L.empty(2, 3, memory_format=L.channels_last)",
    "L.empty(2, 3, 4, 5, memory_format=L.channels_last)",
    "L.empty(2, 3, 4, 5, memory_format=L.preserve_format)",
    "L.empty(2, 3, 4, 5, 6, memory_format=L.channels_last_3d)",
    "L.empty(2, 3, 4, 5, memory_format=L.channels_last_3d)",
    "L.empty(2, 3, memory_format=5)", "L.empty_like(x, memory_format=L.channels_last)",
    "L.empty_like(x4, memory_format=L.channels_last)", "L.empty_like(x4.permute(0, 2, 3, 1))",
    "x.new_empty(2, 3)", "x.new_empty((0, 2))",
]


@pytest.mark.parametrize("expr", EMPTY)
def test_empty_family_geometry_matches_torch(expr):
    # uninitialised memory: everything but the values
    _check(f"describe({expr}, values=False)", expr)


def _check(full_expr, expr):
    got = outcome(full_expr, cinder, {**_env(cinder), "describe": describe})
    want = outcome(full_expr, torch, {**_env(torch), "describe": describe})
    assert got == want, expr


def test_entries_publish_three_forms():
    for name in ("zeros", "ones", "empty", "full"):
        for op in (name, name + "_like", "new_" + name):
            assert OPS[op].family == "creation"
        assert getattr(cinder, name).__name__ == name
        assert getattr(cinder, name + "_like").__name__ == name + "_like"
        assert cinder.Tensor.__dict__["new_" + name].__name__ == "new_" + name


def test_keyword_errors_name_the_op():
    check("L.ones(2, bogus=1)")
    check("L.ones(2).new_ones(2, bogus=1)")
    check("L.ones_like(L.ones(2), bogus=1)")


SHARED = [
    # the other creation ops share the factory's dtype / layout / pin_memory / out= checks
    "L.arange(5, out=out, dtype=L.float64)", "L.arange(5, pin_memory=True)", "L.arange('a')",
    "L.arange(True)", "L.arange(5.0, requires_grad=True)", "L.arange(5, requires_grad=True)",
    "L.linspace(0, 1, 5, out=outi, dtype=L.float32)", "L.linspace(0, 1, 5, out=out)",
    "L.logspace(0, 1, 3, pin_memory=True)", "L.eye(3, out=outi, dtype=L.float32)",
    "L.eye(3, pin_memory=True)", "L.tensor([1, 2], dtype='x')", "L.tensor([1, 2], pin_memory=True)",
    "L.tril_indices(3, 3, dtype='x')", "x.new_tensor([1, 2], dtype='x')",
]


@pytest.mark.parametrize("expr", SHARED)
def test_other_creation_ops_share_the_checks(expr):
    _check(f"describe({expr})", expr)
