"""MultivariateNormal against PyTorch. It needs cinder.linalg (cholesky, solve_triangular,
cholesky_inverse), which lands with the linalg branch; until then these tests are skipped."""

import numpy as np
import pytest
import torch

import cinder

pytestmark = pytest.mark.skipif(
    not hasattr(cinder, "linalg") or not hasattr(cinder.linalg, "solve_triangular"),
    reason="needs cinder.linalg")

R = np.random.RandomState(9)
A = R.randn(2, 3, 3).astype(np.float64)
COV = A @ A.transpose(0, 2, 1) + 0.5 * np.eye(3)
LOC = R.randn(2, 3)
X = R.randn(4, 2, 3)


def _build(lib, kind, requires_grad=False):
    loc = lib.tensor(LOC, requires_grad=requires_grad)
    cov = lib.tensor(COV, requires_grad=requires_grad)
    if kind == "covariance_matrix":
        return lib.distributions.MultivariateNormal(loc, covariance_matrix=cov), [loc, cov]
    if kind == "precision_matrix":
        return lib.distributions.MultivariateNormal(loc, precision_matrix=cov), [loc, cov]
    tril = lib.tensor(np.linalg.cholesky(COV), requires_grad=requires_grad)
    return lib.distributions.MultivariateNormal(loc, scale_tril=tril), [loc, tril]


@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_against_torch(kind):
    d, leaves = _build(cinder, kind, True)
    dt, leaves_t = _build(torch, kind, True)
    assert d.batch_shape == dt.batch_shape and d.event_shape == dt.event_shape
    for attr in ("mean", "variance", "covariance_matrix", "precision_matrix", "scale_tril"):
        np.testing.assert_allclose(getattr(d, attr).detach().numpy(),
                                   getattr(dt, attr).detach().numpy(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(d.entropy().detach().numpy(), dt.entropy().detach().numpy())
    lp, lpt = d.log_prob(cinder.tensor(X)), dt.log_prob(torch.tensor(X))
    np.testing.assert_allclose(lp.detach().numpy(), lpt.detach().numpy(), rtol=1e-9)
    cinder.manual_seed(1)
    torch.manual_seed(1)
    s, st = d.rsample((5,)), dt.rsample((5,))
    np.testing.assert_allclose(s.detach().numpy(), st.detach().numpy(), rtol=1e-12)
    grads = cinder.autograd.grad(lp.sum() + s.sum(), leaves)
    grads_t = torch.autograd.grad(lpt.sum() + st.sum(), leaves_t)
    for g, gt in zip(grads, grads_t):
        np.testing.assert_allclose(g.numpy(), gt.numpy(), rtol=1e-7, atol=1e-9)


def test_kl_and_errors():
    p, _ = _build(cinder, "covariance_matrix")
    pt, _ = _build(torch, "covariance_matrix")
    q = cinder.distributions.MultivariateNormal(cinder.zeros(3, dtype=cinder.float64),
                                                cinder.eye(3, dtype=cinder.float64) * 2)
    qt = torch.distributions.MultivariateNormal(torch.zeros(3, dtype=torch.float64),
                                                torch.eye(3, dtype=torch.float64) * 2)
    np.testing.assert_allclose(cinder.distributions.kl_divergence(p, q).numpy(),
                               torch.distributions.kl_divergence(pt, qt).numpy(), rtol=1e-9)
    for lib in (cinder, torch):
        with pytest.raises(ValueError, match="Exactly one of"):
            lib.distributions.MultivariateNormal(lib.zeros(3))
        with pytest.raises(ValueError, match="loc must be at least one-dimensional"):
            lib.distributions.MultivariateNormal(lib.zeros(()), lib.eye(3))
        with pytest.raises(ValueError, match="positive_definite|PositiveDefinite"):
            lib.distributions.MultivariateNormal(lib.zeros(2), lib.tensor([[1.0, 2.0],
                                                                           [2.0, 1.0]]))


W = R.randn(2, 3, 2)
D = R.rand(2, 3) + 0.5


def _lowrank(lib, requires_grad=False):
    leaves = [lib.tensor(a, requires_grad=requires_grad) for a in (LOC, W, D)]
    return lib.distributions.LowRankMultivariateNormal(*leaves), leaves


def test_lowrank_against_torch():
    d, leaves = _lowrank(cinder, True)
    dt, leaves_t = _lowrank(torch, True)
    assert d.batch_shape == dt.batch_shape and d.event_shape == dt.event_shape
    for attr in ("mean", "variance", "covariance_matrix", "precision_matrix", "scale_tril"):
        np.testing.assert_allclose(getattr(d, attr).detach().numpy(),
                                   getattr(dt, attr).detach().numpy(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(d.entropy().detach().numpy(), dt.entropy().detach().numpy())
    lp, lpt = d.log_prob(cinder.tensor(X)), dt.log_prob(torch.tensor(X))
    np.testing.assert_allclose(lp.detach().numpy(), lpt.detach().numpy(), rtol=1e-9)
    cinder.manual_seed(2)
    torch.manual_seed(2)
    s, st = d.rsample((5,)), dt.rsample((5,))
    np.testing.assert_allclose(s.detach().numpy(), st.detach().numpy(), rtol=1e-12)
    grads = cinder.autograd.grad(lp.sum() + s.sum(), leaves)
    grads_t = torch.autograd.grad(lpt.sum() + st.sum(), leaves_t)
    for g, gt in zip(grads, grads_t):
        np.testing.assert_allclose(g.numpy(), gt.numpy(), rtol=1e-7, atol=1e-9)
    args = (X[0], W[::-1].copy(), D[::-1].copy())
    q = cinder.distributions.LowRankMultivariateNormal(*map(cinder.tensor, args))
    qt = torch.distributions.LowRankMultivariateNormal(*map(torch.tensor, args))
    np.testing.assert_allclose(cinder.distributions.kl_divergence(d, q).detach().numpy(),
                               torch.distributions.kl_divergence(dt, qt).detach().numpy(),
                               rtol=1e-9)


def test_kl_between_full_and_low_rank():
    """The mixed MultivariateNormal / LowRankMultivariateNormal pairs, both ways, batched."""
    rng = np.random.RandomState(8)
    a = rng.randn(2, 3, 3).astype(np.float32)
    cov = a @ a.transpose(0, 2, 1) + np.eye(3, dtype=np.float32)
    loc, loc2 = rng.randn(2, 3).astype(np.float32), rng.randn(3).astype(np.float32)
    factor = rng.randn(3, 2).astype(np.float32)
    diag = (rng.rand(3) + 0.5).astype(np.float32)
    results = []
    for lib in (cinder, torch):
        full = lib.distributions.MultivariateNormal(lib.tensor(loc), lib.tensor(cov))
        low = lib.distributions.LowRankMultivariateNormal(lib.tensor(loc2), lib.tensor(factor),
                                                          lib.tensor(diag))
        kl = lib.distributions.kl_divergence
        results.append((kl(full, low).numpy(), kl(low, full).numpy()))
        bad = lib.distributions.MultivariateNormal(lib.zeros(2), lib.eye(2))
        with pytest.raises(ValueError, match="different event shapes"):
            kl(bad, low)
        with pytest.raises(ValueError, match="different event shapes"):
            kl(low, bad)
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5)
