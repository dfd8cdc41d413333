"""``torch.autograd.graph.allow_mutation_on_saved_tensors`` against PyTorch: in-place writes
to tensors saved for backward (through every kind of write, views and detached aliases)
leave backward the old values, what the context object holds, and the errors for nested
blocks and for backward outside the block. Also the rule it builds on: tensors saved through
saved-tensor hooks are not version-checked."""

import numpy as np
import pytest
import torch

import cinder

LIBS = pytest.mark.parametrize("lib", [cinder, torch], ids=["cinder", "torch"])
X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
W = np.array([[2.0, 0.5, -1.0], [-3.0, 1.25, 0.5]], dtype=np.float32)


def _grads(scenario):
    """``scenario(lib)`` returns tensors; their values must agree between cinder and torch."""
    got, expected = scenario(cinder), scenario(torch)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), rtol=1e-6)
    return [g.detach().numpy() for g in got]


def _writes(lib):
    """Ways of writing into a saved tensor ``t`` in place (``t`` requires grad, not a leaf)."""
    return {
        "sin_": lambda t: t.sin_(),
        "mul_ tensor": lambda t: t.mul_(lib.tensor(W)),
        "add_ alpha": lambda t: t.add_(lib.tensor(W), alpha=2),
        "setitem": lambda t: t.__setitem__((slice(None), 0), 7.0),
        "setitem mask": lambda t: t.__setitem__(t > 0, 0.0),
        "copy_": lambda t: t.copy_(lib.tensor(W)),
        "zero_": lambda t: t.zero_(),
        "relu inplace": lambda t: lib.nn.functional.relu(t, inplace=True),
        "iadd": lambda t: t.__iadd__(1.0),
        "detached alias": lambda t: t.detach().mul_(3),
        "first row view": lambda t: t[0].fill_(5.0),
        "flat view": lambda t: t.view(-1).neg_(),
        "transpose_": lambda t: t.t_(),
    }


@pytest.mark.parametrize("write", list(_writes(cinder)))
def test_backward_sees_values_from_before_the_write(write):
    def scenario(lib):
        x = lib.tensor(X, requires_grad=True)
        with lib.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            b = x * 1.5
            out = (b ** 3).sum() + (b * lib.tensor(W)).exp().sum()
            _writes(lib)[write](b)
            assert len(ctx.cloned) >= 1
            out.backward()
        return x.grad, b
    _grads(scenario)


@LIBS
def test_without_the_block_the_write_is_an_error(lib):
    x = lib.tensor(X, requires_grad=True)
    b = x * 1.5
    out = (b ** 3).sum()
    b.sin_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


def test_documented_example_and_context_state():
    def scenario(lib):
        with lib.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = lib.ones(2, 3, requires_grad=True)
            b = a.clone()
            out = (b ** 2).sum()
            saved = (len(ctx.original), len(ctx.cloned))
            b.sin_()
            after = (len(ctx.original), len(ctx.cloned))
            out.sum().backward()
        state = (len(ctx.original), len(ctx.cloned), len(ctx.tid_to_weakhandle),
                 len(ctx.sid_to_tid))
        assert saved == (1, 0) and after == (1, 1) and state == (0, 0, 0, 0)
        return a.grad, b
    _grads(scenario)


def test_tensor_saved_twice_is_kept_once_and_read_outside_backward():
    def scenario(lib):
        with lib.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = lib.tensor(X, requires_grad=True)
            b = a.clone()
            out = b * b                         # saves b as self and as other
            assert len(ctx.original) == 1
            b.mul_(10)
            seen = out.grad_fn._saved_self       # the copy, in b's old place in the graph
            assert type(seen.grad_fn).__name__ == "CloneBackward0"
            out.sum().backward()
        return a.grad, seen
    _grads(scenario)


def test_write_through_out_argument():
    def scenario(lib):
        x = lib.tensor(X, requires_grad=True)
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            w = lib.tensor(W)
            out = (x * w).sum()
            lib.mul(lib.ones(2, 3), 4.0, out=w)
            out.backward()
        return x.grad, w
    _grads(scenario)


def test_higher_order_gradient_after_a_write():
    def scenario(lib):
        a = lib.tensor(X, requires_grad=True)
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            b = a * 2
            out = (b ** 3).sum()
            b.cos_()
            (g,) = lib.autograd.grad(out, (a,), create_graph=True)
            g.sum().backward()
        return g, a.grad
    _grads(scenario)


def test_write_after_backward_freed_the_graph():
    def scenario(lib):
        a = lib.tensor(X, requires_grad=True)
        with lib.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            b = a.clone()
            (b ** 2).sum().backward()
            b.sin_()                 # nothing saved any more: nothing to copy
            assert len(ctx.cloned) == 0
        return a.grad, b
    _grads(scenario)


def test_views_at_an_offset():
    """Writes through a view at an offset, or into the base of a saved view, copy the saved
    tensor too: cinder finds aliases by their shared version counter. (PyTorch 2.13 looks
    them up by data pointer, misses these two, and backward silently reads the new values;
    cinder gives the gradient of the recorded values, compared here with PyTorch's gradient
    of the same graph without the write.)"""
    def scenario(lib, write):
        x = lib.tensor(X, requires_grad=True)
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            b = x * 1.5
            v = b[1]
            out = (b ** 2).sum() + (v ** 3).sum()
            if write:
                b[1].sin_()
                b.mul_(2)
            out.backward()
        return x.grad.numpy()
    np.testing.assert_allclose(scenario(cinder, True), scenario(torch, False), rtol=1e-6)


@LIBS
def test_leaf_still_refuses_in_place(lib):
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        a = lib.tensor(X, requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being "
                           "used in an in-place operation."):
            a.sin_()


OUTSIDE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' "
           "contextin which the graph was originally recorded.")


@LIBS
@pytest.mark.parametrize("mutated", [True, False])
def test_backward_outside_the_block(lib, mutated):
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        a = lib.tensor(X, requires_grad=True)
        b = a.clone()
        out = (b ** 2).sum()
        if mutated:
            b.sin_()
    with pytest.raises(AssertionError) as info:
        out.backward()
    assert str(info.value) == OUTSIDE
    # in a later block the graph is just as unknown
    with lib.autograd.graph.allow_mutation_on_saved_tensors():
        with pytest.raises(AssertionError):
            out.backward()


@LIBS
def test_blocks_cannot_be_nested(lib):
    G = lib.autograd.graph
    with G.allow_mutation_on_saved_tensors():
        a = lib.tensor(X, requires_grad=True)
        out = (a.clone() ** 2).sum()
        with pytest.raises(RuntimeError, match="allow_mutation_on_saved_tensors contexts cannot "
                           "be nested"):
            with G.allow_mutation_on_saved_tensors():
                pass
        # as in PyTorch, the refused inner block ended the outer one's permission too
        with pytest.raises(AssertionError):
            out.backward()
    with G.allow_mutation_on_saved_tensors():       # a fresh block works again
        b = a.clone()
        out = (b ** 2).sum()
        b.zero_()
        out.backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * X)


@LIBS
def test_tensors_saved_through_hooks_are_not_version_checked(lib):
    a = lib.tensor(X, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        b = a.clone()
        out = (b ** 2).sum()
    b.mul_(3)
    out.backward()          # the hooks hand back the changed tensor: its values are used
    np.testing.assert_allclose(a.grad.numpy(), 6 * X)
