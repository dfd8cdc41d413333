"""``torch.autograd.graph.saved_tensors_hooks`` and its relatives against PyTorch: which
tensors each op packs, in which order, when they are unpacked, the gradients computed from the
unpacked values, nesting, ``save_on_cpu``, ``disable_saved_tensors_hooks`` and bad hooks."""

import numpy as np
import pytest
import torch

import cinder

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4))
B = RNG.standard_normal((4, 2))

PROGRAMS = {
    "mul": lambda L, a, b: (a * a).sum(),
    "exp": lambda L, a, b: a.exp().sum(),
    "sin_cos": lambda L, a, b: (a.sin() * a.cos()).sum(),
    "matmul": lambda L, a, b: (a @ b).sum(),
    "linear_relu": lambda L, a, b: L.nn.functional.linear(a, b.t()).relu().sum(),
    "sigmoid_div": lambda L, a, b: (a.sigmoid() / (a.pow(2) + 1)).sum(),
    "log_softmax": lambda L, a, b: L.nn.functional.log_softmax(a, 1).sum(),
    "mse": lambda L, a, b: L.nn.functional.mse_loss(a @ b, (a @ b).detach() + 1),
}


def _run(lib, program, transform=None):
    """(events, gradients): the pack/unpack calls as (kind, shape), and a's and b's grads."""
    events = []
    a = lib.tensor(A, requires_grad=True)
    b = lib.tensor(B, requires_grad=True)

    def pack(t):
        events.append(("pack", tuple(t.shape)))
        return t if transform is None else transform(t)

    def unpack(t):
        events.append(("unpack", tuple(t.shape)))
        return t
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        loss = PROGRAMS[program](lib, a, b)
    events.append(("backward",))
    loss.backward()
    grads = [None if t.grad is None else t.grad.numpy() for t in (a, b)]
    return events, grads


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_pack_and_unpack_calls_match_torch(program):
    got, got_grads = _run(cinder, program)
    want, want_grads = _run(torch, program)
    assert sorted(got) == sorted(want)          # the same tensors, packed and unpacked once
    assert got.index(("backward",)) == want.index(("backward",))
    _same_grads(got_grads, want_grads)


def _same_grads(got, want):
    for g, w in zip(got, want):
        assert (g is None) == (w is None)
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_unpacked_copies_give_the_same_gradients():
    got, got_grads = _run(cinder, "sin_cos", transform=lambda t: t.clone())
    _, want_grads = _run(torch, "sin_cos")
    _same_grads(got_grads, want_grads)


def test_custom_function_saves_through_the_hooks():
    for lib in (cinder, torch):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * g * x
        seen = []
        x = lib.tensor(A, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t, seen=seen: seen.append("p") or t,
                                                    lambda t, seen=seen: seen.append("u") or t):
            y = Square.apply(x).sum()
        y.backward()
        assert seen == ["p", "u"], lib.__name__
        np.testing.assert_allclose(x.grad.numpy(), 2 * A)


def test_innermost_hooks_apply_and_double_backward_works():
    results = []
    for lib in (cinder, torch):
        outer, inner = [], []
        x = lib.tensor(A, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t, outer=outer: outer.append(1) or t,
                                                    lambda t: t):
            with lib.autograd.graph.saved_tensors_hooks(lambda t, inner=inner: inner.append(1) or t,
                                                        lambda t: t):
                y = (x.sin() * x).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        results.append((len(outer), len(inner), gg.numpy()))
    assert results[0][:2] == results[1][:2]
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-12)


def test_save_on_cpu_keeps_values():
    for lib in (cinder, torch):
        x = lib.tensor(A, requires_grad=True)
        with lib.autograd.graph.save_on_cpu():
            y = (x.exp() * x).sum()
        y.backward()
        np.testing.assert_allclose(x.grad.numpy(), np.exp(A) * (A + 1), rtol=1e-12)


def test_disabled_hooks_raise_the_given_message():
    for lib in (cinder, torch):
        G = lib.autograd.graph
        with G.disable_saved_tensors_hooks("no hooks here"):
            with pytest.raises(RuntimeError, match="no hooks here"):
                with G.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
            x = lib.tensor(A, requires_grad=True)
            (x * x).sum().backward()        # saving without hooks is fine


def test_unpack_must_return_a_tensor():
    kinds = []
    for lib in (cinder, torch):
        x = lib.tensor(A, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
            y = (x * x).sum()
        with pytest.raises(Exception) as info:
            y.backward()
        kinds.append(type(info.value))
    assert kinds[0] is kinds[1]


def test_hooks_do_not_see_their_own_work_and_copies_keep_leaves_in_the_graph():
    """A pack hook that records ops does not re-enter the hooks; an unpacked copy of a saved
    leaf still leads to the leaf, so a gradient of the gradient reaches it."""
    results = []
    for lib in (cinder, torch):
        x = lib.tensor(A, requires_grad=True)
        calls = []
        with lib.autograd.graph.saved_tensors_hooks(
                lambda t, calls=calls: (calls.append("p"), (t * 1).exp())[1],
                lambda t: t.log()):
            y = (x * x.sin()).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        results.append((calls, g.requires_grad, x.grad.numpy()))
    assert results[0][:2] == results[1][:2]
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-12)
