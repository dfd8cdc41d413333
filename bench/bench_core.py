"""Core-op benchmarks: cinder vs PyTorch in the same process, both on one thread.

    python bench/bench_core.py            # prints a Markdown table of times and ratios

Ratios are cinder time / PyTorch time (lower is better; < 1 means cinder is faster), except
for matmul, reported as cinder GFLOP/s / PyTorch GFLOP/s (higher is better).
"""

import os

# One BLAS thread for NumPy: must be set before NumPy is imported.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import timeit  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import cinder  # noqa: E402

torch.set_num_threads(1)


def best_time(fn, number, repeat=7):
    """Best per-call time in seconds over ``repeat`` runs of ``number`` calls."""
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def case_add_small(lib, requires_grad):
    a = lib.tensor(np.arange(4, dtype=np.float32), requires_grad=requires_grad)
    b = lib.tensor(np.ones(4, dtype=np.float32))
    return lambda: a + b


def case_backward(lib):
    x = lib.tensor(np.random.default_rng(0).standard_normal((64, 64), dtype=np.float32),
                   requires_grad=True)

    def run():
        (x * x).sum().backward()
    return run


def case_matmul(lib, n):
    rng = np.random.default_rng(0)
    a = lib.tensor(rng.standard_normal((n, n), dtype=np.float32))
    b = lib.tensor(rng.standard_normal((n, n), dtype=np.float32))
    return lambda: a @ b


def case_fma_large(lib, n):
    rng = np.random.default_rng(0)
    a, b, c = (lib.tensor(rng.standard_normal(n, dtype=np.float32)) for _ in range(3))
    return lambda: a * b + c


def main():
    rows = []

    def compare(name, make, number, flops=None):
        t_c = best_time(make(cinder), number)
        t_t = best_time(make(torch), number)
        if flops:
            ratio = (flops / t_c) / (flops / t_t)
            rows.append((name, t_c, t_t, f"{ratio:.2f}x GFLOP/s ({flops / t_c / 1e9:.1f} vs "
                                          f"{flops / t_t / 1e9:.1f})"))
        else:
            rows.append((name, t_c, t_t, f"{t_c / t_t:.2f}x"))

    compare("a + b, 4 float32", lambda lib: case_add_small(lib, False), 20000)
    compare("a + b, 4 float32, requires_grad", lambda lib: case_add_small(lib, True), 20000)
    compare("(x*x).sum().backward(), 64x64", case_backward, 2000)
    compare("matmul 1024x1024 float32", lambda lib: case_matmul(lib, 1024), 5,
            flops=2 * 1024 ** 3)
    compare("a*b + c, 10M float32", lambda lib: case_fma_large(lib, 10_000_000), 5)

    print(f"torch {torch.__version__}, numpy {np.__version__}, one thread each\n")
    print("| case | cinder | PyTorch | ratio |")
    print("|---|---|---|---|")
    for name, t_c, t_t, ratio in rows:
        print(f"| {name} | {fmt(t_c)} | {fmt(t_t)} | {ratio} |")


def fmt(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    return f"{seconds * 1e3:.2f} ms"


if __name__ == "__main__":
    main()
