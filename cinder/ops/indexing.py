"""Indexing: ``t[key]`` and ``t[key] = value``, masked_fill, index_select, gather and friends.

``t[key]`` follows PyTorch's two steps. First the *basic* part of the key (ints, slices, None,
Ellipsis, 0-d integer tensors) is applied left to right as view ops, so those results are views
with PyTorch's node names (SelectBackward0, SliceBackward0, UnsqueezeBackward0, AliasBackward0).
Then, if the key held tensors, lists or bools, *advanced* indexing gathers a copy from that view
(IndexBackward0), laid out by NumPy's rule, which is PyTorch's: the indexed dims go where the
first index was when the indices are adjacent, and to the front when slices separate them.
``t[key] = value`` applies the same basic part and then copies into the view (CopySlices on the
base when autograd records) or puts values at the advanced indices (IndexPutBackward0).
"""

import warnings

import numpy as np

from .. import _dtype as D
from .. import backend
from .._tensor import Tensor, make_tensor, wrap_dim
from . import limited_uint
from ._inplace import make_inplace
from ._layouts import index_layout, preserved, row_major
from ._prep import as_compute, checked_scalar, fill_scalar, scalar_as, wrap, xp_of
from ._registry import (check_inplace, needs_grad, node_class, publish_attribute, record,
                        register)
from .view_select import _slice
from .views import make_view

from ._segment import index_within, linear_index, reduce_into  # noqa: I001  (segment sums for scatter)

_BAD_INDEX = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
              "are valid indices (got {})")
_NOT_INDEX_DTYPE = "tensors used as indices must be long, int, byte or bool tensors"
_MAXSIZE = 2 ** 63 - 1

AliasNode = node_class("AliasBackward0", {"self": lambda grad, s: grad})


# ----------------------------------------------------------------------------------------------
# Reading a key
# ----------------------------------------------------------------------------------------------

def _is_int(k):
    """What PyTorch accepts as an integer index: Python ints (not bools), NumPy integers."""
    return (type(k) is int) or (isinstance(k, (int, np.integer)) and not isinstance(k, bool))


def _is_mask_dtype(dtype):
    return dtype is D.bool or dtype is D.uint8


def _key_tuple(key):
    """The key as a tuple; short lists holding slices, sequences or tensors count as tuples."""
    if type(key) is tuple:
        return key
    if isinstance(key, (list, str)) and len(key) < 32 and any(
            isinstance(k, (Tensor, list, tuple, slice, str)) or k is None or k is Ellipsis
            for k in key):
        warnings.warn(
            "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
            "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this "
            "will be interpreted as tensor index, x[torch.tensor(seq)], which will result "
            "either in an error or a different result", UserWarning, stacklevel=3)
        return tuple(key)
    if isinstance(key, tuple):
        return tuple(key)
    return (key,)


def _specified_dims(key):
    """How many dims of the tensor the key consumes (a bool mask consumes its own ndim)."""
    n = 0
    for k in key:
        if isinstance(k, Tensor):
            n += k._data.ndim if _is_mask_dtype(k._dtype) else 1
        elif k is not None and k is not Ellipsis and k is not True and k is not False:
            n += 1
    return n


def _select_checked(t, dim, idx, real_dim=None):
    """``t.select(dim, idx)``; errors name ``real_dim``, the index's position in the key."""
    n = t._data.shape[dim]
    if idx < -n or idx >= n:
        where = dim if real_dim is None else real_dim
        raise IndexError(f"index {idx} is out of bounds for dimension {where} with size {n}")
    return t.select(dim, idx)


def _slice_bounds(k):
    """(start, stop, step) of a Python slice as PyTorch reads it (before clamping)."""
    step = 1 if k.step is None else k.step.__index__()
    if step == 0:
        raise ValueError("slice step cannot be zero")
    start = 0 if k.start is None else k.start.__index__()
    stop = _MAXSIZE if k.stop is None else k.stop.__index__()
    if step < 0:
        raise ValueError("step must be greater than zero")
    return start, stop, step


def _apply_slice(t, dim, k, optimize):
    start, stop, step = _slice_bounds(k)
    n = t._data.shape[dim]
    if optimize and start == 0 and stop >= n and step == 1:
        return t                      # a full slice is no op at all inside a tuple key
    start = min(max(start + n if start < 0 else start, 0), n)
    stop = min(max(stop + n if stop < 0 else stop, 0), n)
    return _slice(t, dim, start, max(start, stop), step)


