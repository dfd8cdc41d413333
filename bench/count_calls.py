"""Python frames and C calls that one small op call makes, in several cinder trees.

    python bench/count_calls.py BASE_CHECKOUT [MORE_CHECKOUTS...] [--subclass]

A timing-free companion of ``bench_ab.py`` for a loaded machine: each checkout's ``cinder`` is
copied under another package name (as ``bench_ab.py`` does) and every case is run once under
``sys.setprofile``, counting Python-level calls and C calls. ``--subclass`` first defines a
Tensor subclass with a ``__torch_function__`` in every tree (the cases still use plain tensors).
"""

import importlib
import os
import shutil
import sys
import tempfile

import cinder


def load(checkout, name):
    """Import ``checkout``'s cinder package under the name ``name``."""
    folder = tempfile.mkdtemp()
    shutil.copytree(os.path.join(checkout, "cinder"), os.path.join(folder, name))
    sys.path.insert(0, folder)
    return importlib.import_module(name)


def count(fn):
    """(Python frames, C calls) of one call of ``fn`` (after a warm-up call)."""
    seen = {"call": 0, "c_call": 0}

    def profile(frame, event, arg):
        if event in seen:
            seen[event] += 1
    fn()
    sys.setprofile(profile)
    fn()
    sys.setprofile(None)
    return f"{seen['call']}/{seen['c_call']}"


def cases(lib):
    a, b, m = lib.ones(4), lib.ones(4), lib.ones(64, 64)
    return {"a.sum()": lambda: a.sum(), "sum(a)": lambda: lib.sum(a),
            "m.sum(1)": lambda: m.sum(1), "a.mean()": lambda: a.mean(), "a + b": lambda: a + b,
            "add(a, b)": lambda: lib.add(a, b), "m.T": lambda: m.T, "a.dtype": lambda: a.dtype,
            "a.shape": lambda: a.shape, "a.add_(b)": lambda: a.add_(b)}


def main(checkouts, subclass):
    libs = {f"base{i}": load(c, f"cinder_base{i}") for i, c in enumerate(checkouts)}
    libs["after"] = cinder
    if subclass:
        for lib in libs.values():
            type("Participates", (lib.Tensor,), {})
    table = {name: cases(lib) for name, lib in libs.items()}
    print("| case | " + " | ".join(libs) + " |")
    print("|---" * (len(libs) + 1) + "|")
    for case in table["after"]:
        print(f"| {case} | " + " | ".join(count(table[n][case]) for n in libs) + " |")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(args, "--subclass" in sys.argv[1:])
