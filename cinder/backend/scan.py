"""Long running sums and products of float arrays on the CPU, vectorised by segments.

NumPy's ``ufunc.accumulate`` hands each running value through memory to the next element
(about 3 ns per element, whatever the SIMD width); PyTorch's loop keeps it in a register
(under 1 ns). Both carry the value in float64 for float32 data. Here a run is cut into
segments of ``_ROWS`` elements laid out as the columns of a (``_ROWS``, n / ``_ROWS``)
matrix: ``_ROWS - 1`` row operations scan every segment at once, the segments' own running
values (the last row) are scanned the same way, one level down, and each segment is then
combined with everything before it. The work is done in chunks of ``_CHUNK`` elements so that
the float64 buffers stay in the L2 cache; no BLAS is involved (a matrix product with a
triangular matrix of ones does the sums about as fast, but OpenBLAS threads these thin
products, which turns slow on a busy machine).

The order of the additions (multiplications) differs from the one sequential loop, so results
agree with PyTorch's within float64 rounding: float32 results nearly always bit for bit,
float64 ones within a few units in the last place of the running sum of magnitudes. Where a
NaN, an infinity, a zero, an overflow or an underflow could make the orders disagree by more
than rounding, ``running_scan`` answers False and the caller runs the exact sequential scan:
a sequential sum that overflows or meets a NaN keeps it to the end, so finite results (every
value for float64 data; the last one for float32 data, whose sums cannot overflow float64)
show that none did; a product is accepted when every value lies in ``_SAFE``.
"""

import numpy as np

__all__ = ["MIN_LENGTH", "running_scan"]

# Runs shorter than this keep ``ufunc.accumulate`` (the blocks' fixed costs dominate there;
# measured break-even: about 3000 elements for sums, 9000 for products)
MIN_LENGTH = {"add": 1 << 12, "multiply": 1 << 14}

_CHUNK = 1 << 17            # elements per pass (a 1 MiB float64 buffer)
_SMALL = 2048               # running values of at most this many segments: accumulate
_ROWS = 8                   # segment length
# a product whose values stay in this range cannot leave float64 in any order of the factors
# of a segment (their ratios stay within 1e308)
_SAFE = (1.5e-154, 1.3e154)
_UFUNCS = {"add": np.add, "multiply": np.multiply}


def _inclusive(ufunc, v):
    """The running ``ufunc`` of the float64 vector ``v`` (which it may overwrite)."""
    if v.size <= _SMALL or v.size % _ROWS:
        return ufunc.accumulate(v, 0, None, v)
    rows = v.reshape(-1, _ROWS).T.copy()
    _scan_rows(ufunc, rows)
    return rows.T.reshape(-1)


def _scan_rows(ufunc, rows):
    """The running ``ufunc`` over the segments-as-columns layout ``rows`` (``_ROWS``, m), in
    place: column j holds elements j * _ROWS ... (j + 1) * _ROWS - 1 of the run."""
    for i in range(1, _ROWS):
        ufunc(rows[i], rows[i - 1], out=rows[i])
    before = _inclusive(ufunc, rows[-1].copy())
    ufunc(rows[:, 1:], before[:-1], out=rows[:, 1:])


def _product_in_range(done):
    """Whether the finished float64 values ``done`` of a product show that the blocked order
    cannot have parted from the sequential one by more than rounding: none zero, NaN or near
    float64's limits (see ``_SAFE``)."""
    low, high = np.minimum.reduce(done), np.maximum.reduce(done)
    if low >= _SAFE[0] and high <= _SAFE[1] or high <= -_SAFE[0] and low >= -_SAFE[1]:
        return True       # (one sign throughout: the common case needs no absolute values)
    mag = np.abs(done)
    return bool(np.minimum.reduce(mag) >= _SAFE[0] and np.maximum.reduce(mag) <= _SAFE[1])


def running_scan(name, a, out):
    """Write the running sum (``name`` "add") or product ("multiply") of the 1-D float32 or
    float64 array ``a`` into ``out`` (same length, float32 or float64), carried in float64.
    False (``out`` then holds garbage) when a value met on the way says the blocked order
    could differ from the sequential one by more than rounding: the caller redoes it exactly."""
    ufunc = _UFUNCS[name]
    n = a.size
    wide = a.dtype.itemsize > 4
    buf = np.empty((_ROWS, min(n, _CHUNK) // _ROWS))
    back = np.empty(min(n, _CHUNK))
    carry = None
    for start in range(0, n, _CHUNK):
        size = min(_CHUNK, n - start)
        whole = size - size % _ROWS
        done = back[:size]
        if whole:
            rows = buf[:, :whole // _ROWS]
            rows[...] = a[start:start + whole].reshape(-1, _ROWS).T
            if carry is not None:
                rows[0, 0] = ufunc(carry, rows[0, 0])
            _scan_rows(ufunc, rows)
            done[:whole].reshape(-1, _ROWS)[...] = rows.T
            carry = done[whole - 1]
        if whole < size:
            tail = done[whole:]
            tail[...] = a[start + whole:start + size]
            if carry is not None:
                tail[0] = ufunc(carry, tail[0])
            ufunc.accumulate(tail, 0, None, tail)
            carry = tail[-1]
        # a sum of float32 values cannot overflow float64: a NaN or infinity met on the way
        # stays to the end. Other sums are checked chunk by chunk: an overflow in the
        # sequential order would leave an infinity in the blocked one too (see the docstring)
        if name == "add":
            if wide and not np.isfinite(np.add.reduce(done)):
                return False
        elif not _product_in_range(done):
            return False
        out[start:start + size] = done
    return bool(np.isfinite(carry)) if name == "add" else True
