"""BLAS level-1 routines on the CPU, for update loops that want one fused pass.

``axpy`` computes ``y += alpha * x`` reading each vector once and writing ``y`` once, with no
temporary; NumPy needs two passes and a temporary for the same expression. Only contiguous
1-d float32/float64 NumPy vectors qualify; callers fall back to array expressions otherwise
(CuPy arrays included).
"""

import numpy as np
from scipy.linalg import blas as _blas

__all__ = ["axpy"]

_AXPY = {np.dtype(np.float32): _blas.saxpy, np.dtype(np.float64): _blas.daxpy}


def axpy(alpha, x, y):
    """``y += alpha * x`` in place via BLAS; returns False (doing nothing) when the arrays do
    not qualify."""
    routine = _AXPY.get(y.dtype) if type(y) is np.ndarray and y.ndim == 1 else None
    if routine is None or type(x) is not np.ndarray or x.dtype != y.dtype \
            or not (y.flags.c_contiguous and x.flags.c_contiguous):
        return False
    routine(x, y, a=alpha)
    return True
