"""Result layouts against PyTorch: ops given channels-last, permuted, transposed, sliced and
expanded inputs must return results with PyTorch's strides (and values), and leaves' gradients
with PyTorch's strides too.

Two sweeps: a table of op calls run on each input layout (``CASES``), and the whole op
database (``tests/op_db``) run with every tensor argument transposed or made channels-last
(``test_op_db_layouts``), where the ops PyTorch lays out differently and cinder does not yet
are listed with the reason (``OP_DB_DIFFERENT``).
"""

import warnings

import numpy as np
import pytest
import torch
from op_db import build, nn_functional, nn_torch
from test_ops import ENTRIES, tensors_of

import cinder

# ----------------------------------------------------------------------------------------------
# Inputs: one seeded array per shape, laid out in each library the same way
# ----------------------------------------------------------------------------------------------

SHAPES = {4: (2, 3, 4, 5), 5: (2, 3, 3, 4, 5), 3: (3, 4, 5)}


def _array(ndim):
    rng = np.random.default_rng(ndim)
    return rng.standard_normal(SHAPES[ndim]).astype(np.float32)


# name -> (ndim, how to lay out a row-major tensor of that rank)
LAYOUTS = {
    "cl": (4, lambda L, t: t.contiguous(memory_format=L.channels_last)),
    "cl3d": (5, lambda L, t: t.contiguous(memory_format=L.channels_last_3d)),
    "perm": (4, lambda L, t: t.permute(0, 3, 1, 2).contiguous().permute(0, 2, 3, 1)),
    "T": (4, lambda L, t: t.transpose(1, 3).contiguous().transpose(1, 3)),
    "mT": (3, lambda L, t: t.mT.contiguous().mT),
    "sliced": (4, lambda L, t: L.cat([t, t], -1)[..., ::2]),
    "expand": (4, lambda L, t: t[:1].expand(t.shape)),
}


def make_input(lib, layout, requires_grad=False):
    ndim, lay = LAYOUTS[layout]
    x = lay(lib, lib.from_numpy(_array(ndim)))
    if requires_grad:
        x = x.detach().requires_grad_()
    return x


# ----------------------------------------------------------------------------------------------
# The op table: name -> (call(L, x), layouts, whether gradients are compared)
# ----------------------------------------------------------------------------------------------

ALL4 = ("cl", "perm", "T", "sliced", "expand")
ANY = ALL4 + ("cl3d", "mT")


def _f(L):
    return L.nn.functional


def _w(L, out_channels, in_channels, nd):
    """A seeded (out, in, 3, ...) convolution weight with ``nd`` spatial dims."""
    shape = (out_channels, in_channels) + (3,) * nd if nd > 1 else (out_channels, in_channels, 2)
    arr = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    return L.from_numpy(arr)


