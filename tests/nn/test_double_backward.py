"""Double backward of the fused nn kernels against PyTorch.

For each case: gradients of ``f`` with ``create_graph=True`` (contracted with a fixed output
gradient ``gy`` that itself requires grad), then the gradients of ``sum(grad ** 2)`` with
respect to every input and to ``gy``. The values must equal ``torch.autograd.grad`` twice in
float64. Pooling, padding, resampling, shuffles, unfold/fold and embedding have backward
kernels linear in the gradient (their derivative is the forward map again); norms, attention
and the recurrent layers differentiate the same forward written in cinder ops.
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import cinder
import cinder.nn.functional as CF

RNG = np.random.default_rng(7)


def _x(*shape):
    return RNG.standard_normal(shape)


def _second_order(lib, F, fn, arrays, n_diff):
    """Gradients of sum(first-order grads ** 2) w.r.t. the first ``n_diff`` inputs and gy."""
    inputs = [lib.tensor(a, requires_grad=i < n_diff) for i, a in enumerate(arrays)]
    out = fn(lib, F, *inputs)
    if isinstance(out, tuple):
        out = out[0]
    gy = lib.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)),
                    dtype=lib.float64, requires_grad=True)
    first = lib.autograd.grad(out, inputs[:n_diff], gy, create_graph=True)
    total = sum((g * g).sum() for g in first)
    second = lib.autograd.grad(total, inputs[:n_diff] + [gy], allow_unused=True)
    return [None if g is None else g.detach().numpy() for g in second]


def _assert_same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if g is None and w is None:
            continue
        # A second-order gradient that is identically zero may come back as None.
        w = np.zeros_like(g) if w is None else w
        g = np.zeros_like(w) if g is None else g
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-9)


def _samples(lib):
    return lib.tensor(np.full((2, 3, 2), 0.4))


CASES = {
    "max_pool1d": (lambda L, F, a: F.max_pool1d(a, 3, 2, 1), [_x(2, 3, 7)], 1),
    "max_pool2d": (lambda L, F, a: F.max_pool2d(a, 2, 1, 1, ceil_mode=True), [_x(2, 3, 5, 5)], 1),
    "max_pool3d": (lambda L, F, a: F.max_pool3d(a, 2), [_x(1, 2, 4, 4, 4)], 1),
    "avg_pool1d": (lambda L, F, a: F.avg_pool1d(a, 3, 2, 1), [_x(2, 3, 7)], 1),
    "avg_pool2d": (lambda L, F, a: F.avg_pool2d(a, 3, 2, 1, ceil_mode=True,
                                                count_include_pad=False), [_x(2, 3, 6, 6)], 1),
    "avg_pool3d": (lambda L, F, a: F.avg_pool3d(a, 2, divisor_override=3),
                   [_x(1, 2, 4, 4, 4)], 1),
    "adaptive_avg_pool1d": (lambda L, F, a: F.adaptive_avg_pool1d(a, 3), [_x(2, 3, 8)], 1),
    "adaptive_avg_pool2d": (lambda L, F, a: F.adaptive_avg_pool2d(a, (3, 2)),
                            [_x(2, 3, 7, 5)], 1),
    "adaptive_max_pool1d": (lambda L, F, a: F.adaptive_max_pool1d(a, 3), [_x(2, 3, 7)], 1),
    "adaptive_max_pool3d": (lambda L, F, a: F.adaptive_max_pool3d(a, 2), [_x(1, 2, 3, 4, 5)], 1),
    "lp_pool2d": (lambda L, F, a: F.lp_pool2d(a, 2, 2), [_x(2, 3, 6, 6)], 1),
    "fractional_max_pool2d": (lambda L, F, a: F.fractional_max_pool2d(
        a, 2, output_size=(3, 3), _random_samples=_samples(L)), [_x(2, 3, 6, 6)], 1),
    "max_unpool2d": (lambda L, F, a: F.max_unpool2d(*F.max_pool2d(a, 2, return_indices=True),
                                                    2), [_x(2, 3, 4, 4)], 1),
    "batch_norm": (lambda L, F, a, w, b: F.batch_norm(a, None, None, w, b, training=True),
                   [_x(4, 3, 5), _x(3), _x(3)], 3),
    "batch_norm_eval": (lambda L, F, a, w, b: F.batch_norm(
        a, L.full((3,), 0.1, dtype=L.float64), L.full((3,), 2.0, dtype=L.float64), w, b),
        [_x(4, 3, 5), _x(3), _x(3)], 3),
    "instance_norm": (lambda L, F, a, w, b: F.instance_norm(a, weight=w, bias=b),
                      [_x(4, 3, 5), _x(3), _x(3)], 3),
    "layer_norm": (lambda L, F, a, w, b: F.layer_norm(a, (5,), w, b),
                   [_x(4, 3, 5), _x(5), _x(5)], 3),
    "group_norm": (lambda L, F, a, w, b: F.group_norm(a, 2, w, b),
                   [_x(4, 4, 5), _x(4), _x(4)], 3),
    "rms_norm": (lambda L, F, a, w: F.rms_norm(a, (5,), w), [_x(4, 3, 5), _x(5)], 2),
    "local_response_norm": (lambda L, F, a: F.local_response_norm(a, 3), [_x(2, 4, 5)], 1),
    "pad_constant": (lambda L, F, a: F.pad(a, (1, 2, -1, 1), value=0.5), [_x(2, 3, 4)], 1),
    "pad_reflect": (lambda L, F, a: F.pad(a, (1, 2), mode="reflect"), [_x(2, 3, 4)], 1),
    "pad_replicate": (lambda L, F, a: F.pad(a, (1, 2, 2, 1), mode="replicate"),
                      [_x(2, 3, 4, 4)], 1),
    "pad_circular": (lambda L, F, a: F.pad(a, (1, 2, 1, 1, 1, 0), mode="circular"),
                     [_x(1, 2, 3, 4, 4)], 1),
    "interp_nearest": (lambda L, F, a: F.interpolate(a, scale_factor=2), [_x(2, 3, 4, 4)], 1),
    "interp_nearest_exact": (lambda L, F, a: F.interpolate(a, size=(5, 7),
                                                           mode="nearest-exact"),
                             [_x(2, 3, 4, 4)], 1),
    "interp_linear": (lambda L, F, a: F.interpolate(a, size=7, mode="linear"), [_x(2, 3, 4)], 1),
    "interp_bilinear": (lambda L, F, a: F.interpolate(a, size=(5, 7), mode="bilinear"),
                        [_x(2, 3, 4, 4)], 1),
    "interp_bicubic": (lambda L, F, a: F.interpolate(a, size=(5, 7), mode="bicubic",
                                                     align_corners=True), [_x(2, 3, 4, 4)], 1),
    "interp_trilinear": (lambda L, F, a: F.interpolate(a, size=(3, 5, 2), mode="trilinear"),
                         [_x(1, 2, 2, 3, 4)], 1),
    "interp_area": (lambda L, F, a: F.interpolate(a, size=(3, 2), mode="area"),
                    [_x(2, 3, 6, 5)], 1),
    "interp_antialias": (lambda L, F, a: F.interpolate(a, size=(3, 2), mode="bilinear",
                                                       antialias=True), [_x(2, 3, 6, 5)], 1),
    "pixel_shuffle": (lambda L, F, a: F.pixel_shuffle(a, 2), [_x(2, 8, 3, 3)], 1),
    "pixel_unshuffle": (lambda L, F, a: F.pixel_unshuffle(a, 2), [_x(2, 2, 4, 4)], 1),
    "unfold": (lambda L, F, a: F.unfold(a, 2, padding=1), [_x(2, 2, 4, 4)], 1),
    "fold": (lambda L, F, a: F.fold(a, (4, 5), 2), [_x(2, 8, 12)], 1),
    "embedding": (lambda L, F, w: F.embedding(L.tensor([[0, 2, 1], [2, 2, 4]]), w,
                                              padding_idx=1), [_x(5, 3)], 1),
    "embedding_freq": (lambda L, F, w: F.embedding(L.tensor([[0, 2, 1], [2, 2, 4]]), w,
                                                   scale_grad_by_freq=True), [_x(5, 3)], 1),
    "sdpa_causal": (lambda L, F, q, k, v: F.scaled_dot_product_attention(q, k, v,
                                                                         is_causal=True),
                    [_x(2, 3, 4), _x(2, 3, 4), _x(2, 3, 4)], 3),
    "sdpa_float_mask_gqa": (lambda L, F, q, k, v, m: F.scaled_dot_product_attention(
        q, k, v, attn_mask=m, enable_gqa=True), [_x(1, 4, 3, 2), _x(1, 2, 5, 2),
                                                 _x(1, 2, 5, 2), _x(3, 5)], 4),
    "sdpa_bool_mask": (lambda L, F, q, k, v: F.scaled_dot_product_attention(
        q, k, v, attn_mask=L.tensor([[True, False, True], [False, False, True]])),
        [_x(2, 2, 4), _x(2, 3, 4), _x(2, 3, 4)], 3),
    "multi_head_attention": (lambda L, F, q, w, b, ow: F.multi_head_attention_forward(
        q, q, q, 4, 2, w, b, None, None, False, 0.0, ow, None, need_weights=True),
        [_x(3, 2, 4), _x(12, 4), _x(12), _x(4, 4)], 4),
    "softmax_cross_entropy": (lambda L, F, a: F.cross_entropy(a, L.tensor([0, 3, 1]),
                                                              label_smoothing=0.1),
                              [_x(3, 4)], 1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_order_gradients_match_torch(name):
    fn, arrays, n_diff = CASES[name]
    _assert_same(_second_order(cinder, CF, fn, arrays, n_diff),
                 _second_order(torch, TF, fn, arrays, n_diff))


RNN_CASES = [("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("GRU", {}), ("LSTM", {}),
             ("LSTM", {"proj_size": 2}), ("GRU", {"bidirectional": True, "num_layers": 2})]


@pytest.mark.parametrize("kind,kwargs", RNN_CASES)
def test_recurrent_second_order_gradients_match_torch(kind, kwargs):
    reference = getattr(torch.nn, kind)(3, 4, **kwargs).double()
    params = [p.detach().numpy().copy() for p in reference.parameters()]
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    arrays = [_x(5, 2, 3), _x(layers, 2, kwargs.get("proj_size", 4))]
    if kind == "LSTM":
        arrays.append(_x(layers, 2, 4))

    def run(L, F, x, h0, *c0):
        module = getattr(L.nn, kind)(3, 4, **kwargs).double()
        with L.no_grad():
            for p, a in zip(module.parameters(), params):
                p.copy_(L.tensor(a))
        out, state = module(x, (h0, c0[0]) if c0 else h0)
        last = state[1] if c0 else state
        return out + last[0].sum()     # both the sequence and a final state reach the loss

    _assert_same(_second_order(cinder, CF, run, arrays, len(arrays)),
                 _second_order(torch, TF, run, arrays, len(arrays)))


def test_third_order_through_max_pool_and_rms_norm():
    """The double-backward results carry a graph again (triple backward). (RMS norm rather
    than layer norm: PyTorch's layer_norm double backward is not exactly differentiable
    itself, so its third derivative differs from the true one, which cinder's gives.)"""
    def third(L, F):
        x = L.tensor(np.linspace(-2, 2, 32).reshape(1, 2, 4, 4) ** 3, requires_grad=True)
        y = F.rms_norm(F.max_pool2d(x, 2, 1), (3, 3)).pow(3).sum()
        (g1,) = L.autograd.grad(y, x, create_graph=True)
        (g2,) = L.autograd.grad(g1.pow(2).sum(), x, create_graph=True)
        (g3,) = L.autograd.grad(g2.sum(), x)
        return g3.numpy()

    np.testing.assert_allclose(third(cinder, CF), third(torch, TF), rtol=1e-6, atol=1e-9)


def test_max_pool_double_backward_reaches_input_with_zeros():
    """As PyTorch's max_pool2d_with_indices_backward: d(grad_input)/d(input) exists and is 0."""
    x = cinder.randn(1, 1, 4, 4, dtype=cinder.float64, requires_grad=True)
    (g,) = cinder.autograd.grad(CF.max_pool2d(x, 2).sum(), x, create_graph=True)
    (gg,) = cinder.autograd.grad(g.sum(), x)
    assert gg.shape == x.shape and not gg.any()


_PIECEWISE = {
    "leaky_relu": lambda L, t: L.nn.functional.leaky_relu(t, 0.2),
    "leaky_relu_inplace": lambda L, t: L.nn.functional.leaky_relu(t * 1, 0.2, inplace=True),
    "hardtanh": lambda L, t: L.nn.functional.hardtanh(t, -0.5, 0.5),
    "relu6": lambda L, t: L.nn.functional.relu6(t * 4),
}


@pytest.mark.parametrize("name", list(_PIECEWISE))
def test_piecewise_linear_backward_is_an_op(name):
    """leaky_relu/hardtanh's gradient is ``leaky_relu_backward``/``hardtanh_backward``, as in
    PyTorch: under create_graph it requires grad (a zero derivative in the input), prints
    PyTorch's node, and its own gradient in the input is zeros; a NaN input lets the gradient
    through hardtanh as PyTorch's does."""
    data = np.array([-1.0, -0.2, 0.0, 0.3, 0.7, np.nan])
    seen = []
    for lib in (cinder, torch):
        x = lib.tensor(data, requires_grad=True)
        g, = lib.autograd.grad(_PIECEWISE[name](lib, x).sum(), x, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), x)
        seen.append((g.requires_grad, g.grad_fn.name(), g.detach().numpy(), gg.numpy()))
    (cr, cn, cg, cgg), (tr, tn, tg, tgg) = seen
    assert (cr, cn) == (tr, tn)
    np.testing.assert_array_equal(cg, tg)
    np.testing.assert_array_equal(cgg, tgg)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("op", ["tanh", "sigmoid"])
