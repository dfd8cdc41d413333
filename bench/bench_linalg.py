"""linalg.solve / svd / eigh and fft / rfft: cinder vs PyTorch in one process, one thread each.

Run: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python bench/bench_linalg.py
Prints, per case, the best-of-N time of each library and the ratio cinder/PyTorch (lower is
better; 1.0 = PyTorch's speed). Small = ~1e3 elements, large = 512x512 or 1e6 elements.
"""

import time

import numpy as np
import torch

import cinder

torch.set_num_threads(1)


def best(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def cases():
    rng = np.random.default_rng(0)
    for label, n, reps in (("32x32", 32, 200), ("512x512", 512, 5)):
        a = rng.standard_normal((n, n))
        h = a + a.T
        b = rng.standard_normal((n, 4))
        yield f"linalg.solve {label}", (a, b), lambda L, x, y: L.linalg.solve(x, y), reps
        yield f"linalg.svd {label}", (a,), lambda L, x: L.linalg.svd(x), reps
        yield f"linalg.eigh {label}", (h,), lambda L, x: L.linalg.eigh(x), reps
    for label, n, reps in (("1e3", 1000, 300), ("1e6", 1 << 20, 5)):
        x = rng.standard_normal(n)
        yield f"fft.fft {label}", (x,), lambda L, v: L.fft.fft(v), reps
        yield f"fft.rfft {label}", (x,), lambda L, v: L.fft.rfft(v), reps


def main():
    print(f"{'case':24s} {'cinder ms':>10s} {'torch ms':>10s} {'ratio':>7s}")
    ratios = []
    for name, arrays, fn, reps in cases():
        ct = [cinder.tensor(a) for a in arrays]
        tt = [torch.tensor(a) for a in arrays]
        c = best(lambda fn=fn, ct=ct: fn(cinder, *ct), reps)
        t = best(lambda fn=fn, tt=tt: fn(torch, *tt), reps)
        ratios.append(c / t)
        print(f"{name:24s} {c * 1e3:10.3f} {t * 1e3:10.3f} {c / t:7.2f}")
    print(f"median ratio {np.median(ratios):.2f}, worst {max(ratios):.2f}")


if __name__ == "__main__":
    main()
