"""Copies and conversions: clone, contiguous, copy_, fill_, zero_, to/type/float()/cuda()..."""

import warnings

from .. import _dtype as D
from .. import backend
from .._device import CPU, as_device
from .._device import device as device_cls
from .._tensor import Tensor, make_tensor
from ._layouts import in_format, like_preserved, preserved, suggested_format
from ._prep import fill_scalar, is_scalar, xp_of
from ._prep import result_type as _result_type
from ._registry import check_fits, inplace_only, needs_grad, node_class, record, register

CloneNode = node_class("CloneBackward0", {"self": lambda grad, s: grad})
ToCopyNode = node_class("ToCopyBackward0", {"self": lambda grad, s: grad})


def _laid_out(arr, fmt):
    """A copy of ``arr`` laid out as memory format ``fmt`` ("contiguous_format",
    "channels_last" or "channels_last_3d"; "preserve_format" or None keep a dense array's
    strides, as ``clone`` does)."""
    if fmt is None or fmt == "preserve_format":
        return preserved(arr)
    return in_format(arr, fmt)


def _format_name(memory_format):
    name = getattr(memory_format, "name", memory_format)
    return "contiguous_format" if name == "contiguous" else name


def clone(input, *, memory_format=None):
    """A copy with its own memory: by default (``preserve_format``) with the strides of a dense
    input, else laid out as ``memory_format`` asks."""
    out = make_tensor(_laid_out(input._data, _format_name(memory_format)),
                      input._dtype, input._device)
    if input._requires_grad and needs_grad(input):
        record(CloneNode, (input,), (out,))
    return out


register("clone", clone, family="copy", nodes=(CloneNode,))


def contiguous(input, memory_format=None):
    """``input`` itself when already contiguous in ``memory_format`` (the row-major one by
    default), else a copy laid out so."""
    fmt = _format_name(memory_format)
    if input.is_contiguous(memory_format=None if fmt == "preserve_format" else memory_format):
        return input
    if fmt == "preserve_format":
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return clone(input, memory_format=fmt or "contiguous_format")


register("contiguous", contiguous, function_too=False, family="copy")

CopyNode = node_class("CopyBackwards", {
    "self": lambda grad, s: grad * 0,
    "src": lambda grad, s: grad.to(s.src_dtype) if grad._dtype is not s.src_dtype else grad})
# PyTorch's copy node is hand-written C++, so name() reports its namespace too.
CopyNode.name = lambda self: "torch::autograd::CopyBackwards"
FillScalarNode = node_class("FillBackward0", {"self": lambda grad, s: grad * 0})
FillTensorNode = node_class("FillBackward1", {
    "self": lambda grad, s: grad * 0, "value": lambda grad, s: grad.sum()})
FillScalarInplaceNode = node_class("FillBackward2", {"self": lambda grad, s: grad * 0})
FillTensorInplaceNode = node_class("FillBackward3", {
    "self": lambda grad, s: grad * 0, "value": lambda grad, s: grad.sum()})
ZeroNode = node_class("ZeroBackward0", {"self": lambda grad, s: grad * 0})


def _copy_src(src):
    """``copy_``'s source as a tensor (a Python number becomes one), or PyTorch's TypeError."""
    if isinstance(src, Tensor):
        return src
    if not is_scalar(src):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(src).__name__}")
    from .creation import tensor
    return tensor(src)


def _copy_precheck(self, src, non_blocking=False):
    _copy_src(src)


def _copy_write(self, src, non_blocking=False):
    """Copy ``src`` into ``self`` (broadcasting, converting dtype, crossing devices)."""
    src = _copy_src(src)
    arr = src._data
    if src._device != self._device:
        arr = backend.to_device(arr, self._device, non_blocking=non_blocking)
    check_fits(self._data.shape, arr.shape)
    if src._dtype.category == D.COMPLEX and self._dtype.category != D.COMPLEX:
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning,
                      stacklevel=2)
        arr = arr.real
    self._data[...] = D.cast_array(arr, self._dtype) if self._dtype is D.float16 else arr
    if needs_grad(self, src):
        return CopyNode, (self if self._requires_grad else None, src), {"src_dtype": src._dtype}
    return None


