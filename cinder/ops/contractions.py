"""Contractions and distances: einsum, tensordot, cdist, cross, vander.

``einsum`` runs NumPy's einsum (with ``optimize=True`` it contracts through BLAS) and its
gradient for each operand is another einsum, so higher-order gradients work.
"""

import functools
import math
import string
import warnings

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, wrap_dim
from . import _einsum_layout as einsum_layout
from ._layouts import plain, row_major, with_strides
from ._prep import (
    as_compute,
    broadcast_shape,
    check_tensor_arg,
    common_device,
    not_implemented,
    wrap,
    xp_of,
)
from ._reduction_factory import sum_by_matmul
from ._registry import needs_grad, node_class, record, register, write_out
from ._prep import result_type

# ----------------------------------------------------------------------------------------------
# einsum
# ----------------------------------------------------------------------------------------------

_VIEW, _ROW_MAJOR = einsum_layout.VIEW, einsum_layout.ROW_MAJOR


def _parse_equation(equation, shapes):
    """(input subscripts, output subscripts, the letters spelling '...') with every '...'
    spelled out as letters."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation" if len(terms) < len(shapes) else
                           "einsum(): fewer operands were provided than specified in the "
                           "equation")
    used = set(c for c in eq if c.isalpha())
    spare = [c for c in string.ascii_letters if c not in used]
    n_ell = max((len(s) - (len(t) - 3) for t, s in zip(terms, shapes) if "..." in t), default=0)
    ell = "".join(spare[:n_ell])
    full = []
    for t, s in zip(terms, shapes):
        if "..." in t:
            k = len(s) - (len(t) - 3)
            t = t.replace("...", ell[n_ell - k:] if k else "")
        if len(t) != len(s):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(t)}) "
                               f"does not match the number of dimensions ({len(s)}) for "
                               f"operand {len(full)} and no ellipsis was given")
        full.append(t)
    if arrow:
        out = rhs.replace("...", ell)
    else:
        counts = {}
        for t in full:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    return full, out, ell


def _plan(equation, shapes):
    """(subscripts, output, route, layout): how to compute the contraction, and how PyTorch
    lays out its result (``_einsum_layout.plan``). NumPy's planner
    (route "plan": ``optimize=True``) costs ~15 µs of Python per call and is used for three
    or more operands. A GEMM-like pair (a summed letter plus a letter of one operand alone)
    is one ``matmul`` (route ("gemm", ...), see ``_gemm_route``); a one-operand sum with
    distinct letters is ``ndarray.sum`` (route ("sum", axes, permutation)); the rest
    (elementwise products, batched dots such as 'bi,bi->b') runs in NumPy's compiled einsum
    loop (route "loop").

    ``layout`` is None where the route's result already has PyTorch's strides (a matmul
    whose product is laid out as PyTorch's, a result of one dim), so the common calls check
    nothing."""
    subs, out, ell = _parse_equation(equation, shapes)
    _check_sizes(subs, shapes)
    layout = einsum_layout.plan(subs, out, ell, shapes)
    route = _route(subs, out)
    if layout is _ROW_MAJOR and len(out) <= 1:
        layout = None           # (a computed result of 0 or 1 dims is a fresh, dense array)
    elif route[0] == "gemm" and layout is not None and layout[0] == "strides" and \
            _gemm_strides(route[1:], shapes, len(out)) == layout[1]:
        layout = None
    return (tuple(subs), out, route, layout)


def _gemm_strides(route, shapes, n_out):
    """The element strides (None: row-major) of the gemm route's result for operands of
    ``shapes``; False where the route falls back to NumPy's einsum or the result has size-1
    dims (whose strides NumPy may set otherwise)."""
    perm_a, perm_b, (nb, nf, ns), out_perm, swap = route
    sa, sb = shapes[::-1] if swap else shapes
    a = [sa[i] for i in perm_a]
    b = [sb[i] for i in perm_b]
    if b[:nb + ns] != a[:nb] + a[nb + nf:]:
        return False
    product = a[:nb + nf] + b[nb + ns:]
    if 1 in product or 0 in product:
        return False
    strides = [1] * len(product)
    for i in range(len(product) - 2, -1, -1):
        strides[i] = strides[i + 1] * product[i + 1]
    strides = tuple(strides[i] for i in out_perm)
    return None if out_perm == sorted(out_perm) else strides


def _route(subs, out):
    """The route of ``_plan``."""
    if len(subs) > 2:
        return "plan"
    a, b = (set(subs[0]), set(subs[-1]))
    if len(subs) == 1:
        term = subs[0]
        if len(a) != len(term) or len(set(out)) != len(out):
            return "loop"
        kept = [c for c in term if c in out]
        return ("sum", tuple(i for i, c in enumerate(term) if c not in out),
                [kept.index(c) for c in out])
    summed = (a & b) - set(out)
    if summed and ((a - b) or (b - a)):
        route = _gemm_route(subs[0], subs[1], out)
        return ("gemm",) + route if route else "plan"
    return "loop"


def _run_route(xp, subs, out, arrays, route):
    """The einsum ``subs -> out`` of ``arrays`` computed by ``route`` (see ``_plan``)."""
    a = arrays[0]
    if route[0] == "sum":
        if not route[1]:                  # a pure permutation: a new array, as einsum's
            return a.transpose(route[2]).copy()
        res = sum_by_matmul(xp, a, route[1])
        if res is None:
            # (integers and bool sum in int64, as torch.sum and so PyTorch's einsum do)
            res = a.sum(axis=route[1], dtype=np.int64 if a.dtype.kind in "biu" else a.dtype)
        return res if route[2] == sorted(route[2]) else xp.ascontiguousarray(
            res.transpose(route[2]))
    res = _einsum_matmul(xp, a, arrays[1], route[1:]) if route[0] == "gemm" else None
    if res is not None:
        return res
    return xp.einsum(",".join(subs) + "->" + out, *arrays, optimize=route == "plan")


def _check_sizes(subs, shapes):
    """PyTorch's errors, in its order, for a letter whose size differs between operands (size
    1 broadcasts) or between two dims of one operand (a diagonal)."""
    sizes = {}
    for i, (term, shape) in enumerate(zip(subs, shapes)):
        mine = {}
        for c, n in zip(term, shape):
            if c in mine:
                if n != mine[c]:
                    raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {i} "
                                       f"but the sizes don't match, {n} != {mine[c]}")
                continue
            mine[c] = n
            seen = sizes.get(c, 1)
            if n != 1 and seen != 1 and n != seen:
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {i} which "
                                   f"does not broadcast with previously seen size {seen}")
            sizes[c] = n if seen == 1 else seen


def _gemm_route(sa, sb, out):
    """How to compute the pair ``sa,sb->out`` as one (batched) matmul: the axis orders that
    put each operand as (batch, free, summed) / (batch, summed, free), how many letters each
    group has, the permutation from the product's letters to ``out``, and whether the two
    operands swap places. None when a letter repeats inside a term or is summed within one
    operand alone.

    The product is laid out as PyTorch's einsum lays out its batched product: the batch
    letters, then the left operand's own letters, then the right's, each in output order,
    the two operands swapped when all of the right's letters come first in the output; the
    result is then a permuted view of the product, as PyTorch's is."""
    if len(set(sa)) != len(sa) or len(set(sb)) != len(sb) or len(set(out)) != len(out):
        return None
    if any(c not in out and c not in sb for c in sa) or \
            any(c not in out and c not in sa for c in sb):
        return None
    batch = [c for c in out if c in sa and c in sb]
    summed = [c for c in sa if c in sb and c not in out]
    free_a = [c for c in out if c in sa and c not in sb]
    free_b = [c for c in out if c in sb and c not in sa]
    swap = bool(free_a and free_b) and out.index(free_b[-1]) < out.index(free_a[0])
    if swap:
        sa, sb, free_a, free_b = sb, sa, free_b, free_a
    product = batch + free_a + free_b
    return ([sa.index(c) for c in batch + free_a + summed],
            [sb.index(c) for c in batch + summed + free_b],
            (len(batch), len(free_a), len(summed)), [product.index(c) for c in out], swap)


