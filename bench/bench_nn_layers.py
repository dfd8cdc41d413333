"""Layer benchmarks: cinder vs PyTorch in the same process, one thread each, same weights.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \
        PYTHONPATH=$PWD python bench/bench_nn_layers.py

- LeNet-5 training step (batch 64, 1x28x28, cross-entropy, plain SGD written inline for both
  libraries, since an optimizer is not part of this comparison);
- ResNet-18 forward (torchvision's structure, batch 8x3x64x64, eval mode, no grad);
- peak memory (ru_maxrss) of one ResNet-18 training step, each library in a fresh process.

Prints steps/s (medians over alternating rounds) and the median per-round cinder/PyTorch
ratio (higher is better for cinder).
"""

import argparse
import resource
import subprocess
import sys
import time

import numpy as np

# ----------------------------------------------------------------------------------------------
# Models, written once against a library's ``nn``
# ----------------------------------------------------------------------------------------------


def lenet(nn):
    """LeNet-5 as in the PyTorch tutorials (two conv+pool stages, three linear layers)."""
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
        nn.Linear(84, 10))


def resnet18(nn, num_classes=1000):
    """torchvision's resnet18 layout (BasicBlock x [2, 2, 2, 2], same module names)."""

    class BasicBlock(nn.Module):
        def __init__(self, inplanes, planes, stride=1, downsample=None):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = downsample

        def forward(self, x):
            identity = x if self.downsample is None else self.downsample(x)
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return self.relu(out + identity)

    class ResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.inplanes = 64
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            self.layer1 = self._layer(64, 1)
            self.layer2 = self._layer(128, 2)
            self.layer3 = self._layer(256, 2)
            self.layer4 = self._layer(512, 2)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(512, num_classes)

        def _layer(self, planes, stride):
            down = None
            if stride != 1 or self.inplanes != planes:
                down = nn.Sequential(nn.Conv2d(self.inplanes, planes, 1, stride, bias=False),
                                     nn.BatchNorm2d(planes))
            blocks = [BasicBlock(self.inplanes, planes, stride, down), BasicBlock(planes, planes)]
            self.inplanes = planes
            return nn.Sequential(*blocks)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(self.avgpool(x).flatten(1))

    return ResNet()


# ----------------------------------------------------------------------------------------------
# Timed steps
# ----------------------------------------------------------------------------------------------

def copy_weights(t_model, c_model, cinder):
    c_model.load_state_dict({k: cinder.tensor(v.numpy()) for k, v in
                             t_model.state_dict().items()})


def sgd_step(lib, model, x, y, lr=0.01):
    """Forward, cross-entropy, backward and an inline SGD update."""
    loss = lib.nn.functional.cross_entropy(model(x), y)
    for p in model.parameters():
        p.grad = None
    loss.backward()
    with lib.no_grad():
        for p in model.parameters():
            p.sub_(p.grad * lr)
    return loss


def rate(fn, seconds, warmup=1):
    """Calls per second of ``fn`` over about ``seconds``."""
    for _ in range(warmup):
        fn()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        fn()
        n += 1
    return n / (time.perf_counter() - start)


def paired_rates(torch_fn, cinder_fn, seconds, rounds=7):
    """(torch steps/s, cinder steps/s, median of per-round ratios): the two libraries run in
    alternating short rounds, so a change in machine load hits both alike."""
    pairs = [(rate(torch_fn, seconds / rounds), rate(cinder_fn, seconds / rounds))
             for _ in range(rounds)]
    t = float(np.median([p[0] for p in pairs]))
    c = float(np.median([p[1] for p in pairs]))
    return t, c, float(np.median([p[1] / p[0] for p in pairs]))


def bench_lenet(torch, cinder, seconds):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, 64)
    torch.manual_seed(0)
    tm = lenet(torch.nn)
    cm = lenet(cinder.nn)
    copy_weights(tm, cm, cinder)
    xt, yt, xc, yc = torch.tensor(x), torch.tensor(y), cinder.tensor(x), cinder.tensor(y)
    lt, lc = sgd_step(torch, tm, xt, yt), sgd_step(cinder, cm, xc, yc)
    assert abs(lt.item() - lc.item()) < 1e-4, (lt.item(), lc.item())
    return paired_rates(lambda: sgd_step(torch, tm, xt, yt),
                        lambda: sgd_step(cinder, cm, xc, yc), seconds)


def bench_resnet_forward(torch, cinder, seconds):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 3, 64, 64)).astype(np.float32)
    torch.manual_seed(0)
    tm = resnet18(torch.nn).eval()
    cm = resnet18(cinder.nn).eval()
    copy_weights(tm, cm, cinder)
    xt, xc = torch.tensor(x), cinder.tensor(x)
    with torch.no_grad(), cinder.no_grad():
        diff = np.abs(tm(xt).numpy() - cm(xc).numpy()).max()
        assert diff < 1e-3, diff
        return paired_rates(lambda: tm(xt), lambda: cm(xc), seconds)


def memory_child(lib_name):
    """One ResNet-18 training step (batch 8x3x64x64) in this fresh process; prints the peak
    resident set size in MiB."""
    lib = __import__(lib_name)
    if lib_name == "torch":
        lib.set_num_threads(1)
    rng = np.random.default_rng(0)
    lib.manual_seed(0)
    model = resnet18(lib.nn).train()
    x = lib.tensor(rng.standard_normal((8, 3, 64, 64)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 1000, 8))
    sgd_step(lib, model, x, y)
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def peak_memory(lib_name):
    out = subprocess.run([sys.executable, __file__, "--memory-child", lib_name],
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--memory-child")
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.memory_child)
        return
    # Children first: on Linux a child's ru_maxrss starts from its parent's size at fork, so
    # the parent must still be small (nothing but NumPy imported).
    mt, mc = peak_memory("torch"), peak_memory("cinder")
    import torch

    import cinder
    torch.set_num_threads(1)
    rows = [("LeNet-5 train step (b64, inline SGD)", bench_lenet(torch, cinder, args.seconds)),
            ("ResNet-18 forward (b8, 3x64x64)",
             bench_resnet_forward(torch, cinder, args.seconds))]
    print(f"{'benchmark':42s} {'torch/s':>9s} {'cinder/s':>9s} {'ratio':>7s}")
    for name, (t, c, ratio) in rows:
        print(f"{name:42s} {t:9.2f} {c:9.2f} {ratio:7.2f}x")
    print(f"{'ResNet-18 train step peak RSS (MiB)':42s} {mt:9.0f} {mc:9.0f} {mc / mt:7.2f}x")


if __name__ == "__main__":
    main()
