"""``torch.segment_reduce``: reduce runs of consecutive slices along one axis (segments given
by their lengths or offsets) with sum, mean, max, min or prod.

The forward runs one ``ufunc.reduceat`` over the data viewed as (batch * N, rest): segments
are contiguous in that order even when ``lengths`` has batch dimensions. The derivatives are
written in cinder ops (a segment's gradient is spread back to its elements with one
``index_select``), so higher-order gradients work too.
"""

import numpy as np

from .. import _dtype as D
from .._tensor import make_tensor
from ._prep import xp_of
from ._registry import needs_grad, node_class, record, register

_UFUNCS = {"sum": "add", "mean": "add", "prod": "multiply", "max": "maximum",
           "min": "minimum"}
_ALIASES = {"amax": "max", "amin": "min"}
# the result of an empty segment when no ``initial`` is given
_EMPTY = {"sum": 0.0, "mean": float("nan"), "prod": 1.0, "max": float("-inf"),
          "min": float("inf")}


class _Layout:
    """Where the segments lie: the data seen as (rows = batch * N, rest), the segment of each
    row (``seg_of``), the start row and length of each segment, and the result's shape."""

    def __init__(self, xp, shape, lengths, axis):
        batch = int(np.prod(shape[:axis], dtype=np.int64))
        n = shape[axis]
        per_batch = lengths.reshape(batch, -1).astype(np.int64)
        segments = per_batch.shape[1]
        local = xp.cumsum(per_batch, axis=1) - per_batch
        self.starts = (local + xp.arange(batch)[:, None] * n).reshape(-1)
        self.lengths = per_batch.reshape(-1)
        self.rows = batch * n
        self.rest = tuple(shape[axis + 1:])
        self.out_shape = tuple(shape[:axis]) + (segments,) + self.rest
        self._xp = xp
        self._seg_of = None

    @property
    def seg_of(self):
        """The segment of each row (-1 for rows outside every segment, on unsafe input);
        built on first use, by the backward."""
        if self._seg_of is None:
            xp, lengths = self._xp, self.lengths
            ids = xp.repeat(xp.arange(lengths.size), lengths)
            first = xp.repeat(xp.cumsum(lengths) - lengths, lengths)
            row_of = xp.repeat(self.starts, lengths) + (xp.arange(ids.size) - first)
            self._seg_of = xp.full(self.rows, -1, dtype=np.int64)
            self._seg_of[row_of] = ids
        return self._seg_of


def _reduce_array(xp, data, layout, reduce, initial):
    """The reduced (segments, rest) array of ``data`` seen as (rows, rest)."""
    flat = data.reshape((layout.rows, -1))
    empty = layout.lengths == 0
    if layout.rows:
        starts = xp.minimum(layout.starts, layout.rows - 1)
        out = getattr(xp, _UFUNCS[reduce]).reduceat(flat, starts, axis=0)
    else:
        out = xp.zeros((layout.lengths.size, flat.shape[1]), dtype=data.dtype)
    if reduce == "mean":
        if initial is not None:
            out = out + data.dtype.type(initial)
        out = out / xp.maximum(layout.lengths, 1)[:, None].astype(data.dtype)
    elif initial is not None:
        out = getattr(xp, _UFUNCS[reduce])(out, data.dtype.type(initial))
    fill = _EMPTY[reduce] if initial is None else initial
    out[empty] = fill
    return out.reshape(layout.out_shape)


def _spread(t, layout):
    """``t`` (the result's shape) read back at every element of the data: each element gets
    its segment's value (0 for elements outside every segment)."""
    flat = t.reshape((-1,) + layout.rest)
    ids = make_tensor(layout.seg_of.clip(0), D.int64, t._device)
    rows = flat.index_select(0, ids)
    outside = layout.seg_of < 0
    if outside.any():
        mask = make_tensor(~outside, D.bool, t._device).reshape((-1,) + (1,) * len(layout.rest))
        rows = rows * mask.to(t.dtype)
    return rows


def _segment_grad(grad, s):
    layout, reduce, data = s.layout, s.reduce, s.data
    shape = tuple(data.shape)
    flat_data = data.reshape((layout.rows,) + layout.rest)
    if reduce == "sum":
        return _spread(grad, layout).reshape(shape)
    if reduce == "mean":
        counts = make_tensor(layout.lengths.clip(1).reshape(
            layout.out_shape[:len(layout.out_shape) - len(layout.rest)] + (1,) * len(layout.rest)
        ).astype(grad._dtype.numpy_dtype), grad._dtype, grad._device)
        return _spread(grad / counts, layout).reshape(shape)
    if reduce in ("max", "min"):
        # ties share the gradient equally, as in PyTorch
        hit = (flat_data == _spread(s.result, layout)).to(grad.dtype)
        ties = segment_reduce(hit.reshape(shape), "sum", lengths=s.lengths_t, axis=s.axis,
                              unsafe=True)
        return (_spread(grad / ties.clamp(min=1), layout) * hit).reshape(shape)
    return _prod_grad(grad, s, layout, flat_data, shape)


