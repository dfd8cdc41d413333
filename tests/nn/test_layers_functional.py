"""nn.functional layer kernels (conv, pooling, norms, padding, upsampling, embedding, fold,
pixel shuffle) against PyTorch: values, dtypes, shapes, gradients of every input, float64
gradcheck of each explicit backward, and the exception type of bad calls.

Ops of the table covered here (named for the coverage test): convolution, conv1d, conv2d,
conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d, conv_tbc, im2col (F.unfold),
col2im (F.fold), max_pool1d, max_pool2d, max_pool3d, max_pool1d_with_indices,
max_pool2d_with_indices, max_pool3d_with_indices, avg_pool1d, avg_pool2d, avg_pool3d,
adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d,
adaptive_max_pool2d, adaptive_max_pool3d, max_unpool (F.max_unpool*), native_batch_norm,
batch_norm, native_layer_norm, layer_norm, rms_norm, native_group_norm, group_norm,
constant_pad_nd, index_pad (F.pad reflect/replicate/circular), embedding, embedding_renorm_
(F.embedding max_norm), resample (F.interpolate), pixel_shuffle, pixel_unshuffle,
fractional_max_pool (F.fractional_max_pool2d/3d).
"""

import warnings

import numpy as np
import pytest
import torch

import cinder
import cinder.nn.functional as CF

TOL = {"float32": (2e-5, 2e-5), "float64": (1e-9, 1e-9), "float16": (2e-2, 2e-2)}


class Arg:
    """The i-th generated tensor used as a keyword argument."""

    def __init__(self, i):
        self.i = i


