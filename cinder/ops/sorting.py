"""Sorting and selection: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode; and
searching/counting: searchsorted, bucketize, unique, unique_consecutive, bincount, histc,
histogram, count_nonzero.

Every op works on a view with the chosen dim moved last, so one 2-D (rows, n) formulation
serves all ranks. NaN sorts as the largest value, as in PyTorch.

Equal values: PyTorch's CPU kernels are not stable (``std::sort``, ``std::nth_element``,
heaps, a quickselect), and which of several equal elements they report is part of the
result. NumPy's stable order answers every row without equal values; the rows where equal
values could change the indices are redone by ``_tie_order``, which emulates those kernels
step for step.
"""

import numpy as np

from .. import _dtype as D
from .. import backend
from .. import return_types
from .._tensor import Tensor, wrap_dim
from ..autograd.grad_mode import no_grad
from . import _tie_order as ties
from ._layouts import like_preserved, row_major
from ._prep import check_tensor_arg, not_implemented, wrap, xp_of
from ._registry import needs_grad, node_class, record, register, write_out
from ._reduction_factory import Reduced, pair_result, reduction
from .reduction import _select_index
from ._prep import dims_arg

_COMPLEX = (D.complex64, D.complex128)

# ----------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------


def _dim_of(input, dim):
    """``dim`` wrapped for ``input`` (a 0-d tensor accepts 0 and -1)."""
    return wrap_dim(dim, input._data.ndim) if input._data.ndim else wrap_dim(dim, 1)


def _as_1d_plus(arr):
    return arr if arr.ndim else arr.reshape(1)


def _refuse_complex(name, input):
    """PyTorch's refusals of complex (and, for some kernels, bool) inputs."""
    dt = input._dtype
    if name in ("sort", "argsort", "msort"):
        if dt in _COMPLEX:
            raise RuntimeError(" Sort does not support complex dtypes on CPU")
    elif name == "topk":
        if dt in _COMPLEX or dt is D.bool:
            kind = "bool" if dt is D.bool else "complex"
            raise RuntimeError(f"topk does not support {kind} dtypes on CPU")
    elif dt in _COMPLEX or (dt is D.bool and name not in ("mode_cpu", "unique")):
        not_implemented(name, dt)


def _argsort(xp, a, d, descending):
    """Stable argsort along ``d``; descending keeps equal elements in their original order."""
    a = _sort_keys(a)
    if not descending:
        return _stable_argsort(xp, a, d)
    n = a.shape[d]
    idx = _stable_argsort(xp, _flip(xp, a, d), d)
    return (n - 1) - _flip(xp, idx, d)


def _sort_keys(a):
    """The array NumPy sorts for ``a``: bool as bytes, half types as float32 (exact)."""
    if a.dtype == np.bool_:
        return a.view(np.uint8)
    if a.dtype.itemsize == 2 and a.dtype.kind not in "iu":
        return a.astype(np.float32)
    return a


def _rows_of(a, d):
    """``a`` with axis ``d`` moved last, as a 2-d (rows, n) array."""
    if d == a.ndim - 1:                   # (moveaxis costs microseconds in Python)
        return a.reshape(-1, a.shape[d])
    return np.moveaxis(a, d, -1).reshape(-1, a.shape[d])


def _from_rows(rows, shape, d):
    """The inverse of ``_rows_of`` for an array of ``shape`` whose axis ``d`` now holds
    ``rows.shape[1]`` elements."""
    moved = tuple(s for i, s in enumerate(shape) if i != d) + (rows.shape[1],)
    if d == len(shape) - 1:
        return rows.reshape(moved)
    return np.moveaxis(rows.reshape(moved), -1, d)


def _radix_sorted(a, descending):
    """Whether PyTorch's CPU sort takes FBGEMM's radix sort (a stable one): 1-d integer
    input of at least 32768 elements (ATen's GRAIN_SIZE), ascending."""
    return (a.ndim == 1 and not descending and a.dtype.kind in "iu"
            and a.shape[0] >= 32768)


def _refuse_wide_unsigned_radix(input, a, descending):
    """PyTorch's CPU radix path has no kernel for uint16/32/64 and raises for them."""
    if (input._device.type == "cpu" and a.dtype.kind == "u" and a.dtype.itemsize > 1
            and _radix_sorted(a, descending) and a.strides[0]):
        not_implemented("parallel_sort1d_kernel", input._dtype)


def _has_ties_1d(srt):
    """Whether a sorted 1-d array (either direction) holds equal neighbours. NaNs gather at
    one end, so two of them put a NaN second from that end (a cheap test for short rows)."""
    if (srt[1:] == srt[:-1]).any():
        return True
    return srt.dtype.kind == "f" and srt.size > 1 and (srt[1] != srt[1] or srt[-2] != srt[-2])