OPS = {
    # pointwise (TensorIterator's layout)
    "neg": (lambda L, x: -x, ANY, True),
    "exp": (lambda L, x: x.exp(), ANY, True),
    "add_scalar": (lambda L, x: x + 2, ANY, True),
    "mul_row_major_second": (lambda L, x: x * x.contiguous(), ANY, True),
    "mul_row_major_first": (lambda L, x: x.contiguous() * x, ANY, True),
    "add_broadcast": (lambda L, x: x + x[:1], ANY, True),
    "sub_broadcast_first": (lambda L, x: x[:1] - x, ANY, True),
    "where": (lambda L, x: L.where(x > 0, x, 0.0), ANY, True),
    "where_row_major_condition": (lambda L, x: L.where(x.contiguous() > 0, x, x.contiguous()),
                                  ANY, True),
    "where_row_major_other": (lambda L, x: L.where(x > 0, x.contiguous() * 2, x), ANY, True),
    "lerp": (lambda L, x: L.lerp(x, x.contiguous() * 2, 0.3), ANY, True),
    "lerp_row_major_first": (lambda L, x: L.lerp(x.contiguous(), x * 2, x.sigmoid()), ANY,
                             True),
    "clamp_tensor": (lambda L, x: x.clamp(x.contiguous() - 0.5, x.contiguous() + 0.1), ANY,
                     True),
    "addcdiv_row_major_first": (lambda L, x: L.addcdiv(x.contiguous(), x, x.exp()), ANY, True),
    "pow_scalar_base": (lambda L, x: L.pow(2.0, x), ANY, True),
    "eq_row_major_second": (lambda L, x: x == x.contiguous().round(), ANY, False),
    "logical_and": (lambda L, x: L.logical_and(x > 0, x.contiguous() < 1), ANY, False),
    "complex": (lambda L, x: L.complex(x, x.contiguous()), ANY, False),
    "polar": (lambda L, x: L.polar(x.contiguous().abs(), x), ANY, False),
    "cdist": (lambda L, x: L.cdist(x, x), ANY, True),
    "mse_none": (lambda L, x: _f(L).mse_loss(x, x.contiguous() * 2, reduction="none"), ANY,
                 True),
    "huber_none_row_major_input": (lambda L, x: _f(L).huber_loss(
        x.contiguous(), x * 2, reduction="none"), ANY, True),
    "bce_logits_none": (lambda L, x: _f(L).binary_cross_entropy_with_logits(
        x, x.contiguous().sigmoid(), reduction="none"), ANY, True),
    "bce_logits_none_target": (lambda L, x: _f(L).binary_cross_entropy_with_logits(
        x.contiguous(), x.sigmoid(), reduction="none"), ANY, True),
    "index_fill": (lambda L, x: x.index_fill(1, L.tensor([0, 2]), -1.0), ANY, True),
    "put": (lambda L, x: x.put(L.tensor([1, 7]), L.tensor([-1.0, -2.0])), ANY, True),
    "select_scatter": (lambda L, x: x.select_scatter(x[:, 0] * 0, 1, 0), ANY, True),
    "slice_scatter": (lambda L, x: x.slice_scatter(x[:, :1] * 2, 1, 1, 2), ANY, True),
    "diagonal_scatter": (lambda L, x: x.diagonal_scatter(x.diagonal(0, 1, 2) + 1, 0, 1, 2),
                         ANY, True),
    "clamp": (lambda L, x: x.clamp(-0.5, 0.5), ANY, True),
    "to_double": (lambda L, x: x.double(), ANY, True),
    "relu": (lambda L, x: _f(L).relu(x), ANY, True),
    "gelu": (lambda L, x: _f(L).gelu(x), ANY, True),
    # reductions (row-major results)
    "sum_keepdim": (lambda L, x: x.sum(1, keepdim=True), ANY, True),
    "sum": (lambda L, x: x.sum(1), ANY, True),
    "mean_last2": (lambda L, x: x.mean((-2, -1), keepdim=True), ANY, True),
    "amax": (lambda L, x: x.amax(1, keepdim=True), ANY, True),
    "max_dim": (lambda L, x: x.max(1, keepdim=True), ANY, True),
    "var": (lambda L, x: x.var(-1, keepdim=True), ANY, True),
    "std_mean": (lambda L, x: L.std_mean(x, 0, keepdim=True), ANY, True),
    "logsumexp": (lambda L, x: x.logsumexp(1, keepdim=True), ANY, True),
    "norm": (lambda L, x: x.norm(dim=1, keepdim=True), ANY, True),
    "softmax": (lambda L, x: x.softmax(1), ANY, True),
    "cumsum": (lambda L, x: x.cumsum(-1), ANY, True),
    "quantile_tensor_q": (lambda L, x: x.quantile(L.tensor([0.2, 0.7, 0.9]), dim=1), ANY, True),
    "quantile_keepdim": (lambda L, x: x.nanquantile(L.tensor([0.5]), dim=-1, keepdim=True),
                         ANY, True),
    "quantile_scalar_q": (lambda L, x: x.quantile(0.3, dim=2), ANY, True),
    # sorting (written into an empty_like of the input: preserve_format)
    "sort": (lambda L, x: x.sort(1), ANY, True),
    "argsort_last": (lambda L, x: x.argsort(-1), ANY, False),
    "topk_first": (lambda L, x: x.topk(1, 0), ANY, True),
    # joining and shape
    "stack0": (lambda L, x: L.stack([x, x]), ANY, True),
    "stack1": (lambda L, x: L.stack([x, x], 1), ANY, True),
    "stack_last": (lambda L, x: L.stack([x, x], -1), ANY, True),
    "stack_mixed": (lambda L, x: L.stack([x, x.contiguous()], 1), ANY, True),
    "cat": (lambda L, x: L.cat([x, x], 1), ANY, True),
    "roll_dims": (lambda L, x: x.roll(1, 1), ANY, True),
    "roll_two_dims": (lambda L, x: x.roll((1, -1), (1, 2)), ANY, True),
    "roll_flat": (lambda L, x: x.roll(3), ANY, True),
    "flip": (lambda L, x: x.flip(1), ANY, True),
    "clone": (lambda L, x: x.clone(), ANY, True),
    "unsqueeze_last": (lambda L, x: x.unsqueeze(-1), ANY, True),
    "unsqueeze_middle": (lambda L, x: x[:, :1].unsqueeze(2), ANY, True),
    "repeat": (lambda L, x: x.repeat(*[1] * x.dim()), ANY, True),
    "rot90": (lambda L, x: x.rot90(1, (1, 2)), ANY, True),
    "rot90_twice": (lambda L, x: x.rot90(2, (1, -1)), ANY, True),
    "rot90_row_major": (lambda L, x: x.contiguous().rot90(3, (0, 1)), ANY, True),
    "rot90_none": (lambda L, x: x.rot90(4, (0, 1)), ANY, True),
    "take": (lambda L, x: x.take(L.tensor([[0, 5], [7, 2]]).t()), ANY, True),
    "cross": (lambda L, x: L.linalg.cross(x[:, :3], x.contiguous()[:, :3], dim=1), ANY, True),
    "renorm": (lambda L, x: x.renorm(2, 1, 1.0), ANY, True),
    "mvlgamma": (lambda L, x: (x.abs() + 2).mvlgamma(2), ANY, True),
    "native_dropout_eval": (lambda L, x: L.native_dropout(x, 0.3, False), ANY, False),
    "native_dropout_train": (lambda L, x: L.native_dropout(x, 0.3, True), ANY, False),
    "tensor_copy": (lambda L, x: L.tensor(x.detach()), ANY, False),
    "nll_loss_none": (lambda L, x: _f(L).cross_entropy(
        x, L.zeros((x.shape[0],) + tuple(x.shape[2:]), dtype=L.long), reduction="none"), ANY,
        True),
    # copy-then-modify ops (clones with preserve_format)
    "index_put": (lambda L, x: x.index_put((L.tensor([0]),), L.tensor(1.0)), ANY, True),
    "index_put_acc": (lambda L, x: x.index_put((L.tensor([1, 1]),), x[:1] * 0 + 2,
                                               accumulate=True), ANY, True),
    "masked_fill": (lambda L, x: x.masked_fill(x > 0, 1.0), ANY, True),
    # advanced indexing (one TensorIterator over the input and the indices)
    "getitem_index": (lambda L, x: x[:, L.tensor([0, 2])], ANY, True),
    "getitem_last": (lambda L, x: x[..., L.tensor([1, 0, 1])], ANY, True),
    "getitem_mask": (lambda L, x: x[:, L.arange(x.shape[1]) % 2 == 0], ANY, True),
    "getitem_two_adjacent": (lambda L, x: x[:, L.tensor([0, 1]), L.tensor([1, 2])], ANY, True),
    "getitem_split": (lambda L, x: x[L.tensor([0, 1]), :, L.tensor([1, 2])], ANY, True),
    "getitem_2d_index": (lambda L, x: x[:, L.tensor([[0, 1], [2, 1]]).t()], ANY, True),
    "getitem_2d_index_row_major": (lambda L, x: x.contiguous()[:, L.tensor([[0, 1, 2],
                                                                              [2, 1, 0]]).t()],
                                   ANY, True),
    "index_select": (lambda L, x: x.index_select(1, L.tensor([2, 0])), ANY, True),
    # norms
    "layer_norm": (lambda L, x: _f(L).layer_norm(x, x.shape[-1:]), ANY, True),
    "native_layer_norm": (lambda L, x: L.native_layer_norm(
        x, x.shape[-2:], L.ones(x.shape[-2:]), L.zeros(x.shape[-2:]), 1e-5), ANY, True),
    "group_norm": (lambda L, x: _f(L).group_norm(x, 3 if x.dim() > 3 else 1), ANY, True),
    "batch_norm": (lambda L, x: _f(L).batch_norm(x, None, None, training=True), ANY, True),
    "batch_norm_eval": (lambda L, x: _f(L).batch_norm(
        x, L.zeros(x.shape[1]), L.ones(x.shape[1])), ANY, True),
    "instance_norm": (lambda L, x: _f(L).instance_norm(x), ANY, True),
    # convolution, pooling, padding, resampling: the input's (or weight's) channels-last
    "conv2d": (lambda L, x: _f(L).conv2d(x, _w(L, 4, x.shape[1], 2), padding=1), ALL4, True),
    "conv2d_cl_weight": (lambda L, x: _f(L).conv2d(
        x.contiguous(), _w(L, 4, x.shape[1], 2).contiguous(memory_format=L.channels_last)),
        ALL4, True),
    "conv3d": (lambda L, x: _f(L).conv3d(x, _w(L, 2, x.shape[1], 3), stride=2), ("cl3d",), True),
    "conv3d_double": (lambda L, x: _f(L).conv3d(x.double(), _w(L, 2, x.shape[1], 3).double()),
                      ("cl3d",), True),
    "conv_transpose2d": (lambda L, x: _f(L).conv_transpose2d(x, _w(L, x.shape[1], 2, 2)), ALL4,
                         True),
    "conv1d": (lambda L, x: _f(L).conv1d(x, _w(L, 2, x.shape[1], 1)), ("mT",), True),
    "max_pool2d": (lambda L, x: _f(L).max_pool2d(x, 2, return_indices=True), ALL4, True),
    "max_pool3d": (lambda L, x: _f(L).max_pool3d(x, 2, return_indices=True), ("cl3d",), True),
    "avg_pool2d": (lambda L, x: _f(L).avg_pool2d(x, 2), ALL4, True),
    "avg_pool3d": (lambda L, x: _f(L).avg_pool3d(x, 2), ("cl3d",), True),
    "adaptive_avg_pool2d": (lambda L, x: _f(L).adaptive_avg_pool2d(x, (3, 2)), ALL4, True),
    "adaptive_avg_pool3d": (lambda L, x: _f(L).adaptive_avg_pool3d(x, 2), ("cl3d",), True),
    "adaptive_max_pool2d": (lambda L, x: _f(L).adaptive_max_pool2d(x, 3, True), ALL4, True),
    "adaptive_max_pool3d": (lambda L, x: _f(L).adaptive_max_pool3d(x, 2), ("cl3d",), True),
    "max_pool2d_unbatched": (lambda L, x: _f(L).max_pool2d(x, 2), ("mT",), True),
    "pad_constant": (lambda L, x: _f(L).pad(x, (1, 2)), ANY, True),
    "pad_reflect": (lambda L, x: _f(L).pad(x, (1, 1, 2, 1), mode="reflect"), ALL4 + ("mT",),
                    True),
    "pad_replicate": (lambda L, x: _f(L).pad(x, (1, 1, 1, 1, 1, 1), mode="replicate"),
                      ("cl3d",), True),
    "pad_circular": (lambda L, x: _f(L).pad(x, (1, 1, 1, 1), mode="circular"), ALL4, True),
    "interpolate_nearest": (lambda L, x: _f(L).interpolate(x, scale_factor=2), ANY, True),
    "interpolate_bilinear": (lambda L, x: _f(L).interpolate(x, (5, 7), mode="bilinear"), ALL4,
                             True),
    "interpolate_trilinear": (lambda L, x: _f(L).interpolate(x, scale_factor=2,
                                                             mode="trilinear"), ("cl3d",), True),
    "pixel_shuffle": (lambda L, x: _f(L).pixel_shuffle(x[:, :2].repeat(1, 2, 1, 1), 2), ALL4,
                      True),
    "pixel_unshuffle": (lambda L, x: _f(L).pixel_unshuffle(x[..., :4], 2), ALL4, True),
    "channel_shuffle": (lambda L, x: _f(L).channel_shuffle(x.repeat(1, 2, 1, 1), 2), ALL4, True),
    "dropout": (lambda L, x: _f(L).dropout(x, 0.5), ANY, True),
    "dropout2d": (lambda L, x: _f(L).dropout2d(x, 0.5), ALL4, True),
    # random *_like: the input's layout, drawn in memory order
    "rand_like": (lambda L, x: L.rand_like(x), ANY, False),
    "randn_like": (lambda L, x: L.randn_like(x), ANY, False),
    "randint_like": (lambda L, x: L.randint_like(x, 2, 9), ANY, False),
    "rand_like_contiguous": (lambda L, x: L.rand_like(x, memory_format=L.contiguous_format),
                             ANY, False),
    "zeros_like": (lambda L, x: L.zeros_like(x), ANY, False),
    "full_like_double": (lambda L, x: L.full_like(x, 2, dtype=L.float64), ANY, False),
    "empty_like_strides": (lambda L, x: L.empty_like(x).fill_(1), ANY, False),
}

