"""torch.distributions benchmarks: cinder vs PyTorch in the same process, both on one thread.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_distributions.py

Prints a Markdown table; ratios are cinder time / PyTorch time (lower is better).
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import time  # noqa: E402
import timeit  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import cinder  # noqa: E402

torch.set_num_threads(1)
N = 100_000
RNG = np.random.default_rng(0)
LOC = RNG.standard_normal(N, dtype=np.float32)
SCALE = RNG.random(N, dtype=np.float32) + 0.5
X = RNG.standard_normal(N, dtype=np.float32)
LOGITS = RNG.standard_normal((1000, 100), dtype=np.float32)


def best_time(fn, number=3, repeat=3):
    """Best per-call CPU time in seconds over ``repeat`` runs of ``number`` calls (CPU time:
    both libraries run on one thread, and on a shared machine wall time mostly measures the
    other jobs)."""
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat,
                             timer=time.process_time)) / number


def normal_log_prob(lib):
    d = lib.distributions.Normal(lib.tensor(LOC), lib.tensor(SCALE))
    x = lib.tensor(X)
    return lambda: d.log_prob(x)


def normal_rsample_backward(lib):
    loc = lib.tensor(LOC, requires_grad=True)
    scale = lib.tensor(SCALE, requires_grad=True)

    def step():
        lib.distributions.Normal(loc, scale).rsample().sum().backward()
    return step


def categorical_sample(lib):
    d = lib.distributions.Categorical(logits=lib.tensor(LOGITS))
    return lambda: d.sample((10,))


def categorical_log_prob_entropy(lib):
    d = lib.distributions.Categorical(logits=lib.tensor(LOGITS))
    v = lib.tensor(np.arange(1000) % 100)
    return lambda: (d.log_prob(v), d.entropy())


def kl_normal(lib):
    p = lib.distributions.Normal(lib.tensor(LOC), lib.tensor(SCALE))
    q = lib.distributions.Normal(lib.tensor(X), lib.tensor(SCALE))
    return lambda: lib.distributions.kl_divergence(p, q)


def gamma_sample(lib):
    d = lib.distributions.Gamma(lib.tensor(SCALE), 1.0)
    return lambda: d.sample()


M = 10_000
CONC = RNG.random(M, dtype=np.float32) * 3 + 0.2


def gamma_rsample_backward(lib):
    conc = lib.tensor(CONC, requires_grad=True)

    def step():
        lib.distributions.Gamma(conc, 1.0).rsample().sum().backward()
    return step


def dirichlet_sample(lib):
    d = lib.distributions.Dirichlet(lib.tensor(CONC.reshape(-1, 4)))
    return lambda: d.sample()


def poisson_sample(rate):
    def make(lib):
        d = lib.distributions.Poisson(lib.full((M,), rate))
        return lambda: d.sample()
    return make


def binomial_sample(lib):
    d = lib.distributions.Binomial(100, lib.full((M,), 0.3))
    return lambda: d.sample()


def continuous_bernoulli_log_prob(lib):
    d = lib.distributions.ContinuousBernoulli(lib.tensor(SCALE / 1.6))
    x = lib.tensor(SCALE / 1.6)
    return lambda: d.log_prob(x)


CASES = [
    ("Normal.log_prob, 100k", normal_log_prob),
    ("Normal.rsample + backward, 100k", normal_rsample_backward),
    ("Categorical.sample((10,)), 1000x100 logits", categorical_sample),
    ("Categorical log_prob + entropy, 1000x100", categorical_log_prob_entropy),
    ("kl_divergence(Normal, Normal), 100k", kl_normal),
    ("Gamma.sample, 100k", gamma_sample),
    ("Gamma.rsample + backward (concentration), 10k", gamma_rsample_backward),
    ("Dirichlet.sample, 2500x4", dirichlet_sample),
    ("Poisson.sample rate 3, 10k", poisson_sample(3.0)),
    ("Poisson.sample rate 300, 10k", poisson_sample(300.0)),
    ("Binomial(100, 0.3).sample, 10k", binomial_sample),
    ("ContinuousBernoulli.log_prob, 100k", continuous_bernoulli_log_prob),
]


def main():
    print("| case | cinder | PyTorch | ratio |\n|---|---|---|---|")
    for name, make in CASES:
        mine, theirs = best_time(make(cinder)), best_time(make(torch))
        print(f"| {name} | {mine * 1e3:.2f} ms | {theirs * 1e3:.2f} ms | "
              f"{mine / theirs:.2f}x |")


if __name__ == "__main__":
    main()