def _sort_indices(xp, a, d, descending, stable):
    """The indices PyTorch's sort gives: the stable order where it is stable; else NumPy's
    (faster, unstable) order in rows without equal values, where every order agrees, and
    ``std::sort``'s own order of the equal values in the other rows."""
    n = a.shape[d]
    if stable or xp is not np or n <= 16 or a.strides[d] == 0 or _radix_sorted(a, descending):
        return _argsort(xp, a, d, descending)   # (insertion sort, zero stride, radix: stable)
    keys = _sort_keys(a)
    if a.ndim == 1:
        order = keys.argsort()
        if not _has_ties_1d(keys[order]):
            return order[::-1].copy() if descending else order
        rows, order = keys[None], order[None]
    else:
        rows = _rows_of(keys, d)
        order = rows.argsort(axis=1)
    eq = ties.equal_neighbours(np.take_along_axis(rows, order, 1))
    tied = eq.any(axis=1)
    ranks = ties.ranks_from_order(eq[tied], order[tied]) if tied.any() else None
    if descending:                        # (distinct values: the reverse order)
        order = order[:, ::-1].copy()
    if ranks is not None:
        order[tied] = ties.sort_rows(-ranks if descending else ranks)
    return _from_rows(order, a.shape, d)


def _stable_argsort(xp, a, d):
    """``argsort(kind="stable")``, sped up for long 1-d arrays: NumPy's default sort is
    vectorised and several times faster than its merge sort, and only runs of equal values
    (rare in real data) can come out in a different order; those positions alone are then
    re-sorted by (value, original index), which is exactly the stable order."""
    n = a.shape[d]
    if a.ndim != 1 or n < 4096 or xp is not np:
        return a.argsort(axis=d, kind="stable")
    order = a.argsort()
    srt = a[order]
    tie = srt[1:] == srt[:-1]
    if a.dtype.kind == "f":
        nan = np.isnan(srt)
        tie |= nan[1:] & nan[:-1]         # (NaNs sort last and count as equal to each other)
    if not tie.any():
        return order
    grouped = np.zeros(n, bool)
    grouped[1:] = tie
    grouped[:-1] |= tie
    pos = np.flatnonzero(grouped)
    if pos.size > n // 8:                 # many repeats (small integers): merge sort is faster
        return a.argsort(kind="stable")
    sub = order[pos]
    order[pos] = sub[np.lexsort((sub, srt[pos]))]
    return order


# (NumPy's flip and take_along_axis normalise their arguments in Python on every call; on
# small tensors that costs more than the work, so the 1-d case indexes directly)
def _flip(xp, a, d):
    return a[::-1] if a.ndim == 1 else xp.flip(a, d)


def _take_along(xp, a, idx, d):
    return a[idx] if a.ndim == 1 else xp.take_along_axis(a, idx, d)


def _slice_along(a, d, start, stop):
    """``a[..., start:stop, ...]`` with the slice at axis ``d`` (a view)."""
    return a[(slice(None),) * d + (slice(start, stop),)]


def _pair(tuple_type, values, indices, out):
    """The ``(values, indices)`` named tuple, or ``out=(v, i)`` filled (the factory's rule)."""
    return pair_result(tuple_type, (values, indices), out)


def _index_tensor(idx, dev):
    return wrap(idx.astype(np.int64, copy=False), D.int64, dev)


def _scatter_back(grad, s):
    """Gradient of a values-and-indices selection along ``dim`` (sort, topk): each gradient
    goes back to the position it was taken from."""
    from .creation import zeros
    if not s.self_sizes:
        return grad * 1
    out = zeros(s.self_sizes, dtype=grad.dtype, device=grad.device)
    return out.scatter(s.dim, s.indices, grad)


# ----------------------------------------------------------------------------------------------
# sort / argsort / msort / topk
# ----------------------------------------------------------------------------------------------

SortNode = node_class("SortBackward0", {"self": _scatter_back})
SortStableNode = node_class("SortBackward1", {"self": _scatter_back})
TopkNode = node_class("TopkBackward0", {"self": _scatter_back})


_SORT_OVERLOADS = (
    " * (Tensor input, *, bool stable, int dim = -1, bool descending = False, tuple of Tensors "
    "out = None)\n * (Tensor input, int dim = -1, bool descending = False, *, tuple of Tensors "
    "out = None)\n")


def sort(input, *args, stable=None, dim=-1, descending=False, out=None):
    """Sorts along ``dim``; returns ``(values, indices)``. NaN counts as the largest value.

    Two call forms, as in PyTorch: ``sort(input, dim=-1, descending=False)`` and
    ``sort(input, *, stable, dim=-1, descending=False)``. Equal elements come out in the
    order PyTorch's CPU kernel leaves them (their original order when ``stable=True``)."""
    if args:
        if stable is not None or len(args) > 2:
            got = ", ".join(["Tensor"] + [type(a).__name__ for a in args] +
                            ([f"stable={type(stable).__name__}"] if stable is not None else []))
            raise TypeError(f"sort() received an invalid combination of arguments - got ({got}"
                            f"), but expected one of:\n{_SORT_OVERLOADS}")
        dim = args[0]
        if len(args) > 1:
            descending = args[1]
    check_tensor_arg(input, "sort", "input", 1)
    _refuse_complex("sort", input)
    d = _dim_of(input, dim)
    xp = xp_of(input)
    a = _as_1d_plus(input._data)
    _refuse_wide_unsigned_radix(input, a, descending)
    idx = _sort_indices(xp, a, d, descending, bool(stable))
    vals = _take_along(xp, a, idx, d).reshape(input._data.shape)
    values = wrap(_laid_out_like(xp, vals, input._data), input._dtype, input._device)
    indices = _index_tensor(_laid_out_like(xp, idx.reshape(input._data.shape), input._data),
                            input._device)
    if input._requires_grad and needs_grad(input):
        record(SortNode if stable is None else SortStableNode, (input,), (values,),
               self_sizes=input._data.shape, dim=d,
               indices=indices)
    return _pair(return_types.sort, values, indices, out)


