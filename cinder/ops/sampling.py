"""The in-place samplers that complete ``ops/random.py``: ``geometric_``, ``log_normal_`` and
``cauchy_``. Each draws from cinder's copy of PyTorch's CPU stream exactly as PyTorch's kernel
does (one 64-bit draw, or one cached double normal, per element), so seeded results agree bit
for bit."""

import math

import numpy as np

from .. import _dtype as D
from .._random_engine import _libm
from ._registry import inplace_only
from .random import _engine, _float_dtype, _write


def geometric_(self, p, *, generator=None):
    """Fills ``self`` with the number of Bernoulli(``p``) trials up to the first success."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    vals = _engine(generator).geometric(self.numel(), p, np.float64)
    return _write(self, vals.astype(self._dtype.numpy_dtype))


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fills ``self`` with ``exp(N(mean, std))`` samples."""
    dt = _float_dtype(self._dtype, "log_normal")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    normal = _engine(generator).normal(self.numel(), np.float64, mean, std, contiguous=False)
    # the C library's exp, as PyTorch's kernel calls it (NumPy's may differ in the last bit)
    return _write(self, _libm(math.exp, normal).astype(dt.numpy_dtype))


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fills ``self`` with Cauchy(``median``, ``sigma``) samples."""
    if self._dtype.category != D.FLOATING:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype "
                           f"must be a floating point but you specified {self._dtype.cpp_name}")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    vals = _engine(generator).cauchy(self.numel(), median, sigma, np.float64)
    return _write(self, vals.astype(self._dtype.numpy_dtype))


geometric_, log_normal_, cauchy_ = (inplace_only(_fn.__name__, _fn, family="random")
                                    for _fn in (geometric_, log_normal_, cauchy_))
