"""Reductions of values into positions given by an index: the kernel behind scatter_add,
scatter_reduce, index_add, index_reduce and put(accumulate=True).

``np.add.at`` is correct but slow (a Python-speed loop inside NumPy); here sums of real
floats go through ``bincount`` and every other reduction sorts the positions once and reduces
each run of equal positions with ``ufunc.reduceat``.
"""

import numpy as np

_UFUNCS = {"sum": "add", "prod": "multiply", "amax": "maximum", "amin": "minimum"}


def linear_index(key, shape):
    """Flat (C-order) positions in an array of ``shape`` for a tuple of broadcastable index
    arrays ``key`` (one per dim)."""
    lin = np.zeros((), np.int64)
    stride = 1
    for k, n in zip(reversed(key), reversed(shape)):
        lin = lin + np.asarray(k, dtype=np.int64) * stride
        stride *= n
    return lin


def reduce_into(xp, flat, lin, vals, reduce, include_self=True):
    """Combine ``vals`` into the 1-d array ``flat`` at positions ``lin`` (same shape as vals)
    with ``reduce`` ('sum', 'prod', 'amax', 'amin'); without ``include_self`` the old values
    at the written positions are left out. Returns the written positions."""
    lin = lin.reshape(-1)
    vals = xp.broadcast_to(vals, lin.shape) if np.ndim(vals) == 0 else vals.reshape(-1)
    if lin.size == 0:
        return lin
    if reduce == "sum" and include_self and flat.dtype.kind in "fc" and flat.dtype.itemsize > 2:
        _bincount_add(xp, flat, lin, vals)
        return None
    order = xp.argsort(lin, kind="stable")
    lin_sorted = lin[order]
    starts = xp.flatnonzero(xp.concatenate([xp.ones(1, bool), lin_sorted[1:] != lin_sorted[:-1]]))
    ufunc = getattr(xp, _UFUNCS[reduce])
    reduced = ufunc.reduceat(vals[order].astype(flat.dtype, copy=False), starts)
    targets = lin_sorted[starts]
    flat[targets] = ufunc(flat[targets], reduced) if include_self else reduced
    return targets


def _bincount_add(xp, flat, lin, vals):
    n = flat.shape[0]
    if flat.dtype.kind == "c":
        flat += (xp.bincount(lin, vals.real, minlength=n)
                 + 1j * xp.bincount(lin, vals.imag, minlength=n)).astype(flat.dtype)
    else:
        flat += xp.bincount(lin, vals, minlength=n).astype(flat.dtype, copy=False)


def counts_at(xp, lin, size):
    """How many times each flat position occurs in ``lin``."""
    return xp.bincount(lin.reshape(-1), minlength=size)
