"""Pickling of tensors (``pickle``, ``copy``, multiprocessing).

This is the in-process Python pickle protocol only: a tensor travels as its values, dtype,
device and ``requires_grad``. PyTorch's checkpoint format (``torch.save``/``torch.load``) is a
separate, later piece of work that will live here too.
"""

import numpy as np

from . import _dtype as D
from . import backend
from ._device import device as device_cls


def reduce_tensor(t):
    """``Tensor.__reduce_ex__``: values, dtype, device and requires_grad (a non-leaf comes back
    as a leaf that requires grad, its history dropped, as in PyTorch)."""
    values = np.asarray(backend.to_numpy(t._data), order="C")   # keeps 0-d tensors 0-d
    state = dict(t.__dict__)
    state.pop("_hook_acc", None)
    return (rebuild_tensor, (values, t._dtype.name, str(t._device), t._requires_grad,
                             list(t.stride()), state))


def rebuild_tensor(values, dtype_name, device, requires_grad, stride=None, state=None):
    from ._tensor import make_tensor
    dt = D.by_name(dtype_name)
    arr = np.asarray(values, dtype=dt.numpy_dtype)
    dev = device_cls(device)
    if dev.type != "cpu":
        arr = backend.to_device(arr, dev)
    t = make_tensor(arr, dt, dev)
    t._requires_grad = bool(requires_grad)
    if state:
        t.__dict__.update(state)
    return t


def rebuild_parameter(data, requires_grad):
    from .nn.parameter import Parameter
    return Parameter(data, requires_grad)