def _lib_args(lib, arrays, dtype, grad, pos, kw):
    tensors = [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=grad) for a in arrays]

    def resolve(v):
        return tensors[v.i] if isinstance(v, Arg) else v

    return tensors, [resolve(v) for v in pos], {k: resolve(v) for k, v in kw.items()}


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def run_both(name, shapes, *pos, dtype="float64", grad=True, seed=0, **kw):
    """Call F.<name>(t0, *pos, **kw) in both libraries on the same random inputs; compare
    outputs (all of a tuple), then the gradients of every input for a random cotangent."""
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    results = {}
    for lib, fns in ((torch, torch.nn.functional), (cinder, CF)):
        tensors, p, k = _lib_args(lib, arrays, dtype, grad, pos, kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = getattr(fns, name)(tensors[0], *p, **k)
        results[lib] = (tensors, out)
    (t_in, t_out), (c_in, c_out) = results[torch], results[cinder]
    rtol, atol = TOL[dtype]
    t_list = t_out if isinstance(t_out, tuple) else (t_out,)
    c_list = c_out if isinstance(c_out, tuple) else (c_out,)
    for a, b in zip(t_list, c_list):
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_allclose(b.detach().float().numpy(), a.detach().float().numpy(),
                                   rtol, atol)
    if grad:
        cot = rng.standard_normal(tuple(t_list[0].shape))
        _first(t_out).backward(torch.tensor(cot, dtype=getattr(torch, dtype)))
        _first(c_out).backward(cinder.tensor(cot, dtype=getattr(cinder, dtype)))
        for a, b in zip(t_in, c_in):
            assert (a.grad is None) == (b.grad is None)
            if a.grad is not None:
                np.testing.assert_allclose(b.grad.float().numpy(), a.grad.float().numpy(),
                                           rtol * 10, atol * 10)
    return c_out


def same_error(name, shapes, *pos, dtype="float32", **kw):
    """PyTorch and cinder both raise, with the same exception type."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    raised = []
    for lib, fns in ((torch, torch.nn.functional), (cinder, CF)):
        tensors, p, k = _lib_args(lib, arrays, dtype, False, pos, kw)
        with pytest.raises(Exception) as info:
            getattr(fns, name)(tensors[0], *p, **k)
        raised.append(info.value)
    assert type(raised[1]).__name__ == type(raised[0]).__name__, (raised[1], raised[0])
    return raised


# ----------------------------------------------------------------------------------------------
# Convolution
# ----------------------------------------------------------------------------------------------

CONV_CASES = [
    ("conv2d", [(2, 3, 8, 8), (4, 3, 3, 3), (4,)], {}),
    ("conv2d", [(2, 4, 9, 8), (6, 2, 3, 2), (6,)],
     dict(stride=(2, 1), padding=(1, 2), dilation=(2, 1), groups=2)),
    ("conv2d", [(2, 4, 9, 8), (6, 4, 1, 1)], {}),
    ("conv2d", [(2, 4, 9, 8), (6, 4, 4, 3)], dict(padding="same", dilation=2)),
    ("conv2d", [(2, 4, 9, 8), (6, 4, 4, 3)], dict(padding="valid")),
    ("conv2d", [(3, 9, 8), (6, 3, 3, 3)], {}),
    ("conv1d", [(2, 4, 9), (6, 4, 3)], dict(padding=2, stride=3)),
    ("conv1d", [(2, 4, 9), (4, 1, 3), (4,)], dict(groups=4, padding="same")),
    ("conv3d", [(2, 2, 5, 6, 4), (3, 2, 2, 3, 2)], dict(padding=1, stride=(1, 2, 1))),
    ("conv_transpose2d", [(2, 4, 5, 6), (4, 3, 3, 3), (3,)], {}),
    ("conv_transpose2d", [(2, 4, 5, 6), (4, 3, 3, 2), (6,)],
     dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2, dilation=(1, 2))),
    ("conv_transpose1d", [(2, 4, 5), (4, 3, 3)], dict(stride=2, padding=1, output_padding=1)),
    ("conv_transpose3d", [(1, 2, 3, 4, 3), (2, 3, 2, 2, 3)], dict(stride=2)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,shapes,kw", CONV_CASES)
def test_conv(name, shapes, kw, dtype):
    args = [Arg(i) for i in range(1, len(shapes))]
    run_both(name, shapes, *args, dtype=dtype, **kw)


def test_conv_grad_fn_and_half():
    out = run_both("conv2d", [(1, 2, 5, 5), (3, 2, 3, 3)], Arg(1), dtype="float16", grad=False)
    assert out.dtype == cinder.float16
    y = CF.conv2d(cinder.randn(1, 2, 5, 5, requires_grad=True), cinder.randn(3, 2, 3, 3))
    assert type(y.grad_fn).__name__ == "ConvolutionBackward0"


def test_convolution_and_conv_tbc():
    rng = np.random.default_rng(1)
    x, w, b = rng.standard_normal((2, 3, 7)), rng.standard_normal((4, 3, 3)), rng.standard_normal(4)
    res = [lib.convolution(lib.tensor(x), lib.tensor(w), lib.tensor(b), [2], [1], [1], False,
                           [0], 1).numpy() for lib in (torch, cinder)]
    np.testing.assert_allclose(res[1], res[0], 1e-10, 1e-10)
    xt, wt = rng.standard_normal((7, 2, 3)), rng.standard_normal((3, 3, 4))
    res = [lib.conv_tbc(lib.tensor(xt), lib.tensor(wt), lib.tensor(b), 1).numpy()
           for lib in (torch, cinder)]
    np.testing.assert_allclose(res[1], res[0], 1e-10, 1e-10)


@pytest.mark.parametrize("case", [
    ("conv2d", [(8, 8), (4, 3, 3, 3)], {}),                       # wrong rank
    ("conv2d", [(2, 5, 8, 8), (4, 3, 3, 3)], {}),                 # wrong channel count
    ("conv2d", [(2, 3, 2, 2), (4, 3, 3, 3)], {}),                 # kernel larger than input
    ("conv2d", [(2, 3, 8, 8), (4, 1, 3, 3)], dict(groups=3)),     # groups do not divide
    ("conv2d", [(2, 3, 8, 8), (4, 3, 3, 3)], dict(stride=0)),
    ("conv2d", [(2, 3, 8, 8), (4, 3, 3, 3)], dict(padding="same", stride=2)),
    ("conv2d", [(2, 3, 8, 8), (4, 3, 3, 3)], dict(padding="foo")),
    ("conv2d", [(2, 3, 8, 8), (4, 3, 3, 3), (5,)], {}),           # bias size
    ("conv_transpose2d", [(2, 5, 8, 8), (4, 3, 3, 3)], {}),
    ("conv_transpose2d", [(2, 4, 8, 8), (4, 3, 3, 3)], dict(output_padding=2)),
    ("conv1d", [(2, 3, 8, 8), (4, 3, 3)], {}),
])
def test_conv_errors(case):
    name, shapes, kw = case
    args = [Arg(i) for i in range(1, len(shapes))]
    errors = same_error(name, shapes, *args, **kw)
    assert str(errors[1]) == str(errors[0])


def test_conv_dtype_mismatch_error():
    x, w = np.zeros((1, 2, 4, 4)), np.zeros((1, 2, 3, 3))
    for lib in (torch, cinder):
        with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
            lib.nn.functional.conv2d(lib.tensor(x), lib.tensor(w, dtype=lib.float32))


def test_unfold_fold():
    run_both("unfold", [(2, 3, 7, 6)], kernel_size=(2, 3), dilation=(1, 2), padding=1,
             stride=(2, 1))
    run_both("unfold", [(3, 5, 5)], 2)
    run_both("fold", [(2, 12, 24)], output_size=(5, 6), kernel_size=2, stride=(1, 2),
             padding=1)
    same_error("fold", [(2, 12, 12)], output_size=(5, 6), kernel_size=2, stride=(1, 2),
               padding=1)


# ----------------------------------------------------------------------------------------------
# Pooling
# ----------------------------------------------------------------------------------------------

POOL_CASES = [
    ("max_pool2d", [(2, 3, 8, 8)], dict(kernel_size=2)),
    ("max_pool2d", [(2, 3, 9, 8)],
     dict(kernel_size=3, stride=(2, 1), padding=1, dilation=(1, 2), ceil_mode=True)),
    ("max_pool2d", [(3, 9, 8)], dict(kernel_size=3, stride=2, ceil_mode=True,
                                     return_indices=True)),
    ("max_pool1d", [(2, 3, 9)], dict(kernel_size=3, stride=2, padding=1, return_indices=True)),
    ("max_pool3d", [(2, 2, 5, 6, 7)], dict(kernel_size=(2, 3, 2), stride=(1, 2, 2), padding=1,
                                           return_indices=True)),
    ("avg_pool2d", [(2, 3, 8, 8)], dict(kernel_size=2)),
    ("avg_pool2d", [(2, 3, 9, 8)], dict(kernel_size=3, stride=(2, 1), padding=1,
                                        ceil_mode=True, count_include_pad=False)),
    ("avg_pool2d", [(2, 3, 9, 8)], dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ("avg_pool2d", [(2, 3, 9, 8)], dict(kernel_size=3, divisor_override=5)),
    ("avg_pool1d", [(2, 3, 9)], dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                     count_include_pad=False)),
    ("avg_pool3d", [(2, 2, 5, 6, 7)], dict(kernel_size=(2, 3, 2), stride=(1, 2, 2), padding=1)),
    ("adaptive_avg_pool2d", [(2, 3, 8, 8)], dict(output_size=4)),
    ("adaptive_avg_pool2d", [(2, 3, 9, 7)], dict(output_size=(4, 3))),
    ("adaptive_avg_pool2d", [(3, 9, 7)], dict(output_size=(None, 3))),
    ("adaptive_avg_pool1d", [(3, 9, 7)], dict(output_size=5)),
    ("adaptive_avg_pool3d", [(1, 3, 9, 7, 5)], dict(output_size=(2, 3, 4))),
    ("adaptive_max_pool2d", [(2, 3, 9, 7)], dict(output_size=(4, 3), return_indices=True)),
    ("adaptive_max_pool1d", [(2, 3, 9)], dict(output_size=4, return_indices=True)),
    ("adaptive_max_pool3d", [(1, 2, 9, 7, 5)], dict(output_size=(4, 3, 2),
                                                    return_indices=True)),
    ("lp_pool2d", [(2, 3, 8, 8)], dict(norm_type=2, kernel_size=2)),
    ("lp_pool1d", [(2, 3, 8)], dict(norm_type=1, kernel_size=3, stride=2)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,shapes,kw", POOL_CASES)
def test_pool(name, shapes, kw, dtype):
    run_both(name, shapes, dtype=dtype, **kw)


def test_pool_grad_fn_names():
    x = cinder.randn(1, 2, 6, 6, requires_grad=True)
    assert type(CF.max_pool2d(x, 2).grad_fn).__name__ == "MaxPool2DWithIndicesBackward0"
    assert type(CF.avg_pool2d(x, 2).grad_fn).__name__ == "AvgPool2DBackward0"
    assert type(CF.adaptive_avg_pool2d(x, 3).grad_fn).__name__ == "AdaptiveAvgPool2DBackward0"


def test_max_unpool():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 8, 8))
    outs = []
    for lib in (torch, cinder):
        t = lib.tensor(x, requires_grad=True)
        v, i = lib.nn.functional.max_pool2d(t, 2, return_indices=True)
        u = lib.nn.functional.max_unpool2d(v, i, 2)
        (u * lib.tensor(x)).sum().backward()
        v1, i1 = lib.nn.functional.max_pool1d(t[0].detach(), 2, return_indices=True)
        u1 = lib.nn.functional.max_unpool1d(v1, i1, 2, output_size=[9])
        outs.append((u.detach().numpy(), t.grad.numpy(), u1.numpy()))
    for a, b in zip(*outs):
        np.testing.assert_allclose(b, a, 1e-12, 1e-12)


@pytest.mark.parametrize("case", [
    ("max_pool2d", [(2, 3, 8, 8)], dict(kernel_size=2, padding=2)),   # pad > half kernel
    ("max_pool2d", [(2, 3, 1, 1)], dict(kernel_size=2)),              # output too small
    ("max_pool2d", [(8,)], dict(kernel_size=2)),                      # wrong rank
    ("avg_pool2d", [(2, 3, 8, 8)], dict(kernel_size=3, divisor_override=0)),
])
def test_pool_errors(case):
    name, shapes, kw = case
    same_error(name, shapes, **kw)


# ----------------------------------------------------------------------------------------------
# Normalisation
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_group_rms_norm(dtype):
    run_both("layer_norm", [(2, 3, 8), (8,), (8,)], [8], weight=Arg(1), bias=Arg(2),
             dtype=dtype)
    run_both("layer_norm", [(2, 3, 4, 5)], [4, 5], eps=1e-3, dtype=dtype)
    run_both("rms_norm", [(2, 3, 8), (8,)], [8], weight=Arg(1), dtype=dtype)
    run_both("rms_norm", [(2, 3, 8)], [3, 8], eps=1e-4, dtype=dtype)
    run_both("group_norm", [(2, 6, 4, 5), (6,), (6,)], 3, weight=Arg(1), bias=Arg(2),
             dtype=dtype)
    run_both("group_norm", [(2, 6, 4)], 2, dtype=dtype)
    run_both("instance_norm", [(2, 3, 4, 5), (3,), (3,)], weight=Arg(1), bias=Arg(2),
             dtype=dtype)
    run_both("local_response_norm", [(2, 6, 4, 5)], 3, dtype=dtype)
    run_both("local_response_norm", [(2, 6, 4)], 2, dtype=dtype)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 5)])
def test_batch_norm_and_running_stats(shape, training):
    rng = np.random.default_rng(3)
    x, w, b = rng.standard_normal(shape), rng.standard_normal(3), rng.standard_normal(3)
    results = []
    for lib in (torch, cinder):
        rm, rv = lib.tensor(np.linspace(-1, 1, 3)), lib.tensor(np.linspace(0.5, 2, 3))
        X, W, B = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
        y = lib.nn.functional.batch_norm(X, rm, rv, W, B, training=training, momentum=0.3)
        (y * lib.tensor(np.arange(y.numel()).reshape(y.shape) / 7.0)).sum().backward()
        results.append([y.detach().numpy(), rm.numpy(), rv.numpy(), X.grad.numpy(),
                        W.grad.numpy(), B.grad.numpy()])
    for a, c in zip(*results):
        np.testing.assert_allclose(c, a, 1e-9, 1e-9)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(3, 4, 7), (2, 3, 5, 6), (1, 2, 9), (5, 3, 2, 2, 2)])
def test_batch_norm_float32_is_bit_exact(shape, training):
    """Output and running statistics round as PyTorch's CPU kernel: float64 sums of the
    input, float32 deviations from the rounded mean, fused x * alpha + beta."""
    rng = np.random.default_rng(12)
    x = rng.standard_normal(shape).astype(np.float32) * 3 + 1
    w = rng.standard_normal(shape[1]).astype(np.float32) * 4
    b = rng.standard_normal(shape[1]).astype(np.float32)
    results = []
    for lib in (torch, cinder):
        rm = lib.tensor(np.linspace(-1, 1, shape[1]).astype(np.float32))
        rv = lib.tensor(np.linspace(0.5, 2, shape[1]).astype(np.float32))
        y = lib.nn.functional.batch_norm(lib.tensor(x), rm, rv, lib.tensor(w), lib.tensor(b),
                                         training=training, momentum=0.1)
        results.append([y.numpy(), rm.numpy(), rv.numpy()])
    for a, c in zip(*results):
        np.testing.assert_array_equal(c, a)


def test_instance_norm_running_stats():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 2, 5))
    res = []
    for lib in (torch, cinder):
        rm, rv = lib.zeros(2, dtype=lib.float64), lib.ones(2, dtype=lib.float64)
        y = lib.nn.functional.instance_norm(lib.tensor(x), rm, rv, momentum=0.2)
        res.append((y.numpy(), rm.numpy(), rv.numpy()))
    for a, c in zip(*res):
        np.testing.assert_allclose(c, a, 1e-12, 1e-12)


def test_norm_errors():
    same_error("layer_norm", [(2, 3, 8, 8)], [7])
    same_error("layer_norm", [(2, 3, 8, 8), (7,)], [8], weight=Arg(1))
    same_error("group_norm", [(2, 3, 8, 8)], 2)
    same_error("batch_norm", [(1, 3)], None, None, training=True)
    same_error("batch_norm", [(2, 3, 4), (4,), (4,)], Arg(1), Arg(2))
    same_error("instance_norm", [(2, 3, 1)])
    for lib in (torch, cinder):
        with pytest.raises(NotImplementedError):
            lib.nn.functional.layer_norm(lib.zeros(2, 3, dtype=lib.int64), [3])


# ----------------------------------------------------------------------------------------------
# Padding
# ----------------------------------------------------------------------------------------------

PAD_CASES = [
    ((2, 3, 4, 5), (1, 2, -1, 3), dict(value=1.5)),
    ((2, 3, 4, 5), (1, 2, 3, 0), dict(mode="reflect")),
    ((2, 3, 4, 5), (4, 2, 3, 0), dict(mode="replicate")),
    ((3, 4, 5), (4, 2, 3, 1), dict(mode="circular")),
    ((3, 4, 5), (2, 1), dict(mode="reflect")),
    ((2, 3, 4, 5, 6), (2, 1, 1, 1, 2, 3), dict(mode="reflect")),
    ((2, 3, 4, 5, 6), (2, 1, 1, 1, 2, 3), dict(mode="replicate")),
    ((2, 3, 4), (1, 1, 1, 1, 0, 2), {}),
]


@pytest.mark.parametrize("shape,pad,kw", PAD_CASES)
def test_pad(shape, pad, kw):
    run_both("pad", [shape], pad, **kw)


@pytest.mark.parametrize("pad,kw", [((3, 3), dict(mode="reflect")),
                                    ((3, 3, 1, 1), dict(mode="reflect")),
                                    ((1,), {}), ((1, 1) * 5, {}),
                                    ((1, 1, 1, 1), dict(mode="foo")),
                                    ((4, 4, 1, 1), dict(mode="circular")),
                                    ((1, 1, 1, 1), dict(mode="reflect", value=2))])
def test_pad_errors(pad, kw):
    errors = same_error("pad", [(1, 1, 3, 3)], pad, **kw)
    assert str(errors[1]) == str(errors[0])


# ----------------------------------------------------------------------------------------------
# Upsampling and pixel shuffle
# ----------------------------------------------------------------------------------------------

INTERP_SIZES = [dict(scale_factor=2), dict(size=(5, 7)), dict(scale_factor=(1.7, 0.6)),
                dict(scale_factor=1.3, recompute_scale_factor=True)]


@pytest.mark.parametrize("sizes", INTERP_SIZES)
@pytest.mark.parametrize("mode,corners", [("nearest", None), ("nearest-exact", None),
                                          ("bilinear", False), ("bilinear", True),
                                          ("bicubic", False), ("bicubic", True),
                                          ("area", None)])
def test_interpolate_2d(mode, corners, sizes):
    kw = dict(sizes, mode=mode)
    if corners is not None:
        kw["align_corners"] = corners
    run_both("interpolate", [(2, 3, 6, 5)], dtype="float32", **kw)


def test_interpolate_1d_3d_and_modules():
    run_both("interpolate", [(2, 3, 6)], mode="linear", scale_factor=2.5)
    run_both("interpolate", [(2, 3, 6)], mode="nearest", size=13)
    run_both("interpolate", [(1, 2, 3, 4, 5)], mode="trilinear", size=(4, 7, 3),
             align_corners=True)
    run_both("interpolate", [(1, 2, 3, 4, 5)], mode="nearest", scale_factor=2)
    run_both("upsample_bilinear", [(1, 2, 3, 4)], scale_factor=2)
    y = CF.interpolate(cinder.randn(1, 1, 2, 2, requires_grad=True), scale_factor=2,
                       mode="bilinear")
    assert type(y.grad_fn).__name__ == "UpsampleBilinear2DBackward0"


@pytest.mark.parametrize("kw", [dict(size=4, scale_factor=2), dict(),
                                dict(size=4, mode="nearest", align_corners=True),
                                dict(size=4, mode="linear"),
                                dict(size=(2, 3, 4))])
def test_interpolate_errors(kw):
    same_error("interpolate", [(1, 2, 3, 4)], **kw)


def test_pixel_shuffle():
    run_both("pixel_shuffle", [(2, 8, 3, 4)], 2)
    run_both("pixel_unshuffle", [(2, 2, 4, 6)], 2)
    run_both("pixel_shuffle", [(3, 1, 9, 2, 2)], 3)
    same_error("pixel_shuffle", [(2, 3, 3, 4)], 2)
    same_error("pixel_unshuffle", [(2, 3, 3, 4)], 2)


# ----------------------------------------------------------------------------------------------
# Embedding
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [{}, dict(padding_idx=1), dict(padding_idx=-1),
                                dict(scale_grad_by_freq=True), dict(max_norm=1.0),
                                dict(max_norm=0.5, norm_type=1.0)])
def test_embedding(kw):
    rng = np.random.default_rng(5)
    w, idx = rng.standard_normal((10, 4)), np.array([[1, 2, 2, 9], [0, 1, 1, 1]])
    res = []
    for lib in (torch, cinder):
        W = lib.tensor(w.copy(), requires_grad=True)
        y = lib.nn.functional.embedding(lib.tensor(idx), W, **kw)
        (y * lib.tensor(np.arange(y.numel()).reshape(y.shape) * 1.0)).sum().backward()
        res.append((y.detach().numpy(), W.grad.numpy(), W.detach().numpy()))
    for a, c in zip(*res):
        np.testing.assert_allclose(c, a, 1e-7, 1e-9)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("kw", [dict(offsets=[0, 2, 2, 5]),
                                dict(offsets=[0, 3, 6], include_last_offset=True),
                                dict(padding_idx=2, offsets=[0, 1, 4])])
def test_embedding_bag(mode, kw):
    rng = np.random.default_rng(6)
    w, idx = rng.standard_normal((10, 4)), np.array([1, 2, 2, 9, 4, 0, 3])
    res = []
    for lib in (torch, cinder):
        W = lib.tensor(w.copy(), requires_grad=True)
        k = dict(kw, offsets=lib.tensor(kw["offsets"]))
        y = lib.nn.functional.embedding_bag(lib.tensor(idx), W, mode=mode, **k)
        (y * lib.tensor(np.arange(y.numel()).reshape(y.shape) * 1.0)).sum().backward()
        res.append((y.detach().numpy(), W.grad.numpy()))
    for a, c in zip(*res):
        np.testing.assert_allclose(c, a, 1e-7, 1e-9)


def test_embedding_bag_2d_and_per_sample_weights():
    rng = np.random.default_rng(7)
    w, idx, psw = rng.standard_normal((6, 3)), np.array([[1, 2], [5, 5]]), rng.random(4)
    res = []
    for lib in (torch, cinder):
        W, P = lib.tensor(w, requires_grad=True), lib.tensor(psw, requires_grad=True)
        y = lib.nn.functional.embedding_bag(lib.tensor(idx.ravel()), W, lib.tensor([0, 2]),
                                            mode="sum", per_sample_weights=P)
        y2 = lib.nn.functional.embedding_bag(lib.tensor(idx), W, mode="mean")
        (y.sum() + (y2 * 2).sum()).backward()
        res.append((y.detach().numpy(), y2.detach().numpy(), W.grad.numpy(), P.grad.numpy()))
    for a, c in zip(*res):
        np.testing.assert_allclose(c, a, 1e-9, 1e-9)


def test_embedding_errors():
    for lib in (torch, cinder):
        w = lib.zeros(5, 2)
        with pytest.raises(IndexError):
            lib.nn.functional.embedding(lib.tensor([5]), w)
        with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices'"):
            lib.nn.functional.embedding(lib.tensor([1.0]), w)


# ----------------------------------------------------------------------------------------------
# float64 gradcheck of every explicit backward (small inputs)
# ----------------------------------------------------------------------------------------------

def _r(*shape, seed=0):
    rng = np.random.default_rng(seed + len(shape))
    return cinder.tensor(rng.standard_normal(shape), requires_grad=True)


GRADCHECKS = {
    "conv2d": lambda: (lambda x, w, b: CF.conv2d(x, w, b, stride=2, padding=1, groups=2),
                       (_r(1, 4, 5, 4), _r(2, 2, 3, 2), _r(2))),
    "conv_transpose2d": lambda: (lambda x, w: CF.conv_transpose2d(x, w, stride=2,
                                                                  output_padding=1),
                                 (_r(1, 2, 3, 3), _r(2, 2, 2, 2))),
    "unfold/fold": lambda: (lambda x: CF.fold(CF.unfold(x, 2), (4, 4), 2) * 1.0,
                            (_r(1, 2, 4, 4),)),
    "max_pool2d": lambda: (lambda x: CF.max_pool2d(x, 3, 2, 1), (_r(1, 2, 5, 5),)),
    "avg_pool3d": lambda: (lambda x: CF.avg_pool3d(x, 2, 1, 1, count_include_pad=False),
                           (_r(1, 1, 3, 3, 3),)),
    "adaptive_avg_pool2d": lambda: (lambda x: CF.adaptive_avg_pool2d(x, (2, 3)),
                                    (_r(1, 2, 5, 4),)),
    "adaptive_max_pool2d": lambda: (lambda x: CF.adaptive_max_pool2d(x, (2, 3)),
                                    (_r(1, 2, 5, 4),)),
    "batch_norm": lambda: (lambda x, w, b: CF.batch_norm(x, None, None, w, b, True),
                           (_r(3, 2, 4), _r(2), _r(2))),
    "layer_norm": lambda: (lambda x, w, b: CF.layer_norm(x, [4], w, b),
                           (_r(3, 4), _r(4), _r(4))),
    "group_norm": lambda: (lambda x, w, b: CF.group_norm(x, 2, w, b),
                           (_r(2, 4, 3), _r(4), _r(4))),
    "rms_norm": lambda: (lambda x, w: CF.rms_norm(x, [4], w), (_r(3, 4), _r(4))),
    "pad": lambda: (lambda x: CF.pad(x, (2, 1, 1, 2), mode="reflect") * 1.0,
                    (_r(1, 1, 3, 4),)),
    "interpolate": lambda: (lambda x: CF.interpolate(x, scale_factor=1.5, mode="bicubic"),
                            (_r(1, 1, 3, 4),)),
    "embedding": lambda: (lambda w: CF.embedding(cinder.tensor([[0, 2, 2]]), w),
                          (_r(4, 3),)),
    "pixel_shuffle": lambda: (lambda x: CF.pixel_shuffle(x, 2), (_r(1, 4, 2, 3),)),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradcheck(name):
    fn, inputs = GRADCHECKS[name]()
    assert cinder.autograd.gradcheck(fn, inputs)


# ----------------------------------------------------------------------------------------------
# affine_grid / grid_sample (composite: gradients to input and grid through autograd)
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample(nd, align_corners, mode, padding_mode):
    rng = np.random.default_rng(8)
    size = [2, 3, 4, 5] if nd == 2 else [2, 3, 3, 4, 5]
    x = rng.standard_normal(size)
    g = rng.standard_normal([2] + [4, 3, 2][:nd] + [nd]) * 1.3
    res = []
    for lib in (torch, cinder):
        X, G = lib.tensor(x, requires_grad=True), lib.tensor(g, requires_grad=True)
        y = lib.nn.functional.grid_sample(X, G, mode=mode, padding_mode=padding_mode,
                                          align_corners=align_corners)
        (y * lib.tensor(np.arange(y.numel()).reshape(y.shape) * 0.1)).sum().backward()
        res.append((y.detach().numpy(), X.grad.numpy(), G.grad.numpy()))
    for a, c in zip(*res):
        np.testing.assert_allclose(c, a, 1e-9, 1e-9)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_bicubic(dtype, align_corners, padding_mode):
    """Values and gradients (input and grid) of bicubic sampling, points inside and outside."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 3, 5, 6)).astype(dtype)
    g = rng.uniform(-1.4, 1.4, (2, 4, 3, 2)).astype(dtype)
    res = []
    for lib in (torch, cinder):
        X, G = lib.tensor(x, requires_grad=True), lib.tensor(g, requires_grad=True)
        y = lib.nn.functional.grid_sample(X, G, mode="bicubic", padding_mode=padding_mode,
                                          align_corners=align_corners)
        w = lib.tensor((np.arange(y.numel()).reshape(y.shape) * 0.1).astype(dtype))
        (y * w).sum().backward()
        res.append((y.detach().numpy(), X.grad.numpy(), G.grad.numpy()))
    # float32: the grid gradient sums terms of size ~10 that nearly cancel
    rtol, atol = (1e-9, 1e-9) if dtype == "float64" else (2e-5, 2e-4)
    for a, c in zip(*res):
        assert c.dtype == a.dtype
        np.testing.assert_allclose(c, a, rtol, atol)


def test_grid_sample_bicubic_needs_4d_input():
    same_error("grid_sample", [(1, 1, 2, 2, 2), (1, 1, 1, 1, 3)], Arg(1), mode="bicubic",
               align_corners=False)


@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid(nd, align_corners):
    rng = np.random.default_rng(9)
    theta = rng.standard_normal((2, nd, nd + 1))
    size = [2, 3, 4, 5] if nd == 2 else [2, 3, 3, 4, 5]
    res = []
    for lib in (torch, cinder):
        t = lib.tensor(theta, requires_grad=True)
        grid = lib.nn.functional.affine_grid(t, size, align_corners=align_corners)
        (grid * lib.tensor(np.arange(grid.numel()).reshape(grid.shape) * 0.1)).sum().backward()
        res.append((grid.detach().numpy(), t.grad.numpy()))
    for a, c in zip(*res):
        np.testing.assert_allclose(c, a, 1e-12, 1e-12)


def test_grid_errors():
    same_error("grid_sample", [(1, 1, 3, 3), (1, 2, 2, 2)], Arg(1), mode="foo")
    same_error("grid_sample", [(1, 1, 3, 3), (1, 2, 2, 2)], Arg(1), padding_mode="foo")
    same_error("affine_grid", [(2, 2, 2)], [2, 1, 3, 3])
    same_error("affine_grid", [(2, 2, 3)], [2, 1, 3])


@pytest.mark.parametrize("nd,shape,k,kw", [
    (2, (2, 3, 9, 11), 3, dict(output_size=(4, 5))),
    (2, (3, 10, 10), 2, dict(output_ratio=(0.5, 0.7))),
    (3, (1, 2, 7, 8, 9), 2, dict(output_size=(3, 4, 5))),
    (3, (2, 7, 8, 9), (2, 1, 3), dict(output_ratio=0.6)),
])
def test_fractional_max_pool(nd, shape, k, kw):
    """Same windows as PyTorch after the same seed (its torch.rand samples), same indices."""
    rng = np.random.default_rng(10)
    x = rng.standard_normal(shape).astype(np.float32)
    res = []
    for lib in (torch, cinder):
        lib.manual_seed(5)
        X = lib.tensor(x, requires_grad=True)
        fn = getattr(lib.nn.functional, f"fractional_max_pool{nd}d")
        v, i = fn(X, k, return_indices=True, **kw)
        (v * v).sum().backward()
        res.append((v.detach().numpy(), i.numpy(), X.grad.numpy()))
    for a, c in zip(*res):
        np.testing.assert_array_equal(c, a)


def test_fractional_max_pool_errors():
    same_error("fractional_max_pool2d", [(1, 2, 4, 4)], 2)                  # no size or ratio
    same_error("fractional_max_pool2d", [(1, 2, 4, 4)], 2, output_ratio=0.5)  # PyTorch: len()
    same_error("fractional_max_pool2d", [(1, 2, 4, 4)], 3, output_size=3)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("kw", [dict(scale_factor=0.5), dict(size=(3, 7)),
                                dict(scale_factor=(0.3, 1.7)),
                                dict(size=(5, 4), align_corners=True), dict(scale_factor=2)])
def test_interpolate_antialias(mode, kw):
    out = run_both("interpolate", [(2, 3, 9, 8)], dtype="float32", mode=mode, antialias=True,
                   **kw)
    assert type(out.grad_fn).__name__ == f"Upsample{mode.capitalize()}2DAaBackward0"


def test_interpolate_antialias_errors():
    same_error("interpolate", [(1, 2, 3, 4)], scale_factor=2, mode="nearest", antialias=True)
    same_error("interpolate", [(1, 2, 3)], scale_factor=2, mode="linear", antialias=True)


# ----------------------------------------------------------------------------------------------
# Double backward of convolutions (create_graph=True computes the gradients by conv ops)
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,xs,ws,kw", [
    ("conv2d", (2, 4, 7, 6), (6, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2),
                                                groups=2)),
    ("conv2d", (2, 3, 6, 6), (4, 3, 3, 3), dict(padding="same")),
    ("conv2d", (1, 2, 8, 8), (3, 2, 3, 3), dict(stride=2)),        # rows no window reaches
    ("conv1d", (2, 3, 9), (4, 3, 3), dict(stride=2)),
    ("conv_transpose2d", (2, 4, 3, 4), (4, 3, 3, 2), dict(stride=2, padding=1,
                                                          output_padding=1)),
    ("conv_transpose1d", (2, 4, 5), (4, 2, 3), dict(stride=3, groups=2, dilation=2)),
    ("conv3d", (1, 2, 4, 4, 4), (2, 2, 2, 2, 2), dict(stride=2)),
])
def test_conv_double_backward(name, xs, ws, kw):
    rng = np.random.default_rng(11)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    res = []
    for lib in (torch, cinder):
        X, W = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        y = getattr(lib.nn.functional, name)(X, W, **kw)
        gx, gw = lib.autograd.grad((y * y).sum(), (X, W), create_graph=True)
        (gx.pow(2).sum() + gw.pow(2).sum() * 0.5).backward()
        res.append((gx.detach().numpy(), gw.detach().numpy(), X.grad.numpy(), W.grad.numpy()))
    for a, c in zip(*res):
        np.testing.assert_allclose(c, a, 1e-9, 1e-9)


def test_conv_gradgradcheck():
    x, w = _r(1, 2, 5, 4), _r(4, 1, 3, 2)

    def fn(a, b):
        return CF.conv2d(a, b, stride=(2, 1), padding=1, groups=2)

    assert cinder.autograd.gradgradcheck(fn, (x, w))
