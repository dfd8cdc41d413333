"""share_memory_: cinder vs PyTorch in the same process, microseconds per call.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_share_memory.py

Two cases: a fresh tensor that nothing else views (a tensor sent through a Queue), and a tensor
with a view made earlier, which cinder must find among the objects the garbage collector
tracks (PyTorch moves the storage object the views share, so its cost does not depend on how
many objects the program holds). The gc-object count is printed because the second case
scales with it.
"""

import gc
import os
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import torch  # noqa: E402

import cinder  # noqa: E402

torch.set_num_threads(1)


def per_call_us(fn, calls):
    """Best of three rounds of ``calls`` calls, in microseconds per call."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls * 1e6)
    return best


def lone(lib):
    return lambda: lib.ones(1000).share_memory_()


def with_view(lib):
    def run():
        base = lib.ones(1000)
        view = base[1:]
        base.share_memory_()
        assert view.is_shared()
    return run


def main():
    print(f"objects tracked by gc: {len(gc.get_objects())}")
    print("| case | cinder (us) | PyTorch (us) | cinder / PyTorch |")
    print("|---|---|---|---|")
    for name, case, calls in (("lone tensor", lone, 200), ("a view made before", with_view, 20)):
        ours, theirs = per_call_us(case(cinder), calls), per_call_us(case(torch), calls)
        print(f"| {name} | {ours:.0f} | {theirs:.0f} | {ours / theirs:.1f}x |")


if __name__ == "__main__":
    main()
