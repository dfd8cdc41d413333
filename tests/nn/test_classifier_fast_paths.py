"""The fast paths a classifier's training step takes (relu on wide rows, log_softmax/softmax
on (N, C) logits with few classes, nll_loss with every target valid, the array-level
backward formulas) give PyTorch's values, gradients and double-backward gradients."""

import numpy as np
import pytest
import torch

import cinder


def _pair(a, requires_grad=False):
    return (cinder.tensor(a, requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


def _close(c, t, **kw):
    np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), **kw)


@pytest.mark.parametrize("shape", [(8, 40), (8, 6), (6,)])    # the wide-row path and the rest
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_relu_keeps_signs_nan_and_inf(shape, dtype):
    a = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    a.reshape(-1)[:6] = [-0.0, 0.0, np.nan, np.inf, -np.inf, -3.0]
    c, t = _pair(a)
    rc, rt = cinder.relu(c).numpy(), torch.relu(t).numpy()
    np.testing.assert_array_equal(rc, rt)
    np.testing.assert_array_equal(np.signbit(rc), np.signbit(rt))
    assert rc.dtype == dtype


@pytest.mark.parametrize("fn", ["log_softmax", "softmax"])
@pytest.mark.parametrize("shape", [(100, 10), (64, 128), (70, 3)])
def test_softmax_family_many_rows_few_classes(fn, shape):
    a = np.random.default_rng(1).standard_normal(shape)
    a[3, 1] = np.nan
    a[5, 0] = np.inf
    c, t = _pair(a, requires_grad=True)
    oc, ot = getattr(cinder, fn)(c, 1), getattr(torch, fn)(t, 1)
    _close(oc, ot, rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(2).standard_normal(shape)
    oc.backward(cinder.tensor(g))
    ot.backward(torch.tensor(g))
    _close(c.grad, t.grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn", ["log_softmax", "softmax"])
def test_softmax_family_double_backward(fn):
    a = np.random.default_rng(3).standard_normal((64, 5))
    c, t = _pair(a, requires_grad=True)
    grads = []
    for lib, x in ((cinder, c), (torch, t)):
        out = getattr(lib, fn)(x, 1)
        w = lib.tensor(np.linspace(-1, 1, 5))
        (g,) = lib.autograd.grad((out * w).sum(), x, create_graph=True)
        assert g.requires_grad
        (g * g).sum().backward()
        grads.append((g, x.grad))
    _close(grads[0][0], grads[1][0], rtol=1e-10, atol=1e-12)
    _close(grads[0][1], grads[1][1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kwargs", [{}, {"weight": True}, {"ignore_index": 3},
                                    {"reduction": "sum"}, {"reduction": "none"}])
def test_cross_entropy_batch(kwargs):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((128, 10)).astype(np.float32)
    y = rng.integers(0, 10, 128)
    c, t = _pair(x, requires_grad=True)
    args = dict(kwargs)
    w = rng.random(10).astype(np.float32)
    losses = []
    for lib, inp in ((cinder, c), (torch, t)):
        if kwargs.get("weight"):
            args["weight"] = lib.tensor(w)
        loss = lib.nn.functional.cross_entropy(inp, lib.tensor(y), **args)
        loss.sum().backward()
        losses.append(loss)
    _close(losses[0], losses[1], rtol=1e-5, atol=1e-6)
    _close(c.grad, t.grad, rtol=1e-5, atol=1e-7)


def test_nll_loss_keeps_its_own_copy_of_the_targets():
    x = cinder.tensor(np.log(np.full((4, 3), 1 / 3)), requires_grad=True)
    y = cinder.tensor([0, 1, 2, 1])
    loss = cinder.nn.functional.nll_loss(x, y)
    y.data[:] = 0                          # not an in-place op on y: no version bump
    loss.backward()
    expected = np.zeros((4, 3))
    expected[np.arange(4), [0, 1, 2, 1]] = -0.25
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_nll_loss_out_of_range_target():
    x = np.zeros((70, 4), dtype=np.float32)
    y = np.zeros(70, dtype=np.int64)
    y[9] = 4
    for lib in (cinder, torch):
        with pytest.raises(IndexError, match="Target 4 is out of bounds"):
            lib.nn.functional.nll_loss(lib.tensor(x), lib.tensor(y))