def _cases():
    return [pytest.param(name, layout, id=f"{name}-{layout}")
            for name, (_, layouts, _) in OPS.items() for layout in layouts]


def _run(lib, name, layout):
    """(results, leaf) of the op on a fresh input; the leaf's ``.grad`` is filled when the op
    is differentiable (a weighted sum, so every gradient element differs)."""
    call, _, grad = OPS[name]
    lib.manual_seed(0)
    x = make_input(lib, layout, requires_grad=grad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = tensors_of(call(lib, x), lib)
    if grad:
        loss = 0
        for r in res:
            if r.requires_grad:
                w = lib.from_numpy(np.linspace(-1, 1, r.numel()).astype(np.float32))
                loss = loss + (r.to(lib.float32) * w.reshape(r.shape)).sum()
        loss.backward()
    return res, x


@pytest.mark.parametrize("name,layout", _cases())
def test_layout_matches_torch(name, layout):
    t_res, t_x = _run(torch, name, layout)
    c_res, c_x = _run(cinder, name, layout)
    assert len(c_res) == len(t_res)
    for i, (c, t) in enumerate(zip(c_res, t_res)):
        assert tuple(c.shape) == tuple(t.shape), f"output {i}"
        assert c.stride() == t.stride(), f"output {i}: strides {c.stride()} != {t.stride()}"
        np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=1e-4,
                                   atol=1e-5, err_msg=f"output {i}")
    assert (c_x.grad is None) == (t_x.grad is None)
    if t_x.grad is not None:
        assert c_x.grad.stride() == t_x.grad.stride(), \
            f"grad strides {c_x.grad.stride()} != {t_x.grad.stride()}"
        np.testing.assert_allclose(c_x.grad.numpy(), t_x.grad.numpy(), rtol=1e-4, atol=1e-5)


