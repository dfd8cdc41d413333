"""``torch.cuda.comm``: copy tensors between GPUs for single-process data parallelism.

``broadcast`` copies one tensor to several devices, ``scatter`` splits one into chunks placed on
several devices, ``gather`` concatenates chunks from several devices onto one, and
``reduce_add`` sums copies living on several devices. The ``*_coalesced`` forms pack many small
tensors into one flat buffer per dtype first, so that one copy moves them all.

A device may be named more than once (``[0, 0]``): a chunk or copy meant for the device the
source already lives on is the source itself (or a view of it), as in PyTorch.
"""

import warnings

from .. import _utils
from .._tensor import make_tensor
from .._utils import _get_device_index
from .streams import StreamContext

__all__ = ["broadcast", "broadcast_coalesced", "reduce_add", "reduce_add_coalesced", "scatter",
           "gather"]

_DEFAULT_BUFFER = 10485760


def _cuda(index):
    from .. import device
    return device("cuda", index)


def _sizes(shape):
    """A shape as PyTorch's C++ messages print it: [2, 3]."""
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _fresh(t):
    """``t``'s data as a new tensor with its own version counter and no history (``.data``):
    the pieces unflattened from one buffer must not share a version counter, or an in-place
    change to one would invalidate the others for autograd."""
    return make_tensor(t._data, t._dtype, t._device)


def _wrap_dim(dim, ndim):
    if ndim == 0:
        ndim = 1
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {dim})")
    return dim % ndim


# ----------------------------------------------------------------------------------------------
# broadcast
# ----------------------------------------------------------------------------------------------


def _broadcast(tensor, devices):
    """``tensor`` on each of ``devices``: itself where it already lives, a copy elsewhere."""
    for d in devices:
        if d < 0:
            raise RuntimeError(f"Expected non-negative device index, but got {d}")
    here = tensor.get_device()
    return [tensor if d == here else tensor.to(_cuda(d), non_blocking=True, copy=True)
            for d in devices]


def _broadcast_out(tensor, out):
    for i, o in enumerate(out):
        if not o.is_cuda:
            raise RuntimeError("Expected all output tensors to be CUDA tensors, but output "
                               f"tensor at index {i} has device '{o.device}'")
        if o.shape != tensor.shape:
            raise RuntimeError("Expected all output tensors to have same shape as the source "
                               f"tensor {_sizes(tensor.shape)}, but output tensor at index {i} "
                               f"has shape {_sizes(o.shape)}")
    for o in out:
        o.copy_(tensor, non_blocking=True)
    return list(out)


def broadcast(tensor, devices=None, *, out=None):
    """Copies of ``tensor`` (CPU or GPU) on each of ``devices``, or written into the GPU tensors
    ``out``; exactly one of the two must be given. Returns the copies as a list."""
    tensor = _utils._handle_complex(tensor)
    if (devices is None) == (out is None):
        raise RuntimeError("Exactly one of 'devices' and 'out' must be specified, but got "
                           f"devices={devices} and out={out}")
    if devices is not None:
        return _broadcast(tensor, [_get_device_index(d) for d in devices])
    return _broadcast_out(tensor, out)


def broadcast_coalesced(tensors, devices, buffer_size=_DEFAULT_BUFFER):
    """Copies of all ``tensors`` (which must live on ``devices[0]``) on every device: a list
    with one list of tensors per device, the first being ``tensors`` themselves. Tensors of
    one type travel packed in buffers of at most ``buffer_size`` bytes."""
    devices = [_get_device_index(d) for d in devices]
    tensors = [_utils._handle_complex(t) for t in tensors]
    if not all(t.get_device() == devices[0] for t in tensors):
        raise RuntimeError(f"All tensors must be on devices[0]: {devices[0]}")
    outputs = [list(tensors)] + [[] for _ in devices[1:]]
    kinds = set()
    for chunk in _utils._take_tensors(tensors, buffer_size):
        kinds.add(chunk[0].type())
        copies = _broadcast(_utils._flatten_dense_tensors(chunk), devices)
        for i in range(1, len(devices)):
            outputs[i].extend(_fresh(t) for t in _utils._unflatten_dense_tensors(copies[i],
                                                                                 chunk))
    if len(kinds) > 1:      # chunks came out grouped by type: restore the callers' order
        outputs[1:] = [list(_utils._reorder_tensors_as(o, tensors)) for o in outputs[1:]]
    return outputs


# ----------------------------------------------------------------------------------------------
# reduce_add
# ----------------------------------------------------------------------------------------------


