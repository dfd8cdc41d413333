"""Scatter/gather-style indexing beyond the basics in ``indexing.py``: scatter_reduce,
index_add/index_copy/index_fill/index_reduce, take/put, take_along_dim, masked_scatter,
argwhere, and the diagonal/triangle family (diag, diag_embed, diagflat, diagonal_scatter,
select_scatter, slice_scatter, tril/triu, fill_diagonal_).

Accumulating ops reduce through ``_segment.reduce_into``: NumPy's compiled ``ufunc.at`` loop
where it has one (it adds in index order, as PyTorch does), else bincount or sorted ``reduceat``.
"""

import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, make_tensor, wrap_dim
from . import limited_uint
from ._layouts import like_preserved, row_major
from ._prep import check_tensor_arg, checked_scalar, not_implemented, scalar_as, wrap, xp_of
from ._registry import (
    make_inplace,
    needs_grad,
    node_class,
    record,
    register,
    write_out,
)
from ._segment import counts_at, index_within, linear_index, reduce_into
from .indexing import _along_dim_key, _src_block
from ._prep import broadcast_shape

_REDUCES = ("sum", "prod", "mean", "amax", "amin")

# ----------------------------------------------------------------------------------------------
# scatter_reduce
# ----------------------------------------------------------------------------------------------


def _scatter_reduce_grads(grad, s):
    """(grad_self, grad_src) of scatter_reduce, as PyTorch's scatter_reduce_backward."""
    from .creation import ones_like, zeros_like
    dim, index, red = s.dim, s.index, s.reduce
    if red == "sum":
        g_self, g_src = grad, grad.gather(dim, index)
    elif red == "mean":
        n = ones_like(grad) if s.include_self else zeros_like(grad)
        n = n.scatter_add(dim, index, ones_like(s.src))
        n = n.masked_fill(n == 0, 1)
        g_self, g_src = grad / n, (grad / n).gather(dim, index)
    elif red == "prod":
        g_self, g_src = _prod_grads(grad, s)
    else:
        value = s.result.gather(dim, index)
        self_is = (s.self == s.result).to(grad.dtype)
        src_is = (s.src == value).to(grad.dtype)
        n = self_is.scatter_add(dim, index, src_is)
        g = grad / n
        g_self, g_src = self_is * g, src_is * g.gather(dim, index)
    if not s.include_self:
        g_self = g_self.scatter(dim, index, 0)
    return g_self, g_src


def _prod_grads(grad, s):
    """(grad_self, grad_src) of a product reduction, zeros included (PyTorch's formula): a
    factor's gradient is the product of the other factors at its position. Dividing the
    result by the factor gives that unless the factor is 0; then the product is recomputed
    with that 0 taken as 1 (for self always, for src where it is the only zero at its
    position; with two or more zeros every factor's gradient is 0 anyway)."""
    from .creation import zeros_like
    dim, index, x, src = s.dim, s.index, s.self, s.src
    keep = s.include_self
    masked_self = x.masked_fill(x == 0, 1)
    g_self = grad * masked_self.scatter_reduce(dim, index, src, "prod", include_self=keep) \
        / masked_self
    src_zero = src == 0
    zeros_at = zeros_like(x).scatter_add(dim, index, src_zero.to(x.dtype)).gather(dim, index)
    single_zero = src_zero & (zeros_at == 1)
    without_zero = x.scatter_reduce(dim, index, src.masked_fill(single_zero, 1), "prod",
                                    include_self=keep)
    g_src = (grad * without_zero).gather(dim, index).where(
        single_zero, (grad * s.result).gather(dim, index) / src.masked_fill(src_zero, 1))
    return g_self, g_src


ScatterReduceNode = node_class("ScatterReduceBackward0", {
    "self": lambda grad, s: _scatter_reduce_grads(grad, s)[0],
    "src": lambda grad, s: _scatter_reduce_grads(grad, s)[1]},
    saves_also=("dim", "index", "reduce", "include_self", "self", "src", "result"))


def _check_reduce(reduce, name="scatter_reduce"):
    if reduce not in _REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")


