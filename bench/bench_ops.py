"""Benchmarks of the issue-6 tensor ops: cinder vs PyTorch in the same process, one thread
each, at a small (1e3 elements) and a large (1e6 elements or 512x512) size.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_ops.py [--only SUBSTR ...]

`--only` keeps the rows whose label contains one of the given substrings (for profiling one op;
the reported median is over the rows run). `--rounds N` times every row N times, cinder and
PyTorch alternating, and keeps each library's best time (on a shared, noisy machine a burst of
load then spoils one round of a row, not the row).

Prints a Markdown table: best-of-N time per call for each library and the ratio cinder /
PyTorch (lower is better; < 1 means cinder is faster), then the median ratio.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import timeit  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import cinder  # noqa: E402

torch.set_num_threads(1)
RNG = np.random.default_rng(0)


def best_time(fn, budget=0.4):
    """Best per-call time (seconds): calls per run chosen so one run takes ~budget/5."""
    fn()
    once = max(timeit.timeit(fn, number=1), 1e-7)
    number = max(1, int(budget / 5 / once))
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def floats(n):
    return RNG.standard_normal(n).astype(np.float32)


def cases(n, side):
    """(label, builder(lib) -> zero-argument callable) pairs for one size."""
    x = floats(n)
    idx = RNG.integers(0, n // 10 + 1, n).astype(np.int64)
    small = RNG.integers(0, 100, n).astype(np.int64)
    m = RNG.standard_normal((side, side)).astype(np.float32)
    pts = RNG.standard_normal((side, 3)).astype(np.float32)
    near_one = RNG.uniform(0.999, 1.001, n).astype(np.float32)
    well = (m + side * np.eye(side, dtype=np.float32)).astype(np.float32)   # well conditioned
    sym = (m @ m.T / side + np.eye(side, dtype=np.float32)).astype(np.float32)
    rhs = RNG.standard_normal((side, 4)).astype(np.float32)

    def t(lib, arr):
        return lib.from_numpy(arr.copy())
    return [
        ("sort", lambda L: (lambda a: lambda: L.sort(a))(t(L, x))),
        ("argsort", lambda L: (lambda a: lambda: L.argsort(a))(t(L, x))),
        ("topk(k=10)", lambda L: (lambda a: lambda: L.topk(a, 10))(t(L, x))),
        ("unique", lambda L: (lambda a: lambda: L.unique(a))(t(L, small))),
        ("gather", lambda L: (lambda a, i: lambda: L.gather(a, 0, i))(t(L, x), t(L, idx))),
        ("scatter_add", lambda L: (lambda a, i, s: lambda: a.scatter_add(0, i, s))(
            t(L, np.zeros(n // 10 + 1, np.float32)), t(L, idx), t(L, x))),
        ("index_add", lambda L: (lambda a, i, s: lambda: a.index_add(0, i, s))(
            t(L, np.zeros(n // 10 + 1, np.float32)), t(L, idx), t(L, x))),
        ("cumsum", lambda L: (lambda a: lambda: L.cumsum(a, 0))(t(L, x))),
        # (factors near 1: products of normals underflow into slow denormals in both)
        ("cumprod", lambda L: (lambda a: lambda: L.cumprod(a, 0))(t(L, near_one))),
        ("einsum ij,jk->ik", lambda L: (lambda a: lambda: L.einsum("ij,jk->ik", a, a))(
            t(L, m))),
        ("einsum ij->j", lambda L: (lambda a: lambda: L.einsum("ij->j", a))(t(L, m))),
        ("einsum bi,bi->b", lambda L: (lambda a: lambda: L.einsum("bi,bi->b", a, a))(
            t(L, m))),
        ("cdist (n,3)x(n,3)", lambda L: (lambda a: lambda: L.cdist(a, a))(t(L, pts))),
        ("logsumexp", lambda L: (lambda a: lambda: L.logsumexp(a, 1))(t(L, m))),
        ("repeat_interleave", lambda L: (lambda a: lambda: a.repeat_interleave(2))(t(L, x))),
        ("linalg.solve (n,n)x(n,4)", lambda L: (lambda a, b: lambda: L.linalg.solve(a, b))(
            t(L, well), t(L, rhs))),
        ("linalg.svd", lambda L: (lambda a: lambda: L.linalg.svd(a))(t(L, m))),
        ("linalg.eigh", lambda L: (lambda a: lambda: L.linalg.eigh(a))(t(L, sym))),
        ("fft.fft", lambda L: (lambda a: lambda: L.fft.fft(a))(t(L, x))),
        ("fft.rfft", lambda L: (lambda a: lambda: L.fft.rfft(a))(t(L, x))),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None,
                        help="run only the rows whose label contains one of these substrings")
    parser.add_argument("--rounds", type=int, default=1,
                        help="time each row this many times (alternating), keep the best")
    args = parser.parse_args()
    rows = []
    for n, side, size in ((1000, 32, "1e3 / 32²"), (1_000_000, 512, "1e6 / 512²")):
        for label, build in cases(n, side):
            if args.only and not any(word in label for word in args.only):
                continue
            fc, ft = build(cinder), build(torch)
            tc = tt = float("inf")
            for _ in range(max(1, args.rounds)):
                tc = min(tc, best_time(fc))
                tt = min(tt, best_time(ft))
            rows.append((label, size, tc, tt, tc / tt))
    print("| op | size | cinder | PyTorch | ratio |")
    print("|---|---|---|---|---|")
    for label, size, tc, tt, r in rows:
        print(f"| {label} | {size} | {fmt(tc)} | {fmt(tt)} | {r:.2f}x |")
    ratios = [r for *_, r in rows]
    print(f"\nmedian ratio {statistics.median(ratios):.2f}x; worst {max(ratios):.2f}x "
          f"({rows[ratios.index(max(ratios))][0]}, {rows[ratios.index(max(ratios))][1]})")


def fmt(sec):
    return f"{sec * 1e6:.1f} µs" if sec < 1e-3 else f"{sec * 1e3:.2f} ms"


if __name__ == "__main__":
    main()
