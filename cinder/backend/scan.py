"""Long running sums and products of float arrays on the CPU, vectorised by blocks.

NumPy's ``ufunc.accumulate`` hands each running value through memory to the next element
(about 3 ns per element, whatever the SIMD width); PyTorch's loop keeps it in a register
(under 1 ns). Both carry the value in float64 for float32 data. Here a long run is cut into
blocks and the blocks are scanned side by side, in float64 as well; the summation (or
multiplication) order then differs from the one sequential loop, so results agree with
PyTorch's within float64 rounding (float32 results nearly always bit for bit). Whenever a
non-finite value, a zero, an overflow or an underflow could make the orders disagree by more
than rounding, the helpers answer ``False`` and the caller runs the exact sequential scan.

``running_sum``: blocks of ``_K`` elements; the in-block prefix sums are one matrix product
with an upper-triangular matrix of ones (BLAS), and each block's starting value is folded into
its first element beforehand (the triangular matrix's first row is all ones, so the product
adds it to every prefix of the block).

``running_prod``: the run is cut into ``_ROWS`` long segments laid out as the rows' columns
of a (``_ROWS``, n / ``_ROWS``) matrix; ``_ROWS - 1`` row products scan all segments at once,
then each segment is multiplied by the product of everything before it.

Both work on chunks of ``_CHUNK`` elements so that the float64 buffers stay in the L2 cache.
"""

import numpy as np

__all__ = ["MIN_LENGTH", "running_prod", "running_sum"]

# Runs shorter than this keep ``ufunc.accumulate`` (the blocks' fixed costs dominate there;
# measured break-even: about 3000 elements for sums, 9000 for products)
MIN_LENGTH = {"add": 1 << 12, "multiply": 1 << 14}

_K = 8                      # block length of the sum (the BLAS kernel is fastest at 8)
_CHUNK = 1 << 17            # elements per pass (a 1 MiB float64 buffer)
_SMALL = 2048               # running totals of at most this many blocks: accumulate
_UPPER = np.triu(np.ones((_K, _K)))
_ONES = np.ones(_K)


def _inclusive_sums(v):
    """Running sums of the float64 vector ``v`` (which it may overwrite)."""
    if v.size <= _SMALL or v.size % _K:
        return np.add.accumulate(v, out=v)
    blocks = v.reshape(-1, _K)
    ends = _inclusive_sums(blocks @ _ONES)          # running total at each block's end
    blocks[1:, 0] += ends[:-1]
    return (blocks @ _UPPER).reshape(-1)


def running_sum(a, out):
    """Write the running sum of the 1-D float32/float64 array ``a`` into ``out`` (same
    length, float32 or float64), carried in float64. False (``out`` then holds garbage) when
    a value is not finite or a partial sum overflowed: the caller redoes it exactly."""
    n = a.size
    buf = np.empty(min(n, _CHUNK))
    prods = np.empty(buf.size)
    carry = 0.0
    for start in range(0, n, _CHUNK):
        size = min(_CHUNK, n - start)
        whole = size - size % _K
        b = buf[:size]
        b[...] = a[start:start + size]
        b[0] += carry
        if whole:
            blocks = b[:whole].reshape(-1, _K)
            ends = _inclusive_sums(blocks @ _ONES)
            blocks[1:, 0] += ends[:-1]
            y = np.matmul(blocks, _UPPER, out=prods[:whole].reshape(-1, _K))
            # the product adds each row left to right, so an overflow or a NaN anywhere in a
            # block reaches its last column
            if not np.isfinite(y[:, -1]).all():
                return False
            out[start:start + whole] = prods[:whole]
            carry = y[-1, -1]
        if whole < size:
            tail = b[whole:]
            tail[0] += carry if whole else 0.0
            np.add.accumulate(tail, out=tail)
            out[start + whole:start + size] = tail
            carry = tail[-1]
    return bool(np.isfinite(carry))


_ROWS = 8                   # segment length of the product
# the range where a running product's ratios (products of the segments) cannot leave float64
_SAFE = (1.5e-154, 1.3e154)


def _inclusive_prods(v):
    """Running products of the float64 vector ``v`` (which it may overwrite)."""
    if v.size <= _SMALL or v.size % _ROWS:
        return np.multiply.accumulate(v, out=v)
    rows = v.reshape(-1, _ROWS).T.copy()
    _scan_rows(rows)
    return rows.T.reshape(-1)


def _scan_rows(rows):
    """Running products of the columns-as-segments layout ``rows`` (``_ROWS``, m), in place:
    column j holds one segment; afterwards it holds the running product from the start."""
    for i in range(1, _ROWS):
        np.multiply(rows[i], rows[i - 1], out=rows[i])
    before = _inclusive_prods(rows[-1].copy())
    np.multiply(rows[:, 1:], before[:-1], out=rows[:, 1:])


def running_prod(a, out):
    """Write the running product of the 1-D float32/float64 array ``a`` into ``out`` (same
    length, float32 or float64), carried in float64. False (``out`` then holds garbage) when
    a product is zero, not finite, or so small or large that the blocked order could
    underflow or overflow where the sequential one does not: the caller redoes it exactly."""
    n = a.size
    lo, hi = max(_SAFE[0], np.finfo(out.dtype).tiny), min(_SAFE[1], np.finfo(out.dtype).max)
    buf = np.empty((_ROWS, min(n, _CHUNK) // _ROWS))
    back = np.empty(buf.size)
    carry = 1.0
    for start in range(0, n, _CHUNK):
        size = min(_CHUNK, n - start)
        whole = size - size % _ROWS
        if whole:
            rows = buf[:, :whole // _ROWS]
            rows[...] = a[start:start + whole].reshape(-1, _ROWS).T
            rows[0, 0] *= carry
            _scan_rows(rows)
            res = back[:whole]
            res.reshape(-1, _ROWS)[...] = rows.T
            carry = res[-1]
            out[start:start + whole] = res
        if whole < size:
            tail = a[start + whole:start + size].astype(np.float64)
            tail[0] *= carry
            np.multiply.accumulate(tail, out=tail)
            out[start + whole:start + size] = tail
            carry = tail[-1]
        done = np.abs(out[start:start + size])
        if not (done.min() >= lo and done.max() <= hi):
            return False
    return True