def reduce_add(inputs, destination=None):
    """The elementwise sum of ``inputs`` (same shape, each on a GPU), placed on
    ``destination`` (the current device by default), which must hold one of them."""
    destination = _get_device_index(destination, optional=True)
    shape = inputs[0].shape
    root = None
    for i, t in enumerate(inputs):
        if t.device.type == "cpu":
            raise AssertionError(f"reduce_add expects all inputs to be on GPUs, but input {i} "
                                 "is on CPU")
        if t.get_device() == destination:
            root = i
        if t.shape != shape:
            got, expected = "x".join(map(str, t.shape)), "x".join(map(str, shape))
            raise ValueError(f"input {i} has invalid size: got {got}, but expected {expected}")
    if root is None:
        raise RuntimeError("reduce_add expects destination to be on the same GPU with one of "
                           "the tensors")
    if len(inputs) == 1:
        return inputs[0]
    target = _cuda(destination)
    others = [t for i, t in enumerate(inputs) if i != root]
    # The first addition makes the result tensor, so the root input is never modified.
    result = inputs[root] + others[0].to(device=target, non_blocking=True)
    for t in others[1:]:
        result.add_(t.to(device=target, non_blocking=True))
    return result


def reduce_add_coalesced(inputs, destination=None, buffer_size=_DEFAULT_BUFFER):
    """Sums, tensor by tensor, of ``inputs`` (one sequence of tensors per GPU), placed on
    ``destination``; tensors travel packed in buffers of at most ``buffer_size`` bytes."""
    per_device = [[] for _ in inputs]
    outputs, reference = [], []
    for same_tensor in zip(*inputs, strict=True):
        if all(t.is_sparse for t in same_tensor):
            outputs.append(reduce_add(same_tensor, destination))
            reference.append(same_tensor[0])
            continue
        for group, t in zip(per_device, same_tensor, strict=True):
            group.append(t.to_dense() if t.is_sparse else t)
        reference.append(per_device[0][-1])
    chunked = [_utils._take_tensors(group, buffer_size) for group in per_device]
    for chunks in zip(*chunked, strict=True):
        flat = reduce_add([_utils._flatten_dense_tensors(c) for c in chunks], destination)
        outputs.extend(_fresh(t) for t in _utils._unflatten_dense_tensors(flat, chunks[0]))
    return _utils._reorder_tensors_as(outputs, reference)


# ----------------------------------------------------------------------------------------------
# scatter
# ----------------------------------------------------------------------------------------------


def _check_stream(streams, i, index):
    stream = streams[i] if streams is not None and i < len(streams) else None
    if stream is not None and stream.device_index != index:
        raise RuntimeError(f"Expected the device associated with the stream at index {i} (was "
                           f"{stream.device_index}) to match the device supplied at that index "
                           f"(expected {index})")
    return stream


def _scatter(tensor, devices, chunk_sizes, dim, streams):
    if not devices:
        raise RuntimeError("Expected at least one device to scatter to")
    if chunk_sizes is not None and len(chunk_sizes) != len(devices):
        raise RuntimeError("Expected devices and chunk_sizes to be of same length, but got "
                           f"len(devices) = {len(devices)} and len(chunk_sizes) = "
                           f"{len(chunk_sizes)}")
    dim = _wrap_dim(dim, tensor.dim())
    chunks = (list(tensor.split(list(chunk_sizes), dim)) if chunk_sizes is not None
              else list(tensor.chunk(len(devices), dim)))
    here = tensor.get_device()
    for i, chunk in enumerate(chunks):
        index = devices[i]
        if index == here:
            continue        # already in place: the chunk stays a view of the source
        stream = _check_stream(streams, i, index)
        if index < 0:
            raise RuntimeError(f"Expected non-negative device index, but got {index}")
        with StreamContext(stream):
            chunks[i] = chunk.to(_cuda(index), non_blocking=True)
    return chunks