def test_tanh_sigmoid_backward_are_ops(op, dtype):
    """tanh's and sigmoid's gradients are ``tanh_backward``/``sigmoid_backward``, as in
    PyTorch: one pass rounded once for the half types (the same first-order values), a node
    of their own under create_graph with PyTorch's second derivatives, and the tensors they
    save (the pack count of a double backward)."""
    data = np.array([-1.5, -0.3, 0.0, 0.4, 2.0])
    seen = []
    for lib in (cinder, torch):
        dt = getattr(lib, dtype)
        x = lib.tensor(data, dtype=dt, requires_grad=True)
        gy = lib.linspace(-1, 1, 5).to(dt).requires_grad_()
        packed = []
        with lib.autograd.graph.saved_tensors_hooks(lambda t, seen=packed: seen.append(1) or t,
                                                    lambda t: t):
            g, = lib.autograd.grad(getattr(lib, op)(x), x, gy, create_graph=True)
            gg = lib.autograd.grad((g * g).sum(), (x, gy))
        seen.append((g.grad_fn.name(), len(packed), g.detach().double().numpy(),
                     [t.double().numpy() for t in gg]))
    (cn, cp, cg, cgg), (tn, tp, tg, tgg) = seen
    assert (cn, cp) == (tn, tp)
    # (PyTorch's vectorised tanh_backward may fuse 1 - b * b into one rounding: an ulp apart)
    rtol = {"bfloat16": 1e-2, "float32": 1e-5, "float64": 1e-10}[dtype]
    np.testing.assert_allclose(cg, tg, rtol=rtol)
    for c, t in zip(cgg, tgg):
        np.testing.assert_allclose(c, t, rtol=rtol)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_backward_is_an_op(approximate, dtype):
    """gelu's gradient is ``gelu_backward``, as in PyTorch: one pass rounded once for the
    half types (PyTorch's first-order values), ``GeluBackwardBackward0`` under create_graph,
    and second derivatives equal to PyTorch's (float64: its gradgradcheck passes too)."""
    data = np.array([-2.5, -0.7, 0.0, 0.3, 1.1, 3.0])
    seen = []
    for lib in (cinder, torch):
        dt = getattr(lib, dtype)
        x = lib.tensor(data, dtype=dt, requires_grad=True)
        gy = lib.linspace(-1, 1, 6).to(dt).requires_grad_()
        y = lib.nn.functional.gelu(x, approximate=approximate)
        g, = lib.autograd.grad(y, x, gy, create_graph=True)
        gg = lib.autograd.grad((g * g).sum(), (x, gy))
        seen.append((g.grad_fn.name(), g.detach().double().numpy(),
                     [t.double().numpy() for t in gg]))
    (cn, cg, cgg), (tn, tg, tgg) = seen
    assert cn == tn == "GeluBackwardBackward0"
    if dtype == "bfloat16":
        np.testing.assert_array_equal(cg, tg)
        return          # (second derivatives in bfloat16 cancel badly, in both libraries)
    rtol = {"float32": 1e-4, "float64": 1e-10}[dtype]
    np.testing.assert_allclose(cg, tg, rtol=rtol, atol=1e-6)
    for c, t in zip(cgg, tgg):
        np.testing.assert_allclose(c, t, rtol=rtol, atol=1e-9)
    if dtype == "float64":
        x = cinder.tensor(data, requires_grad=True)
        assert cinder.autograd.gradgradcheck(
            lambda t: cinder.nn.functional.gelu(t, approximate=approximate), (x,))
