"""Layer modules (conv, pooling, norms, padding, upsampling, embedding, fold, pixel shuffle)
against PyTorch, one table row per module class.

For each row both libraries build the module after the same ``manual_seed``; then the runners
check: every initial parameter and buffer equal bit for bit, the same ``repr``, state_dict
keys and buffer names; the same outputs and gradients (input and every parameter) in train
and in eval mode, with the running statistics after the forward; and bad inputs raising the
same exception type.
"""

import warnings

import numpy as np
import pytest
import torch

import cinder


class Row:
    """One module under test: ``ctor`` is evaluated with ``nn`` bound to each library's
    ``torch.nn``; ``shapes`` are the input shapes (float inputs unless ``index_input``)."""

    def __init__(self, ctor, *shapes, index_input=None, bad=(), grad=True, dtype="float32",
                 tol=(1e-5, 1e-5), call=None):
        self.ctor, self.shapes, self.index_input = ctor, shapes, index_input
        self.bad, self.grad, self.dtype, self.tol, self.call = bad, grad, dtype, tol, call

    def __repr__(self):
        return self.ctor


ROWS = [
    Row("nn.Conv1d(3, 4, 3)", (2, 3, 9), bad=[(2, 5, 9)]),
    Row("nn.Conv2d(3, 6, 5)", (2, 3, 12, 12), (3, 12, 12), bad=[(2, 1, 12, 12), (12, 12)]),
    Row("nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=1, dilation=(1, 2), groups=2, "
        "bias=False)", (2, 4, 9, 8)),
    Row("nn.Conv2d(2, 3, 3, padding='same', padding_mode='reflect')", (1, 2, 6, 7)),
    Row("nn.Conv2d(2, 3, 3, padding=2, padding_mode='circular')", (1, 2, 6, 7)),
    Row("nn.Conv2d(2, 3, 3, padding=1, padding_mode='replicate')", (1, 2, 6, 7)),
    Row("nn.Conv3d(2, 3, 2, stride=2, padding=(1, 0, 1))", (1, 2, 4, 5, 4)),
    Row("nn.ConvTranspose1d(3, 2, 3, stride=2, output_padding=1)", (2, 3, 5)),
    Row("nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)",
        (2, 4, 4, 5)),
    Row("nn.ConvTranspose3d(2, 2, 2, stride=2, bias=False)", (1, 2, 2, 3, 2)),
    Row("nn.MaxPool1d(3, stride=2, padding=1)", (2, 3, 9)),
    Row("nn.MaxPool2d(2)", (2, 3, 8, 8), (3, 8, 8)),
    Row("nn.MaxPool2d(3, stride=2, ceil_mode=True, dilation=1)", (2, 3, 9, 8)),
    Row("nn.MaxPool3d(2, stride=1, padding=1)", (1, 2, 3, 4, 3)),
    Row("nn.AvgPool1d(3, stride=2, count_include_pad=False, padding=1)", (2, 3, 9)),
    Row("nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True)", (2, 3, 9, 8)),
    Row("nn.AvgPool3d(2, divisor_override=3)", (1, 2, 4, 4, 4)),
    Row("nn.LPPool1d(2, 3, stride=2)", (2, 3, 8)),
    Row("nn.LPPool2d(2, 2)", (2, 3, 8, 8)),
    Row("nn.AdaptiveAvgPool1d(4)", (2, 3, 9)),
    Row("nn.AdaptiveAvgPool2d((3, None))", (2, 3, 9, 7)),
    Row("nn.AdaptiveAvgPool3d(2)", (1, 2, 5, 4, 3)),
    Row("nn.AdaptiveMaxPool1d(4)", (2, 3, 9)),
    Row("nn.AdaptiveMaxPool2d(3, return_indices=True)", (2, 3, 9, 7)),
    Row("nn.AdaptiveMaxPool3d((2, 1, 2))", (1, 2, 5, 4, 3)),
    Row("nn.BatchNorm1d(3)", (4, 3), (4, 3, 5), bad=[(4, 3, 2, 2)]),
    Row("nn.BatchNorm2d(3, momentum=None)", (4, 3, 2, 2), bad=[(4, 3, 2)]),
    Row("nn.BatchNorm2d(3, affine=False, track_running_stats=False)", (4, 3, 2, 2)),
    Row("nn.BatchNorm3d(2, eps=1e-3, momentum=0.2)", (2, 2, 3, 2, 2)),
    Row("nn.SyncBatchNorm(3)", (4, 3, 5)),
    Row("nn.InstanceNorm1d(3)", (2, 3, 6)),
    Row("nn.InstanceNorm2d(3, affine=True, track_running_stats=True)", (2, 3, 4, 5),
        (3, 4, 5)),
    Row("nn.InstanceNorm3d(2, affine=True)", (2, 2, 3, 3, 3), bad=[(2, 5, 3, 3, 3)]),
    Row("nn.LayerNorm(6)", (2, 3, 6), bad=[(2, 3, 5)]),
    Row("nn.LayerNorm([3, 6], elementwise_affine=False)", (2, 3, 6)),
    Row("nn.LayerNorm(6, bias=False)", (2, 6)),
    Row("nn.GroupNorm(2, 4)", (2, 4, 5), bad=[(2, 6, 5)]),
    Row("nn.GroupNorm(1, 4, affine=False)", (2, 4, 3, 3)),
    Row("nn.RMSNorm(6)", (2, 3, 6)),
    Row("nn.RMSNorm([3, 6], eps=1e-3, elementwise_affine=False)", (2, 3, 6)),
    Row("nn.LocalResponseNorm(3)", (2, 5, 4, 4)),
    Row("nn.CrossMapLRN2d(3, alpha=1e-3)", (2, 5, 4, 4), grad=False),
    Row("nn.ReflectionPad1d(2)", (2, 3, 5)),
    Row("nn.ReflectionPad2d((1, 2, 0, 1))", (2, 3, 4, 5)),
    Row("nn.ReflectionPad3d(1)", (1, 2, 3, 3, 3)),
    Row("nn.ReplicationPad1d((3, 1))", (2, 3, 5)),
    Row("nn.ReplicationPad2d(2)", (2, 3, 4, 5)),
    Row("nn.ReplicationPad3d((1, 0, 2, 1, 0, 1))", (1, 2, 3, 3, 3)),
    Row("nn.CircularPad1d(2)", (2, 3, 5)),
    Row("nn.CircularPad2d((1, 2, 0, 1))", (2, 3, 4, 5), bad=[(4, 5)]),
    Row("nn.CircularPad3d(1)", (1, 2, 3, 3, 3)),
    Row("nn.ConstantPad1d(2, 3.5)", (2, 3, 5)),
    Row("nn.ConstantPad2d((1, 0, 2, 1), -1.0)", (2, 3, 4, 5)),
    Row("nn.ConstantPad3d(1, 0.5)", (1, 2, 3, 3, 3)),
    Row("nn.ZeroPad1d(1)", (2, 3, 5)),
    Row("nn.ZeroPad2d((1, 1, 2, 0))", (2, 3, 4, 5)),
    Row("nn.ZeroPad3d(1)", (1, 2, 3, 3, 3)),
    Row("nn.Upsample(scale_factor=2, mode='nearest')", (2, 3, 4, 5)),
    Row("nn.Upsample(size=(5, 7), mode='bilinear', align_corners=True)", (2, 3, 4, 5)),
    Row("nn.Upsample(scale_factor=1.5, mode='bicubic')", (2, 3, 4, 5)),
    Row("nn.Upsample(scale_factor=(2, 1, 2), mode='trilinear')", (1, 2, 2, 3, 2)),
    Row("nn.UpsamplingNearest2d(scale_factor=3)", (1, 2, 3, 2)),
    Row("nn.UpsamplingBilinear2d(size=(4, 6))", (1, 2, 3, 2)),
    Row("nn.PixelShuffle(2)", (2, 8, 3, 4), bad=[(2, 6, 3, 4)]),
    Row("nn.PixelUnshuffle(2)", (2, 2, 4, 6)),
    Row("nn.Fold(output_size=(4, 5), kernel_size=2)", (2, 12, 12)),
    Row("nn.Unfold(kernel_size=(2, 3), padding=1, stride=2)", (2, 3, 5, 6)),
    Row("nn.Embedding(10, 4)", (2, 5), index_input=10),
    Row("nn.Embedding(10, 4, padding_idx=0, max_norm=1.0)", (3, 4), index_input=10),
    Row("nn.Embedding(10, 4, padding_idx=-2, scale_grad_by_freq=True)", (7,),
        index_input=10),
    Row("nn.EmbeddingBag(10, 3)", (2, 4), index_input=10),
    Row("nn.EmbeddingBag(10, 3, mode='max')", (3, 2), index_input=10),
    Row("nn.EmbeddingBag(10, 3, mode='sum', padding_idx=1)", (4, 3), index_input=10),
]

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


@pytest.mark.parametrize("row", ROWS, ids=repr)
def test_construction(row):
    c_mod, t_mod = build(cinder, row.ctor), build(torch, row.ctor)
    assert repr(c_mod) == repr(t_mod)
    assert list(c_mod.state_dict()) == list(t_mod.state_dict())
    assert [n for n, _ in c_mod.named_buffers()] == [n for n, _ in t_mod.named_buffers()]
    for (name, c), (_, t) in zip(c_mod.state_dict().items(), t_mod.state_dict().items()):
        assert str(c.dtype) == str(t.dtype), name
        np.testing.assert_array_equal(as_np(c), as_np(t), err_msg=name)     # bit for bit


def _forward_backward(lib, row, mod, x, train):
    mod.train(train)
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


@pytest.mark.parametrize("row", [r for r in ROWS if r.bad], ids=repr)
def test_bad_input(row):
    for shape in row.bad:
        raised = []
        for lib in (torch, cinder):
            mod = build(lib, row.ctor)
            x = lib.zeros(shape)
            with pytest.raises(Exception) as info:
                mod(x)
            raised.append(info.value)
        assert type(raised[1]).__name__ == type(raised[0]).__name__, raised


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
    assert str(raised[1]) == str(raised[0])


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
