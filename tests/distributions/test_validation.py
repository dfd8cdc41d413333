"""Argument and sample validation: same exception types and messages as PyTorch."""

import numpy as np
import pytest
import torch

import cinder

BAD = [
    "L.distributions.Normal(0.0, -1.0)",
    "L.distributions.Normal(L.tensor([0.0, 1.0]), L.tensor([1.0, 0.0]))",
    "L.distributions.Exponential(L.tensor([-1.0]))",
    "L.distributions.Bernoulli(L.tensor([1.5]))",
    "L.distributions.Bernoulli()",
    "L.distributions.Bernoulli(0.3, 0.1)",
    "L.distributions.Categorical(L.tensor(0.5))",
    "L.distributions.Categorical(logits=L.tensor(0.5))",
    "L.distributions.Categorical()",
    "L.distributions.Categorical(L.tensor([0.5, -0.5]))",
    "L.distributions.Uniform(1.0, 0.0)",
    "L.distributions.Binomial(3)",
    "L.distributions.NegativeBinomial(3, L.tensor([0.5]), L.tensor([0.1]))",
    "L.distributions.Geometric()",
    "L.distributions.RelaxedBernoulli(L.tensor(0.5))",
    "L.distributions.relaxed_bernoulli.LogitRelaxedBernoulli(L.tensor(0.5), 0.3, 0.1)",
    "L.distributions.Normal(0.0, 1.0).log_prob(1.0)",
    "L.distributions.Normal(L.zeros(3), 1.0).log_prob(L.zeros(2))",
    "L.distributions.Exponential(1.0).log_prob(L.tensor(-1.0))",
    "L.distributions.Uniform(0.0, 1.0).log_prob(L.tensor(2.0))",
    "L.distributions.Bernoulli(0.5).log_prob(L.tensor(0.5))",
    "L.distributions.Categorical(L.ones(3)).log_prob(L.tensor(3))",
    "L.distributions.OneHotCategorical(L.ones(3)).log_prob(L.tensor([1.0, 0.0]))",
    "L.distributions.Independent(L.distributions.Normal(0.0, 1.0), 1)",
    "L.distributions.Normal(0.0, -1.0, validate_args=False).scale",
    "L.distributions.TransformedDistribution(L.distributions.Normal(0.0, 1.0), 3)",
    "L.distributions.transforms.ExpTransform(cache_size=2)",
    "L.distributions.biject_to(L.distributions.constraints.boolean)",
    "L.distributions.Cauchy(0.0, 1.0).entropy()",
    "L.distributions.Distribution().mean",
    "L.distributions.Distribution().sample()",
    "L.distributions.Normal(L.zeros(2), 1.0).enumerate_support()",
    "L.distributions.ContinuousBernoulli()",
    "L.distributions.ContinuousBernoulli(0.3, 0.1)",
    "L.distributions.ContinuousBernoulli(L.tensor([1.5]), validate_args=True)",
    "L.distributions.ContinuousBernoulli(L.tensor([1.5]), validate_args=False).probs",
    "L.distributions.ContinuousBernoulli(0.3).log_prob(L.tensor(1.5))",
    "L.distributions.ContinuousBernoulli(0.3).mode",
    "L.distributions.GeneralizedPareto(0.0, -1.0, 0.5)",
    "L.distributions.GeneralizedPareto(0.0, 1.0, -0.5).log_prob(L.tensor(2.5))",
    "L.distributions.GeneralizedPareto(0.0, 1.0, 0.5).log_prob(L.tensor(-1.0))",
    "L.distributions.GeneralizedPareto(0.0, 1.0, -0.5).support",
    "L.distributions.LKJCholesky(1, 0.5)",
    "L.distributions.LKJCholesky(3, -0.5)",
    "L.distributions.LKJCholesky(2, 0.5).log_prob(L.ones(2, 2))",
    "L.distributions.Wishart(4.0)",
    "L.distributions.Wishart(4.0, covariance_matrix=L.eye(2), scale_tril=L.eye(2))",
    "L.distributions.Wishart(4.0, covariance_matrix=L.ones(2))",
    "L.distributions.Wishart(1.0, covariance_matrix=L.eye(3))",
    "L.distributions.Wishart(4.0, covariance_matrix=-L.eye(2))",
    "L.distributions.Wishart(4.0, scale_tril=L.ones(2, 2))",
    "L.distributions.Wishart(4.0, covariance_matrix=L.eye(2)).log_prob(-L.eye(2))",
    "L.distributions.Wishart(L.tensor([4.0, 5.0]), covariance_matrix=L.eye(2)).batch_shape",
]


def _outcome(expr, lib):
    try:
        value = eval(expr, {"L": lib})
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return ("raises", type(e).__name__, str(e).replace("torch.", "").replace(
            "cinder.", ""))
    return ("value", repr(value))


@pytest.mark.parametrize("expr", BAD)
def test_same_outcome(expr):
    assert _outcome(expr, cinder) == _outcome(expr, torch)


def test_set_default_validate_args():
    for lib in (cinder, torch):
        lib.distributions.Distribution.set_default_validate_args(False)
        try:
            d = lib.distributions.Normal(0.0, -1.0)
            assert d.scale.item() == -1.0
        finally:
            lib.distributions.Distribution.set_default_validate_args(True)
        with pytest.raises(ValueError):
            lib.distributions.Distribution.set_default_validate_args(3)


