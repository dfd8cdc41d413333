"""Checkpoint benchmarks: cinder.save/load vs torch.save/load in the same process.

    python bench/bench_serialization.py       # prints a Markdown table

A 100 MB state_dict (ten float32 tensors of 2.5M elements plus a few small ones) is saved to
and loaded from a file in a temporary directory (page cache, so this measures the code, not
the disk), and loaded again with ``mmap=True``. Ratios are cinder time / PyTorch time (lower
is better). Goals (issue 9): save+load at least 0.8x PyTorch's speed (a time ratio <= 1.25),
``mmap=True`` load under 50 ms.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import tempfile  # noqa: E402
import time  # noqa: E402
from collections import OrderedDict  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import cinder  # noqa: E402

torch.set_num_threads(1)


def state_dict(lib):
    """About 100 MB of float32 tensors laid out like a model's state_dict."""
    rng = np.random.default_rng(0)
    sd = OrderedDict()
    for i in range(10):
        sd[f"layer{i}.weight"] = lib.tensor(rng.standard_normal(2_500_000, dtype=np.float32)
                                            .reshape(2500, 1000))
        sd[f"layer{i}.bias"] = lib.tensor(rng.standard_normal(1000, dtype=np.float32))
    sd["step"] = lib.tensor(10)
    return sd


def measure(folder, repeat=7):
    """Best time of each case per library. The libraries alternate within every repetition,
    so both see the same background load on a shared machine."""
    libs = {"cinder": cinder, "torch": torch}
    data = {name: state_dict(lib) for name, lib in libs.items()}
    paths = {name: os.path.join(folder, f"{name}.pt") for name in libs}
    cases = {
        "save": lambda lib, sd, path: lib.save(sd, path),
        "load": lambda lib, sd, path: lib.load(path),
        "save+load": lambda lib, sd, path: (lib.save(sd, path), lib.load(path)),
        "load mmap=True": lambda lib, sd, path: lib.load(path, mmap=True),
    }
    best = {name: {case: float("inf") for case in cases} for name in libs}
    for _ in range(repeat):
        for case, fn in cases.items():
            for name, lib in libs.items():
                start = time.perf_counter()
                fn(lib, data[name], paths[name])
                best[name][case] = min(best[name][case], time.perf_counter() - start)
    return best["cinder"], best["torch"]


def main():
    with tempfile.TemporaryDirectory() as folder:
        c, t = measure(folder)
    print("| case (100 MB state_dict) | cinder | PyTorch | ratio |")
    print("|---|---|---|---|")
    for case in c:
        print(f"| {case} | {c[case] * 1e3:.1f} ms | {t[case] * 1e3:.1f} ms | "
              f"{c[case] / t[case]:.2f}x |")
    speed = t["save+load"] / c["save+load"]
    print(f"\nsave+load speed: {speed:.2f}x PyTorch's (goal >= 0.8x); "
          f"mmap load {c['load mmap=True'] * 1e3:.1f} ms (goal < 50 ms)")


if __name__ == "__main__":
    main()
