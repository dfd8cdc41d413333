"""The strides of ``einsum``'s result, as PyTorch's implementation leaves them.

PyTorch computes einsum in one fixed way, and its result keeps the layout that way gives:

1. every operand is viewed with one dim per letter, all in the same "aligned" order: the
   output's letters in output order, then the summed ones (the dims of an ellipsis missing
   from the output first, then the letters alphabetically, capitals before small letters);
   a letter an operand lacks is a size-1 dim;
2. the operands are contracted pairwise from the left, the result of each pair taking the
   place of the pair: a pair with letters to sum is one batched matrix product whose fresh
   result holds the dims present in both operands first, then those of the left operand,
   then those of the right (the two swapped when every dim of the right comes before every
   dim of the left), each group in aligned order; a pair with nothing to sum is a plain
   pointwise product (TensorIterator's layout of the two views);
3. the summed dims, size 1 by then, are dropped by a view; a single operand with nothing to
   sum is returned as that view of itself, with something to sum, reduced (row-major).

Only sizes decide which dims form each group (a dim of size 1 counts as absent), so the
layout of a pair with something to sum depends on the shapes alone and is computed once per
equation and shapes (``plan``); a pointwise product on the way reads the operands' strides
too (``strides_of``, cached by strides).
"""

import functools
import math

from ._layouts import order_of
from .views import _view_strides

__all__ = ["ROW_MAJOR", "VIEW", "plan", "strides_of"]

# the two answers of ``plan`` that need no strides (constants, so callers test them with ``is``)
VIEW = ("view", None)
ROW_MAJOR = ("strides", None)


def _contiguous(sizes, order):
    """Element strides of a fresh array of ``sizes`` whose dims are stored in ``order``."""
    strides = [0] * len(sizes)
    step = 1
    for d in reversed(order):
        strides[d] = step
        step *= max(sizes[d], 1)
    return strides


def _row_major(sizes):
    return tuple(_contiguous(sizes, range(len(sizes))))


def _aligned(subs, out, ell, shapes):
    """(letters in aligned order, each operand's sizes along them)."""
    contracted = [c for c in ell if c not in out]
    contracted += sorted(set("".join(subs)) - set(out) - set(contracted))
    letters = list(out) + contracted
    sizes = []
    for term, shape in zip(subs, shapes):
        size = dict(zip(term, shape))
        sizes.append([size.get(c, 1) for c in letters])
    return letters, sizes


def _pair_groups(a, b, summed):
    """The batched product's dims of the pair: (both, left's own, right's own), each in
    aligned order, the last two swapped when all of the right's come before the left's."""
    both, left, right = [], [], []
    for d in range(len(a)):
        if d in summed:
            continue
        if a[d] != 1 and b[d] != 1:
            both.append(d)
        elif a[d] != 1:
            left.append(d)
        else:
            right.append(d)
    if left and right and right[-1] < left[0]:
        left, right = right, left
    return both, left, right