def argsort(input, dim=-1, descending=False, stable=False):
    """The indices that sort ``input`` along ``dim``."""
    check_tensor_arg(input, "argsort", "input", 1)
    _refuse_complex("argsort", input)
    d = _dim_of(input, dim)
    xp = xp_of(input)
    a = _as_1d_plus(input._data)
    _refuse_wide_unsigned_radix(input, a, descending)
    idx = _sort_indices(xp, a, d, descending, stable)
    return _index_tensor(_laid_out_like(xp, idx.reshape(input._data.shape), input._data),
                         input._device)


def _laid_out_like(xp, arr, like):
    """``arr`` (row-major) in the layout of the input ``like``, as PyTorch's sort writes into
    an ``empty_like`` of its input (``like_preserved``: a dense input's strides, kept; others
    in their dim order, made dense)."""
    if arr.ndim < 2 or like.flags.c_contiguous:
        return arr
    return like_preserved(arr, like)


def msort(input, *, out=None):
    """Sorts along the first dim (values only)."""
    _refuse_complex("msort", input)
    result = sort(input, 0).values
    return write_out(out, result) if out is not None else result


register("sort", sort, family="sorting", nodes=(SortNode, SortStableNode))
register("argsort", argsort, family="sorting")
register("msort", msort, family="sorting")


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """The ``k`` largest (or smallest) elements along ``dim`` and their indices."""
    check_tensor_arg(input, "topk", "input", 1)
    _refuse_complex("topk", input)
    d = _dim_of(input, dim)
    xp = xp_of(input)
    a = _as_1d_plus(input._data)
    n = a.shape[d]
    if k < 0 or k > n:
        raise RuntimeError("selected index k out of range")
    a = _sort_keys(a)                     # (half types select in float32, NaN as largest)
    if xp is np and k * 64 <= n:
        sorted = True                     # PyTorch's partial sort always leaves them in order
    one = _topk_one(a, d, largest) if k == 1 and n >= 64 and xp is np else None
    fast = _topk_long_1d(a, k, largest) if one is None and 0 < k < n and xp is np else None
    clear = one is not None
    if clear:
        pick, vals = one, np.take_along_axis(a, one, d)
    elif fast is None and xp is np and 0 < k < n and (sorted or k * 64 <= n):
        pick, vals, clear = (_topk_short_1d(a, k, largest) if a.ndim == 1 else
                             _topk_rows(a, d, k, largest))
    else:
        pick, vals = fast if fast is not None else _topk(xp, a, d, k, largest, sorted)
    if xp is np and k and not clear:
        pick, vals = _topk_ties(a, d, k, largest, sorted, pick, vals)
    if xp is np:                          # (PyTorch's results are row-major)
        pick, vals = row_major(pick), row_major(vals)
    shape = list(a.shape)
    shape[d] = k
    if not input._data.ndim:
        shape = []
    values = wrap(vals.astype(input._data.dtype, copy=False).reshape(shape), input._dtype,
                  input._device)
    indices = _index_tensor(pick.reshape(shape), input._device)
    if input._requires_grad and needs_grad(input):
        record(TopkNode, (input,), (values,), self_sizes=input._data.shape, dim=d,
               indices=indices)
    return _pair(return_types.topk, values, indices, out)


register("topk", topk, family="sorting", nodes=(TopkNode,))


def _topk(xp, a, d, k, largest, sorted):
    """(indices, values) of the ``k`` extreme elements along ``d``: select them first
    (linear time), then order only those."""
    n = a.shape[d]
    if 0 < k < n:
        part = a.argpartition(n - k if largest else k - 1, axis=d)
        pick = _slice_along(part, d, n - k, n) if largest else _slice_along(part, d, 0, k)
    else:
        pick = _slice_along(_argsort(xp, a, d, largest), d, 0, k)
    vals = _take_along(xp, a, pick, d)
    if sorted:
        order = _argsort(xp, vals, d, largest)
        pick = _take_along(xp, pick, order, d)
        vals = _take_along(xp, vals, order, d)
    return pick, vals


def _topk_one(a, d, largest):
    """``topk(1)`` indices of NumPy rows of at least 64 elements, or None when unsure.
    PyTorch's heap of one keeps the first element that beats all before it, i.e. the first
    of the best ones: what ``argmax`` / ``argmin`` report (``argmax`` meets NaN, which ranks
    largest, first)."""
    if largest or a.dtype.kind != "f":
        return (a.argmax if largest else a.argmin)(axis=d, keepdims=True)
    nan = np.isnan(a)
    if not nan.any():
        return a.argmin(axis=d, keepdims=True)
    filled = np.where(nan, np.inf, a)
    pick = filled.argmin(axis=d, keepdims=True)
    # (a row whose least number is +inf, or that has none, may hold a NaN before it)
    return None if (np.take_along_axis(filled, pick, d) == np.inf).any() else pick


