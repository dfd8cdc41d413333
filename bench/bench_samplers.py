"""The kernels of the s4/samplers wave: multinomial (Categorical.sample), grid_sampler and
embedding_bag (forward, and forward + backward), Poisson and Binomial with a shared
parameter, Normal.rsample. cinder and PyTorch in the
same process, one thread each, alternating; prints a Markdown table of best times and ratios
(cinder / PyTorch).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python bench/bench_samplers.py
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import cinder  # noqa: E402
from bench_distributions import normal_rsample_backward  # noqa: E402  (the same case)

torch.set_num_threads(1)
RNG = np.random.default_rng(0)
PROBS = RNG.random((1000, 100)).astype(np.float32)
LOGITS = RNG.standard_normal((1000, 100)).astype(np.float32)
IMG = RNG.standard_normal((8, 16, 64, 64)).astype(np.float32)
GRID = RNG.uniform(-1, 1, (8, 64, 64, 2)).astype(np.float32)
VOL = RNG.standard_normal((2, 8, 16, 32, 32)).astype(np.float32)
GRID3 = RNG.uniform(-1, 1, (2, 16, 32, 32, 3)).astype(np.float32)
W = RNG.standard_normal((10000, 64)).astype(np.float32)
IDX = RNG.integers(0, 10000, 100000)
OFF = np.sort(RNG.choice(100000, 1000, replace=False))
OFF[0] = 0


def _grid_backward(lib, img, grid, mode):
    x = lib.from_numpy(img).requires_grad_()
    g = lib.from_numpy(grid).requires_grad_()

    def step():
        lib.grid_sampler(x, g, mode, 0, False).sum().backward()
    return step


def _bag_backward(lib, mode):
    w = lib.from_numpy(W.copy()).requires_grad_()
    idx, off = lib.from_numpy(IDX), lib.from_numpy(OFF)

    def step():
        lib.embedding_bag(w, idx, off, False, mode)[0].sum().backward()
    return step


def cases(lib):
    t = lib.from_numpy
    probs, img, grid, vol, grid3 = t(PROBS), t(IMG), t(GRID), t(VOL), t(GRID3)
    w, idx, off = t(W), t(IDX), t(OFF)
    cat = lib.distributions.Categorical(logits=t(LOGITS))
    rate300 = lib.full((10_000,), 300.0)
    count100, prob03 = lib.full((10_000,), 100.0), lib.full((10_000,), 0.3)
    return [
        ("multinomial(1000x100, 10, replacement)", lambda: lib.multinomial(probs, 10, True)),
        ("Categorical.sample((10,)), 1000x100", lambda: cat.sample((10,))),
        ("grid_sampler bilinear 8x16x64x64", lambda: lib.grid_sampler(img, grid, 0, 0, False)),
        ("grid_sampler bilinear fwd+bwd", _grid_backward(lib, IMG, GRID, 0)),
        ("grid_sampler nearest", lambda: lib.grid_sampler(img, grid, 1, 1, False)),
        ("grid_sampler bicubic", lambda: lib.grid_sampler(img, grid, 2, 2, True)),
        ("grid_sampler bicubic fwd+bwd", _grid_backward(lib, IMG, GRID, 2)),
        ("grid_sampler 3-d bilinear 2x8x16x32x32", lambda: lib.grid_sampler(vol, grid3, 0, 0,
                                                                             False)),
        ("grid_sampler 3-d fwd+bwd", _grid_backward(lib, VOL, GRID3, 0)),
        ("embedding_bag sum (1e5 idx x 64)", lambda: lib.embedding_bag(w, idx, off, False, 0)),
        ("embedding_bag mean", lambda: lib.embedding_bag(w, idx, off, False, 1)),
        ("embedding_bag max", lambda: lib.embedding_bag(w, idx, off, False, 2)),
        ("embedding_bag sum fwd+bwd", _bag_backward(lib, 0)),
        ("embedding_bag mean fwd+bwd", _bag_backward(lib, 1)),
        ("embedding_bag max fwd+bwd", _bag_backward(lib, 2)),
        ("Poisson(300).sample, 10k", lambda: lib.poisson(rate300)),
        ("Binomial(100, 0.3).sample, 10k", lambda: lib.binomial(count100, prob03)),
        ("Normal.rsample + backward, 100k", normal_rsample_backward(lib)),
        ("randn(100000)", lambda: lib.randn(100_000)),
    ]


def best(fn, calls):
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def main():
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    print("| case | cinder ms | PyTorch ms | ratio |\n|---|---:|---:|---:|")
    for (name, c), (_, p) in zip(cases(cinder), cases(torch)):
        c(), p()
        calls = max(1, int(0.02 / max(best(p, 1), 1e-6)))
        tc = tp = float("inf")
        for _ in range(7):            # alternate, so both see the same machine load
            tc = min(tc, best(c, max(1, calls // 4)))
            tp = min(tp, best(p, calls))
        print(f"| {name} | {tc * 1e3:.2f} | {tp * 1e3:.3f} | {tc / tp:.1f} |")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