# ----------------------------------------------------------------------------------------------
# The op database with transposed / channels-last arguments
# ----------------------------------------------------------------------------------------------

DB_MODES = {
    # every tensor of 2+ dims with its last two dims stored swapped
    "T": (2, lambda L, v: v.mT.contiguous().mT),
    # every tensor of 3+ dims stored with its dims reversed (Fortran order)
    "F": (3, lambda L, v: v.permute(*range(v.dim() - 1, -1, -1)).contiguous()
          .permute(*range(v.dim() - 1, -1, -1))),
    # every tensor with a gap after each element of its last dim (not dense)
    "S": (1, lambda L, v: L.stack([v, v], -1)[..., 0]),
    # every 4-d / 5-d tensor channels-last
    "cl": (4, lambda L, v: v.contiguous(memory_format=L.channels_last if v.dim() == 4
                                        else L.channels_last_3d)),
}


# op name -> why its layout still differs from PyTorch's on such inputs
OP_DB_DIFFERENT = {}      # (none left: every op lays these inputs out as PyTorch does)


def _relayout(lib, v, mode):
    low, lay = DB_MODES[mode]
    if isinstance(v, lib.Tensor):
        if v.dim() >= low and v.numel() and (mode != "cl" or v.dim() in (4, 5)):
            return lay(lib, v), True
        return v, False
    if isinstance(v, (list, tuple)):
        pairs = [_relayout(lib, x, mode) for x in v]
        return type(v)(p[0] for p in pairs), any(p[1] for p in pairs)
    if isinstance(v, dict):
        pairs = {k: _relayout(lib, x, mode) for k, x in v.items()}
        return {k: p[0] for k, p in pairs.items()}, any(p[1] for p in pairs.values())
    return v, False


