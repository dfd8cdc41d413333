"""The vectorised kernels of wave 4 (s4/samplers): multinomial with replacement drawn for all
rows at once (bit for bit with PyTorch's stream, errors raised at PyTorch's stream position),
and the fused grid_sampler and embedding_bag kernels (values and gradients vs PyTorch)."""

import numpy as np
import pytest
import torch

import cinder


def _dtype(lib, name):
    return getattr(lib, name)


def _probs(shape, seed):
    """Random unnormalised probabilities with zero entries (never drawn) in every row."""
    a = np.random.default_rng(seed).random(shape).astype(np.float32)
    a[a < 0.25] = 0
    a[..., 0] += 0.01
    return a


# ---------------------------------------------------------------------------------------------
# multinomial with replacement
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("shape,k", [((300, 40), 10), ((9,), 5), ((3, 1), 4), ((5, 33), 100),
                                     ((2, 3000), 7)])
@pytest.mark.parametrize("seed", [0, 11])
def test_multinomial_replacement_matches_stream(dtype, shape, k, seed):
    probs = _probs(shape, seed)
    results = []
    for lib in (torch, cinder):
        lib.manual_seed(seed)
        drawn = lib.multinomial(lib.tensor(probs).to(_dtype(lib, dtype)), k, True)
        results.append((drawn.numpy(), str(drawn.dtype).split(".")[-1], lib.rand(3).numpy()))
    (t_draw, t_dtype, t_next), (c_draw, c_dtype, c_next) = results
    assert c_dtype == t_dtype == "int64"
    np.testing.assert_array_equal(c_draw, t_draw)
    np.testing.assert_array_equal(c_next, t_next)  # the stream moved by the same amount


def test_categorical_sample_matches_stream():
    logits = np.random.default_rng(2).standard_normal((200, 30)).astype(np.float32)
    drawn = []
    for lib in (torch, cinder):
        lib.manual_seed(4)
        drawn.append(lib.distributions.Categorical(logits=lib.tensor(logits)).sample((6,)))
    np.testing.assert_array_equal(drawn[1].numpy(), drawn[0].numpy())


@pytest.mark.parametrize("bad_row", [[0.5, float("nan")], [0.5, float("inf")], [0.0, 0.0],
                                     [0.5, -1.0], [float("nan"), float("inf")],
                                     [float("inf"), -1.0]])
@pytest.mark.parametrize("k", [1, 3])
def test_multinomial_replacement_errors_at_torch_stream_position(bad_row, k):
    """PyTorch checks each row as it reaches it (after drawing for the rows before), except on
    its one-sample path, which checks the whole tensor first, with its own message."""
    outcome = []
    for lib in (torch, cinder):
        lib.manual_seed(3)
        with pytest.raises(RuntimeError) as info:
            lib.multinomial(lib.tensor([[1.0, 1.0], [1.0, 2.0], bad_row]), k, True)
        outcome.append((str(info.value), lib.rand(2).numpy().tolist()))
    assert outcome[1] == outcome[0]


# ---------------------------------------------------------------------------------------------
# grid_sampler (array kernel forward and backward; composite under create_graph)
# ---------------------------------------------------------------------------------------------
_GRID_CASES = [(nd, mode, padding, align) for nd in (2, 3) for mode in (0, 1, 2)
               for padding in (0, 1, 2) for align in (False, True) if not (nd == 3 and mode == 2)]


def _grid_inputs(nd, dtype, seed, batch=2, channels=3):
    rng = np.random.default_rng(seed)
    spatial = (5, 6) if nd == 2 else (3, 4, 5)
    out = (4, 3) if nd == 2 else (2, 3, 4)
    x = rng.standard_normal((batch, channels) + spatial).astype(dtype)
    grid = rng.uniform(-1.3, 1.3, (batch,) + out + (nd,)).astype(dtype)
    grid.reshape(-1, nd)[:3] = [[-1.0] * nd, [1.0] * nd, [0.0] * nd]  # corners and centre
    weights = rng.standard_normal((batch, channels) + out).astype(dtype)
    return x, grid, weights


def _sample_and_grads(lib, x, grid, weights, mode, padding, align):
    inp = lib.tensor(x, requires_grad=True)
    g = lib.tensor(grid, requires_grad=True)
    out = lib.grid_sampler(inp, g, mode, padding, align)
    (out * lib.tensor(weights)).sum().backward()
    return out, inp.grad, g.grad


