"""Transforms and constraint registries against PyTorch."""

import numpy as np
import pytest
import torch

import cinder

X = np.random.RandomState(3).randn(2, 4).astype(np.float32)
POS = np.abs(X) + 0.2
UNIT = (np.random.RandomState(4).rand(2, 4) * 0.8 + 0.1).astype(np.float32)
SIMPLEX = UNIT / UNIT.sum(-1, keepdims=True)

TRANSFORMS = [
    ("exp", lambda T, a: T.ExpTransform(), X),
    ("exp_inv", lambda T, a: T.ExpTransform().inv, POS),
    ("power", lambda T, a: T.PowerTransform(a(np.float32(2.5))), POS),
    ("sigmoid", lambda T, a: T.SigmoidTransform(), X),
    ("softplus", lambda T, a: T.SoftplusTransform(), X),
    ("tanh", lambda T, a: T.TanhTransform(), X),
    ("affine", lambda T, a: T.AffineTransform(1.5, -2.0), X),
    ("affine_tensor", lambda T, a: T.AffineTransform(a(X[0]), a(POS[1]), event_dim=1), X),
    ("stick_breaking", lambda T, a: T.StickBreakingTransform(), X[:, :3]),
    ("compose", lambda T, a: T.ComposeTransform([T.AffineTransform(0.5, 2.0),
                                                 T.ExpTransform()]), X),
    ("independent", lambda T, a: T.IndependentTransform(T.SigmoidTransform(), 1), X),
    ("reshape", lambda T, a: T.ReshapeTransform((4,), (2, 2)), X),
    ("lower_cholesky", lambda T, a: T.LowerCholeskyTransform(), X.reshape(2, 2, 2)),
    ("cat", lambda T, a: T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], 1,
                                        [3, 1]), X),
    ("stack", lambda T, a: T.StackTransform([T.ExpTransform(), T.SigmoidTransform()], 0), X),
    ("corr_cholesky", lambda T, a: T.CorrCholeskyTransform(),
     np.random.RandomState(5).randn(3, 6).astype(np.float32)),
    ("corr_cholesky_2x2", lambda T, a: T.CorrCholeskyTransform(), X[:, :1]),
    ("positive_definite", lambda T, a: T.PositiveDefiniteTransform(), X.reshape(2, 2, 2)),
]


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("case", TRANSFORMS, ids=[c[0] for c in TRANSFORMS])
def test_transform(case):
    _, make, x = case
    t = make(cinder.distributions.transforms, cinder.tensor)
    tt = make(torch.distributions.transforms, torch.tensor)
    y, yt = t(cinder.tensor(x)), tt(torch.tensor(x))
    np.testing.assert_allclose(_np(y), _np(yt), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(_np(t.inv(y)), _np(tt.inv(yt)), rtol=1e-5, atol=1e-5)
    assert repr(t) == repr(tt)
    assert repr(t.domain) == repr(tt.domain) and repr(t.codomain) == repr(tt.codomain)
    assert t.bijective == tt.bijective
    assert t.forward_shape(cinder.Size(x.shape)) == tt.forward_shape(torch.Size(x.shape))
    if not isinstance(tt, (torch.distributions.transforms.LowerCholeskyTransform,
                           torch.distributions.transforms.PositiveDefiniteTransform)):
        np.testing.assert_allclose(_np(t.log_abs_det_jacobian(cinder.tensor(x), y)),
                                   _np(tt.log_abs_det_jacobian(torch.tensor(x), yt)),
                                   rtol=1e-5, atol=1e-5)


def test_cache_returns_the_input():
    t = cinder.distributions.transforms.ExpTransform(cache_size=1)
    x = cinder.tensor(X)
    y = t(x)
    assert t.inv(y) is x
    assert t.with_cache(0) is not t


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", ["real", "positive", "nonnegative", "unit_interval",
                                  "simplex", "real_vector", "greater_than(2.0)",
                                  "less_than(-1.0)", "interval(-2.0, 3.0)",
                                  "lower_cholesky", "boolean", "corr_cholesky",
                                  "positive_definite", "positive_semidefinite"])
