"""Copies and conversions: clone, contiguous, copy_, fill_, zero_, to/type/float()/cuda()..."""

import numpy as np

from .. import _dtype as D
from .. import backend
from .._device import CPU, as_device, device as device_cls
from .._tensor import Tensor, make_tensor
from ._prep import xp_of
from ._registry import check_inplace, node_class, needs_grad, record, register

CloneNode = node_class("CloneBackward0", {"self": lambda grad, s: grad})
ToCopyNode = node_class("ToCopyBackward0", {"self": lambda grad, s: grad})


def clone(input, *, memory_format=None):
    """A copy with its own memory (strides kept for dense tensors, as PyTorch's preserve)."""
    xp = xp_of(input)
    order = "C" if memory_format == "contiguous" else "K"
    arr = xp.array(input._data, copy=True, order=order)
    out = make_tensor(arr, input._dtype, input._device)
    if input._requires_grad and needs_grad(input):
        record(CloneNode, (input,), (out,))
    return out


register("clone", clone, family="copy", nodes=(CloneNode,))


def contiguous(input, memory_format=None):
    """``input`` itself when already contiguous, else a C-ordered copy."""
    if input.is_contiguous():
        return input
    return clone(input, memory_format="contiguous")


register("contiguous", contiguous, family="copy")

CopyNode = node_class("CopyBackward0", {
    "self": lambda grad, s: grad * 0, "src": lambda grad, s: grad})


def copy_(self, src, non_blocking=False):
    """Copy ``src`` into ``self`` (broadcasting, converting dtype, crossing devices)."""
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not "
                        f"{type(src).__name__}")
    check_inplace(self)
    arr = src._data
    if src._device != self._device:
        arr = backend.to_device(arr, self._device)
    try:
        target_shape = np.broadcast_shapes(arr.shape, self._data.shape)
    except ValueError:
        target_shape = None
    if target_shape != self._data.shape:
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(np.broadcast_shapes(arr.shape, self._data.shape)) if target_shape else list(arr.shape)}"
                           if target_shape is not None else
                           f"The size of tensor a ({self._data.shape[-1] if self._data.ndim else 1}) "
                           f"must match the size of tensor b ({arr.shape[-1] if arr.ndim else 1}) at "
                           "non-singleton dimension " f"{max(self._data.ndim - 1, 0)}")
    if src._dtype.category == D.COMPLEX and self._dtype.category != D.COMPLEX:
        arr = arr.real
    self._data[...] = arr
    self._bump_version()
    if needs_grad(self, src):
        from .views import rebase_history
        result = make_tensor(self._data, self._dtype, self._device)
        record(CopyNode, (self if self._requires_grad else None, src), (result,))
        rebase_history(self, result)
    return self


Tensor.copy_ = copy_


def fill_(self, value):
    """Fill with a scalar (or a 0-d tensor)."""
    check_inplace(self)
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.dim()} dimensions.")
        if needs_grad(self, value):
            return self.copy_(value.expand(self.shape))
        value = value.item()
    if self._requires_grad and needs_grad(self):
        from .views import rebase_history
        self._data[...] = value
        self._bump_version()
        result = make_tensor(self._data, self._dtype, self._device)
        record(FillNode, (self,), (result,))
        rebase_history(self, result)
        return self
    self._data[...] = value
    self._bump_version()
    return self


FillNode = node_class("FillBackward0", {"self": lambda grad, s: grad * 0})
Tensor.fill_ = fill_
register("fill", lambda input, value: input.clone().fill_(value), method=False, family="copy")


def zero_(self):
    return fill_(self, 0)


Tensor.zero_ = zero_

# ----------------------------------------------------------------------------------------------
# to / type / dtype shortcuts / device moves
# ----------------------------------------------------------------------------------------------


def _to(input, dtype, dev, copy=False):
    """The conversion behind every ``to``-style method (one graph node: ToCopyBackward0)."""
    same_dtype = dtype is None or dtype is input._dtype
    same_dev = dev is None or dev == input._device
    if same_dtype and same_dev and not copy:
        return input
    arr = input._data
    if not same_dev:
        arr = backend.to_device(arr, dev)
    dt = input._dtype if dtype is None else dtype
    if not same_dtype:
        if input._dtype.category == D.COMPLEX and dt.category != D.COMPLEX:
            import warnings
            warnings.warn("Casting complex values to real discards the imaginary part",
                          UserWarning, stacklevel=3)
            arr = arr.real
        arr = arr.astype(dt.numpy_dtype)
    elif (same_dev and copy) or arr is input._data:
        arr = arr.copy()
    out = make_tensor(arr, dt, input._device if dev is None else dev)
    if input._requires_grad and needs_grad(input) and dt.category >= D.FLOATING:
        record(ToCopyNode, (input,), (out,))
    return out


def _parse_to(args, kwargs):
    dtype = kwargs.pop("dtype", None)
    dev = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    other = None
    for a in args:
        if isinstance(a, D.dtype):
            dtype = a
        elif isinstance(a, (str, device_cls)) or (isinstance(a, int) and not isinstance(a, bool)):
            dev = a
        elif isinstance(a, Tensor):
            other = a
        elif isinstance(a, bool):
            pass
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got "
                            f"({type(a).__name__})")
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if other is not None:
        dtype, dev = other._dtype, other._device
    return dtype, (None if dev is None else as_device(dev)), copy


def to(self, *args, **kwargs):
    """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other)``; returns self when
    nothing changes (unless ``copy=True``)."""
    dtype, dev, copy = _parse_to(args, dict(kwargs))
    return _to(self, dtype, dev, copy)


Tensor.to = to

for _name, _dt in (("float", D.float32), ("double", D.float64), ("half", D.float16),
                   ("bfloat16", D.bfloat16), ("long", D.int64), ("int", D.int32),
                   ("short", D.int16), ("char", D.int8), ("byte", D.uint8), ("bool", D.bool),
                   ("cfloat", D.complex64), ("cdouble", D.complex128)):
    setattr(Tensor, _name, (lambda d: lambda self, memory_format=None: _to(self, d, None))(_dt))


def type_as(input, other):
    return _to(input, other._dtype, None)


Tensor.type_as = type_as


def cpu(self, memory_format=None):
    return _to(self, None, CPU)


def cuda(self, device=None, non_blocking=False, memory_format=None):
    dev = as_device("cuda" if device is None else
                    (f"cuda:{device}" if isinstance(device, int) else device))
    if dev.index is None:
        dev = as_device("cuda:0")
    return _to(self, None, dev)


Tensor.cpu = cpu
Tensor.cuda = cuda

_TYPE_NAMES = {}
for _d in D.ALL_DTYPES:
    _TYPE_NAMES["torch." + _d._tensor_name] = (_d, CPU)
    _TYPE_NAMES["torch.cuda." + _d._tensor_name] = (_d, "cuda")


def cast_to_type(t, target, non_blocking=False):
    """``t.type('torch.DoubleTensor')`` / ``t.type(torch.IntTensor)`` / ``t.type(torch.int32)``."""
    if isinstance(target, D.dtype):
        return _to(t, target, None)
    name = target if isinstance(target, str) else getattr(target, "_type_name", None)
    if name not in _TYPE_NAMES:
        raise ValueError(f"invalid type: '{target}'")
    dt, dev = _TYPE_NAMES[name]
    dev = as_device("cuda:0") if dev == "cuda" and t._device.type != "cuda" else \
        (t._device if dev == "cuda" else CPU)
    return _to(t, dt, dev)