def _db_strides(lib, entry, sample, mode):
    """The strides of every tensor the entry's call returns on relaid-out arguments; None when
    no argument changed layout or PyTorch raises."""
    args, kwargs, _ = build(lib, sample)
    args, moved_a = _relayout(lib, args, mode)
    kwargs, moved_k = _relayout(lib, kwargs, mode)
    if not (moved_a or moved_k):
        return None
    lib.manual_seed(0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = entry.call(lib, *args, **kwargs)
    except Exception:  # noqa: BLE001 - errors are compared by the op runners, not here
        return "raises"
    return [tuple(t.stride()) for t in tensors_of(out, lib)]


DB_ENTRIES = list(ENTRIES) + list(nn_functional.ENTRIES) + list(nn_torch.ENTRIES)


@pytest.mark.parametrize("mode", list(DB_MODES))
def test_op_db_layouts(mode):
    """Every op-database sample, with its tensors relaid out, gives PyTorch's strides (float32
    samples; ops listed in ``OP_DB_DIFFERENT`` are checked to differ in the test after)."""
    wrong = {}
    for entry in DB_ENTRIES:
        if entry.name in OP_DB_DIFFERENT:
            continue
        dtype = "float32" if "float32" in entry.dtypes else entry.dtypes[0]
        for sample in entry.sample_list(dtype):
            t = _db_strides(torch, entry, sample, mode)
            if t is None or t == "raises":
                continue
            c = _db_strides(cinder, entry, sample, mode)
            if c != t:
                wrong.setdefault(entry.name, (repr(sample), t, c))
    assert not wrong, "\n".join(f"{k}: {v}" for k, v in wrong.items())


def test_listed_differences_still_differ():
    """Every op in ``OP_DB_DIFFERENT`` still lays some sample out differently from PyTorch in
    some mode: one that comes to match fails here, to be taken off the list."""
    still = set()
    for entry in DB_ENTRIES:
        if entry.name not in OP_DB_DIFFERENT or entry.name in still:
            continue
        dtype = "float32" if "float32" in entry.dtypes else entry.dtypes[0]
        for mode in DB_MODES:
            for sample in entry.sample_list(dtype):
                t = _db_strides(torch, entry, sample, mode)
                if t is not None and t != "raises" and \
                        _db_strides(cinder, entry, sample, mode) != t:
                    still.add(entry.name)
                    break
            if entry.name in still:
                break
    assert still == set(OP_DB_DIFFERENT)


def _small_net(L):
    """Conv -> BatchNorm -> ReLU -> MaxPool -> Conv -> mean: a channels-last model's path."""
    L.manual_seed(0)
    nn = L.nn
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(4, 2, 3, bias=False))


