"""Which of several equal elements PyTorch's CPU sorting kernels report: an exact emulation.

On distinct values every correct sort or selection agrees; on equal values the *indices* depend
on the algorithm's steps. PyTorch's CPU kernels use:

- ``sort(stable=False)`` and ``mode``: libstdc++'s ``std::sort`` on (value, index) pairs
  compared by value only. That is introsort: while a range holds more than 16 elements, move the
  median of (first + 1, middle, last - 1) to the front, split the range with the Hoare
  partition ``__unguarded_partition``, handle the right part and loop on the left; past a depth
  of ``2 * floor(log2(n))`` the range is heap-sorted. A final insertion sort then finishes.
- ``topk``: ``std::partial_sort`` (a heap) when ``k * 64 <= n``, else ``std::nth_element``
  (introselect: the same partition, insertion sort once at most 3 elements remain, a heap past
  the depth limit) followed by ``std::sort`` of the first ``k - 1`` elements.
- ``kthvalue``: ATen's own quickselect (Sedgewick's partition, median of three).
- ``nanmedian(dim)`` of a row that is all NaN: ``std::nth_element`` where every element is
  equivalent (the NaN-free cases compare (value, index) pairs, a total order).

Why the partitions vectorise exactly. In ``__unguarded_partition`` around pivot ``p`` the
left scanner stops at positions ``i`` with ``!(a[i] < p)`` and the right one at ``j`` with
``!(p < a[j])``. Let ``L[0] < L[1] < ...`` be those left stops and ``R[0] > R[1] > ...`` the
right stops of the range *before* any swap. The m-th swap exchanges ``L[m]`` and ``R[m]``
while ``L[m] < R[m]``; since ``L`` rises and ``R`` falls, the swaps are exactly the pairs
``m < m*``, ``m* = #{m : L[m] < R[m]}``, and the positions between them are untouched until
the scanners reach them. A swapped element stops the scanner that meets it next (it came from
a stop of the other side), so the returned cut is ``min(L[m*], R[m* - 1])``: the scanner meets
either the next original stop or the last place it swapped into. Sedgewick's partition is the
same with ``<=`` (a place may be "swapped" with itself; then the scanners resume past it).
So one partition of many ranges at once is a handful of NumPy calls: masks of the stops,
their ranks by cumulative sums, and one gather/scatter of the swapped pairs. Ranges are
independent, so all ranges of all rows at one recursion level are partitioned together.

After the introsort loop every range of at most 16 elements lies between its neighbours, and
an insertion sort only moves an element left past strictly greater ones, so the final
insertion sort is a *stable* sort of the arrangement the loop left. The heap parts (depth
limit, ``partial_sort``) are sequential by nature and run as a plain Python emulation of
libstdc++'s ``__adjust_heap`` / ``__push_heap``, step for step.

Every function here compares ``key[i] < key[j]`` (or ``>`` for the quickselect, as ATen
writes it): callers pass dense ranks (negated for a descending order, NaN as the largest),
which turn each comparator PyTorch uses into a plain comparison of integers.
"""

import numpy as np

__all__ = ["dense_ranks", "equal_neighbours", "kthvalue_rows", "mode_rows", "nth_first_of_equal",
           "ranks_from_order", "sort_rows", "topk_rows"]

_THRESHOLD = 16        # libstdc++'s _S_threshold: ranges up to this size wait for insertion


def _lg(n):
    """floor(log2(n)) for n >= 1 (``std::__lg``)."""
    return int(n).bit_length() - 1


def equal_neighbours(srt):
    """For rows sorted in either direction: which neighbours are equal (NaN equals NaN)."""
    eq = srt[:, 1:] == srt[:, :-1]
    if srt.dtype.kind == "f":
        nan = np.isnan(srt)
        eq |= nan[:, 1:] & nan[:, :-1]
    return eq


def ranks_from_order(eq, order):
    """Dense ranks (int64, from 0) in the original places, from a row-wise sorting ``order``
    and ``equal_neighbours`` of the sorted rows: an element ranks below another exactly when
    the comparator of that sort puts it first."""
    step = np.zeros(order.shape, np.int64)
    step[:, 1:] = ~eq
    ranks = np.empty_like(step)
    np.put_along_axis(ranks, order, np.cumsum(step, axis=1), 1)
    return ranks


def dense_ranks(rows):
    """Dense ranks of each row of a 2-d array in ascending order, NaN (all NaNs equal)
    above every number."""
    order = np.argsort(rows, axis=1, kind="stable")
    return ranks_from_order(equal_neighbours(np.take_along_axis(rows, order, 1)), order)