def _topk_short_1d(a, k, largest):
    """(indices, values in order, clear) of the ``k`` extreme elements of a short 1-d NumPy
    row (0 < k < n). One ``argpartition`` places the best element left out, with the k
    chosen to one side of it, so ``clear`` (no equal values can change the indices: none of
    the chosen repeats or is NaN, and the best left out differs from the worst chosen) costs
    a read and a comparison of the k chosen; rows that are not clear take the tie emulation."""
    n = a.shape[0]
    # (one place fixed: the best element left out; the k chosen lie to one side of it)
    edge = n - k - 1 if largest else k
    part = a.argpartition(edge)
    pick = part[n - k:] if largest else part[:k]
    vals = a[pick]
    order = vals.argsort()
    if largest:
        order = order[::-1]
    pick, vals = pick[order], vals[order]
    edge = (a[part[edge]], vals[-1])          # (the best left out, the worst chosen)
    if edge[0] == edge[1] or edge[0] != edge[0] or edge[1] != edge[1]:
        return pick, vals, False
    if k <= 64:                           # (a few values: Python compares them faster)
        chosen = vals.tolist()
        clear = not any(x == y or x != x for x, y in zip(chosen, chosen[1:]))
        return pick, vals, clear and chosen[-1] == chosen[-1]
    if vals.dtype.kind == "f" and np.isnan(vals).any():
        return pick, vals, False
    return pick, vals, not (vals[1:] == vals[:-1]).any()


def _topk_rows(a, d, k, largest):
    """``_topk_short_1d`` for n-d NumPy input, row by row in one go (the rows along ``d``,
    indexed with a row-number column, which costs less than ``take_along_axis``)."""
    n = a.shape[d]
    rows = _rows_of(a, d)
    r = np.arange(rows.shape[0])[:, None]
    edge = n - k - 1 if largest else k        # (one place: a second costs NumPy ~3x more)
    part = rows.argpartition(edge, axis=1)
    pick = part[:, n - k:] if largest else part[:, :k]
    vals = rows[r, pick]
    order = vals.argsort(axis=1)
    if largest:
        order = order[:, ::-1]
    pick, vals = pick[r, order], vals[r, order]
    lo, hi = rows[r, part[:, edge:edge + 1]], vals[:, -1:]
    with np.errstate(invalid="ignore"):
        clear = not ((lo == hi) | (lo != lo) | (hi != hi)).any() and \
            not (vals[:, 1:] == vals[:, :-1]).any()
    if clear and vals.dtype.kind == "f":
        clear = not np.isnan(vals).any()
    return _from_rows(pick, a.shape, d), _from_rows(vals, a.shape, d), clear


def _topk_tied(rows, chosen, k, largest):
    """Which rows' top-k indices depend on how equal values are ordered: rows where the
    chosen values repeat, or where an element left out equals the worst chosen one."""
    srt = np.sort(chosen, axis=1)                       # (NaN last)
    tied = ties.equal_neighbours(srt).any(axis=1)
    worst = srt[:, :1] if largest else srt[:, -1:]
    if rows.dtype.kind == "f":
        nan = np.isnan(rows)
        wnan = np.isnan(worst)
        if largest:                                     # NaN ranks above every number
            at_least = np.where(wnan, nan, (rows >= worst) | nan)
        else:
            at_least = np.where(wnan, True, rows <= worst)
    else:
        at_least = rows >= worst if largest else rows <= worst
    return tied | (at_least.sum(axis=1) > k)


def _topk_tied_1d(a, vals, k, largest, in_order):
    """``_topk_tied`` for one row with few NumPy calls (short rows are common); True (take
    the general test) when NaNs were chosen. Chosen values free of NaN mean the row's NaNs,
    if any, were left out as the worst: they cannot tie with the chosen ones."""
    srt = vals if in_order else np.sort(vals)[::-1] if largest else np.sort(vals)
    if k <= 64:                           # (a few values: Python compares them faster)
        chosen = srt.tolist()
        if any(x != x or x == y for x, y in zip(chosen, chosen[1:])) or chosen[-1] != \
                chosen[-1]:
            return True                   # (NaN, or equal neighbours)
    else:
        if srt.dtype.kind == "f" and np.isnan(srt).any():
            return True
        if (srt[1:] == srt[:-1]).any():
            return True
    return int(np.count_nonzero(a >= srt[-1] if largest else a <= srt[-1])) > k


def _topk_ties(a, d, k, largest, sorted, pick, vals):
    """(indices, values) as PyTorch's CPU topk leaves them. Its partial sort and its sort
    after ``nth_element`` give the sorted answer, so only rows with ties need its steps;
    with ``sorted=False`` and ``k * 64 > n`` the order of the first k-1 is nth_element's
    own, so every row takes the emulation."""
    n = a.shape[d]
    if a.ndim == 1 and (sorted or k * 64 <= n) and not _topk_tied_1d(_sort_keys(a), vals, k,
                                                                       largest, sorted):
        return pick, vals
    rows = _rows_of(_sort_keys(a), d)
    if sorted or k * 64 <= n:
        redo = _topk_tied(rows, _rows_of(_sort_keys(vals), d), k, largest)
        if not redo.any():
            return pick, vals
    else:
        redo = np.ones(rows.shape[0], bool)
    keys, dense = ties.order_keys(rows[redo])
    chosen = _rows_of(pick, d).copy()
    chosen[redo] = ties.topk_rows(-keys if largest else keys, k, sorted, dense)
    pick = _from_rows(chosen, a.shape, d)
    return pick, np.take_along_axis(a, pick, d)


