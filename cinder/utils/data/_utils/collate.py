"""``default_collate`` and ``default_convert``: how samples become batches.

``default_collate`` stacks a list of samples along a new first dimension, recursing into the
samples' structure: tensors are stacked, NumPy arrays and scalars become tensors first, Python
floats become a float64 tensor and ints an int64 tensor, strings and bytes stay a list, and
mappings, namedtuples and sequences are collated field by field. ``collate`` is the same walk
with a user-given table of per-type functions. Inside a worker process the stacked tensor is
allocated in shared memory directly, so sending it to the main process copies nothing.
"""

import collections
import copy
import re

import numpy as np

from .... import _dtype as D
from ...._tensor import Tensor, make_tensor
from ...._shared_memory import new_segment
from ...._storage import storage_view
from . import worker as _worker
from ...._tensor import contiguous_strides

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}")


def _as_tensor(data):
    from .... import as_tensor
    return as_tensor(data)


def default_convert(data):
    """Turn NumPy arrays and scalars into tensors, recursing into mappings, namedtuples and
    sequences; everything else (tensors included) comes back unchanged. The ``collate_fn``
    used when automatic batching is off (``batch_size=None``)."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        # Arrays of strings or objects cannot become tensors: leave them as they are.
        if elem_type.__name__ == "ndarray" and \
                np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return _as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):       # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]                  # as PyTorch: a list
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def _rebuild_mapping(elem, values):
    """A mapping like ``elem`` holding ``values`` (a plain dict when its type will not do)."""
    try:
        if isinstance(elem, collections.abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update(values)
            return clone
        return type(elem)(values)
    except TypeError:
        return values


def _rebuild_sequence(elem, items):
    """A sequence like ``elem`` holding ``items`` (a plain list when its type will not do)."""
    try:
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(elem)(items)
    except TypeError:
        return items


def collate(batch, *, collate_fn_map=None):
    """Collate ``batch`` (a list of samples) by its first element's type: first an exact or
    ``isinstance`` match in ``collate_fn_map`` (functions called as
    ``fn(batch, collate_fn_map=...)``), then mappings, namedtuples and sequences field by
    field. Anything else is a TypeError."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        values = {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                  for key in elem}
        return _rebuild_mapping(elem, values)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):       # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map)
                           for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        # One length for all: map(len) and the set run in C (no generator per batch).
        if len(set(map(len, batch))) > 1:
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return fields                       # tuples become lists, as in PyTorch
        return _rebuild_sequence(elem, fields)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def _shared_out(batch):
    """An uninitialised tensor of the stacked shape in shared memory (inside workers only)."""
    elem = batch[0]
    if _worker.get_worker_info() is None or elem.device.type != "cpu":
        return None
    shape = (len(batch),) + tuple(elem.shape)
    numel = len(batch) * elem.numel()
    root = new_segment(numel * elem.element_size())
    arr = storage_view(root, elem.dtype.numpy_dtype, shape, contiguous_strides(shape), 0)
    return make_tensor(arr, elem.dtype)


def _uniform(batch):
    """Whether the tensors can be stacked without checks or casts: one shape, one dtype, all
    on the CPU, none taking part in autograd."""
    elem = batch[0]
    shape, dtype = elem._data.shape, elem._dtype
    for t in batch:             # a plain loop: cheaper than all() over a generator
        if t._data.shape != shape or t._dtype is not dtype or t._device.type != "cpu" \
                or t._requires_grad:
            return False
    return True


def collate_tensor_fn(batch, *, collate_fn_map=None):
    if not _uniform(batch):
        # Mixed shapes, dtypes or devices, or autograd: the stack op checks, casts, records
        # and raises exactly as PyTorch's does.
        from .... import stack
        return stack(batch, 0, out=_shared_out(batch))
    # The common case: write the samples straight into the batch buffer (shared memory in a
    # worker), one pass and none of the op's per-tensor checks.
    arrays = [t._data for t in batch]
    out = _shared_out(batch)
    if out is None:
        return make_tensor(_stack(arrays), batch[0]._dtype)
    _stack(arrays, out._data)
    return out


def _stack(arrays, out=None):
    """``np.stack(arrays)`` of same-shape, same-dtype arrays as one ``np.concatenate`` along
    the first axis and a reshape: the same bytes in the same order, without ``np.stack``'s
    per-array Python work (40 -> 15 us for 64 MNIST-sized samples)."""
    first = arrays[0]
    if first.ndim == 0:
        return np.stack(arrays, axis=0, out=out)
    shape = (len(arrays),) + first.shape
    flat = (len(arrays) * first.shape[0],) + first.shape[1:]
    if out is None:
        return np.concatenate(arrays, axis=0).reshape(shape)
    np.concatenate(arrays, axis=0, out=out.reshape(flat))
    return out


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([_as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return _as_tensor(batch)


def _plain_numbers(batch, kind, dtype):
    """``batch`` as a 1-D ``dtype`` tensor when every element is exactly of type ``kind`` and
    fits (what ``torch.tensor(batch)`` gives then), else None. A direct ``np.array`` skips
    ``tensor()``'s general inference for the common case of a batch of labels."""
    if set(map(type, batch)) != {kind}:
        return None
    try:
        return make_tensor(np.array(batch, dtype=dtype.numpy_dtype), dtype)
    except OverflowError:
        return None                         # tensor() raises PyTorch's error for it


def collate_float_fn(batch, *, collate_fn_map=None):
    out = _plain_numbers(batch, float, D.float64)
    if out is not None:
        return out
    from .... import tensor
    return tensor(batch, dtype=D.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    out = _plain_numbers(batch, int, D.int64)
    if out is not None:
        return out
    from .... import tensor
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Stack a list of samples into a batch (see the module docstring for each element type).

    >>> default_collate([0, 1, 2])
    tensor([0, 1, 2])
    >>> default_collate([{'a': 1.0}, {'a': 2.0}])
    {'a': tensor([1., 2.], dtype=torch.float64)}
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