def _einsum_matmul(xp, a, b, route):
    """The contraction by ``route`` (see ``_gemm_route``); None if the sizes of shared
    letters differ (NumPy's einsum then reports the mismatch)."""
    perm_a, perm_b, (nb, nf, ns), out_perm, swap = route
    if swap:
        a, b = b, a
    a, b = a.transpose(perm_a), b.transpose(perm_b)
    batch, free_a, summed = a.shape[:nb], a.shape[nb:nb + nf], a.shape[nb + nf:]
    if b.shape[:nb + ns] != batch + summed:
        return None
    free_b = b.shape[nb + ns:]
    k = math.prod(summed)
    a = a.reshape(batch + (math.prod(free_a), k))
    b = b.reshape(batch + (k, math.prod(free_b)))
    if not nb:                    # (a 2-D product is always a fresh row-major array)
        res = xp.matmul(a, b)
    else:   # (NumPy orders a batched product's dims as its operands': ask for row-major)
        res = xp.matmul(a, b, order="C") if xp is np else xp.ascontiguousarray(xp.matmul(a, b))
    res = res.reshape(batch + free_a + free_b)
    return res if out_perm == sorted(out_perm) else res.transpose(out_perm)


# (a model calls the same few equations on the same shapes over and over)
_parsed = functools.lru_cache(maxsize=512)(_plan)