@pytest.mark.parametrize("model_format", ["channels_last", "contiguous_format"])
def test_channels_last_model_matches_torch(model_format):
    """A model moved to channels_last (or not) fed a channels-last batch: the output's and
    every parameter gradient's strides and values are PyTorch's."""
    outs = {}
    for lib in (torch, cinder):
        net = _small_net(lib).to(memory_format=getattr(lib, model_format))
        x = lib.from_numpy(_array(4)).repeat(1, 1, 2, 2).contiguous(
            memory_format=lib.channels_last).requires_grad_()
        y = net(x)
        w = lib.from_numpy(np.linspace(-1, 1, y.numel()).astype(np.float32)).reshape(y.shape)
        (y * w).sum().backward()
        outs[lib.__name__] = [y, x.grad] + [p.grad for p in net.parameters()]
    for i, (c, t) in enumerate(zip(outs["cinder"], outs["torch"])):
        assert c.stride() == t.stride(), f"tensor {i}: strides {c.stride()} != {t.stride()}"
        np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=1e-4, atol=1e-4,
                                   err_msg=f"tensor {i}")


# ----------------------------------------------------------------------------------------------
# FFTs: PyTorch's CPU transform lays its result out from the input's strides (batch dims
# outside, transformed dims inside, each group in the input's stride order)
# ----------------------------------------------------------------------------------------------

def _real(x):
    return x.real if x.is_complex() else x


FFTS = {
    "fft": lambda F, x: F.fft(x, dim=1), "fft_padded": lambda F, x: F.fft(x, n=5, dim=0),
    "ifft_cropped": lambda F, x: F.ifft(x, n=3, dim=-1), "fft2": lambda F, x: F.fft2(x),
    "fftn_dims": lambda F, x: F.fftn(x, dim=(3, 1)), "ifftn": lambda F, x: F.ifftn(x, dim=(0, 2)),
    "rfft": lambda F, x: F.rfft(_real(x), dim=2), "rfftn": lambda F, x: F.rfftn(_real(x)),
    "rfft2": lambda F, x: F.rfft2(_real(x), dim=(0, 3)), "irfft": lambda F, x: F.irfft(x, dim=1),
    "irfftn": lambda F, x: F.irfftn(x), "irfft2": lambda F, x: F.irfft2(x, dim=(2, 0)),
    "hfft": lambda F, x: F.hfft(x, dim=0), "hfftn": lambda F, x: F.hfftn(x, dim=(1, 3)),
    "ihfft": lambda F, x: F.ihfft(_real(x), dim=3), "ihfftn": lambda F, x: F.ihfftn(_real(x)),
    "ihfft2": lambda F, x: F.ihfft2(_real(x), dim=(1, 0)),
}
PERMS = [(0, 1, 2, 3), (0, 2, 3, 1), (3, 2, 1, 0), (1, 3, 0, 2), (2, 0, 3, 1)]


@pytest.mark.parametrize("name", list(FFTS))
def test_fft_layouts_match_torch(name):
    base = _array(4)
    for arr in (base, (base + 1j * base[::-1]).astype(np.complex64)):
        for perm in PERMS:
            inverse = [int(i) for i in np.argsort(perm)]
            got = {}
            for lib in (torch, cinder):
                x = lib.from_numpy(arr.copy()).permute(*perm).contiguous().permute(*inverse)
                got[lib.__name__] = FFTS[name](lib.fft, x)
            c, t = got["cinder"], got["torch"]
            assert c.stride() == t.stride(), (perm, arr.dtype, c.stride(), t.stride())
            np.testing.assert_allclose(c.resolve_conj().numpy(), t.resolve_conj().numpy(),
                                       rtol=1e-4, atol=1e-4)


# ----------------------------------------------------------------------------------------------
# LAPACK-backed results: PyTorch returns batches of column-major matrices, whatever the input
# ----------------------------------------------------------------------------------------------

def _spd(lib, transposed):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 4, 4)).astype(np.float64)
    a = a @ a.transpose(0, 2, 1) + 4 * np.eye(4)
    t = lib.from_numpy(a)
    return t.mT.contiguous().mT if transposed else t


def _rhs(lib, transposed):
    t = lib.from_numpy(np.random.default_rng(4).standard_normal((2, 4, 3)))
    return t.mT.contiguous().mT if transposed else t


