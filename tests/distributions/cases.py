"""The table of distribution families x parameter sets the tests run on both libraries.

Each case is ``(id, make, value)``: ``make(L, T)`` builds the distribution with library ``L``
where ``T(array)`` turns a NumPy array into a tensor of that library; ``value`` is a NumPy
array at which densities and cdfs are evaluated (``None`` where the case has none).
"""

import numpy as np

R = np.random.RandomState(7)
LOC = R.randn(2, 3).astype(np.float32)
SCALE = (R.rand(2, 3) + 0.5).astype(np.float32)
X = R.randn(2, 3).astype(np.float32)
POS = (R.rand(2, 3) * 2 + 0.1).astype(np.float32)
P = (R.rand(2, 3) * 0.8 + 0.1).astype(np.float32)
U = (R.rand(2, 3) * 0.8 + 0.1).astype(np.float32)
PROBS = (R.rand(2, 4) + 0.1).astype(np.float32)
PROBS /= PROBS.sum(-1, keepdims=True)
LOGITS = R.randn(2, 4).astype(np.float32)
F64 = R.randn(3).astype(np.float64)

CASES = [
    ("normal", lambda L, T: L.distributions.Normal(T(LOC), T(SCALE)), X),
    ("normal_scalar", lambda L, T: L.distributions.Normal(0.5, 2.0), X),
    ("normal_f64", lambda L, T: L.distributions.Normal(T(F64), 1.5), F64),
    ("uniform", lambda L, T: L.distributions.Uniform(T(LOC - 1), T(LOC + SCALE)), LOC),
    ("uniform_scalar", lambda L, T: L.distributions.Uniform(0.0, 2.0), U),
    ("bernoulli_probs", lambda L, T: L.distributions.Bernoulli(probs=T(P)),
     (U > 0.5).astype(np.float32)),
    ("bernoulli_logits", lambda L, T: L.distributions.Bernoulli(logits=T(X)),
     (U > 0.5).astype(np.float32)),
    ("categorical_probs", lambda L, T: L.distributions.Categorical(probs=T(PROBS)),
     np.array([1, 3])),
    ("categorical_logits", lambda L, T: L.distributions.Categorical(logits=T(LOGITS)),
     np.array([[0, 2], [3, 1]])),
    ("onehot", lambda L, T: L.distributions.OneHotCategorical(probs=T(PROBS)),
     np.eye(4, dtype=np.float32)[[2, 0]]),
    ("onehot_logits", lambda L, T: L.distributions.OneHotCategorical(logits=T(LOGITS)),
     np.eye(4, dtype=np.float32)[[1, 3]]),
    ("exponential", lambda L, T: L.distributions.Exponential(T(POS)), POS * 0.7),
    ("laplace", lambda L, T: L.distributions.Laplace(T(LOC), T(SCALE)), X),
    ("cauchy", lambda L, T: L.distributions.Cauchy(T(LOC), T(SCALE)), X),
    ("gumbel", lambda L, T: L.distributions.Gumbel(T(LOC), T(SCALE)), X),
    ("gumbel_scalar", lambda L, T: L.distributions.Gumbel(1.0, 2.0), X),
    ("lognormal", lambda L, T: L.distributions.LogNormal(T(LOC), T(SCALE)), POS),
    ("independent_normal",
     lambda L, T: L.distributions.Independent(L.distributions.Normal(T(LOC), T(SCALE)), 1), X),
    ("transformed_sigmoid", lambda L, T: L.distributions.TransformedDistribution(
        L.distributions.Normal(T(LOC), T(SCALE)),
        [L.distributions.transforms.SigmoidTransform()]), U),
    ("transformed_affine_exp", lambda L, T: L.distributions.TransformedDistribution(
        L.distributions.Normal(T(LOC), T(SCALE)),
        [L.distributions.transforms.AffineTransform(1.0, -2.0),
         L.distributions.transforms.ExpTransform()]), POS),
]

# pairs (id, make_p, make_q) for kl_divergence
KL_PAIRS = [
    ("normal_normal", CASES[0][1], lambda L, T: L.distributions.Normal(T(X), T(POS))),
    ("uniform_uniform", lambda L, T: L.distributions.Uniform(T(LOC - 1), T(LOC + 1)),
     lambda L, T: L.distributions.Uniform(T(LOC - 2), T(LOC + 1.5))),
    ("uniform_uniform_inf", lambda L, T: L.distributions.Uniform(T(LOC - 1), T(LOC + 1)),
     lambda L, T: L.distributions.Uniform(T(LOC), T(LOC + 1.5))),
    ("bernoulli", lambda L, T: L.distributions.Bernoulli(T(P)),
     lambda L, T: L.distributions.Bernoulli(T(U))),
    ("categorical", lambda L, T: L.distributions.Categorical(T(PROBS)),
     lambda L, T: L.distributions.Categorical(logits=T(LOGITS))),
    ("onehot", lambda L, T: L.distributions.OneHotCategorical(T(PROBS)),
     lambda L, T: L.distributions.OneHotCategorical(logits=T(LOGITS))),
    ("exponential", lambda L, T: L.distributions.Exponential(T(POS)),
     lambda L, T: L.distributions.Exponential(T(SCALE))),
    ("laplace", lambda L, T: L.distributions.Laplace(T(LOC), T(SCALE)),
     lambda L, T: L.distributions.Laplace(T(X), T(POS))),
    ("cauchy", lambda L, T: L.distributions.Cauchy(T(LOC), T(SCALE)),
     lambda L, T: L.distributions.Cauchy(T(X), T(POS))),
    ("gumbel", lambda L, T: L.distributions.Gumbel(T(LOC), T(SCALE)),
     lambda L, T: L.distributions.Gumbel(T(X), T(POS))),
    ("lognormal", lambda L, T: L.distributions.LogNormal(T(LOC), T(SCALE)),
     lambda L, T: L.distributions.LogNormal(T(X), T(POS))),
    ("independent", CASES[17][1], lambda L, T: L.distributions.Independent(
        L.distributions.Normal(T(X), T(POS)), 1)),
    ("normal_laplace", CASES[0][1], lambda L, T: L.distributions.Laplace(T(X), T(POS))),
    ("normal_gumbel", CASES[0][1], lambda L, T: L.distributions.Gumbel(T(X), T(POS))),
    ("laplace_normal", CASES[12][1], lambda L, T: L.distributions.Normal(T(X), T(POS))),
    ("exponential_normal", CASES[11][1], lambda L, T: L.distributions.Normal(T(X), T(POS))),
    ("exponential_gumbel", CASES[11][1], lambda L, T: L.distributions.Gumbel(T(X), T(POS))),
    ("uniform_normal", CASES[3][1], lambda L, T: L.distributions.Normal(T(X), T(POS))),
    ("uniform_gumbel", CASES[3][1], lambda L, T: L.distributions.Gumbel(T(X), T(POS))),
    ("uniform_exponential", lambda L, T: L.distributions.Uniform(T(POS), T(POS + 1)),
     lambda L, T: L.distributions.Exponential(T(SCALE))),
    ("normal_exponential_inf", CASES[0][1],
     lambda L, T: L.distributions.Exponential(T(SCALE))),
    ("exponential_uniform_inf", CASES[11][1], CASES[3][1]),
]