def _einsum_grad(i):
    def formula(grad, s):
        subs, out, ops = s.subs, s.out, s.operands
        mine, shape = subs[i], tuple(s.shapes[i])
        # a letter repeated inside this operand reads its diagonal: the gradient is taken for
        # the operand with each letter once, then written back onto that diagonal
        once = "".join(dict.fromkeys(mine))
        size = {c: n for c, n in zip(reversed(mine), reversed(shape))}
        others = [o for j, o in enumerate(ops) if j != i]
        other_subs = [t for j, t in enumerate(subs) if j != i]
        known = set(out).union(*other_subs) if other_subs else set(out)
        target = "".join(c for c in once if c in known)
        g = einsum(",".join([out] + other_subs) + "->" + target, grad, *others)
        if target != once:
            # letters summed away inside this operand alone: broadcast the gradient back
            g = g.reshape([size[c] if c in known else 1 for c in once]).expand(
                [size[c] for c in once])
        if once != mine:
            g = _onto_diagonal(g, mine, shape)
        return g.sum_to_size(shape) if tuple(g.shape) != shape else g
    return formula


def _onto_diagonal(g, mine, shape):
    """``g`` (one axis per distinct letter of ``mine``, in first-seen order) placed on the
    diagonal of an array of ``shape``: zero wherever two axes with the same letter differ."""
    xp = xp_of(g)
    first = {}
    mask = xp.ones((1,) * len(mine), dtype=bool)
    for axis, c in enumerate(mine):
        if c not in first:
            first[c] = axis
            continue
        n = shape[axis]
        view = [1] * len(mine)
        view[first[c]] = view[axis] = n
        mask = mask & xp.eye(n, dtype=bool).reshape(view)
    seen = set()
    spread = [n if not (c in seen or seen.add(c)) else 1 for c, n in zip(mine, shape)]
    return g.reshape(spread) * wrap(mask.astype(g._data.dtype), g._dtype, g.device)


_EINSUM_NODES = {}


