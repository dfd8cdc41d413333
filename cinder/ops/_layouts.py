"""The layouts of op results: which strides a new result gets when its inputs are not
row-major, following the rules PyTorch applies.

PyTorch decides a result's strides in a few shared places, and cinder mirrors them here so
that ops share one rule each instead of deciding op by op:

- reductions allocate a row-major result (``resize_`` of an empty tensor), whatever the
  input's layout: ``row_major``;
- ops that copy their input and then modify the copy (``index_put``, ``roll``, the
  ``*_scatter`` ops) clone it with ``preserve_format``: ``preserved``;
- norms, convolutions and pooling write into the memory format the input "suggests" from its
  strides (channels-last or row-major): ``as_suggested``;
- pointwise ops (TensorIterator) order the result's dims as the first input with an opinion
  orders its own: ``iterator_order``.

Every helper returns its argument untouched when it already has the wanted layout, and the
callers test the cheap ``flags.c_contiguous`` first, so row-major inputs pay nothing more.
"""

import numpy as np

from .. import backend
from .._tensor import _INNER_FIRST

# The dims of a channels-last layout from outermost to innermost: (N, C, H, W) as N, H, W, C.
OUTER_FIRST = {"channels_last": (0, 2, 3, 1), "channels_last_3d": (0, 2, 3, 4, 1)}


def _xp(arr):
    return np if isinstance(arr, np.ndarray) else backend.cupy_module()


def is_row_major(arr):
    """Whether ``arr`` has exactly PyTorch's row-major strides (size-1 dims included, which
    NumPy's ``c_contiguous`` flag ignores)."""
    expected = arr.itemsize
    for n, stride in zip(reversed(arr.shape), reversed(arr.strides)):
        if stride != expected:
            return False
        expected *= n or 1                  # (a size-0 dim counts as size 1)
    return True


def plain(arr):
    """Whether every layout rule leaves ``arr`` as it is: row-major, its size-1 dims included
    (decided by NumPy's flag alone when it has none, the common case)."""
    return arr.flags.c_contiguous and (1 not in arr.shape or is_row_major(arr))


def row_major(arr):
    """``arr`` with exactly row-major strides (a copy only when it has others)."""
    if not arr.size or is_row_major(arr):
        return arr
    out = _xp(arr).empty(arr.shape, arr.dtype)
    out[...] = arr
    return out


def suggested_format(arr):
    """The memory format PyTorch's ``suggest_memory_format`` reads from ``arr``'s strides:
    "channels_last" or "channels_last_3d" when a 4-d or 5-d array is laid out so, else
    "contiguous_format" (ambiguous strides, such as size-1 dims, count as contiguous)."""
    fmt = {4: "channels_last", 5: "channels_last_3d"}.get(arr.ndim)
    if fmt is not None and _strides_read_as(arr, _INNER_FIRST[fmt, arr.ndim]):
        return fmt
    return "contiguous_format"


def _strides_read_as(arr, inner_first):
    """Whether the strides grow along ``inner_first`` (innermost dim first), with PyTorch's
    tie-breaks: a zero channel stride or batch strides equal to the channel's are not
    channels-last."""
    shape, strides = arr.shape, arr.strides
    if strides[1] == 0:
        return False
    smallest = 0
    for d in inner_first:
        if shape[d] == 0 or strides[d] < smallest or (d == 0 and smallest == strides[1]):
            return False
        smallest = strides[d] * max(shape[d], 1)
    return True


def format_order(fmt, ndim):
    """The dims of memory format ``fmt`` outermost first for an array of rank ``ndim`` (None
    for "contiguous_format"), or PyTorch's error when a channels-last format does not fit
    the rank."""
    order = OUTER_FIRST.get(fmt)
    if order is not None and ndim != len(order):
        raise RuntimeError(f"required rank {len(order)} tensor to use {fmt} format")
    return order


def in_format(arr, fmt):
    """A copy of ``arr`` laid out as memory format ``fmt``: "contiguous_format",
    "channels_last" or "channels_last_3d" (whose rank it must have)."""
    order = format_order(fmt, arr.ndim)
    if order is None:
        return _xp(arr).array(arr, copy=True, order="C")
    return in_order(arr, order, copy=True)


def as_format(arr, fmt):
    """``arr`` laid out as memory format ``fmt`` (a copy only when it is not already)."""
    if fmt == "contiguous_format":
        return row_major(arr)
    if suggested_format(arr) == fmt and backend.is_non_overlapping_and_dense(arr):
        return arr
    return in_format(arr, fmt)


