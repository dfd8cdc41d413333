"""share_memory_: cinder vs PyTorch in the same process, microseconds per call.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_share_memory.py

Three cases: a fresh tensor that nothing else views (a tensor sent through a Queue); a tensor
with a view made earlier, once the process has shared memory before (from then on cinder's
views note themselves on their version counter, so the move finds them directly); and the same
before the process's first share, when views keep no record and cinder finds them among the
objects the garbage collector tracks (a one-time cost that scales with the program's objects:
the gc-object count is printed). PyTorch moves the storage object the views share, so its cost
depends on neither.
"""

import gc
import os
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import torch  # noqa: E402

import cinder  # noqa: E402
from cinder._tensor import _VersionCounter  # noqa: E402

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


def with_view_first_share(lib):
    run = with_view(lib)

    def first():
        _VersionCounter.track_aliases = False    # as in a process that has not shared yet
        run()
    return first


def main():
    print(f"objects tracked by gc: {len(gc.get_objects())}")
    print("| case | cinder (us) | PyTorch (us) | cinder / PyTorch |")
    print("|---|---|---|---|")
    for name, case, calls in (("lone tensor", lone, 200), ("a view made before", with_view, 20),
                              ("a view made before the first share", with_view_first_share, 5)):
        ours, theirs = per_call_us(case(cinder), calls), per_call_us(case(torch), calls)
        print(f"| {name} | {ours:.0f} | {theirs:.0f} | {ours / theirs:.1f}x |")


if __name__ == "__main__":
    main()