def _apply_basic(t, key, optimize=True):
    """PyTorch's ``applySlicing``: the view that the basic part of ``key`` selects, and the
    advanced indices as ``[(dim in that view, index object)]``."""
    ndim = t._data.ndim
    specified = _specified_dims(key)
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    out, dim, advanced = t, 0, []
    for position, k in enumerate(key):
        if _is_int(k):
            out = _select_checked(out, dim, int(k), position)
        elif isinstance(k, slice):
            out = _apply_slice(out, dim, k, optimize)
            dim += 1
        elif k is Ellipsis:
            dim += ndim - specified
        elif k is None:
            out = out.unsqueeze(dim)
            dim += 1
        elif k is True or k is False:
            out = out.unsqueeze(dim)
            advanced.append((dim, k))
            dim += 1
        elif isinstance(k, Tensor):
            if k._data.ndim == 0 and k._dtype.category == D.INTEGRAL and k._dtype is not D.uint8:
                out = _select_checked(out, dim, int(k.item()), position)
            elif k._data.ndim == 0 and _is_mask_dtype(k._dtype):
                out = out.unsqueeze(dim)
                advanced.append((dim, bool(k.item())))
                dim += 1
            else:
                advanced.append((dim, k))
                dim += k._data.ndim if _is_mask_dtype(k._dtype) else 1
        elif isinstance(k, (list, tuple, range, np.ndarray, str)):
            arr = _sequence_index(k)
            advanced.append((dim, arr))
            dim += arr.ndim if arr.dtype == np.bool_ else 1
        else:
            raise IndexError(_BAD_INDEX.format(type(k).__name__))
    return out, advanced


def _sequence_index(seq):
    """A list/tuple/ndarray index as a NumPy int64 (or bool) array, as PyTorch converts it."""
    if isinstance(seq, str):
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(seq, np.ndarray):
        arr = seq
    else:
        try:
            arr = np.array(seq)
        except ValueError:
            raise IndexError(_NOT_INDEX_DTYPE) from None
    if arr.dtype == np.bool_:
        return arr
    if arr.dtype == object or arr.dtype.kind not in "iufb":
        bad = type(next(iter(np.ravel(arr)), seq)).__name__ if arr.size else "list"
        raise TypeError(f"new(): invalid data type '{bad}'")
    if arr.dtype.kind == "f" and isinstance(seq, np.ndarray):
        raise IndexError(_NOT_INDEX_DTYPE)
    return arr.astype(np.int64)


def _index_positions(view, advanced):
    """Advanced indices as ``[(dim, integer array)]`` on ``view``'s device: masks become the
    coordinates of their True entries, bool scalars become [0] or []."""
    xp = xp_of(view)
    shape = view._data.shape
    out = []
    for dim, k in advanced:
        if k is True or k is False:
            out.append((dim, xp.zeros((1 if k else 0,), dtype=np.int64)))
            continue
        if isinstance(k, Tensor):
            if k._dtype.category >= D.FLOATING:
                raise IndexError(_NOT_INDEX_DTYPE)
            arr = k._data
            if k._device != view._device:
                if k._device.type != "cpu" and k._data.ndim:
                    raise RuntimeError("indices should be either on cpu or on the same device as "
                                       f"the indexed tensor ({view._device})")
                arr = backend.to_device(arr, view._device)
            is_mask = _is_mask_dtype(k._dtype)
            if k._dtype is D.uint8:
                warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a "
                              "dtype torch.bool instead.", UserWarning, stacklevel=4)
        else:
            arr = k if xp is np else backend.to_device(k, view._device)
            is_mask = arr.dtype == np.bool_
        if is_mask:
            for j, n in enumerate(arr.shape):
                if n != shape[dim + j]:
                    raise IndexError(
                        f"The shape of the mask {list(arr.shape)} at index {j} does not match "
                        f"the shape of the indexed tensor {list(shape)} at index {dim + j}")
            out.extend((dim + j, a) for j, a in enumerate(xp.nonzero(arr.astype(bool))))
        else:
            out.append((dim, arr))
    _check_indices(out, shape)
    return out