CHANNELS_LAST = ("channels_last", "channels_last_3d")


def as_suggested(res, src, kernels=CHANNELS_LAST):
    """The result ``res`` of a norm/convolution/pooling of ``src``, in the memory format
    ``src`` suggests (channels-last stays channels-last, anything else becomes row-major).
    ``kernels``: the channels-last formats PyTorch's CPU kernel of the op keeps (several
    3-d kernels have only a row-major one). A ``plain`` row-major ``src`` is taken to have
    given a row-major ``res``."""
    if plain(src) and res.flags.c_contiguous:
        return res
    fmt = suggested_format(src)
    return as_format(res, fmt if fmt in kernels else "contiguous_format")


def empty_preserved(src, dtype=None):
    """An uninitialised array shaped like ``src`` laid out as PyTorch's ``empty_like`` with
    ``preserve_format`` lays it out: ``src``'s own strides when it is dense, else its dims
    ordered by stride (TensorIterator's order; expanded dims keep their place) and made
    dense."""
    xp = _xp(src)
    dtype = src.dtype if dtype is None else np.dtype(dtype)
    if plain(src) or not src.size:
        return xp.empty(src.shape, dtype)
    if backend.is_non_overlapping_and_dense(src):
        strides = tuple(st // src.itemsize * dtype.itemsize for st in src.strides)
        return xp.lib.stride_tricks.as_strided(xp.empty(src.size, dtype), src.shape, strides)
    order = iterator_order([src], src.shape)
    if order is None:
        return xp.empty(src.shape, dtype)
    return xp.empty([src.shape[d] for d in order], dtype).transpose(np.argsort(order))


def like_preserved(arr, src, copy=False):
    """``arr`` (shaped like ``src``) with the strides ``clone(preserve_format)`` gives
    ``src``: ``arr`` itself when it has them (unless ``copy``), else a copy."""
    out = empty_preserved(src, arr.dtype)
    if out.strides == arr.strides and not copy:
        return arr
    out[...] = arr
    return out


def preserved(arr):
    """A copy of ``arr`` as ``clone(memory_format=torch.preserve_format)`` makes it."""
    if plain(arr):
        return arr.copy()
    out = empty_preserved(arr)
    out[...] = arr
    return out


def clone_preserve_strides(arr):
    """A copy of ``arr`` with its very strides and storage offset, over a copy of its whole
    storage (PyTorch's ``clone_preserve_strides``, which the ``*_scatter`` ops start from);
    an array whose elements overlap (expanded) gets ``preserved`` instead."""
    root = backend.storage_root(arr)
    if not isinstance(arr, np.ndarray) or not arr.size or not root.flags.c_contiguous or \
            any(st <= 0 and n > 1 for st, n in zip(arr.strides, arr.shape)):
        return preserved(arr)
    offset = backend.data_ptr(arr) - backend.data_ptr(root)
    return np.ndarray(arr.shape, arr.dtype, buffer=root.copy(), offset=offset,
                      strides=arr.strides)


def iterator_order(arrays, shape):
    """The order (outermost dim first) in which PyTorch's TensorIterator lays out the result
    of a pointwise op over ``arrays`` broadcast to ``shape``: for each pair of dims the first
    operand whose strides differ decides (broadcast dims have no say), equal strides put the
    larger dim outside. None means row-major."""
    ndim = len(shape)
    strides = []
    for a in arrays:
        lead = ndim - a.ndim
        st = [0] * lead
        for i, n in enumerate(a.shape):
            st.append(0 if n == 1 and shape[lead + i] != 1 else a.strides[i])
        strides.append(st)
    return order_of(strides, shape)


def order_of(strides, shape):
    """TensorIterator's dim order from per-operand stride lists (0: no say on that dim)."""
    ndim = len(shape)

    def should_swap(d0, d1):
        for st in strides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return 1 if s0 > s1 else -1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(ndim - 1, -1, -1))      # innermost first, as TensorIterator keeps it
    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    order = perm[::-1]
    return None if order == list(range(ndim)) else order


def with_strides(arr, strides):
    """``arr`` with the element ``strides`` (a dense layout of its shape): itself when it has
    them, else a copy."""
    byte = tuple(st * arr.itemsize for st in strides)
    if arr.strides == byte or not arr.size:
        return arr
    xp = _xp(arr)
    out = xp.lib.stride_tricks.as_strided(xp.empty(arr.size, arr.dtype), arr.shape, byte)
    out[...] = arr
    return out