def test_constraint_registry(registry, name):
    def outcome(lib):
        c = eval("lib.distributions.constraints." + name, {"lib": lib})
        try:
            t = getattr(lib.distributions, registry)(c)
        except Exception as e:  # noqa: BLE001 - compared
            return type(e).__name__, str(e)
        x = lib.tensor(X if name not in ("simplex",) else X[:, :3])
        if name in ("lower_cholesky", "positive_definite", "positive_semidefinite"):
            x = lib.tensor(X.reshape(2, 2, 2))
        if name == "corr_cholesky":
            x = lib.tensor(X[:, :3])
        y = t(x)
        return repr(t), y.detach().numpy().round(5).tolist(), bool(c.check(y).all())

    assert outcome(cinder) == outcome(torch)


@pytest.mark.parametrize("name", ["real", "positive", "boolean", "simplex", "unit_interval",
                                  "nonnegative_integer", "one_hot", "lower_cholesky",
                                  "positive_definite", "real_vector", "integer_interval(0, 2)",
                                  "half_open_interval(0.0, 1.0)", "greater_than_eq(0.5)"])
def test_constraint_check(name):
    values = [X, POS, UNIT, SIMPLEX, np.round(POS), np.eye(4, dtype=np.float32),
              np.tril(X.reshape(2, 2, 2) ** 2 + 0.1), np.eye(2, dtype=np.float32) * 2]
    for v in values:
        c = eval("L.distributions.constraints." + name, {"L": cinder})
        ct = eval("L.distributions.constraints." + name, {"L": torch})
        assert repr(c) == repr(ct)
        assert c.is_discrete == ct.is_discrete and c.event_dim == ct.event_dim
        if v.ndim < c.event_dim:
            continue
        np.testing.assert_array_equal(c.check(cinder.tensor(v)).numpy(),
                                      ct.check(torch.tensor(v)).numpy())


def test_transformed_distribution_icdf_cdf_with_decreasing_map():
    c, t = cinder.distributions, torch.distributions
    v = np.array([0.2, 0.7], dtype=np.float32)
    mine = c.TransformedDistribution(c.Normal(0.0, 1.0), [c.transforms.AffineTransform(1.0, -3.0)])
    ref = t.TransformedDistribution(t.Normal(0.0, 1.0), [t.transforms.AffineTransform(1.0, -3.0)])
    np.testing.assert_allclose(mine.cdf(cinder.tensor(v)).numpy(),
                               ref.cdf(torch.tensor(v)).numpy(), rtol=1e-6)
    np.testing.assert_allclose(mine.icdf(cinder.tensor(v)).numpy(),
                               ref.icdf(torch.tensor(v)).numpy(), rtol=1e-6)


def test_corr_cholesky_shapes_and_errors():
    for lib in (cinder, torch):
        t = lib.distributions.transforms.CorrCholeskyTransform()
        assert t.forward_shape((5, 10)) == (5, 5, 5)
        assert t.inverse_shape((2, 4, 4)) == (2, 6)
        # no __eq__ of its own (identity), unlike PositiveDefiniteTransform
        assert t == t and t != lib.distributions.transforms.CorrCholeskyTransform()
        pd = lib.distributions.transforms.PositiveDefiniteTransform
        assert pd() == pd() and pd() != t
    for expr in ["T.CorrCholeskyTransform().forward_shape((4,))",
                 "T.CorrCholeskyTransform().forward_shape(())",
                 "T.CorrCholeskyTransform().inverse_shape((2, 3))",
                 "T.CorrCholeskyTransform().inverse_shape((3,))"]:
        outcomes = []
        for lib in (cinder, torch):
            try:
                eval(expr, {"T": lib.distributions.transforms})
                outcomes.append(None)
            except ValueError as e:
                outcomes.append(str(e))
        assert outcomes[0] == outcomes[1] and outcomes[0] is not None, expr
