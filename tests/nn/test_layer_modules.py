"""Layer modules (conv, pooling, norms, padding, upsampling, embedding, fold, pixel shuffle)
against PyTorch, beyond the generic module-table runner (tests/nn/test_modules.py runs every
row of tests/nn/module_db/layers.py: initial weights bit for bit, repr, state_dict, outputs and
gradients in float32/float64, train and eval, bad inputs).

Here: running statistics and other buffers after train/eval forwards, the Lazy variants
(initialised from the first input into the eager class), bad constructor arguments,
ConvTranspose's output_size, Embedding.from_pretrained with MaxUnpool, and BatchNorm's
state_dict version handling.
"""

import re
import warnings

import numpy as np
import pytest
import torch

import cinder

from .module_db.layers import SPECS


class Row:
    """A module spec of module_db/layers.py, run here for what the generic runner of
    test_modules.py does not check: the buffers (running statistics) after each forward."""

    def __init__(self, spec, shapes, opts):
        self.ctor = "nn." + spec
        self.shapes = shapes
        self.index_input = opts.get("index_input")
        self.grad = opts.get("grad", True)
        self.seeded = opts.get("random", False)
        self.dtype, self.tol = "float32", (1e-5, 1e-5)

    def __repr__(self):
        return self.ctor


# Layers with buffers: their running statistics after train/eval forwards.
ROWS = [Row(*spec) for spec in SPECS if "Norm" in spec[0] or "Fractional" in spec[0]]

LAZY_ROWS = [
    ("nn.LazyConv1d(4, 3)", (2, 3, 9)),
    ("nn.LazyConv2d(4, 3, padding=1)", (2, 3, 6, 6)),
    ("nn.LazyConv3d(2, 2)", (1, 3, 3, 3, 3)),
    ("nn.LazyConvTranspose2d(4, 3, stride=2)", (2, 3, 4, 4)),
    ("nn.LazyConvTranspose1d(4, 3)", (2, 3, 4)),
    ("nn.LazyBatchNorm1d()", (4, 3)),
    ("nn.LazyBatchNorm2d()", (4, 3, 2, 2)),
    ("nn.LazyInstanceNorm2d(affine=True)", (2, 3, 4, 4)),
]


def build(lib, ctor, seed=0):
    lib.manual_seed(seed)
    return eval(ctor, {"nn": lib.nn})


def inputs_for(row, lib, shape, seed):
    rng = np.random.default_rng(seed)
    if row.index_input:
        return lib.tensor(rng.integers(0, row.index_input, shape))
    return lib.tensor(rng.standard_normal(shape).astype(row.dtype), requires_grad=row.grad)


def as_np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def assert_close(c, t, tol, what):
    assert tuple(c.shape) == tuple(t.shape), what
    assert str(c.dtype) == str(t.dtype), what
    np.testing.assert_allclose(as_np(c), as_np(t), *tol, err_msg=what)


