"""The model-zoo families of wave 2: building each model (its default random init) and one
eval-mode forward pass, cinder vs torchvision in the same process, one thread each.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_vision_zoo.py

Build times are dominated by the initialisers' random draws (cinder reproduces PyTorch's
streams bit for bit, including the float32 AVX Box-Muller of ``normal_``). Ratios are cinder
time / PyTorch time (lower is better). torchvision is the tests' oracle copy.
"""

import os
import sys

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import cinder  # noqa: E402
from cinder.vision import models as CM  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "vision"))
from conftest import load_torchvision  # noqa: E402

torch.set_num_threads(1)
tv = load_torchvision()
warnings.simplefilter("ignore")

# name, batch x 3 x size x size for the forward pass
CASES = [("inception_v3", 1, 299), ("efficientnet_b0", 8, 64), ("efficientnet_v2_s", 8, 64),
         ("regnet_y_400mf", 8, 64), ("convnext_tiny", 8, 64), ("vit_b_16", 1, 224),
         ("swin_t", 1, 224), ("swin_v2_t", 1, 256)]


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def forward_time(lib, model, x, repeat=3):
    model.eval()
    best = float("inf")
    with lib.no_grad():
        model(x)                                   # warm-up
        for _ in range(repeat):
            best = min(best, timed(lambda: model(x))[0])
    return best


def main():
    print("| model | build cinder | build PyTorch | ratio | forward (input) cinder | "
          "forward PyTorch | ratio |")
    print("|---|---|---|---|---|---|---|")
    for name, batch, size in CASES:
        cinder.manual_seed(0)
        torch.manual_seed(0)
        b_ours, ours = timed(lambda n=name: CM.get_model(n))
        b_theirs, theirs = timed(lambda n=name: tv.models.get_model(n))
        x = np.random.default_rng(0).standard_normal((batch, 3, size, size)).astype(np.float32)
        f_ours = forward_time(cinder, ours, cinder.from_numpy(x))
        f_theirs = forward_time(torch, theirs, torch.from_numpy(x))
        print(f"| {name} | {b_ours:.2f} s | {b_theirs:.2f} s | {b_ours / b_theirs:.1f}x | "
              f"{f_ours * 1e3:.0f} ms ({batch}x3x{size}²) | {f_theirs * 1e3:.0f} ms | "
              f"{f_ours / f_theirs:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