@pytest.mark.parametrize("nd,mode,padding,align", _GRID_CASES)
@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-10), (np.float32, 2e-5)])
def test_grid_sampler_values_and_grads(nd, mode, padding, align, dtype, tol):
    x, grid, weights = _grid_inputs(nd, dtype, seed=nd * 100 + mode * 10 + padding)
    expected = _sample_and_grads(torch, x, grid, weights, mode, padding, align)
    got = _sample_and_grads(cinder, x, grid, weights, mode, padding, align)
    assert got[0].grad_fn.name() == expected[0].grad_fn.name()
    for e, g in zip(expected, got):
        assert g.dtype == getattr(cinder, str(e.dtype).split(".")[-1])
        assert tuple(g.shape) == tuple(e.shape)
        np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype,tol", [("float16", 2e-2), ("bfloat16", 1e-1)])
@pytest.mark.parametrize("mode", [0, 1, 2])
def test_grid_sampler_half_types(dtype, tol, mode):
    """(cinder computes the coordinates in float32; PyTorch rounds some steps to the half
    type, which moves a bfloat16 sample by up to a few hundredths)"""
    x, grid, _ = _grid_inputs(2, np.float32, seed=mode)
    out = [lib.grid_sampler(lib.tensor(x).to(getattr(lib, dtype)),
                            lib.tensor(grid).to(getattr(lib, dtype)), mode, 0, False)
           for lib in (torch, cinder)]
    assert out[1].dtype == getattr(cinder, dtype)
    np.testing.assert_allclose(out[1].float().numpy(), out[0].float().numpy(), rtol=tol,
                               atol=tol)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding", [0, 1, 2])
