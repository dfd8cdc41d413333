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
limit, ``partial_sort``) are sequential by nature; Python's ``heapq`` (in C) takes exactly
libstdc++'s heap steps, so it runs them (see "Heaps" below).

Every function here compares ``key[i] < key[j]`` (or ``>`` for the quickselect, as ATen
writes it): callers pass integer keys in the order of PyTorch's comparator (dense ranks, or
for topk ``order_keys``; negated for a descending order, NaN as the largest), which turn each
comparator into a plain comparison of integers. Only ``mode`` on rows holding NaN compares
floats, as its kernel's plain ``<`` does (NaN then is neither smaller nor greater).

Cost: each recursion level is a few passes over the elements of the ranges still open, so
rows pay in proportion to n times the depth; ranges of equal keys finish at once from a
remembered order, and at deep levels ranges found free of ties leave the loop.
"""

import collections
import heapq
import itertools
import operator

import numpy as np

__all__ = ["dense_ranks", "equal_neighbours", "kthvalue_rows", "mode_rows", "nth_first_of_equal",
           "order_keys", "ranks_from_order", "sort_rows", "topk_rows"]

_THRESHOLD = 16        # libstdc++'s _S_threshold: ranges up to this size wait for insertion
_PRUNE_AT = 1024       # ranges in a level from which tie-free ranges are looked for


def _interleave(a, b):
    """a[0], b[0], a[1], b[1], ... (``np.stack`` costs more in Python than this work)."""
    out = np.empty(2 * a.size, np.result_type(a, b))
    out[0::2] = a
    out[1::2] = b
    return out


def _lg(n):
    """floor(log2(n)) for n >= 1 (``std::__lg``)."""
    return int(n).bit_length() - 1


def equal_neighbours(srt):
    """For rows sorted in either direction: which neighbours are equal (NaN equals NaN)."""
    eq = srt[:, 1:] == srt[:, :-1]
    if srt.dtype.kind == "f" and srt.shape[1] > 1:
        # NaNs gather at one end of a sorted row: two of them put one second from that end
        two = np.isnan(srt[:, 1]) | np.isnan(srt[:, -2])
        if two.any():
            nan = np.isnan(srt[two])
            eq[two] |= nan[:, 1:] & nan[:, :-1]
    return eq


def ranks_from_order(eq, order):
    """Dense ranks (int64, from 0) in the original places, from a row-wise sorting ``order``
    and ``equal_neighbours`` of the sorted rows: an element ranks below another exactly when
    the comparator of that sort puts it first."""
    step = np.zeros(order.shape, bool)
    step[:, 1:] = ~eq
    ranks = np.empty(order.shape, np.int64)
    np.put_along_axis(ranks, order, np.cumsum(step, axis=1, dtype=np.int32), 1)
    return ranks


def order_keys(rows):
    """(keys, dense): int64 keys that order each row of a 2-d array as ``dense_ranks`` does
    (equal values get equal keys, NaN above every number), without a sort when the values
    allow: small integers as they are, float32 by their bits (negative numbers negated, so
    -0.0 meets +0.0; NaN just above +inf). ``dense`` says whether they are dense ranks."""
    if rows.dtype == np.float32:
        bits = rows.view(np.int32).astype(np.int64)
        keys = np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)
        keys[np.isnan(rows)] = 0x7F800001
        return keys, False
    if rows.dtype.kind in "iub" and rows.size and rows.dtype != np.uint64:
        keys = rows.astype(np.int64)
        if (int(keys.max()) - int(keys.min()) + 1) * rows.shape[1] < 2**62:
            return keys, False
    return dense_ranks(rows), True


def dense_ranks(rows):
    """Dense ranks of each row of a 2-d array in ascending order, NaN (all NaNs equal)
    above every number."""
    order = np.argsort(rows, axis=1)      # (any order of equal values gives the same ranks)
    return ranks_from_order(equal_neighbours(np.take_along_axis(rows, order, 1)), order)

# ----------------------------------------------------------------------------------------------
# The (key, index) pairs being ordered, in flat arrays (rows one after another)
# ----------------------------------------------------------------------------------------------


class _Pairs:
    """Integer keys travel as one int64 array ``key * n + index`` (a swap moves one array,
    and ``key < pivot`` is ``value < pivot_key * n``); float keys (``mode``'s rows with NaN,
    compared by a plain ``<``) travel as two arrays."""

    def __init__(self, keys, dense=True):
        rows, n = keys.shape
        self.n = n
        self.dense = dense
        if keys.dtype.kind == "f":
            self.data = keys.astype(np.float64).ravel()
            self.idx = np.tile(np.arange(n, dtype=np.int64), rows)
            self.arrays = (self.data, self.idx)
        else:
            keys = keys.astype(np.int64)
            keys = keys - keys.min(axis=1, keepdims=True) if keys.size else keys
            data = (keys * n + np.arange(n)).ravel()
            # (int32 when the pairs fit: half the memory each pass reads and writes)
            self.data = data.astype(np.int32) if data.size and data.max() < 2**31 - n else data
            self.idx = None
            self.arrays = (self.data,)

    def key(self, where):
        """The comparison keys at ``where`` (positions or a slice)."""
        v = self.data[where]
        return v if self.idx is not None else v // self.n

    def stops(self, values, pivots, lens):
        """Where a left scanner stops (``!(x < p)``) and a right one (``!(p < x)``), for the
        listed ``values`` of ranges of ``lens`` elements with ``pivots`` (one per range)."""
        if self.idx is None:
            low = pivots - pivots % self.n
            return values >= low.repeat(lens), values < (low + self.n).repeat(lens)
        pivots = pivots.repeat(lens)
        return ~(values < pivots), ~(pivots < values)

    def distinct(self, values, starts, ends):
        """Which listed ranges [starts, ends) hold no equal keys. Keys are dense ranks and
        partitions split by value, so a range holds every key between its least and
        greatest: it is free of ties exactly when it is no longer than that span."""
        if self.idx is not None or not self.dense:
            return np.zeros(starts.size, bool)
        n = self.n
        cuts = _interleave(starts, ends)[:-1]     # (every other one: the ranges)
        most = np.maximum.reduceat(values, cuts)[::2] // n
        least = np.minimum.reduceat(values, cuts)[::2] // n
        return ends - starts <= most - least + 1

    def swap(self, p, q):
        """Exchange the pairs at positions ``p`` and ``q`` (disjoint pairs of places)."""
        for arr in self.arrays:
            held = arr[p]
            arr[p] = arr[q]
            arr[q] = held

    def reorder(self, first, local):
        """Rearrange the stretch starting at ``first``: place j takes place ``local[j]``."""
        for arr in self.arrays:
            arr[first:first + local.size] = arr[first:first + local.size][local]

    def indices(self, rows, first=None):
        """The indices in each row's places (its ``first`` places only, if given)."""
        flat = self.idx if self.idx is not None else self.data
        flat = flat.reshape(rows, self.n)[:, :first]
        return flat.copy() if self.idx is not None else (flat % self.n).astype(np.int64)