LAPACK = {
    "inv": lambda L, a, b: L.linalg.inv(a), "solve": lambda L, a, b: L.linalg.solve(a, b),
    "solve_vector": lambda L, a, b: L.linalg.solve(a, b[..., 0]),
    "solve_right": lambda L, a, b: L.linalg.solve(a, b.mT, left=False),
    "cholesky": lambda L, a, b: L.linalg.cholesky(a, upper=True),
    "qr": lambda L, a, b: L.linalg.qr(a), "svd": lambda L, a, b: L.linalg.svd(a),
    "eigh": lambda L, a, b: L.linalg.eigh(a), "eig": lambda L, a, b: L.linalg.eig(a),
    "lu_factor": lambda L, a, b: L.linalg.lu_factor(a),
    "lu_solve": lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b),
    "solve_triangular": lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True),
    "cholesky_solve": lambda L, a, b: L.cholesky_solve(b, L.linalg.cholesky(a)),
    "cholesky_inverse": lambda L, a, b: L.cholesky_inverse(L.linalg.cholesky(a)),
    "ldl": lambda L, a, b: L.linalg.ldl_solve(*L.linalg.ldl_factor(a), b),
    "matrix_exp": lambda L, a, b: L.linalg.matrix_exp(a * 0.1),
    "lstsq": lambda L, a, b: L.linalg.lstsq(a, b).solution,
    "lu_solve_right": lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b.mT,
                                                         left=False),
    "lu_solve_adjoint": lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b,
                                                           adjoint=True),
    "lu_solve_right_adjoint": lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b.mT,
                                                                 left=False, adjoint=True),
    "triangular_solve": lambda L, a, b: L.triangular_solve(b, a, upper=False, transpose=True),
    "householder_product": lambda L, a, b: L.linalg.householder_product(a, b[:, :, 0]),
    "householder_product_tall": lambda L, a, b: L.linalg.householder_product(
        a[..., :2], b[:, :2, 0]),
}


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("name", list(LAPACK))
def test_lapack_layouts_match_torch(name, transposed):
    got = {}
    for lib in (torch, cinder):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")      # (torch.triangular_solve is deprecated)
            got[lib.__name__] = tensors_of(LAPACK[name](lib, _spd(lib, transposed),
                                                        _rhs(lib, transposed)), lib)
    assert len(got["cinder"]) == len(got["torch"])
    for i, (c, t) in enumerate(zip(got["cinder"], got["torch"])):
        assert c.stride() == t.stride(), f"output {i}: {c.stride()} != {t.stride()}"
        if name not in ("eigh", "eig", "svd"):    # (singular/eigenvectors: up to a sign)
            np.testing.assert_allclose(c.numpy(), t.numpy(), rtol=1e-6, atol=1e-6,
                                       err_msg=f"output {i}")


# ----------------------------------------------------------------------------------------------
# Copies and self-results: view_copy's reshape fallback, conj_physical of a real tensor, the
# GRU cell's hidden state
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 6), (-1,), (3, 2, 4), (2, 12)])
def test_view_copy_of_unviewable_input_matches_torch(shape):
    """Where ``view`` refuses the input's strides, ``view_copy`` copies as ``reshape`` would:
    values, row-major strides, the node's name and the gradient are PyTorch's."""
    got = {}
    for lib in (torch, cinder):
        x = lib.from_numpy(_array(3)[:2].copy()).mT.requires_grad_()     # (2, 5, 4) transposed
        x = x[:, :3]                                                     # (2, 3, 4), unviewable
        y = lib.view_copy(x, shape)
        w = lib.from_numpy(np.linspace(-1, 1, y.numel()).astype(np.float32)).reshape(y.shape)
        (y * w).sum().backward()
        got[lib.__name__] = y, type(y.grad_fn).__name__, y._base is None
    (c, c_node, c_fresh), (t, t_node, t_fresh) = got["cinder"], got["torch"]
    assert c.stride() == t.stride() and (c_node, c_fresh) == (t_node, t_fresh)
    np.testing.assert_array_equal(c.detach().numpy(), t.detach().numpy())


def test_view_copy_refusals_match_torch():
    """A size that does not fit the element count, and a dtype of another width on a
    transposed tensor, are still refused with PyTorch's exception types."""
    for call in (lambda L, x: L.view_copy(x, (5, 5)), lambda L, x: L.view_copy(x, L.float64)):
        errors = []
        for lib in (torch, cinder):
            x = lib.from_numpy(_array(3)[0].copy()).t()
            with pytest.raises(Exception) as info:
                call(lib, x)
            errors.append(type(info.value))
        assert errors[0] is errors[1]


@pytest.mark.parametrize("layout", ["mT", "sliced"])
def test_conj_physical_of_real_is_the_input(layout):
    """PyTorch returns a real input itself (same object, strides and storage); ``out=`` gets
    a row-major copy; a complex input gets its pointwise layout."""
    for lib in (torch, cinder):
        x = make_input(lib, layout)
        assert lib.conj_physical(x) is x
        out = lib.empty(0)
        assert lib.conj_physical(x, out=out) is out
    t_x, c_x = make_input(torch, layout), make_input(cinder, layout)
    t_out, c_out = torch.empty(0), cinder.empty(0)
    torch.conj_physical(t_x, out=t_out)
    cinder.conj_physical(c_x, out=c_out)
    assert c_out.stride() == t_out.stride()
    np.testing.assert_array_equal(c_out.numpy(), t_out.numpy())
    t_c, c_c = (torch.complex(t_x, t_x * 2), cinder.complex(c_x, c_x * 2))
    assert cinder.conj_physical(c_c).stride() == torch.conj_physical(t_c).stride()


