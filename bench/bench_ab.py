"""Before/after timing of small-op overhead: two cinder trees in one process.

    python bench/bench_ab.py BASE_CHECKOUT      # e.g. a `git worktree add` of the base commit
    python bench/bench_ab.py BASE_CHECKOUT --subclass   # with a __torch_function__ subclass

On a loaded machine, separate runs of ``bench_core.py`` swing more than a few percent of
per-call overhead. This script copies ``BASE_CHECKOUT/cinder`` into a temporary folder as the
package ``cinder_base`` (cinder imports itself relatively, so the copy works under another
name), imports it next to this tree's ``cinder`` and PyTorch, and interleaves the three several
times, keeping each case's best time. It prints after/base and both against PyTorch.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import importlib  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import timeit  # noqa: E402

import torch  # noqa: E402

import cinder  # noqa: E402

torch.set_num_threads(1)


def load_base(checkout):
    """Import ``checkout``'s cinder package under the name ``cinder_base``."""
    folder = tempfile.mkdtemp()
    shutil.copytree(os.path.join(checkout, "cinder"), os.path.join(folder, "cinder_base"))
    sys.path.insert(0, folder)
    return importlib.import_module("cinder_base")


def cases(lib):
    a, b = lib.ones(4), lib.ones(4)
    g = lib.ones(4, requires_grad=True)
    x = lib.ones(64, 64, requires_grad=True)

    def backward():
        (x * x).sum().backward()
    m, n = lib.ones(64, 64), lib.ones(64, 64)
    return {"a + b": (lambda: a + b, 100000), "add(a, b)": (lambda: lib.add(a, b), 100000),
            "a + b, requires_grad": (lambda: g + b, 50000), "a.sum()": (lambda: a.sum(), 50000),
            "(x*x).sum().backward()": (backward, 2000),
            # in-place generator and reduction/comparison factories (issue 5)
            "a.add_(b)": (lambda: a.add_(b), 50000), "a.mul_(2)": (lambda: a.mul_(2), 50000),
            "m.add_(n)": (lambda: m.add_(n), 20000), "a.eq_(b)": (lambda: a.eq_(b), 20000),
            "m.sum(1)": (lambda: m.sum(1), 20000), "m.max(1)": (lambda: m.max(1), 20000),
            "m.mean()": (lambda: m.mean(), 20000), "m.lt(n)": (lambda: m.lt(n), 50000),
            # property reads (issue 5: every property passes the dispatch point)
            "a.dtype": (lambda: a.dtype, 200000), "g.requires_grad": (lambda: g.requires_grad,
                                                                      200000),
            "m.T": (lambda: m.T, 50000),
            # view and creation factories (issue 5)
            "m.t()": (lambda: m.t(), 50000), "m.view(-1)": (lambda: m.view(-1), 50000),
            "m.transpose(0, 1)": (lambda: m.transpose(0, 1), 50000),
            "a.unsqueeze(0)": (lambda: a.unsqueeze(0), 50000),
            "x.view(-1), requires_grad": (lambda: x.view(-1), 20000),
            "zeros(4)": (lambda: lib.zeros(4), 50000),
            "zeros_like(m)": (lambda: lib.zeros_like(m), 20000),
            "a.new_zeros(4)": (lambda: a.new_zeros(4), 20000)}


def define_subclasses(libs):
    """A Tensor subclass with a ``__torch_function__`` in each library: the state a program
    that uses one is in (the cases themselves still run on plain tensors)."""
    for lib in libs:
        type("Participates", (lib.Tensor,), {})


def main(checkout, rounds=7, subclass=False):
    base = load_base(checkout)
    if subclass:
        define_subclasses((base, cinder, torch))
    libs = {"base": cases(base), "after": cases(cinder), "torch": cases(torch)}
    best = {lib: dict.fromkeys(libs["base"], float("inf")) for lib in libs}
    for _ in range(rounds):
        for name in libs["base"]:
            for lib, table in libs.items():
                fn, number = table[name]
                t = min(timeit.repeat(fn, number=number, repeat=3)) / number
                best[lib][name] = min(best[lib][name], t)
    print("| case | base | after | after/base | base/torch | after/torch |")
    print("|---|---|---|---|---|---|")
    for name in libs["base"]:
        b, a, t = best["base"][name], best["after"][name], best["torch"][name]
        print(f"| {name} | {b * 1e6:.2f} µs | {a * 1e6:.2f} µs | {a / b:.2f} | {b / t:.2f}x | "
              f"{a / t:.2f}x |")


if __name__ == "__main__":
    main(sys.argv[1], subclass="--subclass" in sys.argv[2:])