def _reduce_flat(xp, out, lin, vals, reduce, include_self, dtype):
    """``out`` (flat, modified) with ``vals`` reduced in at ``lin``; mean divides by counts."""
    red = "sum" if reduce == "mean" else reduce
    reduce_into(xp, out, lin, vals, red, include_self)
    if reduce == "mean":
        counts = counts_at(xp, lin, out.shape[0])
        if include_self:
            counts = counts + 1
        counts = xp.maximum(counts, 1)
        if dtype.category < D.FLOATING:
            out[...] = xp.floor_divide(out, counts.astype(out.dtype))
        else:
            out[...] = (out / counts).astype(out.dtype)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """Reduces ``src`` into ``input`` at ``index`` along ``dim`` with ``reduce`` ('sum',
    'prod', 'mean', 'amax' or 'amin'); ``include_self=False`` leaves the old values out."""
    check_tensor_arg(src, "scatter_reduce", "src", 4)
    d = wrap_dim(dim, max(input._data.ndim, 1))
    key = _along_dim_key("scatter_reduce", input, d, index, src)
    _check_reduce(reduce)
    xp = xp_of(input)
    res = input._data.copy()
    flat = res.reshape(-1)
    lin = linear_index(key, input._data.shape or (1,))
    vals = _src_block(src, index)
    _reduce_flat(xp, flat, lin, vals, reduce, include_self, input._dtype)
    result = wrap(flat.reshape(input._data.shape), input._dtype, input._device)
    if needs_grad(input, src):
        record(ScatterReduceNode, (input, src), (result,), dim=d, index=index, reduce=reduce,
               include_self=include_self, self=input, src=src)
    return write_out(out, result) if out is not None else result


register("scatter_reduce", scatter_reduce,
         inplace=make_inplace(scatter_reduce, "scatter_reduce"), family="indexing",
         nodes=(ScatterReduceNode,))

# ----------------------------------------------------------------------------------------------
# index_add / index_copy / index_fill / index_reduce
# ----------------------------------------------------------------------------------------------


def _index_arg(name, input, dim, index, source=None):
    """Checked (dim, 1-d index array) for the index_* ops."""
    d = wrap_dim(dim, max(input._data.ndim, 1))
    if not isinstance(index, Tensor) or index._dtype not in (D.int64, D.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    if index._data.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    idx = index._data.reshape(-1)
    n = (input._data.shape or (1,))[d]
    if name in _META_CHECKED and source is not None:
        _check_source(name, input, d, idx.size, source)
        source = None       # (checked: the comparison of slice shapes below is index_copy's)
    # (the common case, every index in [0, n), costs one reduction). Only index_fill
    # counts negative positions from the end; the others refuse them, as PyTorch does.
    within = index_within(idx, n)
    lo = 0 if within else int(idx.min())
    low = -n if name == "index_fill" else 0
    if not within and (lo < low or int(idx.max()) >= n):
        _index_out_of_range(name, input, d, int(idx[(idx < low) | (idx >= n)][0]), n)
    if source is not None:
        sshape = list(source._data.shape or (1,))
        ishape = list(input._data.shape or (1,))
        if len(sshape) != len(ishape) or sshape[:d] + sshape[d + 1:] != ishape[:d] + \
                ishape[d + 1:] or sshape[d] != idx.size:
            raise RuntimeError(f"{name}(): Source/destination tensor must have same slice "
                               f"shapes. Destination slice shape: "
                               f"{ishape[:d] + ishape[d + 1:]} at dimension {d} and source "
                               f"slice shape: {sshape[:d] + sshape[d + 1:]} at dimension {d}.")
    # (negative positions count from the end; without any, the index is used as it is)
    return d, xp_of(index).where(idx < 0, idx + n, idx) if lo < 0 else idx


# ops whose source PyTorch checks in its shared meta function, before the index's values
_META_CHECKED = ("index_add", "index_reduce")


def _check_source(name, input, d, count, source):
    """PyTorch's checks of index_add's / index_reduce's ``source`` against ``input`` and the
    ``count`` positions of the index, in its order: dtype, dim, count, other sizes."""
    if source._dtype is not input._dtype:
        raise RuntimeError(f"{name}_(): self ({input._dtype.scalar_name}) and source "
                           f"({source._dtype.scalar_name}) must have the same scalar type")
    shape, sshape = input._data.shape, source._data.shape
    if len(shape) == 1 == len(sshape) and sshape[0] == count:
        return              # (the 1-d call)
    if d != 0 and d >= len(sshape):
        raise RuntimeError(f"{name}_(): Indexing dim {d} is out of bounds of the source tensor "
                           f"with dim {len(sshape)}")
    size = sshape[d] if sshape else 1
    if count != size:
        raise RuntimeError(f"{name}_(): Number of indices ({count}) should be equal to "
                           f"source.size(dim): ({size}), for dim: {d}")
    rest, srest = list(shape), list(sshape)
    if rest and srest:
        del rest[d], srest[d]
    if rest != srest:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(shape)} source.shape = "
                           f"{list(sshape)}")


