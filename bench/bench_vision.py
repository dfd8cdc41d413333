"""Vision benchmarks: cinder vs PyTorch/torchvision in the same process, one thread each.

    python bench/bench_vision.py          # prints a Markdown table of times and ratios

1. ResNet-18 forward + backward on a batch of 8x3x64x64 (train mode, cross-entropy loss).
2. One Adam training step of the MNIST example's LeNet-5 on a batch of 64.
3. The transforms pipeline of the MNIST example plus an ImageNet-style one, as images/s:
   PIL image -> RandomCrop/RandomResizedCrop + flip -> ToTensor -> Normalize.

torchvision is the oracle copy the tests build (its Python parts; see tests/vision/conftest.py).
Ratios are cinder time / PyTorch time (lower is better).
"""

import os
import sys

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import timeit  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
from PIL import Image  # noqa: E402

import cinder  # noqa: E402
from cinder.vision import models as cmodels, transforms as CT  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "vision"))
from conftest import load_torchvision  # noqa: E402

torch.set_num_threads(1)
tv = load_torchvision()


def best_time(fn, number, repeat=5):
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def resnet_step(lib, model):
    x = lib.from_numpy(np.random.default_rng(0).standard_normal((8, 3, 64, 64))
                       .astype(np.float32))
    y = lib.from_numpy(np.arange(8) % 10)

    def step():
        model.zero_grad()
        lib.nn.functional.cross_entropy(model(x), y).backward()
    return step


def lenet_step(lib):
    """One Adam step of the MNIST example's LeNet-5 on a batch of 64."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
    from mnist import make_lenet
    lib.manual_seed(0)
    model = make_lenet(lib.nn)()
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    x = lib.from_numpy(np.random.default_rng(2).standard_normal((64, 1, 28, 28))
                       .astype(np.float32))
    y = lib.from_numpy(np.arange(64) % 10)

    def step():
        opt.zero_grad()
        lib.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return step


def pipeline(T, size):
    if size == 28:
        return T.Compose([T.RandomCrop(28, padding=2), T.ToTensor(),
                          T.Normalize((0.1307,), (0.3081,))])
    return T.Compose([T.RandomResizedCrop(size), T.RandomHorizontalFlip(), T.ToTensor(),
                      T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))])


def main():
    rows = []
    cinder.manual_seed(0)
    torch.manual_seed(0)
    ours = resnet_step(cinder, cmodels.resnet18(num_classes=10))
    theirs = resnet_step(torch, tv.models.resnet18(num_classes=10))
    a, b = best_time(ours, 1, 3), best_time(theirs, 1, 3)
    rows.append(("ResNet-18 fwd+bwd, 8x3x64x64", f"{a * 1e3:.0f} ms", f"{b * 1e3:.0f} ms",
                 f"{a / b:.2f}x"))
    a, b = best_time(lenet_step(cinder), 10), best_time(lenet_step(torch), 10)
    rows.append(("LeNet-5 Adam step, batch 64 (the example)", f"{a * 1e3:.1f} ms",
                 f"{b * 1e3:.1f} ms", f"{a / b:.2f}x"))
    rng = np.random.default_rng(1)
    for size, shape, label in ((28, (28, 28), "MNIST: RandomCrop+ToTensor+Normalize, 28x28 L"),
                               (224, (256, 320, 3),
                                "RandomResizedCrop(224)+flip+ToTensor+Normalize, 320x256 RGB")):
        img = Image.fromarray(rng.integers(0, 256, shape, dtype=np.uint8))
        p_ours, p_theirs = pipeline(CT, size), pipeline(tv.transforms, size)
        a = best_time(lambda p=p_ours, i=img: p(i), 200)
        b = best_time(lambda p=p_theirs, i=img: p(i), 200)
        rows.append((label, f"{1 / a:,.0f} img/s", f"{1 / b:,.0f} img/s", f"{a / b:.2f}x"))
    print("| case | cinder | PyTorch/torchvision | time ratio |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