copy_ = inplace_only("copy_", _copy_write, precheck=_copy_precheck, family="copy",
                     nodes=(CopyNode,))


def _fill_value(self, value, name):
    """(Python scalar, tensor or None) for ``fill_``'s value argument."""
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"{name} only supports 0-dimension value tensor but got tensor "
                               f"with {value.dim()} dimensions.")
        return value.item(), value
    return fill_scalar(value, self._dtype, self._data.size), None


def _fill_write(self, value):
    """Fill with a scalar (or a 0-d tensor)."""
    number, tensor_value = _fill_value(self, value, "fill_")
    self._data[...] = number
    if not needs_grad(self, tensor_value):
        return None
    if tensor_value is not None:
        return FillTensorInplaceNode, (self if self._requires_grad else None, tensor_value), {}
    return FillScalarInplaceNode, (self,), {}


def _one_value(self, value):
    """A scalar fill writes one value everywhere (allowed on expanded tensors); PyTorch
    refuses a tensor value there."""
    return not isinstance(value, Tensor)


fill_ = inplace_only("fill_", _fill_write, overlap_ok=_one_value, publish=False)




def fill(input, value):
    """A tensor like ``input`` filled with ``value`` (a scalar or 0-d tensor)."""
    number, tensor_value = _fill_value(input, value, "fill")
    xp = xp_of(input)
    arr = xp.empty_like(input._data)
    arr[...] = number
    result = make_tensor(arr, input._dtype, input._device)
    if needs_grad(input, tensor_value):
        if tensor_value is not None:
            record(FillTensorNode, (input, tensor_value), (result,))
        else:
            record(FillScalarNode, (input,), (result,))
    return result


register("fill", fill, method=False, inplace=fill_, family="copy",
         nodes=(FillScalarNode, FillTensorNode, FillScalarInplaceNode, FillTensorInplaceNode))


def _zero_write(self):
    """Fill with zeros."""
    self._data[...] = 0
    if self._requires_grad and needs_grad(self):
        return ZeroNode, (self,), {}
    return None


zero_ = inplace_only("zero_", _zero_write, overlap_ok=True, function_too=True, family="copy",
                     nodes=(ZeroNode,))

# ----------------------------------------------------------------------------------------------
# to / type / dtype shortcuts / device moves
# ----------------------------------------------------------------------------------------------


def _to(input, dtype, dev, copy=False, non_blocking=False, memory_format=None):
    """The conversion behind every ``to``-style method (one graph node: ToCopyBackward0).
    ``non_blocking`` makes a copy from pinned host memory to the GPU asynchronous; a
    ``memory_format`` other than ``preserve_format`` asks for that layout (a copy when the
    input is not laid out so)."""
    fmt = None if memory_format is None else _format_name(memory_format)
    relayout = fmt not in (None, "preserve_format") and suggested_format(input._data) != fmt
    same_dtype = dtype is None or dtype is input._dtype
    same_dev = dev is None or dev == input._device
    if same_dtype and same_dev and not copy and not relayout:
        return input
    arr = input._data
    if not same_dev:
        arr = backend.to_device(arr, dev, non_blocking=non_blocking)
    dt = input._dtype if dtype is None else dtype
    if not same_dtype:
        if input._dtype.category == D.COMPLEX and dt.category != D.COMPLEX:
            warnings.warn("Casting complex values to real discards the imaginary part",
                          UserWarning, stacklevel=3)
            arr = arr.real
        arr = D.cast_array(arr, dt)
    elif (same_dev and copy) or arr is input._data:
        # (a copy keeps a non-row-major input's layout, as preserve_format does)
        arr = arr.copy() if input._data.flags.c_contiguous else preserved(arr)
    if not relayout and not input._data.flags.c_contiguous and same_dev:
        # NumPy's copies are row-major (astype keeps the dim order, but not expanded
        # strides); PyTorch's keep the input's layout (preserve_format)
        arr = like_preserved(arr, input._data)
    if relayout:
        arr = _laid_out(arr, fmt)
    out = make_tensor(arr, dt, input._device if dev is None else dev)
    if input._requires_grad and needs_grad(input) and dt.category >= D.FLOATING:
        record(ToCopyNode, (input,), (out,))
    return out


