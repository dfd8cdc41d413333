"""The cost of the layout rules on row-major inputs: cinder vs PyTorch in the same process,
one thread each, for small (1e3 elements, where per-call overhead shows) row-major tensors
through the ops whose layout code changed (binary pointwise, reductions, stack, norms,
clone/to/flip, index_put, roll, rand_like), and a few channels-last calls for reference.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_layouts.py [--rounds N]

Prints a Markdown table: best time per call for each library (cinder and PyTorch alternating
over ``--rounds`` rounds) and the ratio cinder / PyTorch.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import timeit  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import cinder  # noqa: E402

torch.set_num_threads(1)


def best_time(fn, budget=0.3):
    """Best per-call time (seconds) over 5 runs of about budget/5 each."""
    fn()
    once = max(timeit.timeit(fn, number=1), 1e-7)
    number = max(1, int(budget / 5 / once))
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def cases():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((10, 10, 10)).astype(np.float32)
    b = rng.standard_normal((10, 10, 10)).astype(np.float32)
    img = rng.standard_normal((2, 8, 8, 8)).astype(np.float32)

    def t(lib, arr):
        return lib.from_numpy(arr.copy())

    def cl(lib, arr):
        return t(lib, arr).contiguous(memory_format=lib.channels_last)
    idx = np.array([0, 3, 5])
    return [
        ("add (1e3, row-major)", lambda L: (lambda x, y: lambda: x + y)(t(L, a), t(L, b))),
        ("mul (1e3, row-major)", lambda L: (lambda x, y: lambda: L.mul(x, y))(t(L, a), t(L, b))),
        ("add scalar (1e3)", lambda L: (lambda x: lambda: x + 2.0)(t(L, a))),
        ("sum(1) (1e3)", lambda L: (lambda x: lambda: x.sum(1))(t(L, a))),
        ("mean(-1, keepdim) (1e3)", lambda L: (lambda x: lambda: x.mean(-1, True))(t(L, a))),
        ("stack (2 x 1e3)", lambda L: (lambda x, y: lambda: L.stack([x, y], 1))(t(L, a),
                                                                              t(L, b))),
        ("clone (1e3)", lambda L: (lambda x: lambda: x.clone())(t(L, a))),
        ("to(float64) (1e3)", lambda L: (lambda x: lambda: x.to(L.float64))(t(L, a))),
        ("flip (1e3)", lambda L: (lambda x: lambda: x.flip(0))(t(L, a))),
        ("roll (1e3)", lambda L: (lambda x: lambda: x.roll(1, 1))(t(L, a))),
        ("index_put (1e3)", lambda L: (lambda x, i, v: lambda: x.index_put((i,), v))(
            t(L, a), L.from_numpy(idx), L.tensor(1.0))),
        ("layer_norm (1e3)", lambda L: (lambda x: lambda: L.nn.functional.layer_norm(
            x, (10,)))(t(L, a))),
        ("batch_norm (4e3)", lambda L: (lambda x: lambda: L.nn.functional.batch_norm(
            x, None, None, training=True))(t(L, img))),
        ("rand_like (1e3)", lambda L: (lambda x: lambda: L.rand_like(x))(t(L, a))),
        ("add channels-last + row-major (4e3)", lambda L: (lambda x, y: lambda: x + y)(
            cl(L, img), t(L, img))),
        ("sum(1) channels-last (4e3)", lambda L: (lambda x: lambda: x.sum(1, True))(cl(L, img))),
        ("group_norm channels-last (4e3)", lambda L: (lambda x: lambda: L.nn.functional.group_norm(
            x, 2))(cl(L, img))),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print("| op | cinder (us) | PyTorch (us) | ratio |")
    print("|---|---|---|---|")
    for label, build in cases():
        fc, ft = build(cinder), build(torch)
        tc = tt = float("inf")
        for _ in range(args.rounds):
            tc = min(tc, best_time(fc))
            tt = min(tt, best_time(ft))
        print(f"| {label} | {tc * 1e6:.2f} | {tt * 1e6:.2f} | {tc / tt:.2f} |")


if __name__ == "__main__":
    main()
