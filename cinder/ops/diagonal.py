"""Diagonals, triangles and slice writes: diag, diag_embed, diagflat,
diagonal_scatter, select_scatter, slice_scatter, tril/triu (+ in-place), fill_diagonal_."""

import numpy as np

from .._tensor import wrap_dim
from ..autograd.grad_mode import no_grad
from ._layouts import clone_preserve_strides
from ._prep import check_tensor_arg, wrap, xp_of
from ._registry import FUNCTIONS, make_inplace, needs_grad, node_class, record, register, write_out

# ----------------------------------------------------------------------------------------------
# diag_embed / diag / diagflat
# ----------------------------------------------------------------------------------------------

DiagEmbedNode = node_class("DiagEmbedBackward0", {
    "self": lambda grad, s: grad.diagonal(s.offset, s.dim1, s.dim2)})


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose (``dim1``, ``dim2``) diagonals at ``offset`` hold the last dim of
    ``input``; everything else is zero."""
    check_tensor_arg(input, "diag_embed", "input", 1)
    nd = input._data.ndim + 1
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    xp = xp_of(input)
    a = input._data if input._data.ndim else input._data.reshape(1)
    k = a.shape[-1]
    m = k + abs(offset)
    out = xp.zeros(a.shape[:-1] + (m, m), a.dtype)
    i = np.arange(k)
    out[..., i + max(-offset, 0), i + max(offset, 0)] = a
    # the two new dims sit last; move them where asked (the lower one first)
    lo, hi = sorted((d1, d2))
    out = xp.moveaxis(out, (-2, -1), (lo, hi))
    if d1 > d2:
        out = xp.swapaxes(out, d1, d2)
    result = wrap(xp.ascontiguousarray(out), input._dtype, input._device)
    if input._requires_grad and needs_grad(input):
        record(DiagEmbedNode, (input,), (result,), offset=offset, dim1=d1, dim2=d2)
    return result


def _zeros(shape, like):
    from .creation import zeros
    return zeros(shape, dtype=like.dtype, device=like.device)


def diag(input, diagonal=0, *, out=None):
    """For a 1-D input, the square matrix with it on the ``diagonal``; for a 2-D input, the
    ``diagonal`` as a 1-D tensor."""
    check_tensor_arg(input, "diag", "input", 1)
    if input._data.ndim == 1:
        result = diag_embed(input, diagonal, 0, 1)
    elif input._data.ndim == 2:
        result = FUNCTIONS["diagonal_copy"](input, diagonal, 0, 1)   # from the view entry
    else:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " f"{input._data.ndim}D")
    return write_out(out, result) if out is not None else result


def diagflat(input, offset=0):
    """The flattened ``input`` placed on the ``offset`` diagonal of a square matrix."""
    check_tensor_arg(input, "diagflat", "input", 1)
    return diag_embed(input.reshape(-1), offset, 0, 1)


register("diag_embed", diag_embed, family="diagonal", nodes=(DiagEmbedNode,))
register("diag", diag, family="diagonal")
register("diagflat", diagflat, family="diagonal")

# ----------------------------------------------------------------------------------------------
# *_scatter: write a piece into a copy
# ----------------------------------------------------------------------------------------------


def _scatter_into(name, input, src, view_of, node, **saved):
    """A copy of ``input`` whose view ``view_of(t)`` is overwritten with ``src``."""
    check_tensor_arg(src, name, "src", 2)
    # PyTorch starts from a clone with the input's very strides and storage offset
    out = wrap(clone_preserve_strides(input._data), input._dtype, input._device)
    with no_grad():
        piece = view_of(out)
    if piece._data.shape != src._data.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src._data.shape)}, slice size = {list(piece._data.shape)}")
    piece._data[...] = src._data
    if needs_grad(input, src):
        record(node, (input, src), (out,), **saved)
    return out


DiagonalScatterNode = node_class("DiagonalScatterBackward0", {
    "self": lambda grad, s: grad.diagonal_scatter(_zeros(s.src_sizes, grad), s.offset, s.dim1,
                                                  s.dim2),
    "src": lambda grad, s: grad.diagonal(s.offset, s.dim1, s.dim2)})


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of ``input`` with its diagonal (``offset``, ``dim1``, ``dim2``) set to ``src``."""
    return _scatter_into("diagonal_scatter", input, src,
                         lambda t: t.diagonal(offset, dim1, dim2), DiagonalScatterNode,
                         offset=offset, dim1=dim1, dim2=dim2, src_sizes=src._data.shape)