def _prod_grad(grad, s, layout, flat_data, shape):
    """d prod / d x_i is the product of the segment's other values (``initial`` included):
    result / x_i when the segment has no zero; at the only zero, the product of the rest;
    0 elsewhere."""
    zero = flat_data == 0
    zeros = segment_reduce(zero.to(grad.dtype).reshape(shape), "sum", lengths=s.lengths_t,
                           axis=s.axis, unsafe=True)
    zeros = _spread(zeros, layout)
    safe = flat_data.where(zero.logical_not(), flat_data.new_ones(()))
    others = segment_reduce(safe.reshape(shape), "prod", lengths=s.lengths_t, axis=s.axis,
                            unsafe=True, initial=s.initial)
    g = _spread(grad * others, layout)
    no_zero = g / safe * (zeros == 0).to(grad.dtype)
    only_zero = g * (zero.logical_and(zeros == 1)).to(grad.dtype)
    return (no_zero + only_zero).reshape(shape)


SegmentReduceNode = node_class("SegmentReduceBackward0", {"data": _segment_grad},
                               saves_also=("layout", "reduce", "lengths_t", "axis", "initial"))


def _lengths_of(data, lengths, offsets, axis, unsafe):
    """The lengths tensor (int64 array) from ``lengths`` or ``offsets``, with PyTorch's checks."""
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    given = lengths if lengths is not None else offsets
    if given._dtype not in (D.int64, D.int32):
        kind = "lengths" if lengths is not None else "offsets"
        raise NotImplementedError(f'"_segment_reduce_{kind}_cpu_kernel1" not implemented for '
                                  f"'{given._dtype.scalar_name}'")
    if axis != given.dim() - 1:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of "
                           f"lengths but got {axis}.")
    arr = given._data.astype(np.int64)
    if lengths is None:
        arr = arr[..., 1:] - arr[..., :-1]
        if arr.size and arr.min() < 0:
            raise RuntimeError("Expected segment_length >= 0 to be true, but got false.  (Could "
                               "this error message be improved?  If so, please report an "
                               "enhancement request to PyTorch.)")
    elif not unsafe:
        if arr.size and arr.min() < 0:
            raise RuntimeError("lengths contains negative value!")
        if arr.size and (arr.sum(axis=-1) != data.shape[axis]).any():
            raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to "
                               "sum to data.size(lengths.dim()-1) when !unsafe.")
    return arr


def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
                   unsafe=False, initial=None):
    """Reduce consecutive segments of ``data`` along ``axis``: ``reduce`` is 'sum', 'mean',
    'max' ('amax'), 'min' ('amin') or 'prod'; the segments are given by ``lengths`` or by
    ``offsets`` (their boundaries), with batch dimensions matching data's before ``axis``.
    ``initial`` joins every segment's reduction (and is the value of an empty one); without
    it an empty segment gives 0, nan, -inf, inf or 1. ``unsafe`` skips the lengths checks."""
    reduce = _ALIASES.get(reduce, reduce)
    if reduce not in _UFUNCS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    axis = axis + data.dim() if axis < 0 else axis
    lens = _lengths_of(data, lengths, offsets, axis, unsafe)
    if not data.is_floating_point():
        raise NotImplementedError(f'"_segment_reduce_cpu" not implemented for '
                                  f"'{data._dtype.scalar_name}'")
    xp = xp_of(data)
    layout = _Layout(xp, tuple(data.shape), lens, axis)
    arr = data._data
    if data._dtype in (D.float16, D.bfloat16):
        arr = arr.astype(np.float32)        # accumulate in float, as PyTorch's CPU kernel
    out = _reduce_array(xp, arr, layout, reduce, initial)
    result = make_tensor(out.astype(data._dtype.numpy_dtype, copy=False), data._dtype,
                         data._device)
    if needs_grad(data):
        lengths_t = make_tensor(lens, D.int64, data._device)
        record(SegmentReduceNode, (data,), (result,), data=data, layout=layout, reduce=reduce,
               lengths_t=lengths_t, axis=axis, initial=initial)
    return result


register("segment_reduce", segment_reduce, method=False, family="reduction",
         nodes=(SegmentReduceNode,))