def _check_indices(positions, shape):
    try:
        np.broadcast_shapes(*(a.shape for _, a in positions))
    except ValueError:
        shapes = ", ".join(str(list(a.shape)) for _, a in positions)
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together "
                         f"with shapes {shapes}") from None
    for order, (dim, a) in enumerate(positions):
        n = shape[dim]
        if a.size == 0:
            continue
        bad = (a >= n) | (a < -n)
        if bad.any():
            first = int(a.reshape(-1)[int(bad.reshape(-1).argmax())])
            raise IndexError(f"index {first} is out of bounds for dimension {order} with size "
                             f"{n}")


def _np_key(view, positions):
    key = [slice(None)] * view._data.ndim
    for dim, a in positions:
        key[dim] = a
    return tuple(key)


# ----------------------------------------------------------------------------------------------
# t[key]
# ----------------------------------------------------------------------------------------------

def _index_backward(grad, s):
    from .creation import zeros
    out = zeros(s.self_sizes, dtype=grad.dtype, device=grad.device)
    return index_put(out, s.key, grad, accumulate=True)


IndexNode = node_class("IndexBackward0", {"self": _index_backward})


def getitem(self, key):
    # Single simple keys take PyTorch's fast paths (a lone slice always records a slice).
    if _is_int(key):
        if self._data.ndim == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        return _select_checked(self, 0, int(key))
    if isinstance(key, slice):
        if self._data.ndim == 0:
            raise IndexError("too many indices for tensor of dimension 0")
        return _apply_slice(self, 0, key, optimize=False)
    if key is None:
        return self.unsqueeze(0)
    if key is Ellipsis:
        return make_view(self, self._data[...], AliasNode)
    view, advanced = _apply_basic(self, _key_tuple(key))
    if not advanced:
        return make_view(self, self._data[...], AliasNode) if view is self else view
    return getitem_np(view, _np_key(view, _index_positions(view, advanced)))


def getitem_np(t, np_key):
    """Differentiable ``t[np_key]`` for a key already converted to arrays (a dense copy)."""
    arr = t._data
    res = arr[np_key]
    if arr.flags.c_contiguous and all(k.__class__ is slice or k.flags.c_contiguous
                                      for k in np_key):
        res = row_major(res)
    else:
        # PyTorch's index follows a permuted input (or permuted index tensors)
        res = index_layout(res, arr, np_key)
    result = make_tensor(res, t._dtype, t._device)
    if t._requires_grad and needs_grad(t):
        record(IndexNode, (t,), (result,), self_sizes=t._data.shape, key=np_key)
    return result


publish_attribute("__getitem__", getitem)


# ----------------------------------------------------------------------------------------------
# t[key] = value, index_put
# ----------------------------------------------------------------------------------------------

def _put_self_backward(grad, s):
    if s.accumulate:
        return grad
    return index_put(grad, s.key, 0.0)


def _put_values_backward(grad, s):
    return getitem_np(grad, s.key).sum_to_size(s.values_sizes)


IndexPutNode = node_class("IndexPutBackward0", {
    "self": _put_self_backward, "values": _put_values_backward}, saves_also=("values_sizes",))


def index_put(input, key, values, accumulate=False):
    """Out-of-place ``input[key] = values`` (``+=`` with accumulate, duplicates summed);
    ``key`` is a NumPy key from ``_np_key``."""
    # a clone keeping the input's layout (PyTorch's preserve_format), filled in place
    out = make_tensor(preserved(input._data), input._dtype, input._device)
    _put_into(out._data, key, values, input._dtype, accumulate)
    v = values if isinstance(values, Tensor) else None
    if needs_grad(input, v):
        record(IndexPutNode, (input, v), (out,), key=key, accumulate=accumulate,
               values_sizes=None if v is None else v._data.shape)
    return out


def _put_into(arr, key, values, dtype, accumulate):
    if isinstance(values, Tensor):
        vals = values._data if values._dtype is dtype else values._data.astype(dtype.numpy_dtype)
    else:
        vals = scalar_as(values, dtype)
    try:
        if accumulate:
            xp = np if isinstance(arr, np.ndarray) else backend.cupy_module()
            xp.add.at(arr, key, vals)
        else:
            arr[key] = vals
    except ValueError:
        shape = list(np.shape(vals))
        while shape and shape[0] == 1:
            shape.pop(0)
        raise RuntimeError(f"shape mismatch: value tensor of shape {shape} cannot be broadcast "
                           f"to indexing result of shape {list(arr[key].shape)}") from None


