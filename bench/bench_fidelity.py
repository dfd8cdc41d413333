"""The costs of wave 4's fidelity changes, cinder against PyTorch in one process, one thread
each, rounds alternating: softmax of float16/bfloat16 over a dim that is not the last (the
scalar-loop positions computed as PyTorch's kernel does) and a small ``a + b`` (the limited
unsigned check must cost nothing on the common path).

Run: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_fidelity.py``
"""

import timeit

import numpy as np
import torch

import cinder


def _best(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def _ratio(name, t_fn, c_fn, number, unit=1e3, label="ms"):
    times = []
    for _ in range(3):           # alternate the libraries, keep each one's best
        times.append((_best(t_fn, number), _best(c_fn, number)))
    t = min(x[0] for x in times)
    c = min(x[1] for x in times)
    print(f"{name:40s} torch {t * unit:8.3f} {label}  cinder {c * unit:8.3f} {label}  "
          f"ratio {c / t:5.2f}")


def main():
    torch.set_num_threads(1)
    cinder.set_num_threads(1)
    x = np.random.default_rng(0).standard_normal((64, 128, 50)).astype(np.float32)
    for dt in ("bfloat16", "float16"):
        t = torch.from_numpy(x).to(getattr(torch, dt))
        c = cinder.from_numpy(x).to(getattr(cinder, dt))
        for dim in (1, -1):
            _ratio(f"softmax {dt} (64,128,50) dim={dim}",
                   lambda t=t, dim=dim: torch.softmax(t, dim),
                   lambda c=c, dim=dim: cinder.softmax(c, dim), 5)
    a, b = torch.randn(10), torch.randn(10)
    ca, cb = cinder.randn(10), cinder.randn(10)
    _ratio("a + b (10 float32)", lambda: a + b, lambda: ca + cb, 20000, 1e6, "us")
    ua = torch.from_numpy(np.arange(10, dtype=np.uint32))
    uc = cinder.from_numpy(np.arange(10, dtype=np.uint32))
    _ratio("a * a (10 uint32)", lambda: ua * ua, lambda: uc * uc, 20000, 1e6, "us")
    _ratio("a @ a (64x64 float32)", lambda: t64 @ t64, lambda: c64 @ c64, 2000, 1e6, "us")


t64 = torch.randn(64, 64)
c64 = cinder.from_numpy(t64.numpy().copy())

if __name__ == "__main__":
    main()