def _einsum_node(n):
    if n not in _EINSUM_NODES:
        _EINSUM_NODES[n] = node_class("EinsumBackward0", {f"op{i}": _einsum_grad(i)
                                                          for i in range(n)},
                                      saves_also=("subs", "out", "operands", "shapes"))
    return _EINSUM_NODES[n]


def _view_of(t, term, out):
    """PyTorch's einsum of one operand with nothing to sum: a view of it (the diagonal of
    each repeated letter, then the output's permutation)."""
    kept = []
    for c in term:
        if c not in kept:
            kept.append(c)
            continue
        prev, dim = kept.index(c), len(kept)
        t = t.diagonal(0, prev, dim).movedim(-1, prev)
    return t.permute([kept.index(c) for c in out])


def _laid_out(res, layout, operands, subs, out):
    """The result array ``res`` with the strides PyTorch's einsum leaves (see
    ``_einsum_layout``); a copy only when it has others."""
    if layout is _ROW_MAJOR:
        return res if plain(res) else row_major(res)
    kind, info = layout
    if kind == "view":            # (an empty operand's "view": a copy)
        return res
    if kind == "strides":
        return with_strides(res, info)
    strides = einsum_layout.strides_of([t._data for t in operands], subs, *info, len(out))
    return with_strides(res, strides)


def _letter(n):
    """A subscript of einsum's sublist form as an equation letter: 0-25 are A-Z, 26-51 a-z,
    ``...`` stays itself."""
    if n is Ellipsis:
        return "..."
    if 0 <= n < 52:
        return chr(ord("A") + n) if n < 26 else chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range "
                     "[0, 52)")


