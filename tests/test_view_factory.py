"""The view factory (``ops/_view_factory.py``) against PyTorch: each ``view_op`` entry gives
the function/method, the ``_copy`` op, the in-place view method and the aliases PyTorch has,
with PyTorch's argument names, errors, graph-node names and view semantics."""

import pytest
import torch

import cinder
from cinder.ops._registry import OPS
from cinder.ops._view_factory import VIEW_ENTRIES
from tests.oracle import outcome


@pytest.mark.parametrize("name", sorted(VIEW_ENTRIES))
def test_entry_forms_are_pytorchs(name):
    entry = VIEW_ENTRIES[name]
    # the _copy op exactly where PyTorch has one, and an in-place view method likewise
    assert hasattr(torch, name + "_copy") == entry["copy"] == hasattr(cinder, name + "_copy")
    assert hasattr(torch.Tensor, name + "_") == entry["inplace"]
    if entry["inplace"]:
        assert OPS[name].inplace is cinder.Tensor.__dict__[name + "_"]
    for other in entry["aliases"]:
        assert getattr(cinder, other).__name__ == other
        assert OPS[other].aliases == (name,)


CALLS = [
    "L.transpose(x, dim0=0, dim1=-1)", "x.transpose(1, 0)", "L.swapaxes(x, 0, 1)",
    "x.swapdims(0, 1)", "L.t(m)", "m.t()", "L.permute(x, (2, 0, 1))", "x.permute(2, 0, 1)",
"L.squeeze(y)", "L.squeeze(y, 1)", "L.squeeze(y, (0, 1))",
    "y.squeeze(dim=1)", "L.unsqueeze(m, dim=-1)", "m.unsqueeze(0)", "L.select(x, 1, -1)",
    "x.select(dim=0, index=1)", "L.diagonal(x, offset=1, dim1=0, dim2=2)", "m.diagonal(-1)",
    "m.unfold(0, 2, 1)", "m.unfold(dimension=1, size=2, step=2)", "x.view(-1, 3)",
    "x.view(L.int32)", "x.view((4, 6))", "x.view([24])", "x.view(L.Size([6, 4]))",
    "x.permute([1, 2, 0])", "m.expand((2, 3, 3))", "m.expand(L.Size([2, 3, 3]))",
    "x.view(4, 6.0)", "x.permute(0, 1)", "m.expand(2, 3, 3)", "L.as_strided(m, (2, 2), (1, 3), 1)",
    "L.view_as_real(z)", "L.view_as_complex(L.view_as_real(z))", "L.real(z)", "L.imag(z)",
    # errors
    "L.transpose(x, 0, 3)", "L.t(x)", "L.permute(x, (0, 1))", "L.permute(x, (0, 0, 1))",
    "L.select(x, 0, 5)", "L.diagonal(x, 0, 1, 1)", "m.unfold(0, 9, 1)", "m.unfold(0, 2, 0)",
    "x.view(5)", "m.expand(4)", "L.as_strided(m, (2, 2), (1,))", "L.imag(m)",
    "L.view_as_real(m)", "L.transpose(3, 0, 1)",
]


def _env(lib):
    x = lib.arange(24.).reshape(2, 3, 4)
    return {"x": x, "m": lib.arange(9.).reshape(3, 3), "y": lib.ones(1, 1, 3),
            "z": lib.tensor([1 + 2j, 3 - 1j])}


@pytest.mark.parametrize("expr", CALLS)
def test_view_calls_match_torch(expr):
    assert outcome(expr, cinder, _env(cinder)) == outcome(expr, torch, _env(torch)), expr


COPIES = [
    "L.transpose_copy(x, 0, 1)", "L.t_copy(m)", "L.permute_copy(x, (2, 0, 1))",
    "L.squeeze_copy(y)", "L.unsqueeze_copy(m, 1)", "L.select_copy(x, 0, 1)",
    "L.diagonal_copy(m)", "L.unfold_copy(m, 0, 2, 1)", "L.view_copy(x, (6, 4))",
    "L.expand_copy(m, (2, 3, 3))", "L.as_strided_copy(m, (2,), (4,))",
    "L.view_as_real_copy(z)", "L.transpose_copy(x, 0, 1)._base is None",
    "L.transpose_copy(x, 0, 1).is_contiguous()", "L.t_copy(m, out=L.empty(3, 3))",
    "L.t_copy(x)", "L.select_copy(x, 0, 9)",
]


@pytest.mark.parametrize("expr", COPIES)
def test_copy_forms_match_torch(expr):
    assert outcome(expr, cinder, _env(cinder)) == outcome(expr, torch, _env(torch)), expr


GRAPH = [
    # node names of the view, its copy and its in-place form; gradients through them
    "type((w * 1).t().grad_fn).__name__", "type(L.t_copy(w * 1).grad_fn).__name__",
    "type((w * 1).t_().grad_fn).__name__", "type((w * 1).transpose_(0, 1).grad_fn).__name__",
    "type((w * 1).swapaxes_(0, 1).grad_fn).__name__",
    "type((w * 1).unsqueeze_(0).grad_fn).__name__", "type((w * 1).squeeze_().grad_fn).__name__",
    "type((w * 1).squeeze_(0).grad_fn).__name__",
    "type((w * 1).squeeze_((0,)).grad_fn).__name__",
    "type((w * 1).as_strided_((3,), (1,)).grad_fn).__name__",
    "type(L.select_copy(w * 1, 0, 0).grad_fn).__name__",
    "type(L.view_as_real(zw * 1).grad_fn).__name__",
    "L.autograd.grad((w * 1).t_().sum() * 2, w)", "L.autograd.grad(L.diagonal_copy(w).sum(), w)",
    "L.autograd.grad(L.unfold_copy(w, 1, 2, 1).sum(), w)",
    "L.autograd.grad(L.view_as_real(zw).sum(), zw)",
    "w.unsqueeze_(0)", "L.t(3)", "L.diagonal('a')", "(w * 1).t()._base is not None",
]


def _graph_env(lib):
    return {"w": lib.arange(6.).reshape(2, 3).requires_grad_(),
            "zw": lib.tensor([1 + 2j, 3 - 1j], requires_grad=True)}


@pytest.mark.parametrize("expr", GRAPH)
def test_graph_forms_match_torch(expr):
    assert outcome(expr, cinder, _graph_env(cinder)) == outcome(expr, torch, _graph_env(torch)), \
        expr


def test_view_shares_version_and_base():
    for lib in (torch, cinder):
        x = lib.zeros(2, 3)
        v = x.t()
        v.add_(1)
        assert x._version == v._version == 1
        assert v._base is x and x.sum().item() == 6
        with lib.inference_mode():
            i = lib.zeros(2, 3)
            assert i.t().is_inference()


def test_signatures_are_the_geometrys():
    import inspect
    assert list(inspect.signature(cinder.transpose).parameters) == ["input", "dim0", "dim1"]
    assert list(inspect.signature(cinder.diagonal).parameters) == ["input", "offset", "dim1",
                                                                    "dim2"]
    assert cinder.diagonal(cinder.eye(3)).tolist() == [1.0, 1.0, 1.0]
