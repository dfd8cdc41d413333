"""In-place ops on views against PyTorch: the base's history becomes a CopySlices node whose
edges are the base's previous history and the in-place op's other inputs (as PyTorch builds
it), and the gradients are right whatever memory layout the base owns (row-major,
column-major, channels-last, strided with gaps), to first and second order."""

import numpy as np
import pytest
import torch

import cinder

BASES = {
    "row_major": lambda L, x: x.reshape(3, 4) * 1,
    "column_major": lambda L, x: x.reshape(4, 3).t() * 1,
    "channels_last": lambda L, x: (x.reshape(1, 3, 2, 2) * 1).contiguous(
        memory_format=L.channels_last).reshape(1, 3, 2, 2)[0].reshape(3, 4) * 1,
    "gappy": lambda L, x: L.empty_strided((3, 4), (1, 5)).copy_(x.reshape(3, 4)),
}

EDITS = {
    "mul_row": lambda L, b, s: b[1].mul_(3),
    "add_cols": lambda L, b, s: b[:, 1:].add_(s[:, 1:]),
    "setitem_scalar": lambda L, b, s: b.__setitem__((0, 0), 5.0),
    "setitem_tensor": lambda L, b, s: b.__setitem__((slice(None), 2), s[:, 0] * 2),
    "fill_diag": lambda L, b, s: b.diagonal().fill_(2.0),
    "copy_block": lambda L, b, s: b[1:, :2].copy_(s[:2, :2].t()),
    "two_edits": lambda L, b, s: (b[0].mul_(2), b[:, 3].sub_(s[:, 3])),
}


def _run(lib, base, edit, create_graph=False):
    x = lib.tensor(np.arange(12.0) / 7, requires_grad=True)
    src = lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)
    w = lib.tensor(np.cos(np.arange(12.0)).reshape(3, 4))
    b = BASES[base](lib, x)
    EDITS[edit](lib, b, src)
    fn = b.grad_fn
    graph = (fn.name(), tuple(None if n is None else n.name() for n, _ in fn.next_functions))
    y = (b * b * w).sum()
    gx, gs = lib.autograd.grad(y, (x, src), create_graph=create_graph, allow_unused=True)
    out = [graph, gx.detach().numpy(), None if gs is None else gs.detach().numpy()]
    if create_graph:
        (ggx,) = lib.autograd.grad((gx * gx).sum(), x, allow_unused=True)
        out.append(None if ggx is None else ggx.numpy())
    return out


@pytest.mark.parametrize("base", sorted(BASES))
@pytest.mark.parametrize("edit", sorted(EDITS))
def test_graph_and_gradients_match_torch(base, edit):
    got, want = _run(cinder, base, edit), _run(torch, base, edit)
    assert got[0] == want[0]
    for g, w in zip(got[1:], want[1:]):
        assert (g is None) == (w is None)
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("base", ["row_major", "column_major"])
@pytest.mark.parametrize("edit", ["mul_row", "add_cols", "setitem_tensor"])
def test_second_order_gradients_match_torch(base, edit):
    got, want = _run(cinder, base, edit, True), _run(torch, base, edit, True)
    for g, w in zip(got[1:], want[1:]):
        assert (g is None) == (w is None)
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
