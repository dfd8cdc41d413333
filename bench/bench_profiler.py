"""Op-call overhead with no profiler, and while ``torch.profiler.profile`` records: cinder
against PyTorch in one process, one thread each, the two libraries alternating.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python bench/bench_profiler.py

For each case it prints the best per-call time of: no profiler; inside ``profile()``; inside
``profile(record_shapes=True, profile_memory=True)``; and the factor recording adds. (The cost
of the hook itself with no profiler, against the tree before it existed, is measured by
``bench/bench_ab.py BASE_CHECKOUT``.)
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import timeit  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import cinder  # noqa: E402

torch.set_num_threads(1)
ROUNDS = 5


def cases(lib):
    """name -> (function, calls per timing)."""
    a = lib.tensor(np.arange(4, dtype=np.float32))
    b = lib.tensor(np.ones(4, dtype=np.float32))
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(32, 64), lib.nn.ReLU(), lib.nn.Linear(64, 10))
    opt = lib.optim.SGD(model.parameters(), lr=0.01)
    x = lib.tensor(np.random.default_rng(0).standard_normal((16, 32), dtype=np.float32))
    y = lib.tensor(np.arange(16) % 10)

    def step():
        opt.zero_grad()
        lib.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return {"a + b (4 floats)": (lambda: a + b, 20000),
            "torch.add(a, b)": (lambda: lib.add(a, b), 20000),
            "F.relu(a)": (lambda: lib.nn.functional.relu(a), 20000),
            "MLP train step (16x32)": (step, 300)}


def per_call(fn, number):
    return timeit.timeit(fn, number=number) / number


def measure(lib, fn, number, mode):
    """Seconds per call of ``fn`` with no profiler, or inside a profile (``mode``)."""
    if mode == "off":
        return per_call(fn, number)
    kwargs = {} if mode == "record" else {"record_shapes": True, "profile_memory": True}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU], **kwargs):
            return per_call(fn, number)


def main():
    libs = {"cinder": cinder, "torch": torch}
    built = {name: cases(lib) for name, lib in libs.items()}
    modes = ("off", "record", "shapes+memory")
    best = {}
    for _ in range(ROUNDS):             # rounds alternate libraries and modes
        for case in built["cinder"]:
            for mode in modes:
                for name, lib in libs.items():
                    fn, number = built[name][case]
                    t = measure(lib, fn, number, mode)
                    key = (case, mode, name)
                    best[key] = min(best.get(key, t), t)
    print("| case | lib | no profiler | profile() | shapes+memory | recording cost |")
    print("|---|---|---|---|---|---|")
    for case in built["cinder"]:
        for name in libs:
            off, rec, full = (best[(case, m, name)] * 1e6 for m in modes)
            print(f"| {case} | {name} | {off:.2f} µs | {rec:.2f} µs | {full:.2f} µs | "
                  f"{rec / off:.1f}x / {full / off:.1f}x |")
        c_off, t_off = best[(case, "off", "cinder")], best[(case, "off", "torch")]
        c_rec, t_rec = best[(case, "record", "cinder")], best[(case, "record", "torch")]
        print(f"| {case} | cinder/torch | {c_off / t_off:.2f}x | {c_rec / t_rec:.2f}x | | |")


if __name__ == "__main__":
    main()
