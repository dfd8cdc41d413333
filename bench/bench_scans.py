"""cumsum / cumprod on 1-d runs and 2-d inputs along each dim: cinder vs PyTorch in the same
process, one thread each (the blocked and per-step scans of cinder/backend/scan.py and
cinder/ops/_reduction_factory.py).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_scans.py [--rounds N]

Prints a Markdown table (best time per call, ratio cinder / PyTorch) and the median ratio.
Factors of cumprod lie in [0.999, 1.001] (products of normals underflow into slow denormals in
both libraries).
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import statistics  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import cinder  # noqa: E402
from bench_ops import best_time, fmt  # noqa: E402

torch.set_num_threads(1)
RNG = np.random.default_rng(0)
SHAPES = [((1_000_000,), 0), ((1_000_000,), 0, np.float64), ((20_000,), 0),
          ((1000, 1000), 0), ((1000, 1000), 1), ((100, 10000), 0), ((100, 10000), 1),
          ((10000, 100), 0), ((10000, 100), 1), ((16, 65536), 0), ((16, 65536), 1)]


def _call(fn, a, dim):
    return lambda: fn(a, dim)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1,
                        help="time each row this many times (alternating), keep the best")
    args = parser.parse_args()
    rows = []
    for shape, dim, *dtype in SHAPES:
        dtype = dtype[0] if dtype else np.float32
        for op in ("cumsum", "cumprod"):
            x = (RNG.standard_normal(shape) if op == "cumsum"
                 else RNG.uniform(0.999, 1.001, shape)).astype(dtype)
            fc = _call(getattr(cinder, op), cinder.from_numpy(x.copy()), dim)
            ft = _call(getattr(torch, op), torch.from_numpy(x.copy()), dim)
            tc = tt = float("inf")
            for _ in range(max(1, args.rounds)):
                tc = min(tc, best_time(fc))
                tt = min(tt, best_time(ft))
            label = f"{op} {'x'.join(map(str, shape))} dim {dim} {np.dtype(dtype).name}"
            rows.append((label, tc, tt, tc / tt))
    print("| op | cinder | PyTorch | ratio |")
    print("|---|---|---|---|")
    for label, tc, tt, r in rows:
        print(f"| {label} | {fmt(tc)} | {fmt(tt)} | {r:.2f}x |")
    ratios = [r for *_, r in rows]
    print(f"\nmedian ratio {statistics.median(ratios):.2f}x; worst {max(ratios):.2f}x")


if __name__ == "__main__":
    main()
