"""Sorting and selection on inputs with equal values (where cinder emulates PyTorch's CPU
kernels step by step to report the same indices), cinder vs PyTorch in one process, one
thread each, the two libraries alternating.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_tie_order.py [--rounds N]

Prints a Markdown table: best time per call for each library and the ratio cinder / PyTorch.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


import numpy as np  # noqa: E402
import torch  # noqa: E402


torch.set_num_threads(1)
RNG = np.random.default_rng(0)


def cases():
    """(label, array, call) triples; ``call(lib, tensor)`` runs the op."""
    small_ints = RNG.integers(0, 10, 10**6)
    normals = RNG.standard_normal(10**6).astype(np.float32)      # ~6,800 tied pairs
    labels = RNG.integers(0, 100, (1000, 1000)).astype(np.float32)
    rows = RNG.integers(0, 5, (10000, 100)).astype(np.float32)
    return [
        ("randint(0,10,1e6).sort() [radix: stable]", small_ints, lambda L, t: L.sort(t)),
        ("randint(0,10,1e6).sort(descending=True)", small_ints,
         lambda L, t: L.sort(t, descending=True)),
        ("randint(0,10,1e6).float().sort()", small_ints.astype(np.float32),
         lambda L, t: L.sort(t)),
        ("randn(1e6) float32 .sort()", normals, lambda L, t: L.sort(t)),
        ("(1000,1000) in 0..99 .sort(1)", labels, lambda L, t: L.sort(t, 1)),
        ("(10000,100) in 0..4 .argsort(1)", rows, lambda L, t: L.argsort(t, 1)),
        ("(10000,100) in 0..4 .topk(10)", rows, lambda L, t: L.topk(t, 10)),
        ("(10000,100) in 0..4 .topk(50, sorted=False)", rows,
         lambda L, t: L.topk(t, 50, sorted=False)),
        ("(10000,100) in 0..4 .kthvalue(30)", rows, lambda L, t: L.kthvalue(t, 30)),
        ("(10000,100) in 0..4 .mode()", rows, lambda L, t: L.mode(t)),
        ("randint(0,10,1e6).float().topk(1000)", small_ints.astype(np.float32),
         lambda L, t: L.topk(t, 1000)),
    ]


if __name__ == "__main__":
    from bench_ties import run      # the timing loop and table, shared with bench_ties.py
    run(cases())
