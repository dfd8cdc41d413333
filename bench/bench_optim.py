"""One optimizer ``step()`` in cinder vs PyTorch, same process, one thread each.

Cases: SGD with momentum, Adam and AdamW over ResNet-18-sized parameters (62 tensors, about
11.7M floats) and over 1,000 small tensors. PyTorch runs its CPU default (the per-tensor
loop). Prints the best-of-N time per step and the ratio torch_time / cinder_time (above 1.0
means cinder is faster).

Run: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python bench/bench_optim.py
"""

import time

import numpy as np
import torch

import cinder

torch.set_num_threads(1)


def resnet18_shapes():
    """Parameter shapes of torchvision's resnet18 (weights and biases, 62 tensors)."""
    shapes = [(64, 3, 7, 7), (64,), (64,)]
    in_ch = 64
    for width, first_stride_block in ((64, False), (128, True), (256, True), (512, True)):
        for block in range(2):
            downsample = first_stride_block and block == 0
            shapes += [(width, in_ch if block == 0 else width, 3, 3), (width,), (width,),
                       (width, width, 3, 3), (width,), (width,)]
            if downsample:
                shapes += [(width, in_ch, 1, 1), (width,), (width,)]
        in_ch = width
    return shapes + [(1000, 512), (1000,)]


def small_shapes(n=1000):
    rng = np.random.default_rng(0)
    return [tuple(int(d) for d in rng.integers(2, 24, size=rng.integers(1, 3))) for _ in range(n)]


def make(lib, shapes, name, kwargs):
    rng = np.random.default_rng(1)
    params = []
    for s in shapes:
        p = lib.tensor(rng.standard_normal(s).astype(np.float32), requires_grad=True)
        p.grad = lib.tensor(rng.standard_normal(s).astype(np.float32))
        params.append(p)
    return getattr(lib.optim, name)(params, **kwargs)


def best_times(t_opt, c_opt, repeats):
    """Best step time of each optimizer, the two measured alternately so that a busy moment
    on the machine hits both."""
    t_opt.step()                    # creates the state
    c_opt.step()
    best = [float("inf"), float("inf")]
    for _ in range(repeats):
        for i, opt in enumerate((t_opt, c_opt)):
            start = time.perf_counter()
            opt.step()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


CASES = [("SGD", {"lr": 0.01, "momentum": 0.9}), ("Adam", {"lr": 1e-3}),
         ("AdamW", {"lr": 1e-3})]


def main():
    big = resnet18_shapes()
    print(f"ResNet-18 sized: {len(big)} tensors, {sum(int(np.prod(s)) for s in big):,} floats")
    print(f"{'case':32s} {'torch ms':>9s} {'cinder ms':>10s} {'ratio':>6s}")
    for label, shapes, repeats in (("resnet18", big, 15), ("1000 small", small_shapes(), 30)):
        for name, kwargs in CASES:
            t_opt, c_opt = make(torch, shapes, name, kwargs), make(cinder, shapes, name, kwargs)
            t, c = best_times(t_opt, c_opt, repeats)
            print(f"{name + ' ' + label:32s} {t * 1e3:9.2f} {c * 1e3:10.2f} {t / c:6.2f}x")


if __name__ == "__main__":
    main()