def _listing(lo, hi):
    """How a round lists the places of ranges [lo, hi) (sorted, disjoint): (places or None,
    first, starts, lens, reach). When the ranges fill at least half of the stretch from the
    first to the last, the listing is that stretch itself (places None; ``first`` its first
    place; ``reach`` each range's length with the gap after it, or None if there are no
    gaps); else the ranges' places one after another."""
    lens = hi - lo
    first = int(lo[0])
    if 2 * int(lens.sum()) >= int(hi[-1]) - first:
        reach = np.append(lo[1:], hi[-1]) - lo
        return None, first, lo - first, lens, None if (reach == lens).all() else reach
    starts = np.cumsum(lens) - lens
    return (lo - starts).repeat(lens) + np.arange(int(lens.sum())), 0, starts, lens, None


class _Round:
    """One partition round over many ranges: the scanners' stops, listed, with their ranks.
    Left stops are met in ascending order, right stops in descending order; the pairs the
    scanners swap are the first ``count`` of each (see the module docstring)."""

    def __init__(self, pairs, lo, hi, pivots, meet_self):
        self.pos, self.first, starts, lens, reach = _listing(lo, hi)
        ends = starts + lens
        data = pairs.data
        self.values = (data[self.first:self.first + int(ends[-1])] if self.pos is None
                       else data[self.pos])
        self.starts, self.ends = starts, ends
        # (stops in the gaps between ranges count for no range: each range's ranks run
        # from its own first place, and its swaps end inside it)
        left, right = pairs.stops(self.values, pivots, lens if reach is None else reach)
        left[starts] = False                    # the left scan starts past the first place
        if meet_self:
            right[ends - 1] = False             # Sedgewick's right scan starts before the last
        # (counts in int32: NumPy's int64 running sum of booleans is several times slower)
        count_type = np.int32 if left.size < 2**31 - 1 else np.int64
        lcum, rcum = np.cumsum(left, dtype=count_type), np.cumsum(right, dtype=count_type)
        self.lbase, self.lend = lcum[starts], lcum[ends - 1]
        self.rbase, self.rend = rcum[starts] - right[starts], rcum[ends - 1]
        # A left stop of rank m at x is swapped when more than m right stops lie after x (at
        # or after x when a stop may meet itself): lcum + rcum <= lbase + rend, a condition
        # that holds on a prefix of each range since both sums only grow.
        grow = lcum + rcum - right if meet_self else lcum + rcum
        bound = (self.lbase + self.rend).astype(count_type)
        edge = np.clip(np.searchsorted(grow, bound, "right"), starts, ends)
        self.count = np.where(edge > starts, lcum[edge - 1] - self.lbase, 0)
        self.lstops, self.rstops = np.flatnonzero(left), np.flatnonzero(right)

    def place(self, listed):
        return listed + self.first if self.pos is None else self.pos[listed]

    def left(self, m, fill):
        """Place of each range's left stop of rank ``m`` (``fill`` where there is none)."""
        ok = (m >= 0) & (m < self.lend - self.lbase)
        at = self.lstops[np.where(ok, self.lbase + m, 0)] if self.lstops.size else m
        return np.where(ok, self.place(at), fill)

    def right(self, m, fill):
        """Place of each range's right stop of rank ``m`` from the top."""
        ok = (m >= 0) & (m < self.rend - self.rbase)
        at = self.rstops[np.where(ok, self.rend - 1 - m, 0)] if self.rstops.size else m
        return np.where(ok, self.place(at), fill)

    def swap(self, pairs):
        """Swap each range's first ``count`` left stops with its top ``count`` right stops."""
        total = int(self.count.sum())
        if not total:
            return
        before = np.cumsum(self.count) - self.count
        j = np.arange(total)
        li = self.lstops[(self.lbase - before).repeat(self.count) + j]
        ri = self.rstops[(self.rend - 1 + before).repeat(self.count) - j]
        if pairs.idx is None and self.pos is None:
            # (the listed values are a view of the places themselves: swap in it)
            held = self.values[li]
            self.values[li] = self.values[ri]
            self.values[ri] = held
            return
        p, q = self.place(li), self.place(ri)
        if pairs.idx is None:                   # the values are at hand: no gather needed
            pairs.data[p], pairs.data[q] = self.values[ri], self.values[li]
        else:
            pairs.swap(p, q)


