"""One LeNet-5 training step (batch 64, Adam) on the GPU: cinder (CuPy) against PyTorch eager
(CUDA), in one process, rounds alternating between the two; prints ms per step and the ratio.

Run on a machine with CuPy, a CUDA GPU and PyTorch built for CUDA:
    PYTHONPATH=$PWD python bench/bench_cuda_lenet.py
"""

import sys
import time

import numpy as np
import torch

import cinder

STEPS, ROUNDS, BATCH = 100, 3, 64


def lenet(nn):
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, kernel_size=5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
        nn.Linear(84, 10))


def setup(lib):
    model = lenet(lib.nn).to("cuda")
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((BATCH, 1, 28, 28)).astype(np.float32)).to("cuda")
    y = lib.tensor(rng.integers(0, 10, BATCH)).to("cuda")
    return model, opt, x, y


def run(lib, state, steps):
    """Mean seconds per step over ``steps`` steps (the GPU synchronised at both ends)."""
    model, opt, x, y = state
    lib.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(steps):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    lib.cuda.synchronize()
    return (time.perf_counter() - start) / steps


def main():
    if not (cinder.cuda.is_available() and torch.cuda.is_available()):
        print("needs CuPy, a CUDA GPU and PyTorch built for CUDA")
        return 1
    print(f"GPU: {torch.cuda.get_device_name()}; LeNet-5 step, batch {BATCH}, Adam")
    states = {"cinder": setup(cinder), "torch": setup(torch)}
    for name, lib in (("cinder", cinder), ("torch", torch)):
        run(lib, states[name], 10)                       # warm-up: kernels compiled/cached
    best = {"cinder": [], "torch": []}
    for _ in range(ROUNDS):
        for name, lib in (("cinder", cinder), ("torch", torch)):
            best[name].append(run(lib, states[name], STEPS))
    c, t = min(best["cinder"]), min(best["torch"])
    print(f"cinder {c * 1e3:.2f} ms/step   torch {t * 1e3:.2f} ms/step   "
          f"cinder/torch time ratio {c / t:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