def _topk_long_1d(a, k, largest):
    """(indices, values) of the ``k`` extreme elements of a long 1-d NumPy array, in order,
    or None to take the general path. Partitioning the values alone is several times faster
    than ``argpartition``; the k-th value is then a threshold, and one comparison finds the
    few positions at or beyond it (ties at the threshold go to the lower index)."""
    n = a.shape[0]
    if a.ndim != 1 or n < 4096 or k > n // 8:
        return None
    part = np.partition(a, n - k if largest else k - 1)
    t = part[n - k] if largest else part[k - 1]
    if a.dtype.kind == "f" and (t != t or (largest and part[-1] != part[-1])):
        return None                       # NaNs rank largest: the general path orders them
    cand = np.flatnonzero(a >= t if largest else a <= t)
    if cand.size > 4 * k + 64:            # many ties at the threshold
        return None
    order = _argsort(np, a[cand], 0, largest)[:k]
    pick = cand[order]
    return pick, a[pick]

# ----------------------------------------------------------------------------------------------
# kthvalue / median / nanmedian / mode: one element per row
# ----------------------------------------------------------------------------------------------

KthvalueNode = node_class("KthvalueBackward0", {"self": _select_index})
MedianDimNode = node_class("MedianBackward1", {"self": _select_index})
NanmedianDimNode = node_class("NanmedianBackward1", {"self": _select_index})
ModeNode = node_class("ModeBackward0", {"self": _select_index})


def _evenly_to_equal(grad, s):
    """Full median: the gradient is shared among the elements equal to the result (NaN
    results go to the NaN elements)."""
    mask = (s.self == s.result) | (s.self.isnan() & s.result.isnan())
    return grad * mask / mask.sum()


MedianAllNode = node_class("MedianBackward0", {"self": _evenly_to_equal})
NanmedianAllNode = node_class("NanmedianBackward0", {"self": _evenly_to_equal})


def _pick_rows(name, input, d, keepdim, position, node, ties_fix=None, place=None):
    """Values and indices chosen by ``position(xp, sorted_rows, order) -> per-row positions``
    in the stable ascending order along ``d`` (a body's answer for the reduction factory).
    On NumPy, ``ties_fix(rows, idx, order=None) -> idx`` may then redo the indices of rows
    where PyTorch's kernel picks another of several equal elements (rows of sort keys along
    the last axis, their stable order if known), and ``place(rows) -> positions`` lets a
    partition replace the sort (then only rows whose pick has an equal take the fix)."""
    xp = xp_of(input)
    a = _as_1d_plus(input._data)
    if a.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    if xp is np and place is not None:
        rows = _rows_of(_sort_keys(a), d)
        picked = _stable_pick(rows, place(rows))
        if picked is not None:
            idx, tied = picked
            if ties_fix is not None and tied.any():
                idx[tied] = ties_fix(rows[tied], idx[tied])
            idx = _from_rows(idx[:, None], a.shape, d)
            return _picked(input, d, keepdim, np.take_along_axis(a, idx, d), idx, node)
    order = _argsort(xp, a, d, False)
    srt = xp.take_along_axis(a, order, d)
    pos = xp.expand_dims(position(xp, srt, order, d), d)
    vals = xp.take_along_axis(srt, pos, d)
    idx = xp.take_along_axis(order, pos, d)
    if ties_fix is not None and xp is np:
        fixed = ties_fix(_rows_of(_sort_keys(a), d), _rows_of(idx, d)[:, 0], _rows_of(order, d))
        idx = _from_rows(fixed[:, None], idx.shape, d)
    return _picked(input, d, keepdim, vals, idx, node)


def _stable_pick(rows, pos):
    """``order[r, pos[r]]`` for the stable ascending argsort ``order`` of each row of a 2-d
    NumPy array (NaN last), found with a partition instead of a sort: the value there is
    the partition's; when it occurs once its index is the answer, else the answer is the
    copy of it whose rank in index order is ``pos`` minus the count of smaller elements.
    Returns (indices, which rows' picks have equals), or None when the rows ask for many
    different positions (a sort is then cheaper)."""
    m, n = rows.shape
    kths = np.unique(pos)
    if kths.size > 4:
        return None
    r = np.arange(m)
    idx = rows.argpartition(kths, axis=1)[r, pos]
    val = rows[r, idx][:, None]
    same = rows == val
    if rows.dtype.kind == "f":
        nan = np.isnan(rows)
        val_nan = np.isnan(val)
        same |= nan & val_nan
    tied = np.count_nonzero(same, axis=1) > 1
    if tied.any():
        same, val = same[tied], val[tied]
        if rows.dtype.kind == "f":          # (before a NaN come all the numbers)
            val_nan = val_nan[tied, 0]
            before = np.where(val_nan, n - np.count_nonzero(nan[tied], axis=1),
                              np.count_nonzero(rows[tied] < val, axis=1))
        else:
            before = np.count_nonzero(rows[tied] < val, axis=1)
        copy = pos[tied] - before
        idx[tied] = np.argmax(np.cumsum(same, axis=1, dtype=np.int32) > copy[:, None], axis=1)
    return idx, tied


def _picked(input, d, keepdim, vals, idx, node):
    """The reduction answer from one value and index per row (kept along ``d``)."""
    if not keepdim:
        vals, idx = vals.squeeze(d), idx.squeeze(d)
    if not input._data.ndim:
        vals, idx = vals.reshape(()), idx.reshape(())
    values = wrap(vals, input._dtype, input._device)
    indices = _index_tensor(idx, input._device)
    return Reduced(values, indices, node=node, self_sizes=input._data.shape, dim=d,
                   keepdim=keepdim, indices=indices)


