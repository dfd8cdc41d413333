"""Benchmarks of the last issue-6 names (embedding_bag, segment_reduce, hash_tensor,
grid_sampler, lobpcg): cinder vs PyTorch in the same process, one thread each, measured
alternately (best of 5 rounds).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_last_names.py

Prints a Markdown table of best per-call times and the ratio cinder / PyTorch.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import cinder  # noqa: E402

torch.set_num_threads(1)
RNG = np.random.default_rng(0)
W = RNG.standard_normal((10000, 64)).astype(np.float32)
IDX = RNG.integers(0, 10000, 100000)
OFF = np.sort(RNG.choice(100000, 1000, replace=False))
OFF[0] = 0
DATA = RNG.standard_normal((100000, 64)).astype(np.float32)
LENGTHS = np.diff(np.concatenate([OFF, [100000]]))
IMG = RNG.standard_normal((8, 16, 64, 64)).astype(np.float32)
GRID = RNG.uniform(-1, 1, (8, 64, 64, 2)).astype(np.float32)
_Q = np.linalg.qr(RNG.standard_normal((300, 300)))[0]
SPD = (_Q * np.linspace(1, 100, 300)) @ _Q.T


def cases(lib):
    t = lib.from_numpy
    w, idx, off, data, lengths = t(W), t(IDX), t(OFF), t(DATA), t(LENGTHS)
    img, grid, spd = t(IMG), t(GRID), t((SPD + SPD.T) / 2)

    def lobpcg():
        lib.manual_seed(0)
        return lib.lobpcg(spd, k=4)
    return [
        ("embedding_bag sum (1e5 idx x 64)", lambda: lib.embedding_bag(w, idx, off, False, 0)),
        ("embedding_bag mean", lambda: lib.embedding_bag(w, idx, off, False, 1)),
        ("embedding_bag max", lambda: lib.embedding_bag(w, idx, off, False, 2)),
        ("segment_reduce sum (1e5 x 64)", lambda: lib.segment_reduce(data, "sum",
                                                                     lengths=lengths)),
        ("segment_reduce max", lambda: lib.segment_reduce(data, "max", lengths=lengths)),
        ("hash_tensor (6.4e6)", lambda: lib.hash_tensor(data)),
        ("grid_sampler bilinear (8x16x64x64)", lambda: lib.grid_sampler(img, grid, 0, 0,
                                                                        False)),
        ("lobpcg k=4 (300x300, float64)", lobpcg),
    ]


def best(fn, rounds):
    out = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return min(out)


def main():
    print("| op | cinder ms | PyTorch ms | ratio |\n|---|---:|---:|---:|")
    for (name, c), (_, p) in zip(cases(cinder), cases(torch)):
        c(), p()
        tc = tp = float("inf")
        for _ in range(5):            # alternate, so both see the same machine load
            tc = min(tc, best(c, 1))
            tp = min(tp, best(p, 1))
        print(f"| {name} | {tc * 1e3:.2f} | {tp * 1e3:.2f} | {tc / tp:.1f} |")


if __name__ == "__main__":
    main()