def test_grid_sampler_non_finite_grid(mode, padding):
    """NaN and infinite coordinates: the clamp sends NaN to 0, zeros padding reads nothing."""
    x = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 3, 4)
    grid = np.array([[[[np.nan, 0.2], [0.3, np.nan], [np.nan, np.nan], [np.inf, 0],
                       [-np.inf, 0.5], [0.1, -np.inf]]]], dtype=np.float32)
    out = [lib.grid_sampler(lib.tensor(x), lib.tensor(grid), mode, padding, False).numpy()
           for lib in (torch, cinder)]
    np.testing.assert_allclose(out[1], out[0], rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("nd,mode,padding", [(2, 0, 0), (2, 2, 2), (3, 0, 1)])
def test_grid_sampler_double_backward(nd, mode, padding):
    x, grid, weights = _grid_inputs(nd, np.float64, seed=7, batch=1, channels=2)
    results = []
    for lib in (torch, cinder):
        inp = lib.tensor(x, requires_grad=True)
        g = lib.tensor(grid, requires_grad=True)
        out = lib.grid_sampler(inp, g, mode, padding, False)
        gx, gg = lib.autograd.grad((out * out * lib.tensor(weights)).sum(), (inp, g),
                                   create_graph=True)
        (gx.sum() + (gg * gg).sum()).backward()
        results.append((gx.detach().numpy(), gg.detach().numpy(), inp.grad.numpy(),
                        g.grad.numpy()))
    for e, c in zip(*results):
        np.testing.assert_allclose(c, e, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("leaf", ["input", "grid"])
def test_grid_sampler_strided_inputs_one_leaf(leaf):
    """Non-contiguous input and grid; only one of them needs a gradient."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 6, 3)).astype(np.float32)
    grid = rng.uniform(-1, 1, (2, 4, 3, 2)).astype(np.float32)
    results = []
    for lib in (torch, cinder):
        inp, g = lib.tensor(x).permute(0, 3, 1, 2), lib.tensor(grid).transpose(1, 2)
        wanted = (inp if leaf == "input" else g).requires_grad_()
        out = lib.grid_sampler(inp, g, 0, 2, True)
        (out * out).sum().backward()
        results.append((out.detach().numpy(), wanted.grad.numpy()))
    for e, c in zip(*results):
        np.testing.assert_allclose(c, e, rtol=1e-5, atol=1e-5)


def test_grid_sampler_empty_spatial_error():
    messages = []
    for lib in (torch, cinder):
        with pytest.raises(RuntimeError) as info:
            lib.grid_sampler(lib.ones(1, 1, 0, 3), lib.zeros(1, 2, 2, 2), 0, 0, False)
        messages.append(str(info.value))
    assert messages[1] == messages[0]


@pytest.mark.parametrize("shapes", [((0, 2, 3, 3), (0, 2, 2, 2)), ((1, 0, 3, 3), (1, 2, 2, 2)),
                                    ((1, 2, 3, 3), (1, 0, 2, 2))])
def test_grid_sampler_empty_batch_channels_points(shapes):
    x, grid = shapes
    out = [lib.grid_sampler(lib.ones(*x), lib.zeros(*grid), 0, 0, False) for lib in
           (torch, cinder)]
    assert tuple(out[1].shape) == tuple(out[0].shape)


# ---------------------------------------------------------------------------------------------
# embedding_bag (pooling matrix forward, its transpose backward; runs for max)
# ---------------------------------------------------------------------------------------------
def _bag_inputs(seed, dtype, num=40, dim=7, count=300, bags=30):
    rng = np.random.default_rng(seed)
    weight = rng.standard_normal((num, dim)).astype(dtype)
    indices = rng.integers(0, num, count)
    offsets = np.sort(rng.choice(count, bags, replace=False))
    offsets[0] = 0
    if bags > 8:
        offsets[5:8] = offsets[5]                          # empty bags
    return weight, indices, offsets, rng.standard_normal(count).astype(dtype)


def _bag_run(lib, weight, indices, offsets, mode, psw, last, padding, freq, grad_seed):
    w = lib.tensor(weight, requires_grad=grad_seed is not None)
    p = None if psw is None else lib.tensor(psw, requires_grad=grad_seed is not None)
    outs = lib.embedding_bag(w, lib.tensor(indices), lib.tensor(offsets), freq, mode, False, p,
                             last, padding)
    if grad_seed is None:
        return [o.detach().numpy() for o in outs]
    g = np.random.default_rng(grad_seed).standard_normal(tuple(outs[0].shape))
    (outs[0] * lib.tensor(g.astype(weight.dtype))).sum().backward()
    return [o.detach().numpy() for o in outs] + [w.grad.numpy()] + \
        ([] if p is None else [p.grad.numpy()])


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("last,padding", [(False, None), (True, None), (False, 3), (True, 0)])
@pytest.mark.parametrize("seed", [0, 1])
def test_embedding_bag_values_bookkeeping_and_grad(mode, dtype, last, padding, seed):
    weight, indices, offsets, _ = _bag_inputs(seed, dtype)
    if last:
        offsets = np.append(offsets, (offsets[-1] + indices.size + 1) // 2)
    # PyTorch's index-select path (float32 sum/mean, no padding) stops the last bag at the
    # final offset with include_last_offset; its backward then reads uninitialised memory
    # for the indices after it (or fails an internal check), so only values are compared
    values_only = last and padding is None and dtype == np.float32 and mode != 2
    args = (weight, indices, offsets, mode, None, last, padding, False,
            None if values_only else seed)
    expected, got = _bag_run(torch, *args), _bag_run(cinder, *args)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for e, g in zip(expected, got):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("padding", [None, 5])
def test_embedding_bag_per_sample_weights_grads(dtype, padding):
    weight, indices, offsets, psw = _bag_inputs(3, dtype)
    args = (weight, indices, offsets, 0, psw, False, padding, False, 3)
    expected, got = _bag_run(torch, *args), _bag_run(cinder, *args)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g, e, rtol=tol, atol=tol)


@pytest.mark.parametrize("mode", [0, 1])
def test_embedding_bag_scale_grad_by_freq(mode):
    """cinder divides each row's gradient by the row's frequency in ``indices`` (PyTorch's
    CPU kernel fails on this input, so the check is against the unscaled gradient)."""
    weight, indices, offsets, _ = _bag_inputs(4, np.float64)
    plain = _bag_run(cinder, weight, indices, offsets, mode, None, False, None, False, 4)
    scaled = _bag_run(cinder, weight, indices, offsets, mode, None, False, None, True, 4)
    freq = np.maximum(np.bincount(indices, minlength=weight.shape[0]), 1)[:, None]
    np.testing.assert_allclose(scaled[0], plain[0])
    np.testing.assert_allclose(scaled[-1] * freq, plain[-1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_embedding_bag_second_derivatives(mode):
    """The create_graph backward goes through cinder ops (PyTorch has none: it raises)."""
    weight, indices, offsets, psw = _bag_inputs(5, np.float64, num=6, dim=3, count=12, bags=4)
    w = cinder.tensor(weight, requires_grad=True)
    p = cinder.tensor(psw, requires_grad=True) if mode == 0 else None
    inputs = (w,) if p is None else (w, p)

    def fn(*args):
        return cinder.embedding_bag(args[0], cinder.tensor(indices), cinder.tensor(offsets),
                                    False, mode, False, p if len(args) == 1 else args[1])[0] ** 2
    assert cinder.autograd.gradgradcheck(fn, inputs)


# ---------------------------------------------------------------------------------------------
# Poisson and Binomial (BTRS) with one shared parameter: trials judged in blocks (rates >= 10,
# BTRS), or the draw count of every possible start found at once (rates below 10)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rate", [1e-6, 0.1, 3.0, 9.99, 10.0, 37.5, 300.0, 1e7])
@pytest.mark.parametrize("shape", [(1,), (7,), (40, 50)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", [0, 9])
def test_poisson_shared_rate_matches_stream(rate, shape, dtype, seed):
    drawn = []
    for lib in (torch, cinder):
        lib.manual_seed(seed)
        x = lib.poisson(lib.full(shape, rate, dtype=getattr(lib, dtype)))
        drawn.append((x.numpy(), lib.rand(3).numpy(), lib.randn(3).numpy()))
    for e, c in zip(*drawn):
        assert c.dtype == e.dtype
        np.testing.assert_array_equal(c, e)


@pytest.mark.parametrize("count,prob", [(100, 0.3), (100, 0.7), (40, 0.5), (3e7, 0.4),
                                        (3e7, 0.9)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", [0, 9])
def test_binomial_shared_parameters_match_stream(count, prob, dtype, seed):
    drawn = []
    for lib in (torch, cinder):
        lib.manual_seed(seed)
        dt = getattr(lib, dtype)
        x = lib.binomial(lib.full((3000,), float(count), dtype=dt),
                         lib.full((3000,), prob, dtype=dt))
        drawn.append((x.numpy(), lib.rand(3).numpy()))
    for e, c in zip(*drawn):
        np.testing.assert_array_equal(c, e)


def test_distributions_poisson_binomial_samples_match_stream():
    drawn = []
    for lib in (torch, cinder):
        lib.manual_seed(5)
        d = lib.distributions
        drawn.append((d.Poisson(lib.full((500,), 120.0)).sample((2,)).numpy(),
                      d.Binomial(100, lib.full((500,), 0.3)).sample().numpy()))
    for e, c in zip(*drawn):
        np.testing.assert_array_equal(c, e)


@pytest.mark.parametrize("indices,offsets", [([1, 2, 3], []), ([1, 2, 3], [0]), ([], [0, 0]),
                                             ([1, 2, 3, 4], [0, 0, 4])])
@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("last", [False, True])
def test_embedding_bag_small_and_empty_offsets(indices, offsets, mode, last):
    """Zero bags, empty input, empty bags. (PyTorch's max mode crashes on zero bags, and its
    backward crashes or reads uninitialised memory with no bags or with include_last_offset,
    so those gradients are not compared.)"""
    if mode == 2 and len(offsets) - last < 1:
        pytest.skip("PyTorch's max mode segfaults on zero bags")
    weight = np.random.default_rng(0).standard_normal((6, 3)).astype(np.float32)
    outcome = []
    for lib in (torch, cinder):
        try:
            w = lib.tensor(weight, requires_grad=True)
            out = lib.embedding_bag(w, lib.tensor(indices, dtype=lib.int64),
                                    lib.tensor(offsets, dtype=lib.int64), False, mode, False,
                                    None, last)[0]
            grads = None
            if offsets and not last:
                out.sum().backward()
                grads = w.grad.numpy().tolist()
            outcome.append((out.detach().numpy().tolist(), grads))
        except RuntimeError as error:
            outcome.append(str(error))
    assert outcome[1] == outcome[0]