def _index_out_of_range(name, input, d, bad, n):
    """PyTorch's error for the index_* ops' first position ``bad`` outside the dim."""
    message = f"index {bad} is out of bounds for dimension {d} with size {n}"
    if name == "index_add" and input._data.ndim > 1:
        raise RuntimeError(message)
    if name == "index_copy":
        raise IndexError("index_copy_(): " + message)
    if name == "index_fill":
        raise IndexError(message)
    raise IndexError("index out of range in self")


def _index_linear(input, d, idx):
    """Flat positions in ``input``, shaped like the source, of ``index_*(dim=d, index=idx)``
    (computed with ``input``'s array module, so the positions live on its device)."""
    if input._data.ndim <= 1:
        return idx
    xp = xp_of(input)
    shape = input._data.shape
    outer = math.prod(shape[:d])
    inner = math.prod(shape[d + 1:])
    if outer == inner == 1:
        return idx
    lin = (xp.arange(outer)[:, None, None] * shape[d] + idx[None, :, None]) * inner \
        + xp.arange(inner)[None, None, :]
    return lin.reshape(shape[:d] + (idx.size,) + shape[d + 1:])


IndexAddNode = node_class("IndexAddBackward0", {
    "self": lambda grad, s: grad,
    "source": lambda grad, s: _index_source_grad(grad, s) * s.alpha
    if s.alpha != 1 else _index_source_grad(grad, s)})


def _index_source_grad(grad, s):
    g = grad.index_select(s.dim, s.index)
    return g.reshape(s.source_sizes) if not s.source_sizes else g


# (its refusal of uint16/32/64 operands, tested in the body: see limited_uint.claim_check)
_REFUSE_INDEX_ADD = limited_uint.claim_check("index_add")


def index_add(input, dim, index, source, *, alpha=1, out=None):
    """``input`` with ``alpha * source`` added at ``index`` along ``dim`` (repeats add up)."""
    check_tensor_arg(source, "index_add", "source", 3)
    if input._dtype in limited_uint.LIMITED or source._dtype in limited_uint.LIMITED:
        _REFUSE_INDEX_ADD(index_add, (input, dim, index, source), {"alpha": alpha, "out": out})
    d, idx = _index_arg("index_add", input, dim, index, source)
    xp = xp_of(input)
    res = input._data.copy()
    vals = source._data if alpha == 1 else source._data * scalar_as(alpha, input._dtype)
    reduce_into(xp, res.reshape(-1), _index_linear(input, d, idx), vals, "sum")
    result = make_tensor(res, input._dtype, input._device)
    if (input._requires_grad or source._requires_grad) and needs_grad(input, source):
        record(IndexAddNode, (input, source), (result,), dim=d, index=index, alpha=alpha,
               source_sizes=source._data.shape)
    return write_out(out, result) if out is not None else result


IndexCopyNode = node_class("IndexCopyBackward0", {
    "self": lambda grad, s: grad.index_fill(s.dim, s.index, 0),
    "source": _index_source_grad})


def index_copy(input, dim, index, source, *, out=None):
    """``input`` with the slices at ``index`` along ``dim`` replaced by ``source``'s."""
    check_tensor_arg(source, "index_copy", "source", 3)
    d, idx = _index_arg("index_copy", input, dim, index, source)
    if source._dtype is not input._dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {input._dtype.scalar_name} and (source) "
                           f"{source._dtype.scalar_name}")
    res = input._data.copy()
    flat = res.reshape(-1)
    flat[_index_linear(input, d, idx).reshape(-1)] = source._data.reshape(-1)
    result = wrap(res, input._dtype, input._device)
    if needs_grad(input, source):
        record(IndexCopyNode, (input, source), (result,), dim=d, index=index,
               source_sizes=source._data.shape)
    return write_out(out, result) if out is not None else result


IndexFillNode = node_class("IndexFillBackward0", {
    "self": lambda grad, s: grad.index_fill(s.dim, s.index, 0)})
IndexFillTensorNode = node_class("IndexFillBackward1", {
    "self": lambda grad, s: grad.index_fill(s.dim, s.index, 0),
    "value": lambda grad, s: grad.index_select(s.dim, s.index).sum()})