def test_sample_n_warns():
    with pytest.warns(FutureWarning, match="will be deprecated"):
        cinder.manual_seed(0)
        s = cinder.distributions.Normal(0.0, 1.0).sample_n(3)
    torch.manual_seed(0)
    with pytest.warns(FutureWarning):
        st = torch.distributions.Normal(0.0, 1.0).sample_n(3)
    np.testing.assert_array_equal(s.numpy(), st.numpy())


def test_seeded_standard_normal_as_in_issue():
    cinder.manual_seed(2024)
    torch.manual_seed(2024)
    np.testing.assert_array_equal(cinder.distributions.Normal(0, 1).sample((5,)).numpy(),
                                  torch.distributions.Normal(0, 1).sample((5,)).numpy())


@pytest.mark.parametrize("expr", [
    "L.distributions.Bernoulli(logits=L.tensor([0.3, -1.0]))",
    "L.distributions.Binomial(4, probs=L.tensor([0.3, 0.6]))",
    "L.distributions.NegativeBinomial(4, logits=L.tensor([0.3, -1.0]))",
    "L.distributions.Categorical(logits=L.tensor([[0.3, -1.0, 2.0]]))",
    "L.distributions.relaxed_bernoulli.LogitRelaxedBernoulli(L.tensor(0.5), L.tensor([0.3, 0.6]))",
])
def test_expand_keeps_given_and_computed_param(expr):
    """After both probs and logits exist, expand carries both (the given one as _param)."""
    outs = []
    for lib in (cinder, torch):
        d = eval(expr, {"L": lib})
        d.probs, d.logits  # noqa: B018 - builds the lazy one
        e = d.expand((3,) + tuple(d.batch_shape))
        outs.append((sorted(k for k in ("probs", "logits") if k in e.__dict__),
                     tuple(e._param.shape), e.probs.numpy(), e.logits.numpy()))
    (keys, shape, p, lg), (tkeys, tshape, tp, tlg) = outs
    assert keys == tkeys and shape == tshape
    np.testing.assert_allclose(p, tp, rtol=1e-6)
    np.testing.assert_allclose(lg, tlg, rtol=1e-6)


@pytest.mark.parametrize("make", ["Gamma(c, c)", "Chi2(c)", "StudentT(c)", "Beta(c, c + 1)",
                                  "Dirichlet(c)", "FisherSnedecor(c, c + 2)"])
def test_rsample_gradient_to_concentration(make):
    """rsample of the gamma-based families differentiates the draw with respect to the
    concentration (the implicit gradient): same draws and same gradients as PyTorch."""
    grads = []
    for lib in (cinder, torch):
        c = lib.tensor([0.4, 2.0, 9.5], dtype=lib.float64, requires_grad=True)
        lib.manual_seed(21)
        s = eval("L.distributions." + make, {"L": lib, "c": c}).rsample((5,))
        w = lib.arange(s.numel(), dtype=lib.float64).reshape(s.shape).sin()
        (g,) = lib.autograd.grad((s * w).sum(), c)
        grads.append((s.detach().numpy(), g.numpy()))
    np.testing.assert_array_equal(grads[0][0], grads[1][0])
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-9)


@pytest.mark.parametrize("name", ["positive_definite", "positive_semidefinite"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_definite_constraints(name, dtype):
    mats = np.array([[[2.0, 1.0], [1.0, 2.0]], [[1.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]],
                     [[0.0, 0.0], [0.0, 0.0]], [[1e-9, 0.0], [0.0, 1.0]],
                     [[1.0, 0.5], [0.4, 1.0]]], dtype=dtype)
    for value in (mats, mats[0]):
        mine = getattr(cinder.distributions.constraints, name).check(
            cinder.tensor(value, requires_grad=True))
        theirs = getattr(torch.distributions.constraints, name).check(
            torch.tensor(value, requires_grad=True))
        np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


def test_wishart_warnings_and_rsample_backward():
    """Low df warns; rsample warns "Singular sample detected." (PyTorch redraws every valid
    sample once, and cinder follows it so that the draws match). Gradients agree where
    PyTorch can compute them; with a sample_shape PyTorch's backward fails on the mask it
    modified in place, while cinder computes the gradient (a deliberate difference)."""
    outcomes = []
    for lib in (cinder, torch):
        with pytest.warns(UserWarning) as record:
            d = lib.distributions.Wishart(lib.tensor(2.5), covariance_matrix=lib.eye(3))
        messages = [str(w.message) for w in record]
        lib.manual_seed(4)
        cov = lib.tensor([[2.0, 0.3], [0.3, 1.0]], requires_grad=True)
        with pytest.warns(UserWarning, match="Singular sample detected"):
            s = lib.distributions.Wishart(4.0, covariance_matrix=cov).rsample()
        (g,) = lib.autograd.grad(s.sum(), cov)
        many = lib.distributions.Wishart(4.0, covariance_matrix=cov).rsample((3,))
        outcomes.append((messages, tuple(d.batch_shape), s.detach().numpy(), g.numpy(), many,
                         cov))
    (mine, theirs) = outcomes
    assert mine[:2] == theirs[:2]
    np.testing.assert_allclose(mine[2], theirs[2], rtol=1e-5)   # matmuls of the same draws
    np.testing.assert_allclose(mine[3], theirs[3], rtol=1e-5)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        theirs[4].sum().backward()
    (g,) = cinder.autograd.grad(mine[4].sum(), mine[5])
    assert bool(cinder.isfinite(g).all()) and bool((g != 0).any())