def _value_tensor(self, value):
    """The right-hand side of ``t[key] = value``: tensors as they are, Python numbers as 0-d
    tensors of ``t``'s dtype; anything else is PyTorch's TypeError."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float, complex, np.number, np.bool_)):
        # PyTorch stores the value as a one-element fill (a range check, except for the
        # half types)
        arr = np.array(fill_scalar(value, self._dtype, 1), dtype=self._dtype.numpy_dtype)
        return make_tensor(arr, self._dtype)
    raise TypeError(f"can't assign a {_qualname(value)} to a {self.type()}")


def _qualname(obj):
    cls = type(obj)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"


def _copy_to(dst, src):
    """PyTorch's ``copy_to``: fill for a 0-d value, else copy the value expanded to ``dst``."""
    if dst._data.shape == src._data.shape:
        dst.copy_(src)
    elif src._data.ndim == 0 and src._device.type == "cpu":
        dst.fill_(src)
    else:
        shape = src._data.shape
        lead = 0
        while lead < len(shape) and shape[lead] == 1:
            lead += 1
        if lead:
            src = src.view(shape[lead:])
        dst.copy_(src.expand(dst.shape))


def _index_put_inplace(self, np_key, value, accumulate):
    """Write ``value`` at ``np_key`` of ``self`` in place (recording IndexPutBackward0)."""
    check_inplace(self)
    if isinstance(value, Tensor) and value._dtype is not self._dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{self._dtype.scalar_name} for the destination and {value._dtype.scalar_name} for "
            "the source.")
    if needs_grad(self, value if isinstance(value, Tensor) else None):
        from .views import rebase_history
        result = index_put(self, np_key, value, accumulate)
        self._data[...] = result._data
        self._bump_version()
        rebase_history(self, result)
        return self
    _put_into(self._data, np_key, value, self._dtype, accumulate)
    self._bump_version()
    return self


def setitem(self, key, value):
    value = _value_tensor(self, value)
    if key is False:
        return                        # PyTorch does nothing at all for t[False] = v
    if isinstance(value, Tensor) and value._device != self._device and value._data.ndim > 0:
        raise RuntimeError(f"expected device {self._device} but got device {value._device}")
    if _is_int(key):
        if self._data.ndim == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        view, advanced = _select_checked(self, 0, int(key)), ()
    else:
        view, advanced = _apply_basic(self, _key_tuple(key))
    if not advanced:
        _copy_to(view, value)
        return
    _index_put_inplace(view, _np_key(view, _index_positions(view, advanced)), value, False)


publish_attribute("__setitem__", setitem, "index_put")


def index_put_slices(t, key, piece):
    """A copy of ``t`` with ``t[key]`` replaced by ``piece`` (differentiable)."""
    out = t.clone()
    out[key] = piece
    return out


def _indices_key(self, indices, name):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{name}(): argument 'indices' (position 1) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    if len(indices) > self._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self._data.ndim} (got "
                         f"{len(indices)})")
    advanced, dim = [], 0
    for k in indices:
        if k is not None:
            advanced.append((dim, k))
        dim += k._data.ndim if isinstance(k, Tensor) and _is_mask_dtype(k._dtype) else 1
    return _np_key(self, _index_positions(self, advanced))


def index_put_(self, indices, values, accumulate=False):
    """``self[indices] = values`` in place (``+=`` with ``accumulate``); returns self."""
    return _index_put_inplace(self, _indices_key(self, indices, "index_put_"), values,
                              accumulate)


def _index_put_function(input, indices, values, accumulate=False):
    key = _indices_key(input, indices, "index_put")
    if isinstance(values, Tensor) and values._dtype is not input._dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{input._dtype.scalar_name} for the destination and {values._dtype.scalar_name} "
            "for the source.")
    return index_put(input, key, values, accumulate)


register("index_put", _index_put_function, inplace=index_put_, family="indexing",
         nodes=(IndexPutNode,))


# ----------------------------------------------------------------------------------------------
# masked_fill, index_select, gather, nonzero, masked_select
# ----------------------------------------------------------------------------------------------

MaskedFillNode = node_class("MaskedFillBackward0", {
    "self": lambda grad, s: grad.masked_fill(s.mask, 0)})
MaskedFillTensorNode = node_class("MaskedFillBackward1", {
    "self": lambda grad, s: grad.masked_fill(s.mask, 0),
    "value": lambda grad, s: grad.masked_fill(~s.mask, 0).sum()})


