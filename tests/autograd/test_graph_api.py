"""``torch.autograd.graph``'s edge helpers against PyTorch: ``get_gradient_edge`` (its
errors, and ``autograd.grad`` taking an edge in place of a tensor) and ``increment_version``."""

import numpy as np
import pytest
import torch

import cinder


@pytest.mark.parametrize("lib", [cinder, torch], ids=["cinder", "torch"])
def test_gradient_edges(lib):
    G = lib.autograd.graph
    x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * 2
    edge = G.get_gradient_edge(y)
    assert isinstance(edge, tuple) and edge.node is y.grad_fn and edge.output_nr == 0
    assert type(G.get_gradient_edge(x).node).__name__ == "AccumulateGrad"
    with pytest.raises(RuntimeError, match="not possible to get the gradient edge"):
        G.get_gradient_edge(lib.ones(2))
    gy, gx = lib.autograd.grad((y * y).sum(), [edge, x])
    np.testing.assert_array_equal(gy.numpy(), [4.0, -8.0, 12.0])
    np.testing.assert_array_equal(gx.numpy(), [8.0, -16.0, 24.0])


@pytest.mark.parametrize("lib", [cinder, torch], ids=["cinder", "torch"])
def test_increment_version_makes_saved_tensors_stale(lib):
    z = lib.ones(2)
    lib.autograd.graph.increment_version(z)
    assert z._version == 1
    x = lib.ones(2, requires_grad=True)
    w = lib.ones(2)
    y = (x * w).sum()
    lib.autograd.graph.increment_version(w)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


@pytest.mark.parametrize("lib", [cinder, torch], ids=["cinder", "torch"])
def test_multithreading_and_view_replay_switches(lib):
    A = lib.autograd
    assert A.is_multithreading_enabled() is True and A.is_view_replay_enabled() is False
    with A.set_multithreading_enabled(False):
        assert A.is_multithreading_enabled() is False
    assert A.is_multithreading_enabled() is True
    A.set_multithreading_enabled(False)
    assert A.is_multithreading_enabled() is False
    A.set_multithreading_enabled(True)
    assert A.is_multithreading_enabled() is True
