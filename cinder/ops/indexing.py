"""Indexing: ``t[key]`` and ``t[key] = value``, masked_fill, index_select, gather and friends.

Basic keys (ints, slices, None, ...) become a chain of view ops, so the results are views and
carry PyTorch's node names (SelectBackward0, SliceBackward0, UnsqueezeBackward0). Keys with
tensors, lists or bools use advanced indexing: a copy, laid out by NumPy's rules (which are
PyTorch's), with IndexBackward0 / IndexPutBackward0 nodes.
"""

import numpy as np

from .. import _dtype as D
from .. import backend
from .._tensor import Tensor, make_tensor
from ._prep import as_compute, scalar_as, wrap, xp_of
from ._registry import check_inplace, node_class, needs_grad, record, register
from .views import _slice, make_view

_BASIC = (int, slice, type(None), type(Ellipsis))


def _normalize_key(key):
    if isinstance(key, tuple):
        return key
    if isinstance(key, list) and key and all(isinstance(k, (list, tuple, slice, Tensor)) or
                                             k is None or k is Ellipsis for k in key):
        return tuple(key)      # legacy: a list of index objects is treated as a tuple
    return (key,)


def _is_basic(key):
    for k in key:
        if isinstance(k, bool) or not isinstance(k, _BASIC):
            if isinstance(k, (np.integer,)) or (isinstance(k, Tensor) and k.dim() == 0 and
                                                k._dtype.category == D.INTEGRAL):
                continue
            return False
    return True


def _count_dims(key):
    return sum(1 for k in key if k is not None and k is not Ellipsis and not isinstance(k, bool))


def _basic_index(t, key):
    """Apply a basic key as select/slice/unsqueeze views, left to right."""
    n_real = _count_dims(key)
    if n_real > t.dim():
        raise IndexError(f"too many indices for tensor of dimension {t.dim()}")
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    out = t
    dim = 0
    for k in key:
        if k is Ellipsis:
            dim += t.dim() - n_real
        elif k is None:
            out = out.unsqueeze(dim)
            dim += 1
        elif isinstance(k, slice):
            start, stop, step = k.start, k.stop, k.step
            step = 1 if step is None else int(step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            n = out.shape[dim]
            s0, s1, _ = slice(start, stop, step).indices(n)
            out = _slice(out, dim, s0, max(s0, s1), step)
            dim += 1
        else:
            idx = int(k)
            n = out.shape[dim]
            if idx < -n or idx >= n:
                raise IndexError(f"index {idx} is out of bounds for dimension {dim} with size {n}")
            out = out.select(dim, idx)
    if out is t:
        out = make_view(t, t._data[...], AliasNode)
    return out


AliasNode = node_class("AliasBackward0", {"self": lambda grad, s: grad})


def _to_index_array(k, t, dim_size=None):
    """One key element as something NumPy's advanced indexing takes."""
    if isinstance(k, Tensor):
        if k._dtype.category >= D.FLOATING:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        arr = k._data
        if k._device != t._device:
            if k._device.type == "cpu" or k.dim() == 0:
                arr = backend.to_device(arr, t._device)
            else:
                raise RuntimeError("indices should be either on cpu or on the same device as the "
                                   f"indexed tensor ({t._device})")
        if k._dtype is D.uint8:
            arr = arr.astype(bool)
        return arr
    if isinstance(k, (list, tuple)):
        arr = np.asarray(k)
        if arr.dtype.kind == "f":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if arr.dtype == object:
            raise IndexError("too many indices")
        return arr if t._device.type == "cpu" else backend.to_device(arr, t._device)
    if isinstance(k, (bool, np.bool_)):
        return bool(k)
    if isinstance(k, (int, np.integer, slice)) or k is None or k is Ellipsis:
        return k
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                     "Variables are valid indices (got " + type(k).__name__ + ")")


def _np_key(t, key):
    out = tuple(_to_index_array(k, t) for k in key)
    for k in out:
        if isinstance(k, slice) and k.step is not None and k.step <= 0:
            raise ValueError("step must be greater than zero")
    return out


def _advanced_get(t, key):
    try:
        arr = t._data[key]
    except IndexError as e:
        raise IndexError(_torch_index_message(str(e))) from None
    return arr


def _torch_index_message(msg):
    return msg.replace("for axis", "for dimension").replace("axis", "dimension")


def _index_backward(grad, s):
    from .creation import zeros
    out = zeros(s.self_sizes, dtype=grad.dtype, device=grad.device)
    return index_put(out, s.key, grad, accumulate=True)


IndexNode = node_class("IndexBackward0", {"self": _index_backward})