def _parse_to(args, kwargs):
    dtype = kwargs.pop("dtype", None)
    dev = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    non_blocking = kwargs.pop("non_blocking", False)
    other = None
    for a in args:
        if isinstance(a, D.dtype):
            dtype = a
        elif isinstance(a, (str, device_cls)) or (isinstance(a, int) and not isinstance(a, bool)):
            dev = a
        elif isinstance(a, Tensor):
            other = a
        elif isinstance(a, bool):
            non_blocking = a
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got "
                            f"({type(a).__name__})")
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if other is not None:
        dtype, dev = other._dtype, other._device
    return dtype, (None if dev is None else as_device(dev)), copy, non_blocking


def to(self, *args, **kwargs):
    """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other)``; returns self when
    nothing changes (unless ``copy=True``)."""
    kwargs = dict(kwargs)
    memory_format = kwargs.pop("memory_format", None)
    dtype, dev, copy, non_blocking = _parse_to(args, kwargs)
    return _to(self, dtype, dev, copy, non_blocking, memory_format)


register("to", to, function_too=False, family="conversion", nodes=(ToCopyNode,))


def _cast_method(name, dt):
    """``t.float()``, ``t.long()``...: ``t.to(dt)``."""
    def method(self, memory_format=None):
        return _to(self, dt, None)
    method.__name__ = method.__qualname__ = name
    return method


for _name, _dt in (("float", D.float32), ("double", D.float64), ("half", D.float16),
                   ("bfloat16", D.bfloat16), ("long", D.int64), ("int", D.int32),
                   ("short", D.int16), ("char", D.int8), ("byte", D.uint8), ("bool", D.bool),
                   ("cfloat", D.complex64), ("cdouble", D.complex128)):
    register(_name, _cast_method(_name, _dt), function_too=False, family="conversion")


def type_as(input, other):
    return _to(input, other._dtype, None)


register("type_as", type_as, function_too=False, family="conversion")


def cpu(self, memory_format=None):
    return _to(self, None, CPU)


def cuda(self, device=None, non_blocking=False, memory_format=None):
    dev = as_device("cuda" if device is None else
                    (f"cuda:{device}" if isinstance(device, int) else device))
    if dev.index is None:
        dev = as_device(f"cuda:{backend.cuda.current_device()}")
    return _to(self, None, dev, non_blocking=non_blocking)


register("cpu", cpu, function_too=False, family="conversion")
register("cuda", cuda, function_too=False, family="conversion")

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


# ----------------------------------------------------------------------------------------------
# Queries: what a tensor is (torch.numel, torch.is_complex...; methods live on the core)
# ----------------------------------------------------------------------------------------------

# The tensor core's own methods (kept before the table publishes the op methods over them).
_core_numel = Tensor.__dict__["numel"]
_core_is_complex = Tensor.__dict__["is_complex"]
_core_is_floating_point = Tensor.__dict__["is_floating_point"]


def numel(input):
    """The number of elements of ``input``."""
    return _core_numel(input)


def is_complex(input):
    """Whether ``input``'s dtype is complex."""
    return _core_is_complex(input)


def is_floating_point(input):
    """Whether ``input``'s dtype is a floating-point one."""
    return _core_is_floating_point(input)


def is_nonzero(input):
    """Whether the single element of ``input`` is not zero (PyTorch's ``bool(t)`` test)."""
    n = input.numel()
    if n != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous" if n
                           else "Boolean value of Tensor with no values is ambiguous")
    return bool(input.item())


def result_type(tensor1, tensor2):
    """The dtype an arithmetic op on ``tensor1`` and ``tensor2`` gives (tensors or numbers)."""
    return _result_type(tensor1, tensor2)


register("numel", numel, family="query")
register("is_complex", is_complex, family="query")
register("is_floating_point", is_floating_point, family="query")
register("is_nonzero", is_nonzero, family="query")
register("result_type", result_type, method=False, family="query")