def _equation_and_operands(args):
    """einsum's two call forms, ``(equation, *operands)`` (the operands possibly in one
    list) and ``(operand, sublist, operand, sublist, ..., [output sublist])``, as
    (equation, operands)."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], Tensor):
        equation = ",".join("".join(_letter(n) for n in sub) for sub in args[1::2])
        if len(args) % 2:
            return equation + "->" + "".join(_letter(n) for n in args[-1]), args[:-1:2]
        return equation, args[::2]
    if len(args) == 2 and isinstance(args[1], (list, tuple)):
        return _equation_and_operands((args[0], *args[1]))
    return args[0], args[1:]


def einsum(equation=None, *operands):
    """Sums of products over the subscripts of ``equation`` (Einstein notation, with
    ``...`` for broadcast dims and an implicit, alphabetical output when ``->`` is absent):
    ``einsum(equation, *operands)``, or each operand followed by its subscripts as a list of
    integers (``einsum(a, [0, 1], b, [1, 2], [0, 2])``)."""
    if equation.__class__ is not str or not operands or operands[0].__class__ in (list, tuple):
        # (the other forms; the usual one, an equation and tensors, is decided at once)
        args = operands if equation is None else (equation,) + operands
        equation, operands = _equation_and_operands(args)
    shapes = tuple(t._data.shape for t in operands)
    subs, out, route, layout = (_parsed(equation, shapes) if isinstance(equation, str) else
                                _plan(equation, shapes))
    if layout is _VIEW and operands[0]._data.size:
        # (an empty operand takes the computing path: cinder's diagonal of an empty array
        # with zero strides fails)
        return _view_of(operands[0], subs[0], out)
    dt = operands[0]._dtype
    for t in operands[1:]:
        if t._dtype is not dt:
            raise RuntimeError(f"expected scalar type {dt.scalar_name} but found "
                               f"{t._dtype.scalar_name}")
    if dt is D.bool and len(operands) > 1:
        not_implemented("bmm", dt)
    dev = common_device(operands)
    xp = xp_of(operands[0])
    arrays = [as_compute(t, dt, dev) for t in operands]
    if dt is D.float16 or dt is D.bfloat16:
        # NumPy has no bfloat16 einsum; PyTorch's bmm accumulates both in float32 and rounds once
        arrays = [a.astype(np.float32) for a in arrays]
    try:
        res = _run_route(xp, subs, out, arrays, route)
    except ValueError as exc:
        raise RuntimeError(f"einsum(): {exc}") from None
    if route[0] == "sum" and route[1] and dt.category <= D.INTEGRAL:
        dt = D.int64
    res = xp.asarray(res).astype(dt.numpy_dtype, copy=False)
    if layout is not None and (layout is not _ROW_MAJOR or 1 in res.shape or
                               not res.flags.c_contiguous):
        res = _laid_out(res, layout, operands, subs, out)
    result = wrap(res, dt, dev)
    if needs_grad(*operands):
        record(_einsum_node(len(operands)), operands, (result,), subs=subs, out=out,
               operands=list(operands), shapes=[t._data.shape for t in operands])
    return result


register("einsum", einsum, method=False, family="contractions")

# ----------------------------------------------------------------------------------------------
# tensordot
# ----------------------------------------------------------------------------------------------


def _dims_pair(dims, na, nb):
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, (int, np.integer)):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(na, nb):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(na - dims, na)), list(range(dims))
    da, db = dims
    da = [da] if isinstance(da, int) else list(da)
    db = [db] if isinstance(db, int) else list(db)
    if len(da) != len(db):
        raise RuntimeError(f"both dimension lists should have same length, but got {len(da)} "
                           f"and {len(db)}")
    return [wrap_dim(d, na) for d in da], [wrap_dim(d, nb) for d in db]


def tensordot(a, b, dims=2, out=None):
    """Contracts ``dims`` (a count of trailing/leading dims, or two lists of dims) of ``a`` and
    ``b``, as one matrix product (so gradients flow through permute/reshape/mm)."""
    check_tensor_arg(a, "tensordot", "a", 1)
    check_tensor_arg(b, "tensordot", "b", 2)
    da, db = _dims_pair(dims, a._data.ndim, b._data.ndim)
    for x, y in zip(da, db):
        if a._data.shape[x] != b._data.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a._data.shape[x]} in dim {x} and second has size "
                               f"{b._data.shape[y]} in dim {y}")
    free_a = [d for d in range(a._data.ndim) if d not in da]
    free_b = [d for d in range(b._data.ndim) if d not in db]
    k = int(np.prod([a._data.shape[d] for d in da]))
    sa = [a._data.shape[d] for d in free_a]
    sb = [b._data.shape[d] for d in free_b]
    left = a.permute(free_a + da).reshape(int(np.prod(sa)), k)
    right = b.permute(db + free_b).reshape(k, int(np.prod(sb)))
    result = left.mm(right).reshape(sa + sb)
    return write_out(out, result) if out is not None else result


register("tensordot", tensordot, method=False, family="contractions")

# ----------------------------------------------------------------------------------------------
# cdist
# ----------------------------------------------------------------------------------------------


def _cdist_grads(grad, s):
    """(grad_x1, grad_x2) of the p-norm distances, from the pairwise differences."""
    x1, x2, p, dist = s.x1, s.x2, s.p, s.result
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)             # (..., P, R, M)
    g = grad.unsqueeze(-1)
    if p == 0:
        term = diff * 0
    elif p == 1:
        term = g * diff.sign()
    elif p == float("inf"):
        term = g * diff.sign() * (diff.abs() == dist.unsqueeze(-1))
    else:
        safe = dist.masked_fill(dist == 0, 1).unsqueeze(-1)
        term = g * diff.sign() * diff.abs().pow(p - 1) / safe.pow(p - 1)
        term = term.masked_fill((dist == 0).unsqueeze(-1), 0)
    return term.sum(-2).sum_to_size(s.x1_sizes), (-term).sum(-3).sum_to_size(s.x2_sizes)


CdistNode = node_class("CdistBackward0", {
    "x1": lambda grad, s: _cdist_grads(grad, s)[0],
    "x2": lambda grad, s: _cdist_grads(grad, s)[1]},
    saves_also=("x1", "x2", "p", "result", "x1_sizes", "x2_sizes"))

_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                "donot_use_mm_for_euclid_dist")


def _check_cdist(x1, x2, p, compute_mode):
    for name, t in (("X1", x1), ("X2", x2)):
        if t._data.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: "
                               f"{t._data.ndim}D")
        if t._dtype in (D.float16, D.bfloat16):
            not_implemented("cdist", t._dtype)
        if t._dtype.category != D.FLOATING:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{t._dtype.scalar_name}")
    if x1._data.shape[-1] != x2._data.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1._data.shape[-1]} X2: {x2._data.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode is not None and compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")


def _pairwise(xp, a, b, p):
    """Distances between rows of a (..., P, M) and b (..., R, M) without the GEMM trick."""
    if a.shape[-1] <= 16 and p in (1, 2):
        # few columns: accumulate one column at a time (no (P, R, M) temporary)
        acc = None
        for j in range(a.shape[-1]):
            d = a[..., :, None, j] - b[..., None, :, j]
            term = d * d if p == 2 else xp.abs(d)
            acc = term if acc is None else acc + term
        if acc is None:
            acc = xp.zeros(a.shape[:-1] + b.shape[-2:-1], a.dtype)
        return xp.sqrt(acc) if p == 2 else acc
    diff = xp.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        return (diff != 0).sum(-1).astype(a.dtype)
    if p == 1:
        return diff.sum(-1)
    if p == 2:
        return xp.sqrt((diff * diff).sum(-1))
    if p == float("inf"):
        return diff.max(-1) if diff.shape[-1] else diff.sum(-1)
    return (diff ** p).sum(-1) ** (1.0 / p)


def _euclid_mm(xp, a, b):
    """Euclidean distances through one matrix product, PyTorch's formulation: the rows
    [-2a, |a|^2, 1] times [b, 1, |b|^2] give |a|^2 + |b|^2 - 2 a.b in one GEMM (then clamped
    at 0 and square-rooted in place)."""
    an = (a * a).sum(-1, keepdims=True)
    bn = (b * b).sum(-1, keepdims=True)
    left = xp.concatenate([a * a.dtype.type(-2), an, xp.ones_like(an)], -1)
    right = xp.concatenate([b, xp.ones_like(bn), bn], -1)
    d2 = xp.matmul(left, xp.swapaxes(right, -1, -2))
    if d2.size < 1 << 14:                # (small: one call costs less than the bound)
        xp.maximum(d2, 0, out=d2)
    else:
        _clamp_at_zero(xp, d2, float(an.max()) + float(bn.max()))
    return xp.sqrt(d2, out=d2)


def _clamp_at_zero(xp, d2, bound):
    """``max(d2, 0)`` in place. ``(d2 + |d2|) / 2`` equals it exactly (doubling and halving a
    float are exact, denormals included) and takes three fast passes where NumPy's
    ``maximum`` takes about twice as long; it is used while no ``d2`` can overflow when
    doubled (each is at most ``2 * (|a|^2 + |b|^2)``, here bounded by ``bound``)."""
    if not bound < xp.finfo(d2.dtype).max / 8:        # (NaN bounds too)
        xp.maximum(d2, 0, out=d2)
        return
    half = d2.dtype.type(0.5)
    tmp = xp.abs(d2)
    xp.add(d2, tmp, out=d2)
    xp.multiply(d2, half, out=d2)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of ``x1`` and each row of ``x2`` (batched)."""
    check_tensor_arg(x1, "cdist", "x1", 1)
    check_tensor_arg(x2, "cdist", "x2", 2)
    _check_cdist(x1, x2, p, compute_mode)
    dt = x1._dtype if x1._dtype is x2._dtype else D.promote_types(x1._dtype, x2._dtype)
    dev = common_device((x1, x2))
    xp = xp_of(x1)
    batch = broadcast_shape(x1._data.shape[:-2], x2._data.shape[:-2])
    a, b = as_compute(x1, dt, dev), as_compute(x2, dt, dev)
    if batch:                           # (two matrices: nothing to broadcast)
        a = xp.broadcast_to(a, batch + a.shape[-2:])
        b = xp.broadcast_to(b, batch + b.shape[-2:])
    n1, n2 = a.shape[-2], b.shape[-2]
    # (PyTorch's rule for the GEMM formula, whose rounding differs from the direct sum's)
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode in (None, _CDIST_MODES[0]) and (n1 > 25 or n2 > 25)))
    res = xp.asarray(_euclid_mm(xp, a, b) if use_mm else _pairwise(xp, a, b, p))
    if not res.flags.c_contiguous:
        res = row_major(res)        # PyTorch's result is row-major whatever the inputs' layout
    result = wrap(res.astype(dt.numpy_dtype, copy=False), dt, dev)
    if needs_grad(x1, x2):
        record(CdistNode, (x1, x2), (result,), x1=x1, x2=x2, p=p,
               x1_sizes=x1._data.shape, x2_sizes=x2._data.shape)
    return result


