"""Ops that exist only as in-place writes (``zero_``, ``fill_``, ``copy_`` and the random
fills), built by ``_inplace.inplace_only``: PyTorch's refusals, version bumps and graph nodes."""

import pytest
import torch

import cinder
from tests.oracle import outcome

WRITES = ["zero_()", "fill_(2.0)", "fill_(L.tensor(3.0))", "copy_(L.ones(3))", "copy_(2.5)",
          "uniform_()", "normal_()", "bernoulli_(0.5)", "exponential_()", "random_(0, 5)",
          "geometric_(0.5)", "log_normal_()", "cauchy_()"]


def _env(lib):
    return {"leaf": lib.ones(3, requires_grad=True), "e": lib.zeros(1).expand(3),
            "y": lib.ones(3, requires_grad=True) * 1, "x": lib.zeros(3)}


def _same(expr):
    assert outcome(expr, cinder, _env(cinder)) == outcome(expr, torch, _env(torch)), expr


@pytest.mark.parametrize("write", WRITES)
def test_refusals_match_torch(write):
    _same(f"leaf.{write}")                  # a leaf that requires grad
    _same(f"e.{write} is e")                # an expanded tensor: only one-value writes pass
    _same(f"leaf.detach().{write}._version")


@pytest.mark.parametrize("write", WRITES)
def test_version_and_result(write):
    _same(f"(x.{write} is x, x._version, x.shape, x.dtype)")


@pytest.mark.parametrize("write", ["zero_()", "fill_(2.0)", "fill_(L.tensor(3.0))",
                                   "copy_(L.ones(3))", "copy_(leaf)"])
def test_recorded_nodes_match_torch(write):
    _same(f"y.{write}.grad_fn.name()")
    _same(f"L.autograd.grad(y.{write}.sum(), leaf, allow_unused=True)")


def test_argument_errors_come_before_the_inplace_ones():
    _same("leaf.copy_('a')")        # the TypeError first, as in PyTorch
    _same("x.uniform_(2, 1)")
    _same("x.normal_(0, -1)")
    _same("L.zeros(3, dtype=L.int64).uniform_()")


def test_inference_tensor_outside_inference_mode():
    for lib in (torch, cinder):
        with lib.inference_mode():
            t = lib.zeros(2)
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
            t.zero_()


def test_entries_come_from_the_generator():
    from cinder.ops._registry import OPS
    for name in ("zero_", "copy_", "uniform_", "normal_", "cauchy_"):
        assert OPS[name].method.__name__ == name
    assert cinder.Tensor.fill_ is cinder.ops._registry.OPS["fill"].inplace
