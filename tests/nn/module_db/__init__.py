"""The module database: one ``ModuleInfo`` row per way of building an nn module class.

A row says how to construct the module (``args``/``kwargs``, the same in both libraries:
``Arg`` values are built per library, e.g. a weight tensor), which inputs to feed it (a
function of a NumPy generator returning arrays; float arrays become gradient leaves) and which
inputs PyTorch refuses. Rows live in one file per ``cinder/nn/modules`` file; add a file and
list it in ``FILES`` to cover another family. ``tests/nn/test_modules.py`` runs every row.
"""

import numpy as np

from . import (activation, adaptive, container, distance, dropout, flatten,  # noqa: F401
               linear, loss, rnn)
from . import layers  # noqa: F401  (conv, pooling, norms, padding, upsampling, embedding...)


class Arg:
    """A constructor argument built per library: ``Arg(lambda lib: lib.ones(3))``."""

    def __init__(self, build, desc="arg"):
        self.build = build
        self.desc = desc

    def __repr__(self):
        return self.desc


class ModuleInfo:
    """One module construction and how to test it.

    ``inputs(rng)`` returns a tuple of NumPy arrays (floats become leaves that require grad).
    ``errors``: ``inputs``-style functions whose inputs PyTorch rejects. ``random``: the forward
    draws random numbers (both libraries are seeded identically before each call).
    ``train_eval``: run in both modes. ``dtypes``: float dtypes to try (the module is converted
    with ``.double()`` for float64). ``tol``: (rtol, atol) per dtype.
    """

    def __init__(self, cls, *args, inputs, kwargs=None, errors=(), random=False, desc="",
                 dtypes=("float32", "float64"), tol=None, grad=True, check_repr=True,
                 leaves=None):
        self.cls = cls
        self.args = args
        self.kwargs = kwargs or {}
        self.inputs = inputs
        self.errors = errors
        self.random = random
        self.desc = desc
        self.dtypes = dtypes
        self.tol = {"float32": (1e-5, 1e-5), "float64": (1e-7, 1e-9), **(tol or {})}
        self.grad = grad
        self.check_repr = check_repr
        self.leaves = leaves          # indices of the float inputs that require grad (all)

    @property
    def id(self):
        return f"{self.cls}{'-' + self.desc if self.desc else ''}"

    def build(self, lib):
        def conv(v):
            return v.build(lib) if isinstance(v, Arg) else v
        args = [conv(a) for a in self.args]
        kwargs = {k: conv(v) for k, v in self.kwargs.items()}
        return getattr(lib.nn, self.cls)(*args, **kwargs)


def floats(*shapes, low=-2.0, high=2.0):
    """``inputs`` giving one float array per shape."""
    return lambda rng: tuple(rng.uniform(low, high, size=s) for s in shapes)


def ints(shape, high, low=0):
    return lambda rng: rng.integers(low, high, size=shape).astype(np.int64)


ROWS = []
for _m in (linear, activation, adaptive, dropout, loss, flatten, distance, container, rnn):
    ROWS += _m.rows(ModuleInfo, Arg, floats, ints)
ROWS += layers.rows(ModuleInfo, Arg, floats, ints)