register("cdist", cdist, method=False, family="contractions")

# ----------------------------------------------------------------------------------------------
# cross / vander
# ----------------------------------------------------------------------------------------------

CrossNode = node_class("LinalgCrossBackward0", {
    "self": lambda grad, s: s.other.conj().cross(grad, dim=s.dim),
    "other": lambda grad, s: grad.cross(s.self.conj(), dim=s.dim)})


def cross(input, other, dim=None, *, out=None):
    """The 3-D cross product along ``dim`` (by default the first dim of size 3)."""
    check_tensor_arg(input, "cross", "input", 1)
    check_tensor_arg(other, "cross", "other", 2)
    if input._data.ndim != other._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    shape = broadcast_shape(input._data.shape, other._data.shape)
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease "
                      "either pass the dim explicitly or simply use torch.linalg.cross.\nThe "
                      "default value of dim will change to agree with that of linalg.cross in a "
                      "future release.", UserWarning, stacklevel=2)
        dim = next((i for i, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    d = wrap_dim(dim, len(shape))
    if input._data.shape[d] != 3 or other._data.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input._data.shape[d]} and {other._data.shape[d]}")
    dt = result_type(input, other)
    if dt is D.bool:
        not_implemented("cross", dt)
    dev = common_device((input, other))
    xp = xp_of(input)
    a = xp.broadcast_to(as_compute(input, dt, dev), shape)
    b = xp.broadcast_to(as_compute(other, dt, dev), shape)
    res = row_major(xp.asarray(xp.cross(a, b, axis=d)))     # as PyTorch's structured kernel
    result = wrap(res.astype(dt.numpy_dtype, copy=False), dt, dev)
    if needs_grad(input, other):
        record(CrossNode, (input, other), (result,), self=input, other=other, dim=d)
    return write_out(out, result) if out is not None else result


register("cross", cross, family="contractions", nodes=(CrossNode,))


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D ``x``: columns are powers of x (decreasing unless
    ``increasing``), ``N`` columns (default: len(x))."""
    check_tensor_arg(x, "vander", "x", 1)
    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._data.shape[0]
    cols = n if N is None else N
    if cols < 0:
        raise RuntimeError("N must be non-negative.")
    from .creation import ones
    from .shape import cat
    dt = D.promote_types(x._dtype, D.int64)
    base = x.to(dt)
    if cols == 0:
        from .creation import empty
        return empty((n, 0), dtype=dt, device=x.device)
    first = ones((n, 1), dtype=dt, device=x.device)
    if cols > 1:
        result = cat([first, base.unsqueeze(1).expand(n, cols - 1)], 1).cumprod(1)
    else:
        result = first
    return result if increasing else result.flip(1)


register("vander", vander, method=False, family="contractions")