def masked_fill(input, mask, value):
    """``input`` with ``value`` where the bool ``mask`` (broadcast) is True."""
    if not isinstance(mask, Tensor) or mask._dtype is not D.bool:
        got = mask.dtype.cpp_name if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{got}")
    xp = xp_of(input)
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.dim()} dimension(s).")
        v = as_compute(value, input._dtype, input._device)
    else:
        v = checked_scalar(value, input._dtype)
    m = as_compute(mask, D.bool, input._device)
    try:
        res = xp.where(m, v, input._data)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({input.shape[-1]}) must match the size of "
                           f"tensor b ({mask.shape[-1]}) at non-singleton dimension "
                           f"{input.dim() - 1}") from None
    # (row-major whatever the input's layout: PyTorch fills a contiguous clone)
    result = wrap(res.astype(input._dtype.numpy_dtype, order="C", copy=False), input._dtype,
                  input._device)
    if isinstance(value, Tensor):
        if needs_grad(input, value):
            record(MaskedFillTensorNode, (input, value), (result,), mask=mask)
    elif input._requires_grad and needs_grad(input):
        record(MaskedFillNode, (input,), (result,), mask=mask)
    return result


register("masked_fill", masked_fill, inplace=True, family="indexing",
         nodes=(MaskedFillNode, MaskedFillTensorNode))




def _index_select_backward(grad, s):
    from .creation import zeros
    out = zeros(s.self_sizes, dtype=grad.dtype, device=grad.device)
    return index_put(out, s.key, grad, accumulate=True)


IndexSelectNode = node_class("IndexSelectBackward0", {"self": _index_select_backward})