@reduction("kthvalue", nodes=(KthvalueNode,), returns=return_types.kthvalue, family="sorting")
def kthvalue(input, k, dim=-1, keepdim=False):
    """The ``k``-th smallest element along ``dim`` (1-based) and its index."""
    _refuse_complex("kthvalue_cpu", input)
    d = _dim_of(input, dim)
    n = _as_1d_plus(input._data).shape[d]
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")

    def position(xp, srt, order, d):
        shape = list(srt.shape)
        del shape[d]
        return xp.full(shape, k - 1)

    def ties_fix(rows, idx, order=None):
        # ATen's quickselect decides among elements equal to the k-th value
        if order is None:
            order = rows.argsort(axis=1)     # (ranks: any order of equals will do)
        eq = ties.equal_neighbours(np.take_along_axis(rows, order, 1))
        hit = eq[:, max(k - 2, 0):k].any(axis=1)
        idx = idx.copy()
        if hit.any():
            idx[hit] = ties.kthvalue_rows(ties.ranks_from_order(eq[hit], order[hit]), k)
        return idx
    return _pick_rows("kthvalue", input, d, keepdim, position, KthvalueNode, ties_fix,
                      place=lambda rows: np.full(rows.shape[0], k - 1))


def _median_position(ignore_nan):
    def position(xp, srt, order, d):
        n = srt.shape[d]
        nan = xp.isnan(srt) if srt.dtype.kind == "f" or srt.dtype.itemsize == 2 and \
            srt.dtype.kind not in "iub" else xp.zeros(srt.shape, bool)
        valid = n - nan.sum(axis=d)
        if ignore_nan:
            return xp.where(valid > 0, (valid - 1) // 2, 0)
        # one NaN makes the median NaN: the first NaN, which sorts right after the numbers
        return xp.where(valid < n, valid, (n - 1) // 2)
    return position


def _median_place(ignore_nan):
    """``place`` for ``_pick_rows``: the median's position in each row's stable order."""
    def place(rows):
        n = rows.shape[1]
        valid = (n - np.count_nonzero(np.isnan(rows), axis=1) if rows.dtype.kind == "f"
                 else np.full(rows.shape[0], n))
        if ignore_nan:
            return np.where(valid > 0, (valid - 1) // 2, 0)
        return np.where(valid < n, valid, (n - 1) // 2)
    return place


def _all_nan_fix(rows, idx, order=None):
    """nanmedian of an all-NaN row: ``std::nth_element`` at the first place, with every
    element equivalent, decides which NaN is reported (ties with an index order otherwise:
    the (value, index) comparator makes the stable order exact)."""
    idx = idx.copy()
    if rows.dtype.kind == "f":
        all_nan = np.isnan(rows).all(axis=1)
        if all_nan.any():
            idx[all_nan] = ties.nth_first_of_equal(rows.shape[1])
    return idx


def _median_like(name, ignore_nan, all_node, dim_node, tuple_type):
    def no_full_out(input, dim=None, *args, **kwargs):
        if dim is None:
            raise TypeError(f"{name}() received an invalid combination of arguments")

    def fn(input, dim=None, keepdim=False):
        _refuse_complex("median_cpu" if dim is None else "median_out", input)
        if dim is None:
            flat = input.reshape(-1)
            if flat._data.size == 0:
                xp = xp_of(input)
                value = xp.full((), np.nan, input._data.dtype) if input._dtype.category >= \
                    D.FLOATING else None
                if value is None:
                    raise IndexError(f"{name}(): Expected reduction dim 0 to have non-zero "
                                     "size.")
                return Reduced(wrap(value, input._dtype, input._device))
            with no_grad():
                values = _pick_rows(name, flat.detach(), 0, False, _median_position(ignore_nan),
                                    dim_node, place=_median_place(ignore_nan)).outputs[0]
            return Reduced(values, node=all_node)
        d = _dim_of(input, dim)
        return _pick_rows(name, input, d, keepdim, _median_position(ignore_nan), dim_node,
                          _all_nan_fix if ignore_nan else None, _median_place(ignore_nan))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"The {'NaN-ignoring ' if ignore_nan else ''}median of all elements, or "
                  "along ``dim`` with the index of each (the lower of the two middle values).")
    return reduction(name, nodes=(all_node, dim_node), returns=tuple_type, check_out=no_full_out,
                     family="sorting")(fn)


median = _median_like("median", False, MedianAllNode, MedianDimNode, return_types.median)
nanmedian = _median_like("nanmedian", True, NanmedianAllNode, NanmedianDimNode,
                         return_types.nanmedian)


def _mode_position(xp, srt, order, d):
    """Position (in sorted order) of the last element of the longest run of equal values;
    the smallest such value wins ties, and its last original index is reported."""
    s = xp.moveaxis(srt, d, -1)
    n = s.shape[-1]
    starts = xp.ones(s.shape, bool)
    starts[..., 1:] = s[..., 1:] != s[..., :-1]
    ar = xp.arange(n)
    run_start = backend.accumulate("maximum", xp.where(starts, ar, 0), -1)
    length = ar - run_start + 1
    best = length.max(axis=-1, keepdims=True)
    # the first run reaching the best length ends at the first position where length == best
    return xp.argmax(length == best, axis=-1)


@reduction("mode", nodes=(ModeNode,), returns=return_types.mode, family="sorting")
def mode(input, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` (the smallest, on ties) and an index of it
    (the one PyTorch's CPU kernel reports)."""
    _refuse_complex("mode_cpu", input)
    d = _dim_of(input, dim)
    xp = xp_of(input)
    a = _as_1d_plus(input._data)
    if a.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    if xp is np:
        # PyTorch's CPU kernel: std::sort of (value, index) pairs, then a scan of the runs
        _, idx = ties.mode_rows(_rows_of(_sort_keys(a), d))
        idx = _from_rows(idx[:, None], a.shape, d)
        return _picked(input, d, keepdim, np.take_along_axis(a, idx, d), idx, ModeNode)
    answer = _pick_rows("mode", input, d, keepdim, _mode_position, ModeNode)
    values, indices = answer.outputs
    # PyTorch reports the largest original index among the equal elements
    vals = values._data if keepdim else xp.expand_dims(values._data, d) \
        if input._data.ndim else values._data.reshape(1)
    eq = a == (vals if input._data.ndim else vals.reshape(1))
    last = a.shape[d] - 1 - xp.argmax(xp.flip(eq, d), axis=d)
    if keepdim and input._data.ndim:
        last = xp.expand_dims(last, d)
    indices._data = last.reshape(indices._data.shape).astype(np.int64)
    return answer

# ----------------------------------------------------------------------------------------------
# searchsorted / bucketize
# ----------------------------------------------------------------------------------------------


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None):
    """Indices where ``input`` would be inserted into the innermost dim of
    ``sorted_sequence`` to keep it sorted (``right``/``side='right'``: after equal values)."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    seq = sorted_sequence
    for t in (seq, input):
        if isinstance(t, Tensor):
            _refuse_complex("searchsorted_out_cpu", t)
    scalar = not isinstance(input, Tensor)
    xp = xp_of(seq)
    values = xp.asarray(input) if scalar else input._data
    s = seq._data
    if sorter is not None:
        s = xp.take_along_axis(s, sorter._data, -1)
    if s.ndim > 1 and not scalar and s.shape[:-1] != values.shape[:-1]:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(s.shape)} and input value tensor {list(values.shape)}")
    side_name = "right" if right else "left"
    if s.ndim <= 1:
        res = xp.searchsorted(s, values, side=side_name)
    else:
        rows = s.reshape(-1, s.shape[-1])
        vals = values.reshape(rows.shape[0], -1)
        # one searchsorted per boundary row (rows, not elements: a short loop)
        res = xp.stack([xp.searchsorted(r, v, side=side_name) for r, v in zip(rows, vals)])
        res = res.reshape(values.shape)
    dt = D.int32 if out_int32 else D.int64
    result = wrap(xp.asarray(res).astype(dt.numpy_dtype), dt, seq._device)
    return write_out(out, result) if out is not None else result


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket index of each element of ``input`` for the 1-D ``boundaries``."""
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries._data.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


register("searchsorted", searchsorted, method=False, family="sorting")
register("bucketize", bucketize, method=False, family="sorting")

# ----------------------------------------------------------------------------------------------
# unique / unique_consecutive
# ----------------------------------------------------------------------------------------------


def _unique_result(xp, input, values, inverse, counts, return_inverse, return_counts,
                   inverse_shape):
    dev = input._device
    out = [wrap(values, input._dtype, dev)]
    if return_inverse:
        out.append(_index_tensor(inverse.reshape(inverse_shape), dev))
    if return_counts:
        out.append(_index_tensor(counts, dev))
    return out[0] if len(out) == 1 else tuple(out)


def _unique_flat(xp, flat, want_inverse, want_counts):
    """(values, inverse or None, counts or None) of a 1-d array: sort, then keep each element
    that differs from its predecessor. NaN differs from NaN, so every NaN is kept, as in
    PyTorch (``np.unique`` would merge them); only what was asked for is computed."""
    if want_inverse:
        order = flat.argsort(kind="stable")
        srt = flat[order]
    else:
        srt = xp.sort(flat)
    first = xp.empty(srt.shape, bool)
    first[:1] = True
    xp.not_equal(srt[1:], srt[:-1], out=first[1:])
    inverse = counts = None
    if want_inverse:
        inverse = xp.empty(flat.shape, np.int64)
        inverse[order] = xp.cumsum(first) - 1
    if want_counts:
        starts = xp.flatnonzero(first)
        counts = xp.diff(starts, append=srt.shape[0])
    return srt[first], inverse, counts


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements (or slices along ``dim``), sorted, optionally with the inverse
    mapping and the counts."""
    check_tensor_arg(input, "unique", "input", 1)
    _refuse_complex("unique", input)
    xp = xp_of(input)
    a = input._data
    if dim is None:
        vals, inv, cnt = _unique_flat(xp, a.reshape(-1), return_inverse, return_counts)
        return _unique_result(xp, input, vals, inv, cnt, return_inverse, return_counts, a.shape)
    d = _dim_of(input, dim)
    if a.shape[d] == 0 and a.size == 0 and a.ndim > 1:
        raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot "
                           "be applied ")
    vals, inv, cnt = xp.unique(a, axis=d, return_inverse=True, return_counts=True)
    return _unique_result(xp, input, vals, inv, cnt, return_inverse, return_counts,
                          (a.shape[d],))


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapses each run of equal consecutive elements (or slices along ``dim``) to one."""
    check_tensor_arg(input, "unique_consecutive", "input", 1)
    _refuse_complex("unique", input)
    xp = xp_of(input)
    a = input._data
    if dim is None:
        flat = a.reshape(-1)
        change = flat[1:] != flat[:-1]
        keep_shape = a.shape
    else:
        d = _dim_of(input, dim)
        flat = xp.moveaxis(_as_1d_plus(a), d, 0)
        diff = flat[1:] != flat[:-1]
        change = diff.reshape(diff.shape[0], -1).any(axis=1)
        keep_shape = (flat.shape[0],)
    n = flat.shape[0]
    starts = xp.concatenate([xp.ones(min(n, 1), bool), change])
    inverse = xp.cumsum(starts) - 1
    first = xp.nonzero(starts)[0]
    counts = xp.diff(xp.concatenate([first, xp.asarray([n])]))
    vals = flat[first]
    if dim is not None:
        vals = xp.moveaxis(vals, 0, _dim_of(input, dim))
    return _unique_result(xp, input, vals, inverse, counts, return_inverse, return_counts,
                          keep_shape)


register("unique", unique, family="sorting")
register("unique_consecutive", unique_consecutive, family="sorting")

# ----------------------------------------------------------------------------------------------
# bincount / histc / histogram / count_nonzero
# ----------------------------------------------------------------------------------------------


def bincount(input, weights=None, minlength=0):
    """Counts of each non-negative integer in the 1-D ``input`` (weighted, if given)."""
    check_tensor_arg(input, "bincount", "input", 1)
    if input._dtype.category not in (D.INTEGRAL, D.BOOL) or input._dtype is D.bool:
        not_implemented("bincount_cpu", input._dtype)
    if input._data.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    xp = xp_of(input)
    a = input._data
    if a.size and int(a.min()) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        res, dt = xp.bincount(a.astype(np.int64), minlength=minlength), D.int64
    else:
        if weights._data.shape != a.shape:
            raise RuntimeError("weights should be 1-d and have the same length as input")
        dt = weights._dtype if weights._dtype.category == D.FLOATING else D.float64
        res = xp.bincount(a.astype(np.int64), weights._data.astype(np.float64),
                          minlength=minlength)
    return wrap(res.astype(dt.numpy_dtype), dt, input._device)


def histc(input, bins=100, min=0, max=0, *, out=None):
    """A histogram of ``bins`` equal-width bins over ``[min, max]`` (the data's range when both
    are 0); elements outside are ignored."""
    check_tensor_arg(input, "histc", "input", 1)
    dt = input._dtype
    if dt.category != D.FLOATING:
        not_implemented({D.bool: "linspace_cpu"}.get(dt, "aminmax_cpu" if dt in _COMPLEX
                                                     else "histogram_cpu"), dt)
    if bins <= 0:
        raise RuntimeError("torch.histc(): bins must be > 0, but got " f"{bins} for bins")
    xp = xp_of(input)
    a = input._data.reshape(-1).astype(np.float64)
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"torch.histc(): max must be larger than min, but got min {lo} max {hi}")
    # PyTorch computes each bin in the input dtype, (x - min) * bins / (max - min), and
    # puts x == max into the last bin
    a = input._data.reshape(-1)
    lo_d, hi_d = a.dtype.type(lo), a.dtype.type(hi)
    inside = a[(a >= lo_d) & (a <= hi_d)]
    pos = ((inside - lo_d) * a.dtype.type(bins) / (hi_d - lo_d)).astype(np.int64)
    pos = xp.minimum(pos, bins - 1)
    res = xp.bincount(pos, minlength=bins).astype(input._data.dtype)
    result = wrap(res, input._dtype, input._device)
    return write_out(out, result) if out is not None else result


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """Histogram values and bin edges (``bins`` a count or a tensor of edges)."""
    check_tensor_arg(input, "histogram", "input", 1)
    if input._dtype.category != D.FLOATING or (input._dtype.itemsize == 2 and range is None
                                                and not isinstance(bins, Tensor)):
        # (half types work only where PyTorch need not find the data's range itself)
        not_implemented("histogramdd", input._dtype)
    xp = xp_of(input)
    a = input._data.reshape(-1)
    edges = bins._data if isinstance(bins, Tensor) else bins
    w = None if weight is None else weight._data.reshape(-1)
    wide = a.astype(np.float32) if a.dtype.itemsize == 2 else a
    hist, edges = xp.histogram(wide, bins=edges, range=range, weights=w, density=density)
    dt, dev = input._dtype, input._device
    res = return_types.histogram((wrap(hist.astype(dt.numpy_dtype), dt, dev),
                                  wrap(edges.astype(dt.numpy_dtype), dt, dev)))
    if out is not None:
        return _pair(return_types.histogram, res[0], res[1], out)
    return res


@reduction("count_nonzero", has_out=False, family="sorting")
def count_nonzero(input, dim=None):
    """The number of non-zero elements (along ``dim``, a dim or tuple of dims)."""
    xp = xp_of(input)
    a = input._data
    if dim is None:
        res = xp.asarray(xp.count_nonzero(a))
    else:
        axes = dims_arg(dim, a.ndim) if a.ndim else ()
        res = xp.count_nonzero(a, axis=axes) if a.ndim else xp.asarray(int(a != 0))
    return Reduced(wrap(xp.asarray(res).astype(np.int64), D.int64, input._device))


register("bincount", bincount, family="sorting")
register("histc", histc, family="sorting")
register("histogram", histogram, family="sorting")