@pytest.mark.parametrize("hx_layout", ["row", "T", "expanded"])
def test_gru_cell_takes_the_hidden_state_layout(hx_layout):
    """``gru_cell``'s result is laid out as its hidden state ``hx`` leads (PyTorch's cell ends
    in pointwise ops with ``hx`` first): values, strides and the input gradient."""
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(s).astype(np.float32)
              for s in [(3, 4), (3, 5), (15, 4), (15, 5), (15,), (15,)]]
    got = {}
    for lib in (torch, cinder):
        x, hx, *weights = [lib.from_numpy(a.copy()) for a in arrays]
        if hx_layout == "T":
            hx = hx.t().contiguous().t()
        elif hx_layout == "expanded":
            hx = hx[:1].expand(3, 5)
        x.requires_grad_()
        h = lib.gru_cell(x, hx, *weights)
        (h * lib.arange(15.0).reshape(3, 5)).sum().backward()
        got[lib.__name__] = h, x.grad
    (c, c_grad), (t, t_grad) = got["cinder"], got["torch"]
    assert c.stride() == t.stride()
    np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c_grad.numpy(), t_grad.numpy(), rtol=1e-5, atol=1e-5)


# ----------------------------------------------------------------------------------------------
# einsum: PyTorch's contraction (aligned views, pairwise batched products from the left, a
# view for a single operand with nothing to sum) leaves its result with particular strides
# ----------------------------------------------------------------------------------------------

EINSUMS = [
    ("ij->ji", [(3, 4)]), ("ij", [(3, 4)]), ("ii->i", [(3, 3)]), ("iji->ij", [(3, 2, 3)]),
    ("...ij->...ji", [(2, 3, 4)]), ("ij->j", [(3, 4)]), ("ijk->kj", [(2, 3, 4)]),
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk->ki", [(3, 4), (4, 5)]),
    ("bij,bjk->kbi", [(2, 3, 4), (2, 4, 5)]), ("aj,bcj->bac", [(2, 4), (3, 5, 4)]),
    ("bhqk,bhkd->bqhd", [(2, 3, 4, 6), (2, 3, 6, 5)]), ("bi,bi->b", [(3, 4), (3, 4)]),
    ("i,j->ji", [(3,), (4,)]), ("ij,ij->ji", [(3, 4), (3, 4)]), ("ba,a->ab", [(1, 2), (2,)]),
    ("ij,jk,kl->li", [(3, 4), (4, 5), (5, 2)]), ("ace,->ac", [(2, 3, 4), ()]),
    ("c,ea,->eca", [(3,), (4, 2), ()]), ("...ij,...jk", [(2, 3, 4, 5), (3, 5, 2)]),
    ("bca,ece->eb", [(1, 3, 2), (4, 3, 4)]), ("Ab,bA->A", [(3, 4), (4, 3)]),
]


@pytest.mark.parametrize("layout", ["row", "T", "S", "F"])
@pytest.mark.parametrize("eq,shapes", EINSUMS, ids=[e for e, _ in EINSUMS])
def test_einsum_layout_matches_torch(eq, shapes, layout):
    """Strides (size-1 dims included), values, whether the result shares the operand's memory,
    the node's name and the operands' gradients are PyTorch's."""
    rng = np.random.default_rng(len(eq))
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    got = {}
    for lib in (torch, cinder):
        ops = [lib.from_numpy(a.copy()) for a in arrays]
        if layout != "row":
            ops = [_relayout(lib, o, layout)[0] for o in ops]
        ops = [o.detach().requires_grad_() for o in ops]
        r = lib.einsum(eq, *ops)
        shares = any(r.data_ptr() == o.data_ptr() for o in ops)
        w = lib.from_numpy(np.linspace(-1, 1, r.numel()).astype(np.float32)).reshape(r.shape)
        (r * w).sum().backward()
        got[lib.__name__] = (r, shares, type(r.grad_fn).__name__ if shares else None,
                             [o.grad for o in ops])
    (c, c_shares, c_node, c_grads), (t, t_shares, t_node, t_grads) = got["cinder"], got["torch"]
    assert tuple(c.shape) == tuple(t.shape)
    assert c.stride() == t.stride(), f"strides {c.stride()} != {t.stride()}"
    assert (c_shares, c_node) == (t_shares, t_node)
    np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=1e-4, atol=1e-5)
    for cg, tg in zip(c_grads, t_grads):
        np.testing.assert_allclose(cg.numpy(), tg.numpy(), rtol=1e-4, atol=1e-5)