SelectScatterNode = node_class("SelectScatterBackward0", {
    "self": lambda grad, s: grad.select_scatter(_zeros(s.src_sizes, grad), s.dim, s.index),
    "src": lambda grad, s: grad.select(s.dim, s.index)})


def select_scatter(input, src, dim, index):
    """A copy of ``input`` with ``input.select(dim, index)`` set to ``src``."""
    return _scatter_into("select_scatter", input, src, lambda t: t.select(dim, index),
                         SelectScatterNode, dim=dim, index=index, src_sizes=src._data.shape)


SliceScatterNode = node_class("SliceScatterBackward0", {
    "self": lambda grad, s: grad.slice_scatter(_zeros(s.src_sizes, grad), s.dim, s.start, s.end,
                                               s.step),
    "src": lambda grad, s: _slice(grad, s.dim, s.start, s.end, s.step)})


def _slice(t, dim, start, end, step):
    key = (slice(None),) * wrap_dim(dim, max(t.dim(), 1)) + (slice(start, end, step),)
    return t[key]


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of ``input`` with the slice ``start:end:step`` along ``dim`` set to ``src``."""
    return _scatter_into("slice_scatter", input, src, lambda t: _slice(t, dim, start, end, step),
                         SliceScatterNode, dim=dim, start=start, end=end, step=step,
                         src_sizes=src._data.shape)


register("diagonal_scatter", diagonal_scatter, family="diagonal", nodes=(DiagonalScatterNode,))
register("select_scatter", select_scatter, family="diagonal", nodes=(SelectScatterNode,))
register("slice_scatter", slice_scatter, family="diagonal", nodes=(SliceScatterNode,))

# ----------------------------------------------------------------------------------------------
# tril / triu / fill_diagonal_
# ----------------------------------------------------------------------------------------------


def _triangle(name, keep_lower):
    node = node_class(name.capitalize() + "Backward0", {
        "self": lambda grad, s: getattr(grad, name)(s.diagonal)})

    def fn(input, diagonal=0, *, out=None):
        check_tensor_arg(input, name, "input", 1)
        if input._data.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        xp = xp_of(input)
        a = input._data
        rows = xp.arange(a.shape[-2])[:, None]
        cols = xp.arange(a.shape[-1])[None, :]
        keep = (cols - rows <= diagonal) if keep_lower else (cols - rows >= diagonal)
        res = xp.where(keep, a, xp.zeros((), a.dtype))
        if not res.flags.c_contiguous:      # (row-major whatever the input's layout)
            res = xp.ascontiguousarray(res)
        result = wrap(res, input._dtype, input._device)
        if input._requires_grad and needs_grad(input):
            record(node, (input,), (result,), diagonal=diagonal)
        return write_out(out, result) if out is not None else result
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"The {'lower' if keep_lower else 'upper'} triangle of the last two dims "
                  f"(elements on and {'below' if keep_lower else 'above'} ``diagonal``); "
                  "the rest set to zero.")
    register(name, fn, inplace=make_inplace(fn, name), family="diagonal", nodes=(node,))
    return fn


tril = _triangle("tril", True)
triu = _triangle("triu", False)

def fill_diagonal_(self, fill_value, wrap=False):
    """Fills the main diagonal (all dims equal, or any 2-D shape) with ``fill_value`` in place;
    ``wrap`` continues a tall matrix's diagonal every ncols + 1 rows. Written, as in PyTorch,
    as ``fill_`` on strided views of ``self`` (so autograd records CopySlices)."""
    shape = self._data.shape
    nd = len(shape)
    if nd < 2:
        raise RuntimeError("dimensions must larger than 1")
    if nd > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    size = min(shape)
    stride_sum = sum(self.stride())
    offset = self.storage_offset()
    self.as_strided((size,), (stride_sum,), offset).fill_(fill_value)
    height, width = shape[0], shape[1]
    if wrap and nd == 2 and height > width + 1:
        step = width + 1
        wrap_size = (self._data.size + step - 1) // step - size
        start = offset + self.stride(0) * (width + 1)
        self.as_strided((wrap_size,), (stride_sum,), start).fill_(fill_value)
    return self


register("fill_diagonal_", fill_diagonal_, function_too=False, family="diagonal")
