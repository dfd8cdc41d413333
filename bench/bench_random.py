"""Random initialisation benchmarks: cinder vs PyTorch in the same process, one thread each.

    python bench/bench_random.py          # prints a Markdown table of times and ratios

1. ``normal_(0, 0.01)`` and ``uniform_(-0.1, 0.1)`` on a 4096x4096 float32 tensor, and
   ``normal_`` on a 1024x1024 float64 one (all bit for bit equal to PyTorch's).
2. Building torchvision's VGG-11, AlexNet and Inception-v3 (``init_weights=True``) after the same
   seed: almost all of that time is the parameter initialisation.

Both wall time and process CPU time are reported: the CPU time is the steadier number on a
shared machine. Ratios are cinder / PyTorch (lower is better). torchvision is the oracle copy
the tests build (its Python parts; see tests/vision/conftest.py).
"""

import os
import sys

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import time  # noqa: E402

import torch  # noqa: E402

import cinder  # noqa: E402
from cinder.vision import models as cmodels  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "vision"))
from conftest import load_torchvision  # noqa: E402

torch.set_num_threads(1)
tv = load_torchvision()


def measure(fn, repeat):
    """Best (wall, cpu) seconds of ``repeat`` calls."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def fill_case(lib, method, args, shape, dtype):
    tensor = lib.empty(shape, dtype=dtype)
    getattr(tensor, method)(*args)  # touch the memory once, as a model's second init would
    return lambda: getattr(tensor, method)(*args)


def model_case(lib, build, **kwargs):
    def run():
        lib.manual_seed(0)
        build(**kwargs)
    return run


CASES = [
    ("normal_(0, 0.01) 4096x4096 f32",
     lambda lib: fill_case(lib, "normal_", (0.0, 0.01), (4096, 4096), lib.float32), 3),
    ("uniform_(-0.1, 0.1) 4096x4096 f32",
     lambda lib: fill_case(lib, "uniform_", (-0.1, 0.1), (4096, 4096), lib.float32), 3),
    ("normal_() 1024x1024 f64",
     lambda lib: fill_case(lib, "normal_", (), (1024, 1024), lib.float64), 2),
    ("vgg11() build", lambda lib: model_case(
        lib, (cmodels if lib is cinder else tv.models).vgg11), 1),
    ("alexnet() build", lambda lib: model_case(
        lib, (cmodels if lib is cinder else tv.models).alexnet), 1),
    ("inception_v3(init_weights=True) build", lambda lib: model_case(
        lib, (cmodels if lib is cinder else tv.models).inception_v3, init_weights=True), 1),
]


def main():
    print("| case | cinder wall s | torch wall s | wall ratio | cinder cpu s | torch cpu s "
          "| cpu ratio |")
    print("|---|---|---|---|---|---|---|")
    for name, make, repeat in CASES:
        try:
            ours = measure(make(cinder), repeat)
        except AttributeError as error:  # a model this branch does not provide yet
            print(f"| {name} | skipped: {error} | | | | | |", flush=True)
            continue
        theirs = measure(make(torch), repeat)
        print(f"| {name} | {ours[0]:.3f} | {theirs[0]:.3f} | {ours[0] / theirs[0]:.1f}x "
              f"| {ours[1]:.3f} | {theirs[1]:.3f} | {ours[1] / theirs[1]:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