def getitem(self, key):
    key = _normalize_key(key)
    if _is_basic(key):
        return _basic_index(self, tuple(int(k) if isinstance(k, (np.integer, Tensor)) else k
                                        for k in key))
    np_key = _np_key(self, key)
    arr = _advanced_get(self, np_key)
    result = make_tensor(arr if arr.base is None or arr.base is not self._data else arr.copy(),
                         self._dtype, self._device)
    if self._requires_grad and needs_grad(self):
        record(IndexNode, (self,), (result,), self_sizes=self._data.shape, key=np_key)
    return result


Tensor.__getitem__ = getitem


def _put_self_backward(grad, s):
    if s.accumulate:
        return grad
    return index_put(grad, s.key, 0.0)


def _put_values_backward(grad, s):
    return make_tensor(grad._data[s.key], grad._dtype, grad._device) if not grad._requires_grad \
        else getitem_np(grad, s.key)


def getitem_np(t, np_key):
    """Differentiable ``t[np_key]`` for a key already converted to arrays."""
    result = make_tensor(t._data[np_key], t._dtype, t._device)
    if t._requires_grad and needs_grad(t):
        record(IndexNode, (t,), (result,), self_sizes=t._data.shape, key=np_key)
    return result


IndexPutNode = node_class("IndexPutBackward0", {
    "self": _put_self_backward, "values": _put_values_backward})


def index_put(input, key, values, accumulate=False):
    """Out-of-place ``input[key] = values`` (``+=`` with accumulate, duplicates summed)."""
    out = make_tensor(input._data.copy(), input._dtype, input._device)
    _put_into(out._data, key, values, input._dtype, accumulate)
    v = values if isinstance(values, Tensor) else None
    if needs_grad(input, v):
        record(IndexPutNode, (input, v), (out,), key=key, accumulate=accumulate)
    return out


def _put_into(arr, key, values, dtype, accumulate):
    if isinstance(values, Tensor):
        vals = values._data if values._dtype is dtype else values._data.astype(dtype.numpy_dtype)
    else:
        vals = scalar_as(values, dtype)
    if accumulate:
        xp = np if isinstance(arr, np.ndarray) else backend.cupy_module()
        if xp is np:
            np.add.at(arr, key, vals)
        else:
            backend.cupy_module().add.at(arr, key, vals)
    else:
        try:
            arr[key] = vals
        except ValueError as e:
            raise RuntimeError(f"shape mismatch: value tensor of shape "
                               f"{list(getattr(values, 'shape', ()))} cannot be broadcast to "
                               f"indexing result of shape {list(arr[key].shape)}") from e


def setitem(self, key, value):
    if not isinstance(value, (Tensor, int, float, bool, complex, np.number, np.bool_)):
        from .creation import tensor
        value = tensor(value, dtype=self._dtype, device=self._device)
    key = _normalize_key(key)
    if isinstance(value, Tensor) and value._device != self._device and value.dim() > 0:
        raise RuntimeError(f"expected device {self._device} but got device {value._device}")
    if _is_basic(key):
        from ..autograd.grad_mode import no_grad
        key = tuple(int(k) if isinstance(k, (np.integer, Tensor)) else k for k in key)
        recording = needs_grad(self, value if isinstance(value, Tensor) else None)
        if not recording:
            check_inplace(self)
            with no_grad():
                region = _basic_index(self, key)
            try:
                region._data[...] = value._data if isinstance(value, Tensor) else value
            except ValueError:
                raise RuntimeError(
                    f"The expanded size of the tensor ({region.shape[-1] if region.dim() else 1})"
                    f" must match the existing size ({value.shape[-1]}) at non-singleton "
                    f"dimension {max(value.dim() - 1, 0)}.  Target sizes: {list(region.shape)}."
                    f"  Tensor sizes: {list(value.shape)}") from None
            self._bump_version()
            return
        region = _basic_index(self, key)
        if isinstance(value, Tensor):
            region.copy_(value)
        else:
            region.fill_(value)
        return
    check_inplace(self)
    np_key = _np_key(self, key)
    v = value if isinstance(value, Tensor) else None
    if needs_grad(self, v):
        from .views import rebase_history
        result = index_put(self, np_key, value)
        self._data[...] = result._data
        self._bump_version()
        rebase_history(self, result)
        return
    _put_into(self._data, np_key, value, self._dtype, False)
    self._bump_version()


Tensor.__setitem__ = setitem


def index_put_slices(t, key, piece):
    """A copy of ``t`` with ``t[key]`` replaced by ``piece`` (differentiable)."""
    out = t.clone()
    out[key] = piece
    return out


def index_put_(self, indices, values, accumulate=False):
    check_inplace(self)
    np_key = _np_key(self, tuple(indices))
    result = index_put(self, np_key, values, accumulate)
    self._data[...] = result._data
    self._bump_version()
    if result._grad_fn is not None:
        from .views import rebase_history
        rebase_history(self, result)
    return self