# ----------------------------------------------------------------------------------------------
# Vectorised building blocks over many disjoint ranges [lo, hi) of one flat array
# ----------------------------------------------------------------------------------------------


def _expand(lo, hi):
    """Every position of the ranges, the range number of each, and where each range starts
    in that listing."""
    lens = hi - lo
    seg = np.repeat(np.arange(lo.size), lens)
    starts = np.cumsum(lens) - lens
    pos = np.arange(seg.size) + (lo - starts)[seg]
    return pos, seg, starts, lens


def _swap(key, idx, p, q):
    """Exchange the elements at positions ``p`` and ``q`` (arrays; pairs are disjoint)."""
    kp, ip = key[p], idx[p]
    key[p], idx[p] = key[q], idx[q]
    key[q], idx[q] = kp, ip


class _Stops:
    """The scanner stops of a partition, per range, for random access by rank: left stops
    ascending, right stops descending (the order the scanners meet them)."""

    def __init__(self, pos, seg, nseg, left, right):
        self.lpos, self.rpos = pos[left], pos[right]
        self.lcnt = np.bincount(seg[left], minlength=nseg)
        self.rcnt = np.bincount(seg[right], minlength=nseg)
        self.loff = np.cumsum(self.lcnt) - self.lcnt
        self.roff = np.cumsum(self.rcnt) - self.rcnt

    def left(self, m, fill):
        ok = (m >= 0) & (m < self.lcnt)
        at = np.where(ok, self.loff + m, 0)
        return np.where(ok, self.lpos[at] if self.lpos.size else 0, fill)

    def right(self, m, fill):
        ok = (m >= 0) & (m < self.rcnt)
        at = np.where(ok, self.roff + self.rcnt - 1 - m, 0)
        return np.where(ok, self.rpos[at] if self.rpos.size else 0, fill)

    def swap_pairs(self, key, idx, count):
        """Swap the m-th left stop with the m-th right stop of each range, m < count."""
        total = int(count.sum())
        if not total:
            return
        seg = np.repeat(np.arange(count.size), count)
        m = np.arange(total) - (np.cumsum(count) - count)[seg]
        _swap(key, idx, self.lpos[self.loff[seg] + m],
              self.rpos[self.roff[seg] + self.rcnt[seg] - 1 - m])


def _swap_count(pos_seg, starts, lens, left, right, allow_equal):
    """``m*`` of each range: how many (left stop m, right stop m) pairs the scanners swap.
    A left stop of rank m at x is swapped when at least m + 1 right stops lie after x
    (at or after x when a stop may meet itself, as in Sedgewick's loop)."""
    seg = pos_seg
    lcum = np.cumsum(left)
    rcum = np.cumsum(right)
    lbase = np.concatenate(([0], lcum))[starts]
    rend = np.concatenate(([0], rcum))[starts + lens]
    rank = lcum - 1 - lbase[seg]
    after = rend[seg] - rcum
    if allow_equal:
        after = after + right
    swapped = left & (rank < after)
    return np.bincount(seg[swapped], minlength=starts.size)


def _median_to_first(key, idx, result, a, b, c):
    """``std::__move_median_to_first``: the median of a, b, c (by ``<``) goes to ``result``."""
    ka, kb, kc = key[a], key[b], key[c]
    ab, bc, ac = ka < kb, kb < kc, ka < kc
    pick = np.where(ab, np.where(bc, b, np.where(ac, c, a)),
                    np.where(ac, a, np.where(bc, c, b)))
    _swap(key, idx, result, pick)


