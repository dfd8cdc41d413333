"""How often saved-tensor unpack hooks run, and how long what they return lives, against
PyTorch: once per saved tensor each time its node runs (however many formulas read it), again
on every pass of a retained graph, at every ``grad_fn._saved_*`` or ``ctx.saved_tensors``
access; and nothing unpacked is kept once the pass is over."""

import weakref

import numpy as np
import pytest
import torch

import cinder

LIBS = pytest.mark.parametrize("lib", [cinder, torch], ids=["cinder", "torch"])
X = np.array([0.5, -1.5, 2.0])
Y = np.array([1.0, 2.0, -0.25])


class Hooks:
    """A pack/unpack pair that counts its calls and keeps weak references to what the unpack
    hook returned (a fresh copy, so that nothing else holds it)."""

    def __init__(self, lib):
        self.lib, self.packs, self.unpacks, self.refs = lib, 0, 0, []

    def pack(self, t):
        self.packs += 1
        return t

    def unpack(self, t):
        self.unpacks += 1
        out = t.clone()
        self.refs.append(weakref.ref(out))
        if self.lib is cinder:
            # cinder may rebuild the tensor around the returned values (to place it in the
            # graph): the values must die too
            self.refs.append(weakref.ref(out._data))
        return out

    def scope(self):
        return self.lib.autograd.graph.saved_tensors_hooks(self.pack, self.unpack)

    def alive(self):
        return sum(r() is not None for r in self.refs)


def _leaves(lib):
    return (lib.tensor(X, requires_grad=True), lib.tensor(Y, requires_grad=True))


def _counts(lib, run):
    hooks = Hooks(lib)
    return run(lib, hooks, *_leaves(lib)), hooks


def _same(run):
    got, hooks = _counts(cinder, run)
    want, oracle = _counts(torch, run)
    assert got == want
    return hooks, oracle


def test_formulas_reading_one_tensor_unpack_it_once():
    def run(lib, hooks, x, y):
        with hooks.scope():
            z = lib.atan2(x, y).sum()      # both formulas read both saved inputs, often
        z.backward()
        return hooks.packs, hooks.unpacks, hooks.alive()
    hooks, _ = _same(run)
    assert (hooks.packs, hooks.unpacks) == (2, 2)


def test_a_retained_graph_unpacks_again_and_keeps_nothing():
    def run(lib, hooks, x, y):
        with hooks.scope():
            z = (x * y).exp().sum()
        seen = []
        for _ in range(2):
            z.backward(retain_graph=True)
            seen.append((hooks.unpacks, hooks.alive()))
        return hooks.packs, seen
    hooks, _ = _same(run)
    assert hooks.unpacks == 6 and hooks.alive() == 0


def test_direct_node_calls_and_attribute_reads():
    def run(lib, hooks, x, y):
        with hooks.scope():
            z = lib.atan2(x, y)
        z.grad_fn(lib.ones(3))                 # one run of the node: each tensor once
        after_call = hooks.unpacks
        reads = [z.grad_fn._saved_self, z.grad_fn._saved_self]  # each read runs the hook
        reads.append(z.grad_fn._raw_saved_other.unpack())
        values = [r.tolist() for r in reads]
        del reads
        return after_call, hooks.unpacks, hooks.alive(), values
    assert _same(run)[0].unpacks == 5


def test_a_hook_reading_a_saved_tensor_during_backward_unpacks_it_again():
    def run(lib, hooks, x, y):
        with hooks.scope():
            z = x.exp()
        z.register_hook(lambda g: (z.grad_fn._saved_result, None)[1])
        z.sum().backward()
        return hooks.packs, hooks.unpacks, hooks.alive()
    assert _same(run)[0].unpacks == 2


def test_ctx_saved_tensors_unpacks_at_each_access():
    def run(lib, hooks, x, y):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                a, = ctx.saved_tensors
                a, = ctx.saved_tensors
                return g * a
        with hooks.scope():
            out = Twice.apply(x).sum()
        out.backward()
        return hooks.packs, hooks.unpacks, x.grad.tolist()
    assert _same(run)[0].unpacks == 2


def test_double_backward_unpacks_per_pass():
    def run(lib, hooks, x, y):
        with hooks.scope():
            z = (x * x * y).sum()
        counts = [hooks.unpacks]
        g, = lib.autograd.grad(z, x, create_graph=True)
        counts.append(hooks.unpacks)
        gg, = lib.autograd.grad(g.sum(), x)     # the new graph saved its tensors plainly
        counts.append(hooks.unpacks)
        # the first pass's graph saved the unpacked values (as PyTorch's keeps their storage);
        # they go with that graph
        del g
        return counts, hooks.alive(), gg.tolist()
    assert _same(run)[0].unpacks == 4


@LIBS
def test_double_backward_through_hooks_unpacks_each_pass(lib):
    hooks = Hooks(lib)
    x, y = _leaves(lib)
    with hooks.scope():
        z = (x * x * y).sum()
        g, = lib.autograd.grad(z, x, create_graph=True)
        first = hooks.unpacks
        gg, = lib.autograd.grad(g.sum(), x)
    # The first pass unpacks the forward's four tensors; the second those of the first
    # pass's graph that lead to x (how many that graph saves differs: cinder's formulas save
    # both operands of each product, PyTorch's only those a needed gradient reads).
    assert first == 4 and hooks.unpacks == 8
    np.testing.assert_allclose(gg.detach().numpy(), 2 * Y)
