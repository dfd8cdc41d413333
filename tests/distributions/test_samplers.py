"""The ATen samplers behind torch.distributions (cinder/ops/distributions.py): after the same
seed, ``_standard_gamma``, ``_sample_dirichlet``, ``poisson`` and ``binomial`` give PyTorch's
numbers bit for bit and leave the generator where PyTorch leaves it; their gradients
(``_standard_gamma_grad``, ``_dirichlet_grad``) agree with PyTorch's; bad input raises
PyTorch's exceptions."""

import numpy as np
import pytest
import torch
from oracle import check

import cinder

R = np.random.RandomState(3)


def _same_draws(fn, *arrays, seed=0, generator=False):
    """Run ``fn(lib, *tensors)`` in both libraries after the same seed; the results and the
    next draws of the stream (normal cache included) must be identical."""
    outs = []
    for lib in (torch, cinder):
        lib.manual_seed(seed)
        gen = lib.Generator().manual_seed(seed + 1) if generator else None
        result = fn(lib, *[lib.tensor(a) for a in arrays], gen)
        after = (lib.randn(3, dtype=lib.float64), lib.rand(2))
        outs.append((result, after))
    (mine, my_after), (theirs, their_after) = outs[1], outs[0]
    assert mine.dtype == getattr(cinder, str(theirs.dtype).split(".")[1])
    assert tuple(mine.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
    for a, b in zip(my_after, their_after):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


ALPHAS = {
    "below_one": R.rand(60) * 0.95 + 0.01,
    "moderate": R.rand(3, 40) * 6 + 1,
    "large": R.rand(50) * 500 + 8,
    "mixed": np.array([0.0, 1e-3, 0.5, 1.0, 1.5, 30.0, 1e4]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("alpha", ALPHAS, ids=list(ALPHAS))
def test_standard_gamma(alpha, dtype):
    _same_draws(lambda L, a, g: L._standard_gamma(a, generator=g),
                ALPHAS[alpha].astype(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gamma_after_randn_uses_the_cached_normal(dtype):
    """A small randn leaves a cached double normal; the gamma sampler consumes it first."""
    def fn(L, a, g):
        L.randn(3)
        return L._standard_gamma(a)
    _same_draws(fn, np.full((2, 5), 2.5, dtype), seed=7)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("alpha,n", [(1.0, 3000), (1.3, 257), (7.5, 64)])
@pytest.mark.parametrize("cached", [False, True])
def test_standard_gamma_shared_alpha(alpha, n, dtype, cached):
    """Many draws with one alpha: alpha = 1 over 3000 draws meets normals with 1 + c x <= 0
    (redrawn without a uniform) several times; a randn(3) before leaves a cached normal for
    the first trial."""
    def fn(L, a, g):
        if cached:
            L.randn(3)
        return L._standard_gamma(a)
    _same_draws(fn, np.full(n, alpha, dtype), seed=n)


def test_standard_gamma_refuses_concentrations_it_cannot_draw():
    """PyTorch's loop never terminates for NaN or alpha <= -2/3; cinder raises instead (a
    deliberate difference), and still draws PyTorch's values for -2/3 < alpha < 0."""
    for bad in (float("nan"), -1.0):
        with pytest.raises(RuntimeError, match="cannot draw"):
            cinder._standard_gamma(cinder.tensor([2.0, bad]))
    _same_draws(lambda L, a, g: L._standard_gamma(a), np.array([-0.5, -0.1, 0.3]))
    with pytest.raises(RuntimeError, match="NaN count"):
        cinder.binomial(cinder.tensor([3.0, float("nan")]), cinder.tensor([0.3, 0.3]))
    # a NaN count that never reaches the loop is PyTorch's value
    _same_draws(lambda L, n, p, g: L.binomial(n, p), np.array([np.nan, np.nan, 4.0]),
                np.array([0.0, 1.0, 0.5]))


def test_standard_gamma_with_generator():
    _same_draws(lambda L, a, g: L._standard_gamma(a, generator=g), ALPHAS["moderate"],
                generator=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(5,), (4, 3), (2, 3, 2)])
def test_sample_dirichlet(shape, dtype):
    alpha = (R.rand(*shape) * 3 + 0.05).astype(dtype)
    _same_draws(lambda L, a, g: L._sample_dirichlet(a, generator=g), alpha)


RATES = {
    "small": R.rand(100) * 9.9,
    "transformed_rejection": R.rand(4, 25) * 90 + 10,
    "huge": np.array([1e4, 1e6, 3e9, 1e12]),
    "edges": np.array([0.0, 10.0, 9.999, 1e-8]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rate", RATES, ids=list(RATES))
def test_poisson(rate, dtype):
    _same_draws(lambda L, r, g: L.poisson(r, g), RATES[rate].astype(dtype))


COUNTS = {
    "inversion": (np.floor(R.rand(60) * 15), R.rand(60) * 0.6),
    "btrs": (np.floor(R.rand(60) * 200) + 40, R.rand(60) * 0.8 + 0.1),
    "huge": (np.full(6, 1e7), np.array([0.5, 1e-3, 0.999, 0.25, 0.75, 0.1])),
    "edges": (np.array([0.0, 5, 5, 5, 20, 20, -1]), np.array([0.5, 0, 1, np.nan, .97, .03, .5])),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", COUNTS, ids=list(COUNTS))
def test_binomial(case, dtype):
    count, prob = (a.astype(dtype) for a in COUNTS[case])
    _same_draws(lambda L, n, p, g: L.binomial(n, p, g), count, prob)


def test_binomial_broadcasts_prob():
    _same_draws(lambda L, n, p, g: L.binomial(n, p), np.full((3, 4), 30.0, np.float32),
                np.array([0.2, 0.5, 0.7, 0.9], np.float32))


def _close(fn, dtype):
    mine, theirs = fn(cinder), fn(torch)
    assert str(mine.dtype) == str(theirs.dtype)
    tol = 1e-5 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=tol, atol=tol)


def _grid(dtype):
    alpha = np.array([0.05, 0.3, 0.9, 1.0, 2.5, 7.9, 8.5, 20.0, 150.0])
    x = np.array([1e-4, 0.05, 0.5, 0.79, 0.81, 1.0, 2.5, 7.0, 8.4, 9.0, 25.0, 140.0, 200.0])
    a, b = np.meshgrid(alpha, x, indexing="ij")
    return a.astype(dtype), b.astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_gamma_grad_all_regions(dtype):
    """Taylor series (x < 0.8), saddle point (alpha > 8, near and away from the mean) and the
    rational fit: every branch against PyTorch."""
    a, x = _grid(dtype)
    _close(lambda L: L._standard_gamma_grad(L.tensor(a), L.tensor(x)), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dirichlet_grad_all_regions(dtype):
    x = np.array([1e-3, 0.05, 0.2, 0.45, 0.5, 0.55, 0.8, 0.97, 0.999])
    alpha = np.array([0.2, 1.0, 3.0, 7.0, 40.0])
    total = np.array([1.5, 5.0, 14.0, 90.0])
    xs, al, tot = np.meshgrid(x, alpha, total, indexing="ij")
    tot = tot + al   # total > alpha: a proper Beta(alpha, total - alpha)
    xs, al, tot = (v.astype(dtype) for v in (xs, al, tot))
    _close(lambda L: L._dirichlet_grad(L.tensor(xs), L.tensor(al), L.tensor(tot)), dtype)


def test_gradients_of_the_ops():
    """_standard_gamma is differentiable (StandardGammaBackward0), poisson has a zero
    gradient, binomial and _sample_dirichlet refuse backward like PyTorch."""
    results = []
    for lib in (torch, cinder):
        a = lib.tensor([0.5, 2.0, 12.0], dtype=lib.float64, requires_grad=True)
        lib.manual_seed(2)
        s = lib._standard_gamma(a)
        (g,) = lib.autograd.grad(s.sum(), a)
        p = lib.poisson(a)
        (gp,) = lib.autograd.grad(p.sum(), a)
        results.append((type(s.grad_fn).__name__, s.detach().numpy(), g.numpy(),
                        type(p.grad_fn).__name__, gp.numpy()))
    (mine, theirs) = results[1], results[0]
    assert mine[0] == theirs[0] and mine[3] == theirs[3]
    np.testing.assert_array_equal(mine[1], theirs[1])
    np.testing.assert_allclose(mine[2], theirs[2], rtol=1e-12)
    np.testing.assert_array_equal(mine[4], theirs[4])


@pytest.mark.parametrize("expr", [
    "L.binomial(L.ones(2, requires_grad=True), L.ones(2) * 0.5).sum().backward()",
    "L._sample_dirichlet(L.ones(2, requires_grad=True)).sum().backward()",
])
def test_not_differentiable(expr):
    check(expr)


@pytest.mark.parametrize("expr", [
    "L._standard_gamma(L.ones(3, dtype=L.int64))",
    "L._standard_gamma(L.ones(3, dtype=L.float16))",
    "L._sample_dirichlet(L.ones(2, dtype=L.int64))",
    "L.poisson(L.tensor([-1.0]))",
    "L.poisson(L.tensor([float('nan')]))",
    "L.poisson(L.ones(2, dtype=L.int64))",
    "L.binomial(L.ones(2), L.ones(3))",
    "L.binomial(L.ones(2, dtype=L.int64), L.ones(2, dtype=L.int64))",
    "L.binomial(L.ones(2), L.ones(2, dtype=L.float64))",
    "L.poisson([1.0])",
])
def test_errors(expr):
    check(expr)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("exponent", [3, -0.5, -1, -2.0])
def test_pow_scalar_exponents_bit_for_bit(exponent, dtype):
    """For these scalar exponents PyTorch computes 1/x, 1/(x*x), 1/sqrt(x), x*x*x rather
    than pow(); cinder likewise, bit for bit. (A tensor exponent, as PowerTransform passes,
    goes through PyTorch's vectorised pow, which NumPy does not reproduce exactly.)"""
    x = ((np.random.RandomState(4).rand(2000) - 0.2) * 7).astype(dtype)
    mine = cinder.tensor(x).pow(exponent).numpy()
    theirs = torch.tensor(x).pow(exponent).numpy()
    np.testing.assert_array_equal(mine, theirs)