def index_fill(input, dim, index, value):
    """``input`` with the slices at ``index`` along ``dim`` set to ``value``."""
    d, idx = _index_arg("index_fill", input, dim, index)
    tensor_value = isinstance(value, Tensor)
    if tensor_value and value._data.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value._data.ndim} dimension(s).")
    v = value._data.astype(input._data.dtype) if tensor_value else \
        checked_scalar(value, input._dtype)
    res = input._data.copy()     # row-major, so that the flat view below writes through
    res.reshape(-1)[_index_linear(input, d, idx).reshape(-1)] = v
    if not input._data.flags.c_contiguous:
        res = like_preserved(res, input._data)    # PyTorch's clone(preserve_format)
    result = wrap(res, input._dtype, input._device)
    if needs_grad(input, value if tensor_value else None):
        record(IndexFillTensorNode if tensor_value else IndexFillNode,
               (input, value if tensor_value else None), (result,), dim=d, index=index)
    return result


def _index_reduce_grads(grad, s):
    """index_reduce's gradient: scatter_reduce's, with the index spread over the source."""
    return _scatter_reduce_grads(grad, s)


IndexReduceNode = node_class("IndexReduceBackward0", {
    "self": lambda grad, s: _index_reduce_grads(grad, s)[0],
    "source": lambda grad, s: _index_reduce_grads(grad, s)[1]},
    saves_also=("dim", "index", "reduce", "include_self", "self", "src", "result"))


def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """Reduces the slices of ``source`` into ``input`` at ``index`` along ``dim`` with
    ``reduce`` ('prod', 'mean', 'amax' or 'amin')."""
    check_tensor_arg(source, "index_reduce", "source", 3)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    d, idx = _index_arg("index_reduce", input, dim, index, source)
    if not include_self and (input._dtype is D.bool or input._dtype.category == D.COMPLEX):
        not_implemented("index_reduce_func_exclude_input_init", input._dtype)
    xp = xp_of(input)
    res = input._data.copy()
    lin = _index_linear(input, d, idx)
    _reduce_flat(xp, res.reshape(-1), lin, source._data, reduce, include_self, input._dtype)
    result = wrap(res, input._dtype, input._device)
    if needs_grad(input, source):
        full = wrap(xp.broadcast_to(idx.reshape([-1 if i == d else 1
                                                 for i in range(max(res.ndim, 1))]),
                                    source._data.shape or (1,)).astype(np.int64), D.int64,
                    input._device)
        record(IndexReduceNode, (input, source), (result,), dim=d, index=full, reduce=reduce,
               include_self=include_self, self=input, src=source)
    return write_out(out, result) if out is not None else result


for _name, _fn, _nodes in (("index_add", index_add, (IndexAddNode,)),
                           ("index_copy", index_copy, (IndexCopyNode,)),
                           ("index_fill", index_fill, (IndexFillNode, IndexFillTensorNode)),
                           ("index_reduce", index_reduce, (IndexReduceNode,))):
    register(_name, _fn, inplace=make_inplace(_fn, _name), family="indexing",
             nodes=_nodes)

# ----------------------------------------------------------------------------------------------
# take / put / take_along_dim / masked_scatter / argwhere
# ----------------------------------------------------------------------------------------------


def _flat_index(name, input, index):
    if not isinstance(index, Tensor) or index._dtype is not D.int64:
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got "
                           f"{getattr(getattr(index, '_dtype', None), 'scalar_name', 'None')}")
    n = input._data.size
    idx = index._data
    lo = int(idx.min()) if idx.size else 0
    if idx.size and (lo < -n or int(idx.max()) >= n):
        bad = int(idx[(idx < -n) | (idx >= n)].reshape(-1)[0])
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         "elements.")
    return xp_of(index).where(idx < 0, idx + n, idx)


TakeNode = node_class("TakeBackward0", {
    "self": lambda grad, s: put(_zeros_of(s.self_sizes, grad), s.index, grad, True)})


def _zeros_of(shape, like):
    from .creation import zeros
    return zeros(shape, dtype=like.dtype, device=like.device)


def take(input, index):
    """The elements of ``input`` (as if flattened) at ``index``; the result has index's shape."""
    check_tensor_arg(index, "take", "index", 2)
    idx = _flat_index("take", input, index)
    res = input._data.reshape(-1)[idx]
    if not res.flags.c_contiguous:
        res = row_major(res)     # PyTorch's take is row-major whatever the index's layout
    result = wrap(res, input._dtype, input._device)
    if input._requires_grad and needs_grad(input):
        record(TakeNode, (input,), (result,), self_sizes=input._data.shape, index=index)
    return result


PutNode = node_class("PutBackward0", {
    "self": lambda grad, s: grad if s.accumulate else
    put(grad, s.index, _zeros_of(s.source_sizes, grad), False),
    "source": lambda grad, s: take(grad, s.index).reshape(s.source_sizes)})