def index_select(input, dim, index, *, out=None):
    """The entries of ``input`` at positions ``index`` (1-d) along ``dim`` (a copy)."""
    d = wrap_dim(dim, max(input._data.ndim, 1))
    if not isinstance(index, Tensor) or index._dtype not in (D.int64, D.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index._data.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    idx = index._data.reshape(-1)
    if input._data.ndim == 0:
        view = input.reshape(1)
        key = (idx,)
    else:
        view = input
        key = (slice(None),) * d + (idx,)
    positions = [(d if input._data.ndim else 0, idx)]
    _check_indices(positions, view._data.shape)
    data = row_major(view._data[key])
    result = make_tensor(data.reshape(()) if input._data.ndim == 0 else data, input._dtype,
                         input._device)
    if view._requires_grad and needs_grad(view):
        record(IndexSelectNode, (view,), (result,), self_sizes=view._data.shape, key=key)
    if out is not None:
        from ._registry import write_out
        return write_out(out, result)
    return result


register("index_select", index_select, family="indexing", nodes=(IndexSelectNode,))


def nonzero(input, *, as_tuple=False):
    """Coordinates of the non-zero entries: an (n, ndim) int64 tensor laid out column-major
    like PyTorch's, or a tuple of 1-d tensors."""
    xp = xp_of(input)
    data = input._data if input._data.ndim else input._data.reshape(1)
    idx = xp.nonzero(data)
    if as_tuple:
        return tuple(wrap(i.astype(np.int64), D.int64, input._device) for i in idx)
    n, nd = idx[0].size, input._data.ndim
    if n and nd:
        cols = xp.empty((nd, n), np.int64)
        for j, i in enumerate(idx):
            cols[j] = i
        arr = cols.T
    else:
        arr = _backend_strided(xp.empty((0,), np.int64), (n, nd), (8, 8 * n))
    return wrap(arr, D.int64, input._device)


register("nonzero", nonzero, family="indexing")


def _backend_strided(arr, shape, strides):
    from .views import _backend_strided as strided
    return strided(arr, shape, strides)


def _masked_select_backward(grad, s):
    from .creation import zeros
    out = zeros(s.full_sizes, dtype=grad.dtype, device=grad.device)
    return index_put(out, s.key, grad).sum_to_size(s.self_sizes)


MaskedSelectNode = node_class("MaskedSelectBackward0", {"self": _masked_select_backward})


def masked_select(input, mask, *, out=None):
    """The entries of ``input`` where the bool ``mask`` (broadcast together) is True, as 1-d."""
    if not isinstance(mask, Tensor) or mask._dtype is not D.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    xp = xp_of(input)
    shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
    key = xp.nonzero(xp.broadcast_to(as_compute(mask, D.bool, input._device), shape))
    result = make_tensor(xp.broadcast_to(input._data, shape)[key], input._dtype, input._device)
    if input._requires_grad and needs_grad(input):
        record(MaskedSelectNode, (input,), (result,), self_sizes=input._data.shape,
               full_sizes=shape, key=key)
    if out is not None:
        from ._registry import write_out
        return write_out(out, result)
    return result


register("masked_select", masked_select, family="indexing", nodes=(MaskedSelectNode,))

def _along_dim_key(name, input, d, index, src=None):
    """The NumPy key that pairs every element of ``index`` with its position along the other
    dims (gather/scatter), after PyTorch's checks."""
    if not isinstance(index, Tensor) or index._dtype not in (D.int64, D.int32):
        # (scatter_add and scatter_reduce share scatter's checks and their wording)
        raise RuntimeError(f"{'gather' if name == 'gather' else 'scatter'}(): Expected dtype "
                           "int32/int64 for index")
    if src is not None and src._dtype is not input._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    shape, ishape = input._data.shape, index._data.shape
    if (len(shape) == 1 == len(ishape) and index._device is input._device
            and (src is None or (src._data.ndim == 1 and src._data.shape >= ishape))
            and index_within(
                index._data, shape[0])):
        # (the 1-d call with every position in range: nothing else to check)
        return (index._data,)
    if not index._data.size:
        # PyTorch checks no shapes for an empty index: nothing is read or written
        return tuple(xp_of(input).zeros(0, np.int64) for _ in range(max(len(shape), 1)))
    if len(ishape) != len(shape) and not (len(ishape) <= 1 and len(shape) <= 1):
        what = "input" if name == "gather" else "self"
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} "
                           "tensor")
    if src is not None and len(ishape) != src._data.ndim and not (
            len(ishape) <= 1 and src._data.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    shape_ = shape or (1,)
    ishape_ = ishape or (1,)
    for i, (k, n) in enumerate(zip(ishape_, shape_)):
        too_big_for_src = src is not None and k > (src._data.shape or (1,))[i]
        if (i != d and k > n) or too_big_for_src:
            if name == "gather":
                raise RuntimeError(f"Size does not match at dimension {i} expected index "
                                   f"{list(ishape)} to be no larger than self {list(shape)} "
                                   f"apart from dimension {d}")
            raise RuntimeError(f"Expected index {list(ishape)} to be no larger than self "
                               f"{list(shape)} apart from dimension {d} and to be no larger size "
                               f"than src {list(src._data.shape)}")
    xp = xp_of(input)
    idx = as_compute(index, index._dtype, input._device).reshape(ishape_)
    n = shape_[d]
    # (min/max are two fast reductions; a boolean mask costs three passes and a temporary)
    if not index_within(idx, n):
        bad = (idx < 0) | (idx >= n)
        if bad.any():
            first = int(idx.reshape(-1)[int(bad.reshape(-1).argmax())])
            raise RuntimeError(f"index {first} is out of bounds for dimension {d} with size {n}")
    if len(ishape_) == 1:
        return (idx,)
    # open grids (arange along one dim each) for every dim but ``d``, which takes the index
    ones = (1,) * len(ishape_)
    return tuple(idx if i == d else xp.arange(k).reshape(ones[:i] + (k,) + ones[i + 1:])
                 for i, k in enumerate(ishape_))


def _gather_backward(grad, s):
    from .creation import zeros
    out = zeros(s.self_sizes, dtype=grad.dtype, device=grad.device)
    return out.scatter_add(s.dim, s.index, grad)


GatherNode = node_class("GatherBackward0", {"self": _gather_backward})


def gather(input, dim, index, *, sparse_grad=False, out=None):
    """``out[i][j] = input[index[i][j]][j]`` along ``dim`` (index may be smaller than input)."""
    d = wrap_dim(dim, input._data.ndim)
    key = _along_dim_key("gather", input, d, index)
    data = input._data if input._data.ndim else input._data.reshape(1)
    # (1-d: ``take`` is several times faster than fancy indexing; the key is checked)
    picked = data.take(key[0]) if len(key) == 1 else data[key]
    picked = picked.reshape(index._data.shape)
    if not picked.flags.c_contiguous:       # (row-major whatever the index's layout)
        picked = xp_of(input).ascontiguousarray(picked)
    result = make_tensor(picked, input._dtype, input._device)
    if input._requires_grad and needs_grad(input):
        record(GatherNode, (input,), (result,), self_sizes=input._data.shape, dim=d, index=index)
    if out is not None:
        from ._registry import write_out
        return write_out(out, result)
    return result


register("gather", gather, family="indexing", nodes=(GatherNode,))

ScatterAddNode = node_class("ScatterAddBackward0", {
    "self": lambda grad, s: grad,
    "src": lambda grad, s: grad.gather(s.dim, s.index)})
ScatterNode = node_class("ScatterBackward0", {
    "self": lambda grad, s: grad.scatter(s.dim, s.index, 0),
    "src": lambda grad, s: grad.gather(s.dim, s.index)})
ScatterValueNode = node_class("ScatterBackward1", {
    "self": lambda grad, s: grad.scatter(s.dim, s.index, 0)})


# (its refusal of uint16/32/64 inputs, tested in the body: see limited_uint.claim_check)
_REFUSE_SCATTER_ADD = limited_uint.claim_check("scatter_add")


def scatter_add(input, dim, index, src):
    """``out[index[i][j]][j] += src[i][j]`` along ``dim`` (duplicates accumulate)."""
    if input._dtype in limited_uint.LIMITED:
        _REFUSE_SCATTER_ADD(scatter_add, (input, dim, index, src), {})
    d = wrap_dim(dim, input._data.ndim)
    key = _along_dim_key("scatter_add", input, d, index, src)
    out = input._data.copy()
    if out.ndim == 1 and src._data.shape == index._data.shape:
        # (the 1-d call: the key is the index itself, the values are all of src)
        reduce_into(xp_of(input), out, linear_index(key, out.shape), src._data, "sum")
    else:
        flat = out if out.ndim else out.reshape(1)
        vals = _src_block(src, index)
        # (a segment reduction: see ops/_segment.py for which kernel runs)
        reduce_into(xp_of(input), flat.reshape(-1), linear_index(key, flat.shape), vals, "sum")
    result = make_tensor(out, input._dtype, input._device)
    if (input._requires_grad or src._requires_grad) and needs_grad(input, src):
        record(ScatterAddNode, (input, src), (result,), dim=d, index=index)
    return result


def _src_block(src, index):
    """The leading block of ``src`` with ``index``'s shape (src may be larger)."""
    vals = src._data if src._data.ndim else src._data.reshape(1)
    if not index._data.size:
        return vals.reshape(-1)[:0]
    ishape = index._data.shape or (1,)
    if vals.shape == ishape:
        return vals
    return vals[tuple(slice(0, k) for k in ishape)]


register("scatter_add", scatter_add, inplace=make_inplace(scatter_add, "scatter_add"),
         family="indexing", nodes=(ScatterAddNode,))


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """``out[index[i][j]][j] = src[i][j]`` along ``dim`` (or the scalar ``value``)."""
    if src is not None and not isinstance(src, Tensor):
        src, value = None, src
    if src is None and value is None:
        raise TypeError("scatter() received an invalid combination of arguments - got (int, "
                        "Tensor), but expected one of:\n * (int dim, Tensor index, Tensor src)\n"
                        " * (int dim, Tensor index, Tensor src, *, str reduce)\n * (int dim, "
                        "Tensor index, Number value)\n * (int dim, Tensor index, Number value, *, "
                        "str reduce)\n")
    d = wrap_dim(dim, input._data.ndim)
    key = _along_dim_key("scatter", input, d, index, src)
    out = input._data.copy()
    flat = out if out.ndim else out.reshape(1)
    vals = checked_scalar(value, input._dtype) if src is None else _src_block(src, index)
    xp = xp_of(input)
    if reduce is None:
        flat[key] = vals
    elif reduce in ("add", "multiply"):
        reduce_into(xp, flat.reshape(-1), linear_index(key, flat.shape), vals,
                    "sum" if reduce == "add" else "prod")
    else:
        raise RuntimeError(f"reduce argument must be either add or multiply. Got {reduce}")
    result = wrap(out, input._dtype, input._device)
    if reduce is None and needs_grad(input, src):
        if src is None:
            record(ScatterValueNode, (input,), (result,), dim=d, index=index)
        else:
            record(ScatterNode, (input, src), (result,), dim=d, index=index)
    return result


register("scatter", scatter, inplace=make_inplace(scatter, "scatter"), family="indexing",
         nodes=(ScatterNode, ScatterValueNode))
