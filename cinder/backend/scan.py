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

# Scans of fewer elements keep ``ufunc.accumulate`` (the blocks' fixed costs dominate there;
# measured break-even for sums: about 8000 elements, over one long line or many short ones
# (64 x 128 float32 along dim 1: 35 us blocked, 29 us accumulate; 256 x 64: 40 against 56);
# for products about 9000)
MIN_LENGTH = {"add": 10_000, "multiply": 1 << 14}

_CHUNK = 1 << 17            # elements per pass (a 1 MiB float64 buffer)
_SMALL = 2048               # running values of at most this many segments: accumulate
_ROWS = 8                   # segment length
# a product whose values stay in this range cannot leave float64 in any order of the factors
# of a segment (their ratios stay within 1e308)
_SAFE = (1.5e-154, 1.3e154)
_UFUNCS = {"add": np.add, "multiply": np.multiply}


def _inclusive(ufunc, v):
    """The running ``ufunc`` along the rows of the float64 matrix ``v`` (which it may
    overwrite): blocked when the rows are long, else NumPy's accumulate."""
    r, n = v.shape
    if n <= _SMALL or n % _ROWS:
        if r < 4 * n:
            return ufunc.accumulate(v, 1, None, v)
        # many short rows: NumPy would run one small loop per row; step down the columns
        # instead, one vectorised operation per column, on a transposed copy
        cols = v.T.copy()
        for j in range(1, n):
            ufunc(cols[j - 1], cols[j], out=cols[j])
        return cols.T
    done = np.empty_like(v)
    _scan_whole_segments(ufunc, v, done, None)
    return done


def _scan_whole_segments(ufunc, src, done, carry):
    """Write into the float64 matrix ``done`` (r, n) the running ``ufunc`` along the rows of
    the C-contiguous ``src`` (r, n), n a multiple of ``_ROWS`` (``carry``: a value to start
    from, r == 1 only). Segment k of row j becomes column (j, k) of a (``_ROWS``, r, n /
    ``_ROWS``) stack, filled and emptied by two transposing copies."""
    r, n = src.shape
    m = n // _ROWS
    rows = np.empty((_ROWS, r, m))
    rows.reshape(_ROWS, r * m)[...] = src.reshape(r * m, _ROWS).T
    if carry is not None:
        rows[0, 0, 0] = ufunc(carry, rows[0, 0, 0])
    for i in range(1, _ROWS):
        ufunc(rows[i], rows[i - 1], out=rows[i])
    ends = _inclusive(ufunc, rows[-1].copy())     # running value at each segment's end
    # each segment starts from the end of the one before it in its row, the first from the
    # identity (which also turns a leading -0.0 of a sum into 0.0, as PyTorch's 0 + x does)
    starts = np.empty((r, m))
    starts[:, 0] = ufunc.identity
    ufunc(ends[:, :-1], ufunc.identity, out=starts[:, 1:])
    flat = rows.reshape(_ROWS, r * m)
    ufunc(flat, starts.reshape(r * m), out=flat)
    done.reshape(r * m, _ROWS)[...] = flat.T


def _scan_chunk(ufunc, src, carry):
    """``_scan_whole_segments`` for any rows: rows whose length is no multiple of ``_ROWS``
    (or not contiguous) are first copied into a buffer padded with the identity (0 for a sum,
    1 for a product). Returns the (possibly padded) float64 result."""
    r, n = src.shape
    width = -(-n // _ROWS) * _ROWS
    if width != n or not src.flags.c_contiguous:
        padded = np.empty((r, width))
        padded[:, :n] = src
        padded[:, n:] = ufunc.identity
        src = padded
    done = np.empty((r, width))
    _scan_whole_segments(ufunc, src, done, carry)
    return done


def _product_in_range(done):
    """Whether the finished float64 values ``done`` of a product show that the blocked order
    cannot have parted from the sequential one by more than rounding: none zero, NaN or near
    float64's limits (see ``_SAFE``)."""
    low, high = np.minimum.reduce(done, None), np.maximum.reduce(done, None)
    if low >= _SAFE[0] and high <= _SAFE[1] or high <= -_SAFE[0] and low >= -_SAFE[1]:
        return True       # (one sign throughout: the common case needs no absolute values)
    mag = np.abs(done)
    return bool(np.minimum.reduce(mag, None) >= _SAFE[0] and
                np.maximum.reduce(mag, None) <= _SAFE[1])


def running_scan(name, a, out):
    """Write the running sums (``name`` "add") or products ("multiply") along the rows of the
    float32/float64 matrix ``a`` into ``out`` (same shape, float32 or float64), carried in
    float64. False (``out`` then holds garbage) when a value met on the way says the blocked
    order could differ from the sequential one by more than rounding: the caller redoes it
    exactly. Rows of up to ``_CHUNK`` elements are done several at a time; longer ones one at
    a time, in pieces, each piece starting from the last value of the one before."""
    ufunc = _UFUNCS[name]
    r, n = a.shape
    wide = a.dtype.itemsize > 4
    step = max(1, _CHUNK // n)
    piece = min(n, _CHUNK)
    for row in range(0, r, step):
        carry = None
        for start in range(0, n, piece):
            src = a[row:row + step, start:start + piece]
            done = _scan_chunk(ufunc, src, carry)
            carry = done[0, -1]
            # a sum of float32 values cannot overflow float64: a NaN or infinity met on the
            # way stays to the end of its row. Other sums are checked piece by piece: an
            # overflow in the sequential order leaves an infinity in the blocked one too
            if name == "add":
                if not np.isfinite(np.add.reduce(done, None) if wide else
                                   np.add.reduce(done[:, -1])):
                    return False
            elif not _product_in_range(done):
                return False
            out[row:row + step, start:start + piece] = done[:, :src.shape[1]]
    return True