Tensor.index_put_ = index_put_
register("index_put", lambda input, indices, values, accumulate=False: index_put(
    input, _np_key(input, tuple(indices)), values, accumulate), family="indexing",
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
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype if isinstance(mask, Tensor) else type(mask).__name__}")
    xp = xp_of(input)
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.dim()} dimension(s).")
        v = as_compute(value, input._dtype, input._device)
    else:
        v = scalar_as(value, input._dtype)
    m = as_compute(mask, D.bool, input._device)
    try:
        res = xp.where(m, v, input._data)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({input.shape[-1]}) must match the size of "
                           f"tensor b ({mask.shape[-1]}) at non-singleton dimension "
                           f"{input.dim() - 1}") from None
    result = wrap(res.astype(input._dtype.numpy_dtype, copy=False), input._dtype, input._device)
    if isinstance(value, Tensor):
        if needs_grad(input, value):
            record(MaskedFillTensorNode, (input, value), (result,), mask=mask)
    elif input._requires_grad and needs_grad(input):
        record(MaskedFillNode, (input,), (result,), mask=mask)
    return result


register("masked_fill", masked_fill, inplace=True, family="indexing",
         nodes=(MaskedFillNode, MaskedFillTensorNode))


def index_select(input, dim, index, *, out=None):
    from .._tensor import wrap_dim
    d = wrap_dim(dim, max(input.dim(), 1))
    if not isinstance(index, Tensor) or index._dtype not in (D.int64, D.int32):
        raise RuntimeError("index_select(): Expected dtype int32/int64 for index")
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    key = (slice(None),) * d + (index.reshape(-1),)
    result = input[key] if input.dim() else input[index.reshape(-1)].reshape(())
    if out is not None:
        from ._registry import write_out
        return write_out(out, result)
    return result


register("index_select", index_select, family="indexing")


def nonzero(input, *, as_tuple=False):
    xp = xp_of(input)
    idx = xp.nonzero(input._data if input.dim() else input._data.reshape(1))
    if as_tuple:
        return tuple(wrap(i.astype(np.int64), D.int64, input._device) for i in idx)
    return wrap(xp.stack(idx, axis=1).astype(np.int64) if idx else
                xp.zeros((0, 0), np.int64), D.int64, input._device)


register("nonzero", nonzero, family="indexing")


def masked_select(input, mask):
    b_in, b_mask = np.broadcast_arrays(input._data, mask._data) if input._device.type == "cpu" \
        else (input._data, mask._data)
    if input._requires_grad:
        shape = np.broadcast_shapes(input.shape, mask.shape)
        return input.expand(shape)[mask.expand(shape)]
    return wrap(b_in[b_mask], input._dtype, input._device)


register("masked_select", masked_select, family="indexing")

GatherNode = node_class("GatherBackward0", {
    "self": lambda grad, s: _scatter_add_zeros(s.self_sizes, s.dim, s.index, grad)})


def _scatter_add_zeros(sizes, dim, index, src):
    from .creation import zeros
    out = zeros(sizes, dtype=src.dtype, device=src.device)
    return out.scatter_add(dim, index, src)


def gather(input, dim, index, *, sparse_grad=False, out=None):
    """``out[i][j] = input[index[i][j]][j]`` along ``dim`` (index may be smaller than input)."""
    from .._tensor import wrap_dim
    d = wrap_dim(dim, input.dim())
    if index._dtype is not D.int64:
        raise RuntimeError("gather(): Expected dtype int64 for index")
    if index.dim() != input.dim():
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    xp = xp_of(input)
    idx = index._data
    n = input.shape[d]
    if idx.size and (int(idx.min()) < -n or int(idx.max()) >= n):
        bad = int(idx.max()) if int(idx.max()) >= n else int(idx.min())
        raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {n}")
    src = input._data[tuple(slice(0, k) if i != d else slice(None)
                            for i, k in enumerate(idx.shape))]
    result = wrap(xp.take_along_axis(src, idx, d), input._dtype, input._device)
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


def scatter_add(input, dim, index, src):
    """``out[index[i][j]][j] += src[i][j]`` along ``dim`` (duplicates accumulate)."""
    from .._tensor import wrap_dim
    d = wrap_dim(dim, input.dim())
    out = input._data.copy()
    idx = index._data
    grids = np.indices(idx.shape, sparse=True) if input._device.type == "cpu" else \
        backend.cupy_module().indices(idx.shape, sparse=True)
    key = tuple(idx if i == d else g for i, g in enumerate(grids))
    vals = src._data[tuple(slice(0, k) for k in idx.shape)]
    if input._device.type == "cpu":
        np.add.at(out, key, vals.astype(out.dtype, copy=False))
    else:
        backend.cupy_module().add.at(out, key, vals.astype(out.dtype, copy=False))
    result = wrap(out, input._dtype, input._device)
    if needs_grad(input, src):
        record(ScatterAddNode, (input, src), (result,), dim=d, index=index)
    return result


register("scatter_add", scatter_add, inplace=True, family="indexing", nodes=(ScatterAddNode,))