def put(input, index, source, accumulate=False):
    """A copy of ``input`` with the elements (as if flattened) at ``index`` set to (or, with
    ``accumulate``, increased by) ``source``."""
    check_tensor_arg(source, "put", "source", 3)
    idx = _flat_index("put", input, index)
    if source._dtype is not input._dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {input._dtype.scalar_name} and source.dtype = "
                           f"{source._dtype.scalar_name}")
    if source._data.size != idx.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                           f"elements, but got source.numel() = {source._data.size}, "
                           f"index.numel() = {idx.size}")
    res = input._data.copy()     # row-major, so that the flat view below writes through
    flat = res.reshape(-1)
    if accumulate:
        reduce_into(xp_of(input), flat, idx, source._data, "sum")
    else:
        flat[idx.reshape(-1)] = source._data.reshape(-1)
    if not input._data.flags.c_contiguous:
        res = like_preserved(res, input._data)    # PyTorch's clone(preserve_format)
    result = wrap(res, input._dtype, input._device)
    if needs_grad(input, source):
        record(PutNode, (input, source), (result,), index=index, accumulate=accumulate,
               source_sizes=source._data.shape)
    return result


register("take", take, family="indexing", nodes=(TakeNode,))
register("put", put, inplace=make_inplace(put, "put"), family="indexing", nodes=(PutNode,))


def take_along_dim(input, indices, dim=None, *, out=None):
    """Picks values along ``dim`` at ``indices`` (broadcast against ``input`` elsewhere);
    without ``dim``, from the flattened input (NumPy's take_along_axis)."""
    check_tensor_arg(indices, "take_along_dim", "indices", 2)
    if indices._dtype is not D.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices._dtype.scalar_name}")
    if dim is None:
        result = input.reshape(-1).gather(0, indices.reshape(-1))
    else:
        if input._data.ndim != indices._data.ndim:
            raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                               f"number of dimensions, but got {input._data.ndim} dimensions "
                               f"for input, and {indices._data.ndim} dimensions for indices")
        d = wrap_dim(dim, max(input._data.ndim, 1))
        sizes = list(input._data.shape)
        if sizes:
            sizes[d] = indices._data.shape[d]
        shape = list(broadcast_shape(tuple(sizes), indices._data.shape))
        idx = indices.broadcast_to(shape)
        if shape:
            shape[d] = input._data.shape[d]
        result = input.broadcast_to(shape).gather(d, idx)
    return write_out(out, result) if out is not None else result


register("take_along_dim", take_along_dim, family="indexing")


def _masked_scatter_source_grad(grad, s):
    from .creation import zeros
    picked = grad.masked_select(s.mask)
    n = s.source_numel
    flat = zeros((n,), dtype=grad.dtype, device=grad.device)
    if picked.shape[0]:
        flat = flat.index_put((_arange(picked.shape[0], grad),), picked)
    return flat.reshape(s.source_sizes)


def _arange(n, like):
    from .creation import arange
    return arange(n, device=like.device)


MaskedScatterNode = node_class("MaskedScatterBackward0", {
    "self": lambda grad, s: grad.masked_fill(s.mask, 0),
    "source": _masked_scatter_source_grad})


def masked_scatter(input, mask, source):
    """A copy of ``input`` with the positions where ``mask`` is True filled, in order, from
    the elements of ``source``."""
    check_tensor_arg(mask, "masked_scatter", "mask", 2)
    check_tensor_arg(source, "masked_scatter", "source", 3)
    if mask._dtype is not D.bool:
        raise RuntimeError(f"masked_scatter_only supports boolean masks, but got mask with dtype "
                           f"{mask._dtype.cpp_name}")
    if source._dtype is not input._dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got{input._dtype.scalar_name} and {source._dtype.scalar_name}")
    shape = broadcast_shape(input._data.shape, mask._data.shape)
    xp = xp_of(input)
    m = xp.broadcast_to(mask._data, shape)
    res = xp.broadcast_to(input._data, shape).copy()
    k = int(m.sum())
    if k > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    res[m] = source._data.reshape(-1)[:k]
    result = wrap(res, input._dtype, input._device)
    if needs_grad(input, source):
        record(MaskedScatterNode, (input, source), (result,),
               mask=wrap(m.copy(), D.bool, input._device), source_numel=source._data.size,
               source_sizes=source._data.shape)
    return result


register("masked_scatter", masked_scatter, inplace=make_inplace(masked_scatter, "masked_scatter"),
         family="indexing", nodes=(MaskedScatterNode,))


def argwhere(input):
    """The indices of the non-zero elements, one row each (``nonzero`` under NumPy's name)."""
    from .indexing import nonzero
    return nonzero(input)


register("argwhere", argwhere, family="indexing")