def index_layout(res, src, key):
    """The result ``res = src[key]`` of advanced indexing (``key``: full slices and index
    arrays) laid out as PyTorch's ``index`` lays it out: one TensorIterator over ``src``
    (its indexed dims replaced by the index dims, with no say) and the index arrays. Index
    dims sit where the indices were when they are adjacent, in front otherwise (NumPy's
    rule, which PyTorch shares)."""
    pos = [i for i, k in enumerate(key) if not isinstance(k, slice)]
    if not pos:
        return row_major(res)
    idx = [key[i] for i in pos]
    ishape = np.broadcast_shapes(*(np.shape(a) for a in idx))
    rest = [d for d in range(src.ndim) if d not in pos]
    if pos == list(range(pos[0], pos[0] + len(pos))):      # adjacent: indices stay in place
        before = [d for d in rest if d < pos[0]]
        after = [d for d in rest if d > pos[0]]
    else:
        before, after = [], rest
    n_idx = len(ishape)
    src_st = [src.strides[d] for d in before] + [0] * n_idx + [src.strides[d] for d in after]
    operands = [src_st]
    for a in idx:
        st = _xp(a).broadcast_to(a, ishape).strides if np.ndim(a) else (0,) * n_idx
        operands.append([0] * len(before) + list(st) + [0] * len(after))
    order = order_of(operands, res.shape)
    return row_major(res) if order is None else in_order(res, order)


def fft_layout(res, src, dims, exclude_last=False):
    """The result ``res`` of an FFT of ``src`` over ``dims`` laid out as PyTorch's CPU FFT
    (``_exec_fft``) writes it: the other (batch) dims outermost, ordered by ``src``'s
    strides, then the transformed dims, ordered by ``src``'s strides too (all but the last
    with ``exclude_last``, as the real-to-complex transform keeps the last innermost)."""
    dims = list(dims)
    nd = src.ndim
    if src.flags.c_contiguous and res.flags.c_contiguous and dims == list(range(nd - len(dims),
                                                                                  nd)):
        return res      # row-major in, trailing dims transformed: row-major out
    st = src.strides
    fixed = [dims.pop()] if exclude_last else []
    batch = [d for d in range(src.ndim) if d not in dims and d not in fixed]
    order = sorted(batch, key=lambda d: -st[d]) + sorted(dims, key=lambda d: -st[d]) + fixed
    return in_order(res, order)


def _inverse(order):
    """The permutation that undoes ``order`` (np.argsort costs more than a small copy)."""
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i
    return inverse


def new_in_order(shape, dtype, order, alloc=np.empty):
    """A new host array of ``shape`` made by ``alloc`` (``np.empty``, ``np.zeros``...) whose
    dims are stored outermost-first in ``order``."""
    return alloc(tuple(shape[d] for d in order), dtype=dtype).transpose(_inverse(order))


def in_order(res, order, copy=False):
    """``res`` laid out so its dims are stored outermost-first in ``order`` (a copy when it
    is not already, or when ``copy`` asks)."""
    expected = [0] * res.ndim
    step = res.itemsize
    for d in reversed(order):
        expected[d] = step
        step *= max(res.shape[d], 1)
    if tuple(expected) == res.strides and not copy:
        return res
    return _xp(res).array(res.transpose(order), copy=True, order="C").transpose(_inverse(order))


def iterator_layout(res, operands):
    """``pointwise_layout`` for ops of several operands (where, lerp, clamp, addcmul...:
    arrays, tensors, scalars or None), checked only when an operand is not row-major (NumPy
    then may differ)."""
    if res.ndim > 1:
        for a in operands:
            a = getattr(a, "_data", a)
            if getattr(a, "ndim", 0) > 1 and not a.flags.c_contiguous:
                return pointwise_layout(res, [getattr(o, "_data", o) for o in operands])
    return res


def pointwise_layout(res, operands):
    """The result ``res`` of a pointwise op over the array ``operands`` (Python scalars
    allowed), laid out as TensorIterator lays it out. NumPy agrees with it when the operands
    agree; when they disagree NumPy falls back to row-major, PyTorch follows the first."""
    arrays = [a for a in operands if getattr(a, "ndim", 0) > 0]
    if not res.size or len(arrays) < 2:
        return res
    first = arrays[0]
    st = first.strides
    if first.shape == res.shape and min(st) > 0 and len(set(st)) == len(st):
        # the usual case, decided by the first operand alone: its strides, largest outside
        order = sorted(range(len(st)), key=st.__getitem__, reverse=True)
        return in_order(res, order)
    order = iterator_order(arrays, res.shape)
    return row_major(res) if order is None else in_order(res, order)