def _run(sizes, strides, n_out):
    """PyTorch's pairwise contraction run on the operands' aligned sizes (and element
    strides, or None when unknown): the result's (sizes, strides), strides None when a step
    needs the operands' strides and they are not given."""
    n = len(sizes[0])
    counts = [sum(s[d] != 1 for s in sizes) for d in range(n)]
    ops = [(list(s), None if strides is None else list(st))
           for s, st in zip(sizes, strides or sizes)]
    while len(ops) > 1:
        (a, sa), (b, sb) = ops.pop(0), ops.pop(0)
        summed = []
        for d in range(n_out, n):
            if a[d] != 1 and b[d] != 1:
                counts[d] -= 1
                if counts[d] == 1:
                    summed.append(d)
                    counts[d] = 0
            elif counts[d] == 1:
                if a[d] != 1:             # a dim only this operand still has: summed alone
                    a[d], counts[d] = 1, 0
                    sa = _contiguous(a, range(n))     # (a reduction's result: row-major)
                elif b[d] != 1:
                    b[d], counts[d] = 1, 0
                    sb = _contiguous(b, range(n))
        res = [1 if d in summed else max(a[d], b[d]) for d in range(n)]
        if summed:                        # a batched product: a fresh array
            st = _product_strides(res, _pair_groups(a, b, summed), summed)
        elif sa is None or sb is None:
            st = None
        elif a == b and _row_major_ignoring_ones(a, sa) and _row_major_ignoring_ones(b, sb):
            st = _contiguous(res, range(n))   # (TensorIterator's fast setup)
        else:                             # a pointwise product: TensorIterator's layout
            operands = [[0 if k == 1 and r != 1 else x for x, k, r in zip(o, size, res)]
                        for o, size in ((sa, a), (sb, b))]
            order = order_of(operands, res)
            st = _contiguous(res, range(n) if order is None else order)
        ops.insert(0, (res, st))
    res, st = ops[0]
    if st is not None and n > n_out:
        # the summed dims (size 1 by now) are dropped by a view, which may restride the
        # size-1 dims
        st = list(_view_strides(res, st, res[:n_out])) + st[n_out:]
    return res, st


def _row_major_ignoring_ones(sizes, strides):
    """PyTorch's ``is_contiguous``: row-major along every dim longer than 1."""
    expected = 1
    for n, st in zip(reversed(sizes), reversed(strides)):
        if n != 1:
            if st != expected:
                return False
            expected *= n
    return True


def _product_strides(res, groups, summed):
    """The aligned strides of the pair's batched product: the (both, left, right) matrix
    product viewed with a dim per letter (the summed ones size 1 between left and right),
    then permuted back to aligned order."""
    both, left, right = groups
    flat = [math.prod(res[d] for d in g) for g in groups]
    order = both + left + summed + right
    viewed = _view_strides(flat, _contiguous(flat, range(3)), [res[d] for d in order])
    st = [0] * len(res)
    for d, x in zip(order, viewed):
        st[d] = x
    return st


def plan(subs, out, ell, shapes):
    """How einsum's result is laid out, from the equation and shapes alone:

    - ``("view", None)``: a single operand with nothing to sum, returned as a view;
    - ``("strides", strides)``: the output's element strides (None: row-major);
    - ``("operands", (letters, sizes))``: a layout that depends on the operands' strides
      (a pointwise product on the way), read by ``strides_of`` at each call;
    - None: an empty operand (left as computed).
    """
    n_out = len(out)
    if len(subs) == 1:
        return VIEW if set(subs[0]) <= set(out) else ROW_MAJOR
    if any(0 in shape for shape in shapes):
        return None     # (an empty operand: PyTorch's strides of empty tensors are not modelled)
    letters, sizes = _aligned(subs, out, ell, shapes)
    res, strides = _run(sizes, None, n_out)
    if strides is None:
        return "operands", (tuple(letters), tuple(map(tuple, sizes)))
    strides = tuple(strides[:n_out])
    return ROW_MAJOR if strides == _row_major(res[:n_out]) else ("strides", strides)


def strides_of(arrays, subs, letters, sizes, n_out):
    """The output strides of einsum over ``arrays`` (NumPy or CuPy, dims as ``subs``) whose
    layout depends on their strides (``plan``'s "operands")."""
    key = tuple(tuple(st // a.itemsize for st in a.strides) for a in arrays)
    return _strides_cached(tuple(subs), letters, sizes, n_out, key)


@functools.lru_cache(maxsize=256)
def _strides_cached(subs, letters, sizes, n_out, strides):
    aligned = []
    for term, st in zip(subs, strides):
        own = {}
        for c, x in zip(term, st):
            own[c] = own.get(c, 0) + x        # (a repeated letter: its diagonal)
        aligned.append([own.get(c, 1) for c in letters])   # (a missing letter: a new dim)
    return tuple(_run(sizes, aligned, n_out)[1][:n_out])