def _forward_backward(lib, row, mod, x, train):
    mod.train(train)
    if row.seeded:
        lib.manual_seed(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = mod(x)
    out = out[0] if isinstance(out, tuple) else out
    if row.grad and out.requires_grad:
        rng = np.random.default_rng(99)
        cot = lib.tensor(rng.standard_normal(tuple(out.shape)).astype(row.dtype))
        (out * cot).sum().backward()
    return out


@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("row", ROWS, ids=repr)
def test_forward_backward(row, train):
    t_mod = build(torch, row.ctor, seed=1)
    c_mod = build(cinder, row.ctor, seed=2)
    state = {k: cinder.tensor(v.numpy()) for k, v in t_mod.state_dict().items()}
    c_mod.load_state_dict(state)
    for i, shape in enumerate(row.shapes):
        xt, xc = inputs_for(row, torch, shape, i), inputs_for(row, cinder, shape, i)
        yt = _forward_backward(torch, row, t_mod, xt, train)
        yc = _forward_backward(cinder, row, c_mod, xc, train)
        assert_close(yc, yt, row.tol, f"output {shape}")
        if row.grad and not row.index_input:
            assert (xc.grad is None) == (xt.grad is None)
            if xt.grad is not None:
                assert_close(xc.grad, xt.grad, row.tol, f"input grad {shape}")
        for (name, pc), (_, pt) in zip(c_mod.named_parameters(), t_mod.named_parameters()):
            if pt.grad is not None:
                assert_close(pc.grad, pt.grad, row.tol, f"grad of {name}")
        for (name, bc), (_, bt) in zip(c_mod.named_buffers(), t_mod.named_buffers()):
            assert_close(bc, bt, row.tol, f"buffer {name} after forward")
        for (name, pc), (_, pt) in zip(c_mod.state_dict().items(), t_mod.state_dict().items()):
            assert_close(pc, pt, row.tol, f"state {name} after forward")


@pytest.mark.parametrize("ctor,shape", LAZY_ROWS)
def test_lazy(ctor, shape):
    mods, outs = [], []
    for lib in (torch, cinder):
        mod = build(lib, ctor, seed=3)
        rng = np.random.default_rng(0)
        x = lib.tensor(rng.standard_normal(shape).astype("float32"))
        outs.append(mod(x))
        mods.append(mod)
    assert type(mods[1]).__name__ == type(mods[0]).__name__          # became the eager class
    assert repr(mods[1]) == repr(mods[0])
    for (name, c), (_, t) in zip(mods[1].state_dict().items(), mods[0].state_dict().items()):
        assert_close(c, t, (1e-6, 1e-7), name)        # running stats moved by the forward
    assert_close(outs[1], outs[0], (1e-5, 1e-5), "lazy output")


@pytest.mark.parametrize("expr", [
    "nn.Conv2d(3, 4, 3, groups=2)", "nn.Conv2d(4, 3, 3, groups=2)", "nn.Conv2d(4, 4, 3, groups=0)",
    "nn.Conv2d(4, 4, 3, padding='full')", "nn.Conv2d(4, 4, 3, stride=2, padding='same')",
    "nn.Conv2d(4, 4, 3, padding_mode='wrap')",
    "nn.ConvTranspose2d(4, 4, 3, padding_mode='reflect')",
    "nn.GroupNorm(3, 4)", "nn.Embedding(4, 2, padding_idx=4)",
])
def test_bad_construction(expr):
    raised = []
    for lib in (torch, cinder):
        with pytest.raises(Exception) as info:
            build(lib, expr)
        raised.append(info.value)
    assert type(raised[1]).__name__ == type(raised[0]).__name__
    assert _sorted_sets(str(raised[1])) == _sorted_sets(str(raised[0]))


def _sorted_sets(message):
    """A message that prints a Python set (``{'zeros', 'reflect', ...}``) with its items sorted:
    a set literal's order comes from the frozenset constant in each module's .pyc, compiled
    under its own hash seed, so PyTorch's own order changes from one installation to another."""
    return re.sub(r"\{([^{}]*)\}",
                  lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", message)


def test_conv_transpose_output_size():
    outs = []
    for lib in (torch, cinder):
        mod = build(lib, "nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)")
        x = lib.ones(1, 2, 4, 4)
        outs.append(mod(x, output_size=[8, 8]).detach().numpy())
        with pytest.raises(ValueError):
            mod(x, output_size=[10, 10])
    np.testing.assert_allclose(outs[1], outs[0], 1e-5, 1e-5)


def test_embedding_from_pretrained_and_unpool_module():
    w = np.arange(12.0).reshape(4, 3)
    reprs = []
    for lib in (torch, cinder):
        emb = lib.nn.Embedding.from_pretrained(lib.tensor(w), padding_idx=1)
        reprs.append((repr(emb), emb.weight.requires_grad,
                      emb(lib.tensor([[1, 3]])).numpy().tolist()))
        pool, unpool = lib.nn.MaxPool2d(2, return_indices=True), lib.nn.MaxUnpool2d(2)
        v, i = pool(lib.tensor(w.reshape(1, 1, 4, 3)[:, :, :, :2].copy()))
        reprs.append((repr(unpool), unpool(v, i).numpy().tolist()))
    assert reprs[2:] == reprs[:2]


def test_batchnorm_state_dict_version_and_old_checkpoint():
    for lib in (torch, cinder):
        bn = lib.nn.BatchNorm1d(2)
        assert bn.state_dict()._metadata[""]["version"] == 2
        state = {k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
        state = type(bn.state_dict())(state)
        state._metadata = {"": {"version": 1}}
        assert not bn.load_state_dict(state).missing_keys
