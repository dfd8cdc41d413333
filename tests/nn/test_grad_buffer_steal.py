"""The engine keeps a gradient it created as a leaf's ``.grad`` instead of copying it (as
PyTorch steals a gradient nothing else references); every case where the gradient is shared
must still give each leaf its own memory. Values compared with PyTorch."""

import numpy as np
import torch

import cinder


def _both(build):
    return [build(lib) for lib in (torch, cinder)]


def _same(a, c):
    np.testing.assert_array_equal(c.detach().numpy(), a.detach().numpy())


def test_linear_grads_are_kept_and_accumulate():
    def build(lib):
        w = lib.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3), requires_grad=True)
        b = lib.zeros(2, requires_grad=True)
        out = lib.nn.functional.linear(lib.ones(4, 3), w, b)
        out.sum().backward(retain_graph=True)
        first = w.grad
        out.sum().backward()
        return w.grad, b.grad, first is w.grad
    (tw, tb, t_same), (cw, cb, c_same) = _both(build)
    _same(tw, cw)
    _same(tb, cb)
    assert t_same and c_same        # later backward passes accumulate in place


def test_a_gradient_handed_to_two_leaves_is_not_shared():
    def build(lib):
        x, y = lib.ones(3, requires_grad=True), lib.ones(3, requires_grad=True)
        (x + y).sum().backward()
        x.grad.add_(10)                 # must not leak into y.grad
        (x * 2 + y).sum().backward()
        return x.grad, y.grad
    (tx, ty), (cx, cy) = _both(build)
    _same(tx, cx)
    _same(ty, cy)


def test_user_gradient_and_hooks_keep_their_tensors():
    def build(lib):
        w = lib.ones(2, 3, requires_grad=True)
        seen = []
        w.register_hook(lambda g: seen.append(g))
        out = lib.nn.functional.linear(lib.ones(4, 3), w)
        out.backward(lib.ones(4, 2))
        w.grad.mul_(3)                  # the hook's tensor keeps its values
        v = lib.ones(3, requires_grad=True)
        g_user = lib.full((3,), 2.0)
        v.backward(g_user)
        v.grad.add_(1)                  # the caller's gradient is not the leaf's .grad
        return seen[0], w.grad, g_user, v.grad
    for a, c in zip(*_both(build)):
        _same(a, c)


def test_a_gradient_saved_by_a_custom_function_is_copied():
    def build(lib):
        class Keep(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                ctx.kept = g * 2        # referenced after backward returns
                Keep.last = ctx.kept
                return ctx.kept

        x = lib.ones(3, requires_grad=True)
        Keep.apply(x).sum().backward()
        x.grad.add_(5)
        return Keep.last, x.grad
    for a, c in zip(*_both(build)):
        _same(a, c)
