"""The cost of reporting PyTorch's indices on equal values: sorting and selection on heavily
tied inputs and on inputs without ties, cinder vs PyTorch in one process, one thread each,
the two libraries alternating (each keeps its best time).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_ties.py [--rounds N] [--only S]

Prints a Markdown table: best time per call, the ratio cinder / PyTorch (lower is better) and
whether the indices equal PyTorch's.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import cinder  # noqa: E402

torch.set_num_threads(1)
RNG = np.random.default_rng(0)


def cases():
    """(label, array, call) triples; ``call(lib, tensor)`` runs the op."""
    thirds = (np.arange(10**6) // 3).astype(np.float32)
    few = RNG.integers(0, 10, (100, 200))
    rows = RNG.integers(0, 5, (10000, 100)).astype(np.float32)
    untied = RNG.standard_normal(10**6)                    # float64: no equal values
    untied_rows = RNG.standard_normal((1000, 1000))
    normals = RNG.standard_normal(10**6).astype(np.float32)    # ~6,800 equal pairs
    labels = RNG.integers(0, 50, (2000, 1000)).astype(np.float32)
    return [
        ("(arange(1e6)//3).float().topk(1000)", thirds, lambda L, t: L.topk(t, 1000)),
        ("(arange(1e6)//3).float().topk(1000, largest=False)", thirds,
         lambda L, t: L.topk(t, 1000, largest=False)),
        ("flip(arange(1e6)//3).float().topk(1000, largest=False)", thirds[::-1].copy(),
         lambda L, t: L.topk(t, 1000, largest=False)),
        ("(2000,1000) in 0..49 .topk(1, 1)", labels, lambda L, t: L.topk(t, 1, 1)),
        ("(2000,1000) in 0..49 .topk(10, 1)", labels, lambda L, t: L.topk(t, 10, 1)),
        ("(10000,100) in 0..4 .topk(1)", rows, lambda L, t: L.topk(t, 1)),
        ("int (100,200) in 0..9 .argsort(1)", few, lambda L, t: L.argsort(t, 1)),
        ("int (100,200) in 0..9 .mode(1)", few, lambda L, t: L.mode(t, 1)),
        ("(10000,100) in 0..4 .mode()", rows, lambda L, t: L.mode(t)),
        ("(10000,100) in 0..4 .argsort(1)", rows, lambda L, t: L.argsort(t, 1)),
        ("(10000,100) in 0..4 .kthvalue(30)", rows, lambda L, t: L.kthvalue(t, 30)),
        ("randn(1e6) float64 .kthvalue(1000) [no ties]", untied,
         lambda L, t: L.kthvalue(t, 1000)),
        ("randn(1000,1000) float64 .kthvalue(500, 1) [no ties]", untied_rows,
         lambda L, t: L.kthvalue(t, 500, 1)),
        ("randn(1000,1000) float64 .median(1) [no ties]", untied_rows,
         lambda L, t: L.median(t, 1)),
        ("randn(1e6) float64 .sort() [no ties]", untied, lambda L, t: L.sort(t)),
        ("randn(1e6) float64 .argsort() [no ties]", untied, lambda L, t: L.argsort(t)),
        ("randn(1000,1000) float64 .sort(1) [no ties]", untied_rows, lambda L, t: L.sort(t, 1)),
        ("randn(1e6) float32 .sort() [~6,800 ties]", normals, lambda L, t: L.sort(t)),
    ]


def once(call, lib, tensor):
    """Seconds one call takes."""
    start = time.perf_counter()
    call(lib, tensor)
    return time.perf_counter() - start


def indices(out):
    return (out if isinstance(out, (torch.Tensor, cinder.Tensor)) else out[1]).numpy()


def run(case_list):
    """Time each (label, array, call) of ``case_list`` in both libraries and print the table
    (``--rounds N``, ``--only S...`` read from the command line)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    print("| case | cinder | PyTorch | ratio | same indices |")
    print("|---|---|---|---|---|")
    for label, arr, call in case_list:
        if args.only and not any(s in label for s in args.only):
            continue
        t, c = torch.from_numpy(arr.copy()), cinder.from_numpy(arr.copy())
        tt = tc = float("inf")
        for _ in range(args.rounds):          # alternate, keep each library's best
            tc = min(tc, once(call, cinder, c))
            tt = min(tt, once(call, torch, t))
        same = np.array_equal(indices(call(torch, t)), indices(call(cinder, c)))
        print(f"| {label} | {tc * 1e3:.2f} ms | {tt * 1e3:.2f} ms | {tc / tt:.2f}x | {same} |",
              flush=True)


if __name__ == "__main__":
    run(cases())