def _scatter_out(tensor, out, dim, streams):
    if not out:
        raise RuntimeError("Expected at least one output tensor to scatter to")
    dim = _wrap_dim(dim, tensor.dim())
    sizes, total = [], 0
    for i, o in enumerate(out):
        if not o.is_cuda:
            raise RuntimeError("Expected all output tensors to be CUDA tensors, but output "
                               f"tensor at index {i} has device '{o.device}'")
        expected = list(tensor.shape)
        same = o.dim() == tensor.dim()
        if same:
            sizes.append(o.shape[dim])
            total += o.shape[dim]
            expected[dim] = o.shape[dim]
        if not same or list(o.shape) != expected:
            raise RuntimeError(f"Output tensor at index {i} has incorrect shape: "
                               f"{_sizes(o.shape)}. Expected same shape except for scatter dim "
                               f"{dim} as the source tensor: {_sizes(tensor.shape)}")
    if total != tensor.shape[dim]:
        raise RuntimeError(f"Total size for output tensors along scatter dim {dim} does not "
                           f"match the source tensor size at dim {dim}. Expected "
                           f"{tensor.shape[dim]}, but got total size {total}")
    for i, (o, chunk) in enumerate(zip(out, tensor.split(sizes, dim))):
        with StreamContext(_check_stream(streams, i, o.get_device())):
            o.copy_(chunk, non_blocking=True)
    return list(out)


def scatter(tensor, devices=None, chunk_sizes=None, dim=0, streams=None, *, out=None):
    """``tensor`` (CPU or GPU) cut along ``dim`` into one chunk per device (equal chunks, or
    ``chunk_sizes``), each copied to its device (on ``streams[i]`` when given); or cut to fit
    the GPU tensors ``out`` and copied into them. Returns the chunks as a tuple."""
    tensor = _utils._handle_complex(tensor)
    if out is None:
        devices = [_get_device_index(d) for d in devices]
        return tuple(_scatter(tensor, devices, chunk_sizes, dim, streams))
    if devices is not None:
        raise RuntimeError("'devices' must not be specified when 'out' is specified, but got "
                           f"devices={devices}")
    if chunk_sizes is not None:
        raise RuntimeError("'chunk_sizes' must not be specified when 'out' is specified, but "
                           f"got chunk_sizes={chunk_sizes}")
    return tuple(_scatter_out(tensor, out, dim, streams))


# ----------------------------------------------------------------------------------------------
# gather
# ----------------------------------------------------------------------------------------------


def _gather_shape(tensors, dim, quote):
    """Check ``tensors`` (all on GPUs, same shape but for ``dim``); the result's shape."""
    if not tensors:
        raise RuntimeError("Expected at least one tensor to gather from")
    first = tensors[0]
    dim = _wrap_dim(dim, first.dim())
    expected = list(first.shape)
    total = 0
    for i, t in enumerate(tensors):
        if not t.is_cuda:
            where = f"'{t.device}'" if quote else f"{t.device}"
            raise RuntimeError("Expected all input tensors to be CUDA tensors, but tensor at "
                               f"index {i} has device {where}")
        if t.dim() != len(expected):
            raise RuntimeError("Expected all input tensors to have the same number of "
                               f"dimensions, but tensor at index {i}has {t.dim()} dimensions, "
                               f"(expected {len(expected)})")
        expected[dim] = t.shape[dim]
        if list(t.shape) != expected:
            raise RuntimeError(f"Input tensor at index {i} has invalid shape "
                               f"{_sizes(t.shape)}, but expected {_sizes(expected)}")
        total += t.shape[dim]
    expected[dim] = total
    return dim, expected


def _gather_into(tensors, out, dim):
    start = 0
    for t in tensors:
        n = t.shape[dim]
        out.narrow(dim, start, n).copy_(t, non_blocking=out.is_cuda)
        start += n
    return out


def gather(tensors, dim=0, destination=None, *, out=None):
    """The GPU ``tensors`` concatenated along ``dim`` on ``destination`` (a GPU, the CPU, or
    the current device by default), or written into ``out``."""
    tensors = [_utils._handle_complex(t) for t in tensors]
    if out is not None:
        if destination is not None:
            raise RuntimeError("'destination' must not be specified when 'out' is specified, "
                               f"but got destination={destination}")
        dim, shape = _gather_shape(tensors, dim, quote=True)
        if list(out.shape) != shape:
            raise RuntimeError(f"Expected out tensor to have shape {_sizes(shape)}, but got "
                               f"{_sizes(out.shape)}")
        return _gather_into(tensors, out, dim)
    if destination == -1:
        warnings.warn('Using -1 to represent CPU tensor is deprecated. Please use a device '
                      'object or string instead, e.g., "cpu".', FutureWarning, stacklevel=2)
    destination = _get_device_index(destination, allow_cpu=True, optional=True)
    dim, shape = _gather_shape(tensors, dim, quote=False)
    from .. import device, empty
    target = device("cpu") if destination == -1 else _cuda(destination)
    result = empty(shape, dtype=tensors[0].dtype, device=target)
    return _gather_into(tensors, result, dim)