def _median_to_first(pairs, result, a, b, c):
    """``std::__move_median_to_first``: the median of a, b, c (by ``<``) goes to ``result``."""
    ka, kb, kc = pairs.key(a), pairs.key(b), pairs.key(c)
    ab, bc, ac = ka < kb, kb < kc, ka < kc
    pick = np.where(ab, np.where(bc, b, np.where(ac, c, a)),
                    np.where(ac, a, np.where(bc, c, b)))
    pairs.swap(result, pick)


_BIG = np.iinfo(np.int64).max


def _hoare_cut(pairs, lo, hi, prune=False):
    """``std::__unguarded_partition_pivot`` on every range at once. Returns the cuts, which
    ranges held only equivalent elements (every place a stop on both sides), and (with
    ``prune``, at deep levels: many short ranges) which hold no ties, so that their parts
    need no more steps (the final sort orders them)."""
    _median_to_first(pairs, lo, lo + 1, lo + (hi - lo) // 2, hi - 1)
    r = _Round(pairs, lo, hi, pairs.data[lo], False)
    done = (pairs.distinct(r.values, r.starts, r.ends) if prune and lo.size >= _PRUNE_AT
            else np.zeros(lo.size, bool))
    alike = (r.lend - r.lbase) + (r.rend - r.rbase) == 2 * (hi - lo) - 1
    if pairs.idx is not None:                   # (a NaN pivot stops everything: not alike)
        alike[:] = False
    cut = np.minimum(r.left(r.count, _BIG), r.right(r.count - 1, _BIG))
    r.swap(pairs)
    # (a missing stop would be a scan past the range, undefined in C++; stay inside)
    return np.minimum(cut, hi - 1), alike, done

# ----------------------------------------------------------------------------------------------
# Heaps: libstdc++'s heap steps, run by Python's ``heapq`` (sequential by nature).
#
# ``heapq`` keeps a min-heap with the very steps libstdc++ uses for its max-heap: ``heapify``
# is ``std::make_heap`` (``_siftup`` from the last parent down to the root), ``_siftup`` is
# ``__adjust_heap`` (the hole sinks to a leaf along the children that win, the right one
# unless the left wins strictly, then the item rises while it beats its parent),
# ``heappushpop`` is one step of ``__heap_select`` (an item enters only if it beats the top
# strictly, and the top leaves) and ``heappop`` one step of ``__sort_heap``. Its ``<`` on
# negated keys is libstdc++'s ``<`` on keys turned round, so every comparison comes out the
# same, ties included. Each element is its own float object (``-key``); ``heapq`` moves
# objects, so where an element went is told by the object's identity.
# ----------------------------------------------------------------------------------------------


def _exact_keys(keys):
    """Integer ``keys`` (rows of a 2-d array) made exact as floats: shifted to start at 0
    in each row, or replaced by dense ranks when wider than a float's 53 bits."""
    if keys.dtype.kind == "f" or not keys.size:
        return keys
    keys = keys - keys.min(axis=1, keepdims=True)
    return keys if int(keys.max()) < 2**53 else dense_ranks(keys)


def _heap_items(keys):
    """One new float object ``-key`` for each of the exact ``keys``."""
    return (-keys.astype(np.float64)).tolist()


def _where(pool, places, items):
    """The places of ``items``, each one of the objects listed in ``pool`` (their places
    in ``places``): a lookup by identity."""
    ids = np.fromiter(map(id, pool), np.int64, len(pool))
    order = np.argsort(ids)
    ids = ids[order]
    if (ids[1:] == ids[:-1]).any():       # (CPython makes a new float object each time)
        raise RuntimeError("tie emulation: heap items are not distinct objects")
    found = np.searchsorted(ids, np.fromiter(map(id, items), np.int64, len(items)))
    return np.asarray(places)[order[found]]


def _drain(iterator):
    """Run an iterator to its end, keeping nothing (``deque(..., 0)`` does it in C)."""
    collections.deque(iterator, 0)


def _sorted_heap(heap):
    """``std::__sort_heap``: each pop puts the top behind the shrinking heap, so the items
    end in the reverse of the order they were popped."""
    popped = list(map(heapq.heappop, itertools.repeat(heap, len(heap))))
    return popped[::-1]


def _heap_sort_order(keys):
    """Where each place's element comes from after ``std::__partial_sort(first, last,
    last)`` (``make_heap``, then ``sort_heap``) of 1-d ``keys``."""
    items = _heap_items(_exact_keys(keys[None])[0])
    heap = items.copy()
    heapq.heapify(heap)
    return _where(items, range(len(items)), _sorted_heap(heap))


def _heap_select(pairs, first, middle, last, then_sort=False):
    """``std::__heap_select`` (and ``std::__sort_heap`` after it: ``std::partial_sort``) on
    one range. Only [first, middle) is written: the places past it, where the tops that
    left go, are read by no caller."""
    keys = pairs.key(slice(first, last))[None]
    sources = _heap_select_rows(keys, middle - first, then_sort)[0] + first
    for arr in pairs.arrays:
        arr[first:middle] = arr[sources]


def _entrants(keys, k):
    """Which elements of each row might enter ``__heap_select``'s heap of the first ``k``:
    an element enters when its key is below the heap's top, which is the k-th smallest
    key seen so far, so one past the first ``m`` elements must be below the k-th smallest
    of those ``m`` (checked for m = k, 2k, 4k, ...: a superset, found with NumPy)."""
    rows, n = keys.shape
    mask = np.zeros((rows, n), bool)
    lo = k
    while lo < n:
        hi = n if 4 * lo > n else 2 * lo
        top = np.partition(keys[:, :lo], k - 1, axis=1)[:, k - 1:k]
        mask[:, lo:hi] = keys[:, lo:hi] < top
        lo = hi
    return np.nonzero(mask)


def _heap_select_rows(keys, k, then_sort):
    """The places ``std::__heap_select`` (then ``__sort_heap`` if ``then_sort``) leaves in
    the first ``k`` places of each row of 2-d ``keys`` (compared by ``<``). One heap per
    row in ``heapq``; only the elements that may enter are handed to it."""
    rows, n = keys.shape
    keys = _exact_keys(keys)
    if k == 1:                                # (a heap of one: the first of the least)
        return keys.argmin(axis=1)[:, None]
    r, c = _entrants(keys, k)
    entrants = _heap_items(keys[r, c])
    heads = _heap_items(keys[:, :k].ravel())
    # Every step below is a C-level map over all rows' heaps (no Python loop per row or
    # element): heaps of k items cut from ``heads``, each entrant paired with its row's heap.
    heaps = list(map(list, zip(*[iter(heads)] * k)))
    _drain(map(heapq.heapify, heaps))
    counts = np.bincount(r, minlength=rows).tolist()
    owners = itertools.chain.from_iterable(map(itertools.repeat, heaps, counts))
    _drain(map(heapq.heappushpop, owners, entrants))
    tops = list(map(operator.itemgetter(0), heaps))
    if then_sort:                             # (each row's items, popped: worst first)
        pops = itertools.chain.from_iterable(map(itertools.repeat, heaps, [k] * rows))
        held = list(map(heapq.heappop, pops))
    else:
        held = list(itertools.chain.from_iterable(heaps))
    # only elements no worse than the final top (a row's k-th smallest key) can be held
    last = -np.array(tops)[:, None]
    keep = np.concatenate(((keys[:, :k] <= last).ravel(), keys[r, c] <= last[r, 0]))
    places = np.concatenate((np.tile(np.arange(k), rows), c))
    pool = list(itertools.compress(heads + entrants, keep.tolist()))
    found = _where(pool, places[keep], held).reshape(rows, k)
    # (``__sort_heap`` puts each popped top behind the shrinking heap: reverse pop order)
    return found[:, ::-1].copy() if then_sort else found


def _heap_sort(pairs, first, last):
    """``std::__partial_sort(first, last, last)``: make a heap of the range, then sort it."""
    pairs.reorder(first, _heap_sort_order(pairs.key(slice(first, last))))


def _alike_order(n, depth, memo):
    """The order ``std::__introsort_loop`` leaves ``n`` equivalent elements in: pivot swap,
    then the partition swaps place 1 + m with place n - 1 - m while 1 + m < n - 1 - m, and
    the two parts (cut at 1 + (n - 1) // 2) go on alike. Remembered per (n, depth)."""
    got = memo.get((n, depth))
    if got is None:
        if n <= _THRESHOLD:
            got = np.arange(n)
        elif depth == 0:
            got = _heap_sort_order(np.zeros(n, np.int64))
        else:
            got = np.arange(n)
            got[0], got[n // 2] = got[n // 2], got[0]
            m = (n - 1) // 2
            head = got[1:1 + m].copy()
            got[1:1 + m] = got[n - m:][::-1]
            got[n - m:] = head[::-1]
            got[:1 + m] = got[:1 + m][_alike_order(1 + m, depth - 1, memo)]
            got[1 + m:] = got[1 + m:][_alike_order(n - 1 - m, depth - 1, memo)]
        memo[(n, depth)] = got
    return got


def _order_alike(pairs, lo, hi, depth, memo):
    """Ranges of equivalent elements finish the loop at once, grouped by (length, depth)."""
    n = hi - lo
    for size, d in set(zip(n.tolist(), depth.tolist())):
        if size <= _THRESHOLD:
            continue
        starts = lo[(n == size) & (depth == d)]
        grid = starts[:, None] + _alike_order(size, d, memo)[None, :]
        dest = starts[:, None] + np.arange(size)[None, :]
        for arr in pairs.arrays:
            arr[dest] = arr[grid]

# ----------------------------------------------------------------------------------------------
# std::sort, std::nth_element, std::partial_sort, ATen's quickselect
# ----------------------------------------------------------------------------------------------


def _introsort_loop(pairs, lo, hi, depth, follow=None):
    """``std::__introsort_loop`` on many ranges (sorted by place): each level partitions
    every range still longer than 16; a range of equivalent elements is finished from a
    remembered order instead. With ``follow`` (a key for each range) only the order of the
    elements with that key is wanted: a range without one leaves the loop unfinished (its
    place among the others is already fixed, since partitions split by value)."""
    memo = {}
    while lo.size:
        keep = hi - lo > _THRESHOLD
        if follow is not None:
            keep &= _holds(pairs, lo, hi, follow)
            follow = follow[keep]
        lo, hi, depth = lo[keep], hi[keep], depth[keep]
        spent = depth == 0
        for a, b in zip(lo[spent].tolist(), hi[spent].tolist()):
            _heap_sort(pairs, a, b)
        lo, hi, depth = lo[~spent], hi[~spent], depth[~spent] - 1
        if not lo.size:
            return
        if follow is not None:
            follow = follow[~spent]
        cut, alike, done = _hoare_cut(pairs, lo, hi, prune=True)
        lo, hi, depth, alike, cut = lo[~done], hi[~done], depth[~done], alike[~done], cut[~done]
        # children of a range of equivalent elements are such ranges too
        lo, hi = _interleave(lo, cut), _interleave(cut, hi)
        depth, alike = depth.repeat(2), alike.repeat(2)
        if follow is not None:
            follow = follow[~done].repeat(2)
        if alike.any():
            _order_alike(pairs, lo[alike], hi[alike], depth[alike], memo)
            lo, hi, depth = lo[~alike], hi[~alike], depth[~alike]
            if follow is not None:
                follow = follow[~alike]


def _holds(pairs, lo, hi, key):
    """Whether each range [lo, hi) holds an element with its ``key``."""
    pos, first, starts, lens, reach = _listing(lo, hi)
    ends = starts + lens
    keys = pairs.key(slice(first, first + int(ends[-1])) if pos is None else pos)
    hit = keys == key.repeat(lens if reach is None else reach)
    return np.logical_or.reduceat(hit, _interleave(starts, ends)[:-1])[::2]


def _stable_within(pairs, lo, hi):
    """A stable sort by key inside each range (the final insertion sort's effect)."""
    if not lo.size:
        return
    lens = hi - lo
    pos = (lo - (np.cumsum(lens) - lens)).repeat(lens) + np.arange(int(lens.sum()))
    seg = np.arange(lo.size).repeat(lens)
    order = np.lexsort((pairs.key(pos), seg))
    for arr in pairs.arrays:
        arr[pos] = arr[pos][order]


def _std_sort(pairs, lo, hi):
    """``std::sort`` of each range [lo, hi)."""
    depth = np.array([2 * _lg(m) if m else 0 for m in (hi - lo).tolist()], np.int64)
    _introsort_loop(pairs, lo, hi, depth)
    _stable_within(pairs, lo, hi)


def _nth_element(pairs, lo, nth, hi):
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
            _heap_select(pairs, a, t + 1, b)
            pairs.swap(np.array([a]), np.array([t]))
        lo, nth, hi, depth = lo[~spent], nth[~spent], hi[~spent], depth[~spent] - 1
        if not lo.size:
            break
        cut = _hoare_cut(pairs, lo, hi)[0]
        right = cut <= nth
        lo = np.where(right, cut, lo)
        hi = np.where(right, hi, cut)
    done_lo, done_hi = np.concatenate(done_lo), np.concatenate(done_hi)
    order = np.argsort(done_lo)
    _stable_within(pairs, done_lo[order], done_hi[order])


def _sedgewick_step(pairs, lo, hi, k):
    """One round of ATen's ``quick_select_template`` on ranges [lo, hi] (inclusive, at
    least 3 elements, sorted by place); returns the new (lo, hi)."""
    pairs.swap((lo + hi) >> 1, lo + 1)
    for p, q in ((lo + 1, hi), (lo, hi), (lo + 1, lo)):
        swap = pairs.key(p) > pairs.key(q)
        pairs.swap(p[swap], q[swap])
    r = _Round(pairs, lo + 1, hi + 1, pairs.data[lo], True)
    count = r.count
    last_l, last_r = r.left(count - 1, -1), r.right(count - 1, -1)
    # a stop that met itself (an element equal to the pivot) leaves no mark to stop at
    back = np.where((count > 0) & (last_l == last_r), 2, 1)
    i = np.minimum(r.left(count, _BIG), r.right(count - back, _BIG))
    j = np.maximum(r.right(count, -1), r.left(count - back, -1))
    r.swap(pairs)
    pairs.swap(lo, j)
    return np.where(j <= k, i, lo), np.where(j >= k, j - 1, hi)


def _quick_select(pairs, lo, k, hi):
    """ATen's ``quick_select_template`` with ``gt_or_nan`` as ``>`` on ranks; each range is
    [lo, hi] inclusive and ``k`` its target place."""
    while lo.size:
        live = hi > lo
        lo, k, hi = lo[live], k[live], hi[live]
        pair = hi == lo + 1
        lp, hp = lo[pair], hi[pair]
        swap = pairs.key(lp) > pairs.key(hp)
        pairs.swap(lp[swap], hp[swap])
        lo, k, hi = lo[~pair], k[~pair], hi[~pair]
        if lo.size:
            lo, hi = _sedgewick_step(pairs, lo, hi, k)

# ----------------------------------------------------------------------------------------------
# Row-wise entry points (rows of equal length n, compared by ``<`` on the keys given)
# ----------------------------------------------------------------------------------------------


def _bounds(rows, n):
    lo = np.arange(rows, dtype=np.int64) * n
    return lo, lo + n


def sort_rows(keys, follow=None):
    """Indices ``std::sort`` leaves in each row of dense-rank ``keys`` (compared by ``<``).
    Rows without equal keys have one answer, the stable one, and skip the emulation. With
    ``follow`` (a key per row), only the elements with that key are surely in ``std::sort``'s
    order (the others in their value's place)."""
    rows, n = keys.shape
    pairs = _Pairs(keys)
    if n > _THRESHOLD:
        lo, hi = _bounds(rows, n)
        tied = keys.max(1) - keys.min(1) < n - 1
        if follow is not None:              # (as the pairs hold them: from each row's least)
            follow = (follow - keys.min(1))[tied]
        _introsort_loop(pairs, lo[tied], hi[tied], np.full(int(tied.sum()), 2 * _lg(n)),
                        follow)
    order = np.argsort(pairs.key(slice(None)).reshape(rows, n), axis=1, kind="stable")
    return np.take_along_axis(pairs.indices(rows), order, 1)


def topk_rows(keys, k, sorted=True, dense=True):
    """Indices of PyTorch's CPU ``topk`` per row, ``keys`` ordered so that smaller is
    better (``topk_impl_loop``: a partial sort when ``k * 64 <= n``, else nth_element and a
    sort of the first ``k - 1``); ``dense``: whether the keys are dense ranks."""
    rows, n = keys.shape
    if k == 0:
        return np.empty((rows, 0), np.int64)
    if k * 64 <= n:
        return _heap_select_rows(keys, k, True)
    pairs = _Pairs(keys, dense)
    lo, hi = _bounds(rows, n)
    _nth_element(pairs, lo, lo + k - 1, hi)
    if sorted and k > 2:
        _std_sort(pairs, lo, lo + k - 1)
    return pairs.indices(rows, k)


def kthvalue_rows(keys, k):
    """Index of PyTorch's CPU ``kthvalue`` (1-based ``k``) per row, ``keys`` ascending."""
    rows, n = keys.shape
    pairs = _Pairs(keys)
    lo, hi = _bounds(rows, n)
    _quick_select(pairs, lo, lo + k - 1, hi - 1)
    return pairs.indices(rows)[:, k - 1].copy()


def nth_first_of_equal(n):
    """The index ``std::nth_element`` leaves first when all ``n`` elements are equivalent
    (``nanmedian`` of an all-NaN row)."""
    pairs = _Pairs(np.zeros((1, n), np.int64))
    lo, hi = _bounds(1, n)
    _nth_element(pairs, lo, lo, hi)
    return int(pairs.indices(1)[0, 0])

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


def _final_insertion_with_nan(pairs, lo, n):
    """``std::__final_insertion_sort`` of one row of float keys holding NaN, which compares
    false both ways: the first 16 are insertion-sorted step by step; after them an element
    only moves left until a NaN, so each stretch between NaNs ends up stably sorted."""
    key, idx = pairs.data, pairs.idx
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
    pairs = _Pairs(values.astype(np.float64))
    lo, hi = _bounds(rows, n)
    if n > _THRESHOLD:
        _introsort_loop(pairs, lo, hi, np.full(rows, 2 * _lg(n)))
    for a in lo.tolist():
        _final_insertion_with_nan(pairs, a, n)
    return pairs.indices(rows)


def mode_rows(values):
    """(values, indices) of PyTorch's CPU ``mode`` per row of a 2-d array: (value, index)
    pairs sorted by ``std::sort`` with ``<`` on the values, then the first longest run of
    equal values wins, reported by its last element in that order (a NaN is a run of its
    own, and the sort does not move elements past NaNs the way a total order would)."""
    rows, n = values.shape
    nan_rows = np.isnan(values).any(1) if values.dtype.kind == "f" else np.zeros(rows, bool)
    idx = np.empty((rows, n), np.int64)
    if not nan_rows.all():
        # only the winner's order matters: the least key among the most frequent ones (on
        # rows of few values nearly every range holds it: looking costs more than it saves)
        ranks = dense_ranks(values[~nan_rows])
        m = ranks.shape[0]
        winner = None
        if ranks.max(initial=0) >= 32:
            counts = np.bincount((ranks + n * np.arange(m)[:, None]).ravel(), minlength=m * n)
            winner = counts.reshape(m, n).argmax(axis=1)
        idx[~nan_rows] = sort_rows(ranks, winner)
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