def _hoare_cut(key, idx, lo, hi):
    """``std::__unguarded_partition_pivot`` on every range at once; returns the cuts."""
    _median_to_first(key, idx, lo, lo + 1, lo + (hi - lo) // 2, hi - 1)
    pos, seg, starts, lens = _expand(lo, hi)
    kv = key[pos]
    p = key[lo][seg]
    left = ~(kv < p)
    left[starts] = False                    # the left scan starts after the pivot
    right = ~(p < kv)
    count = _swap_count(seg, starts, lens, left, right, False)
    stops = _Stops(pos, seg, lo.size, left, right)
    big = np.iinfo(np.int64).max
    cut = np.minimum(stops.left(count, big), stops.right(count - 1, big))
    stops.swap_pairs(key, idx, count)
    # (a missing stop would be a scan past the range, undefined in C++; stay inside)
    return np.minimum(cut, hi - 1)

# ----------------------------------------------------------------------------------------------
# Heaps: libstdc++'s heap steps, in plain Python (sequential by nature; used rarely)
# ----------------------------------------------------------------------------------------------


def _push_heap(k, v, hole, top, key, val):
    parent = (hole - 1) // 2
    while hole > top and k[parent] < key:
        k[hole], v[hole] = k[parent], v[parent]
        hole = parent
        parent = (hole - 1) // 2
    k[hole], v[hole] = key, val


def _adjust_heap(k, v, hole, n, key, val):
    top = hole
    child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if k[child] < k[child - 1]:
            child -= 1
        k[hole], v[hole] = k[child], v[child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        k[hole], v[hole] = k[child - 1], v[child - 1]
        hole = child - 1
    _push_heap(k, v, hole, top, key, val)


def _make_heap(k, v):
    n = len(k)
    for parent in range((n - 2) // 2, -1, -1):
        _adjust_heap(k, v, parent, n, k[parent], v[parent])


def _sort_heap(k, v):
    for last in range(len(k) - 1, 0, -1):
        key, val = k[last], v[last]
        k[last], v[last] = k[0], v[0]
        _adjust_heap(k, v, 0, last, key, val)


def _heap_select(key, idx, first, middle, last):
    """``std::__heap_select`` on the flat arrays: a heap of [first, middle), then each later
    element that beats its top replaces it (the top moves to that element's place). The
    scan looks at blocks at a time with NumPy, as the top only ever grows stricter."""
    k = key[first:middle].tolist()
    v = idx[first:middle].tolist()
    _make_heap(k, v)
    size = middle - first
    for start in range(middle, last, 4096):
        block = key[start:min(start + 4096, last)]
        for c in np.flatnonzero(block < k[0]).tolist():
            ck = block[c].item()
            if ck < k[0]:
                at = start + c
                cv = idx[at].item()
                key[at], idx[at] = k[0], v[0]
                _adjust_heap(k, v, 0, size, ck, cv)
    key[first:middle] = k
    idx[first:middle] = v


def _heap_sort(key, idx, first, last):
    """``std::__partial_sort(first, last, last)``: make a heap, then sort it."""
    k = key[first:last].tolist()
    v = idx[first:last].tolist()
    _make_heap(k, v)
    _sort_heap(k, v)
    key[first:last] = k
    idx[first:last] = v

# ----------------------------------------------------------------------------------------------
# std::sort, std::nth_element, std::partial_sort, ATen's quickselect
# ----------------------------------------------------------------------------------------------


def _introsort_loop(key, idx, lo, hi, depth):
    """``std::__introsort_loop`` on many ranges: each level partitions every range still
    longer than 16 (the order of independent ranges does not matter)."""
    while lo.size:
        keep = hi - lo > _THRESHOLD
        lo, hi, depth = lo[keep], hi[keep], depth[keep]
        spent = depth == 0
        for a, b in zip(lo[spent].tolist(), hi[spent].tolist()):
            _heap_sort(key, idx, a, b)
        lo, hi, depth = lo[~spent], hi[~spent], depth[~spent] - 1
        if not lo.size:
            return
        cut = _hoare_cut(key, idx, lo, hi)
        lo, hi, depth = (np.concatenate((cut, lo)), np.concatenate((hi, cut)),
                         np.concatenate((depth, depth)))


def _stable_within(key, idx, lo, hi):
    """A stable sort by key inside each range (the final insertion sort's effect)."""
    pos, seg, _, _ = _expand(lo, hi)
    order = np.lexsort((key[pos], seg))
    key[pos], idx[pos] = key[pos][order], idx[pos][order]


def _std_sort(key, idx, lo, hi):
    """``std::sort`` of each range [lo, hi) of the flat arrays."""
    n = hi - lo
    depth = np.array([2 * _lg(m) if m else 0 for m in n.tolist()], np.int64)
    _introsort_loop(key, idx, lo, hi, depth)
    _stable_within(key, idx, lo, hi)


def _nth_element(key, idx, lo, nth, hi):
    """``std::nth_element`` on each range (``std::__introselect``)."""
    depth = np.array([2 * _lg(m) for m in (hi - lo).tolist()], np.int64)
    done_lo, done_hi = [], []
    while lo.size:
        small = hi - lo <= 3
        done_lo.append(lo[small])
        done_hi.append(hi[small])
        lo, nth, hi, depth = lo[~small], nth[~small], hi[~small], depth[~small]
        spent = depth == 0
        for a, t, b in zip(lo[spent].tolist(), nth[spent].tolist(), hi[spent].tolist()):
            _heap_select(key, idx, a, t + 1, b)
            _swap(key, idx, np.array([a]), np.array([t]))
        lo, nth, hi, depth = lo[~spent], nth[~spent], hi[~spent], depth[~spent] - 1
        if not lo.size:
            break
        cut = _hoare_cut(key, idx, lo, hi)
        right = cut <= nth
        lo = np.where(right, cut, lo)
        hi = np.where(right, hi, cut)
    if done_lo:
        _stable_within(key, idx, np.concatenate(done_lo), np.concatenate(done_hi))


def _sedgewick_step(key, idx, lo, hi, k):
    """One round of ATen's ``quick_select_template`` on ranges [lo, hi] (inclusive, at
    least 3 elements); returns the new (lo, hi)."""
    _swap(key, idx, (lo + hi) >> 1, lo + 1)
    for p, q in ((lo + 1, hi), (lo, hi), (lo + 1, lo)):
        swap = key[p] > key[q]
        _swap(key, idx, p[swap], q[swap])
    pos, seg, starts, lens = _expand(lo + 1, hi + 1)
    kv = key[pos]
    piv = key[lo][seg]
    left = ~(piv > kv)
    left[starts] = False                  # i starts at lo + 1 and moves before it looks
    right = ~(kv > piv)
    right[starts + lens - 1] = False      # j starts at hi and moves before it looks
    count = _swap_count(seg, starts, lens, left, right, True)
    stops = _Stops(pos, seg, lo.size, left, right)
    last_l, last_r = stops.left(count - 1, -1), stops.right(count - 1, -1)
    # a stop that met itself (an element equal to the pivot) leaves no mark to stop at
    back = np.where((count > 0) & (last_l == last_r), 2, 1)
    big = np.iinfo(np.int64).max
    i = np.minimum(stops.left(count, big), stops.right(count - back, big))
    j = np.maximum(stops.right(count, -1), stops.left(count - back, -1))
    stops.swap_pairs(key, idx, count)
    _swap(key, idx, lo, j)
    new_lo = np.where(j <= k, i, lo)
    new_hi = np.where(j >= k, j - 1, hi)
    return new_lo, new_hi


def _quick_select(key, idx, lo, k, hi):
    """ATen's ``quick_select_template`` with ``gt_or_nan`` as ``>`` on ranks; each range is
    [lo, hi] inclusive and ``k`` its target position."""
    while lo.size:
        live = hi > lo
        lo, k, hi = lo[live], k[live], hi[live]
        pair = hi == lo + 1
        lp, hp = lo[pair], hi[pair]
        swap = key[lp] > key[hp]
        _swap(key, idx, lp[swap], hp[swap])
        lo, k, hi = lo[~pair], k[~pair], hi[~pair]
        if lo.size:
            lo, hi = _sedgewick_step(key, idx, lo, hi, k)

# ----------------------------------------------------------------------------------------------
# Row-wise entry points (rows of equal length n, compared by ``<`` on the keys given)
# ----------------------------------------------------------------------------------------------


def _flat(keys):
    rows, n = keys.shape
    key = np.ascontiguousarray(keys, np.int64 if keys.dtype.kind in "iub" else None).ravel()
    key = key.copy()
    idx = np.tile(np.arange(n, dtype=np.int64), rows)
    lo = np.arange(rows, dtype=np.int64) * n
    return key, idx, lo, lo + n


def sort_rows(keys):
    """Indices ``std::sort`` leaves in each row of dense-rank ``keys`` (compared by ``<``).
    Rows without equal keys have one answer, the stable one, and skip the emulation."""
    rows, n = keys.shape
    key, idx, lo, hi = _flat(keys)
    if n > _THRESHOLD:
        tied = keys.max(1) - keys.min(1) < n - 1
        depth = np.full(int(tied.sum()), 2 * _lg(n), np.int64)
        _introsort_loop(key, idx, lo[tied], hi[tied], depth)
    order = np.argsort(key.reshape(rows, n), axis=1, kind="stable")
    return np.take_along_axis(idx.reshape(rows, n), order, 1)


def topk_rows(keys, k, sorted=True):
    """Indices of PyTorch's CPU ``topk`` per row, ``keys`` ordered so that smaller is
    better (``topk_impl_loop``: a partial sort when ``k * 64 <= n``, else nth_element and a
    sort of the first ``k - 1``)."""
    rows, n = keys.shape
    if k == 0:
        return np.empty((rows, 0), np.int64)
    key, idx, lo, hi = _flat(keys)
    if k * 64 <= n:
        for a in lo.tolist():
            _heap_select(key, idx, a, a + k, a + n)
            heap_k, heap_v = key[a:a + k].tolist(), idx[a:a + k].tolist()
            _sort_heap(heap_k, heap_v)
            idx[a:a + k] = heap_v
    else:
        _nth_element(key, idx, lo, lo + k - 1, hi)
        if sorted and k > 2:
            _std_sort(key, idx, lo, lo + k - 1)
    return idx.reshape(rows, n)[:, :k].copy()


def kthvalue_rows(keys, k):
    """Index of PyTorch's CPU ``kthvalue`` (1-based ``k``) per row, ``keys`` ascending."""
    rows, n = keys.shape
    key, idx, lo, hi = _flat(keys)
    _quick_select(key, idx, lo, lo + k - 1, hi - 1)
    return idx.reshape(rows, n)[:, k - 1].copy()


def nth_first_of_equal(n):
    """The index ``std::nth_element`` leaves first when all ``n`` elements are equivalent
    (``nanmedian`` of an all-NaN row)."""
    key, idx, lo, hi = _flat(np.zeros((1, n), np.int64))
    _nth_element(key, idx, lo, lo, hi)
    return int(idx[0])


def _insertion_sort(k, v):
    """``std::__insertion_sort`` on lists: an element smaller than the first jumps to the
    front, any other moves left past strictly greater ones (NaN stops it both ways)."""
    for i in range(1, len(k)):
        key, val = k[i], v[i]
        if key < k[0]:
            k[1:i + 1], v[1:i + 1] = k[:i], v[:i]
            k[0], v[0] = key, val
            continue
        j = i
        while key < k[j - 1]:
            k[j], v[j] = k[j - 1], v[j - 1]
            j -= 1
        k[j], v[j] = key, val


def _final_insertion_with_nan(key, idx, lo, n):
    """``std::__final_insertion_sort`` of one row of float keys holding NaN, which compares
    false both ways: the first 16 are insertion-sorted step by step; after them an element
    only moves left until a NaN, so each stretch between NaNs ends up stably sorted."""
    head = min(n, _THRESHOLD)
    k, v = key[lo:lo + head].tolist(), idx[lo:lo + head].tolist()
    _insertion_sort(k, v)
    key[lo:lo + head], idx[lo:lo + head] = k, v
    if n <= _THRESHOLD:
        return
    nan = np.isnan(key[lo:lo + n])
    seen = np.flatnonzero(nan[:head])
    start = lo + (int(seen[-1]) + 1 if seen.size else 0)
    rest, nan = key[start:lo + n], nan[start - lo:]
    block = 2 * (np.cumsum(nan) - nan) + nan      # each NaN a block of its own
    order = np.lexsort((rest, block))
    key[start:lo + n], idx[start:lo + n] = rest[order], idx[start:lo + n][order]


def _sort_rows_with_nan(values):
    """``std::sort`` with plain ``<`` of float rows that hold NaN (``mode``'s comparator)."""
    rows, n = values.shape
    key, idx, lo, hi = _flat(values.astype(np.float64))
    if n > _THRESHOLD:
        _introsort_loop(key, idx, lo, hi, np.full(rows, 2 * _lg(n), np.int64))
    for a in lo.tolist():
        _final_insertion_with_nan(key, idx, a, n)
    return idx.reshape(rows, n)


def mode_rows(values):
    """(values, indices) of PyTorch's CPU ``mode`` per row of a 2-d array: (value, index)
    pairs sorted by ``std::sort`` with ``<`` on the values, then the first longest run of
    equal values wins, reported by its last element in that order (a NaN is a run of its
    own, and the sort does not move elements past NaNs the way a total order would)."""
    rows, n = values.shape
    nan_rows = np.isnan(values).any(1) if values.dtype.kind == "f" else np.zeros(rows, bool)
    idx = np.empty((rows, n), np.int64)
    if not nan_rows.all():
        idx[~nan_rows] = sort_rows(dense_ranks(values[~nan_rows]))
    if nan_rows.any():
        idx[nan_rows] = _sort_rows_with_nan(values[nan_rows])
    arranged = np.take_along_axis(values, idx, 1)
    ends = np.ones((rows, n), bool)
    ends[:, :-1] = arranged[:, 1:] != arranged[:, :-1]
    pos = np.arange(n)
    starts = np.ones((rows, n), bool)
    starts[:, 1:] = ends[:, :-1]
    start = np.maximum.accumulate(np.where(starts, pos, 0), axis=1)
    length = np.where(ends, pos - start + 1, 0)
    win = np.argmax(length, axis=1)         # the first run of the greatest length
    rr = np.arange(rows)
    return arranged[rr, win], idx[rr, win]
