"""Creation ops: tensor, from_numpy, zeros/ones/full/empty (+ _like, new_*), arange, range,
linspace, logspace, eye, complex, polar, tril/triu_indices, and the legacy ``Tensor(...)``."""

import math
import warnings

import numpy as np

from .. import _dtype as D
from .. import backend
from .._device import CPU, as_device
from .._tensor import Size, Tensor, make_tensor
from ..autograd import grad_mode
from ._prep import shape_arg, wrap
from ._registry import register, write_out

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "empty", "full"]


def _finish(arr, dtype, device, requires_grad, out=None):
    """Move a freshly made NumPy array to ``device`` and wrap it."""
    dev = as_device(device)
    if dev is not CPU and dev.type != "cpu":
        arr = backend.to_device(arr, dev)
    t = make_tensor(arr, dtype, dev)
    if requires_grad:
        t.requires_grad_(True)
    if out is not None:
        return write_out(out, t)
    return t


def _resolve_dtype(dtype, default=None):
    if dtype is None:
        return D.get_default_dtype() if default is None else default
    if not isinstance(dtype, D.dtype):
        raise TypeError(f"argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    return dtype


def _infer_dtype(np_arr):
    """The dtype PyTorch infers for Python data that NumPy turned into ``np_arr``."""
    kind = np_arr.dtype.kind
    if kind == "f":
        return D.get_default_dtype()
    if kind == "c":
        return D.default_complex_dtype()
    if kind in "iu":
        return D.int64
    if kind == "b":
        return D.bool
    raise TypeError(f"new(): invalid data type '{np_arr.dtype.name}'")


def _data_to_numpy(data):
    """Nested Python data (numbers, lists, tuples, tensors, arrays) as (array, inferred dtype)."""
    if isinstance(data, Tensor):
        return backend.to_numpy(data._data), data._dtype
    if isinstance(data, np.ndarray):
        return data, D.from_numpy_dtype(data.dtype)
    if isinstance(data, np.generic):
        return np.asarray(data), D.from_numpy_dtype(data.dtype)
    if isinstance(data, (str, bytes)) or data is None:
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if isinstance(data, (list, tuple)) and _has_tensor(data):
        items = [_data_to_numpy(d) for d in data]
        dt = items[0][1] if items else D.get_default_dtype()
        for _, d in items[1:]:
            dt = D.promote_types(dt, d)
        return np.array([a for a, _ in items]), dt
    try:
        arr = np.array(data)
    except ValueError as e:
        raise ValueError(f"expected sequence of length {len(data[0])} at dim 1 (got "
                         f"{_first_bad_len(data)})") from e if isinstance(data, list) and data \
            and isinstance(data[0], (list, tuple)) else e
    if arr.dtype == object or arr.dtype.kind in "USO":
        bad = _first_non_number(data)
        raise TypeError(f"new(): invalid data type '{type(bad).__name__}'")
    return arr, _infer_dtype(arr)


def _has_tensor(seq):
    for x in seq:
        if isinstance(x, Tensor):
            return True
        if isinstance(x, (list, tuple)) and _has_tensor(x):
            return True
    return False


def _first_bad_len(data):
    n = len(data[0])
    for d in data:
        if len(d) != n:
            return len(d)
    return n


def _first_non_number(data):
    if isinstance(data, (list, tuple)):
        for d in data:
            bad = _first_non_number(d)
            if bad is not None:
                return bad
        return None
    return None if isinstance(data, (int, float, bool, complex, np.number)) else data


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor that copies ``data``; dtype inferred as PyTorch does when not given."""
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.clone()."
            "detach() or sourceTensor.clone().detach().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).", UserWarning, stacklevel=2)
    arr, inferred = _data_to_numpy(data)
    dt = _resolve_dtype(dtype, inferred)
    arr = np.array(arr, dtype=dt.numpy_dtype, copy=True, order="C")
    return _finish(arr, dt, device, requires_grad)


register("tensor", tensor, method=False, family="creation")


def scalar_tensor_like(value, other):
    """A 0-d tensor holding the scalar ``value``, on ``other``'s device (torch.add(2, t))."""
    dev = other._device if isinstance(other, Tensor) else CPU
    return tensor(value, device=dev)


def from_numpy(ndarray):
    """A tensor sharing memory with ``ndarray`` (changes to one show in the other)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if any(s < 0 for s in ndarray.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative "
            "strides are not currently supported. (You can probably work around this by making a "
            "copy of your array  with array.copy().) ")
    dt = D.from_numpy_dtype(ndarray.dtype)
    if not ndarray.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte "
                         "order. Conversion between byte orders is currently not supported.")
    return make_tensor(ndarray, dt, CPU)


register("from_numpy", from_numpy, method=False, family="creation")


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but shares memory with a Tensor or ndarray when dtype and device match."""
    dev = None if device is None else as_device(device)
    if isinstance(data, Tensor):
        out = data
        if dtype is not None and dtype is not data._dtype:
            out = out.to(dtype)
        if dev is not None and dev != out._device:
            out = out.to(dev)
        return out
    if isinstance(data, np.ndarray) and (dev is None or dev is CPU):
        t = from_numpy(data) if all(s >= 0 for s in data.strides) else \
            from_numpy(data.copy())
        return t if dtype is None or dtype is t._dtype else t.to(dtype)
    return tensor(data, dtype=dtype, device=device)


register("as_tensor", as_tensor, method=False, family="creation")


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """``torch.asarray``: shares memory when possible unless ``copy=True``."""
    if copy:
        out = tensor(obj.detach() if isinstance(obj, Tensor) else obj, dtype=dtype,
                     device=device) if not isinstance(obj, Tensor) else \
            obj.detach().clone().to(dtype=dtype or obj.dtype, device=device or obj.device)
    else:
        out = as_tensor(obj, dtype=dtype, device=device)
        if copy is False and isinstance(obj, (Tensor, np.ndarray)):
            src_ptr = obj.data_ptr() if isinstance(obj, Tensor) else backend.data_ptr(obj)
            if out.data_ptr() != src_ptr:
                raise ValueError("can't alias tensor with requested dtype or device")
    if requires_grad:
        out.requires_grad_(True)
    return out


register("asarray", asarray, method=False, family="creation")


# ----------------------------------------------------------------------------------------------
# zeros / ones / empty / full
# ----------------------------------------------------------------------------------------------

def _filled(name, fill):
    def fn(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
           pin_memory=False, memory_format=None, generator=None, names=None):
        shape = shape_arg(size, name)
        _check_sizes(shape)
        if out is not None and dtype is None:
            dtype = out._dtype
        dt = _resolve_dtype(dtype)
        arr = fill(shape, dt.numpy_dtype)
        return _finish(arr, dt, device, requires_grad, out)
    fn.__name__ = fn.__qualname__ = name
    register(name, fn, method=False, family="creation")
    return fn


def _check_sizes(shape):
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(shape)}")


zeros = _filled("zeros", np.zeros)
ones = _filled("ones", np.ones)
empty = _filled("empty", np.empty)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """A tensor of ``size`` filled with ``fill_value`` (dtype inferred from it)."""
    shape = shape_arg((size,), "full")
    _check_sizes(shape)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    dt = _resolve_dtype(dtype, D.scalar_dtype(fill_value))
    arr = np.full(shape, fill_value, dtype=dt.numpy_dtype)
    return _finish(arr, dt, device, requires_grad, out)


register("full", full, method=False, family="creation")


def _like(name, fill):
    def fn(input, *args, dtype=None, layout=None, device=None, requires_grad=False,
           memory_format=None, pin_memory=False):
        dt = input._dtype if dtype is None else dtype
        dev = input._device if device is None else as_device(device)
        src = backend.to_numpy(input._data) if input._device.type == "cpu" else None
        if src is not None and memory_format in (None, "preserve"):
            arr = np.empty_like(src, dtype=dt.numpy_dtype, order="K")
        else:
            arr = np.empty(input._data.shape, dtype=dt.numpy_dtype)
        fill(arr, *args)
        return _finish(arr, dt, dev, requires_grad)
    fn.__name__ = fn.__qualname__ = name
    register(name, fn, method=False, family="creation")
    return fn


def _fill_value(arr, value=None):
    arr[...] = value


zeros_like = _like("zeros_like", lambda arr: arr.fill(0))
ones_like = _like("ones_like", lambda arr: arr.fill(1))
empty_like = _like("empty_like", lambda arr: None)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return _like_full(input, fill_value, dtype=dtype, device=device,
                      requires_grad=requires_grad)


_like_full = _like("_full_like", _fill_value)
register("full_like", full_like, method=False, family="creation")


def _new(name, fill):
    def method(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
        shape = shape_arg(size, name)
        dt = self._dtype if dtype is None else dtype
        arr = fill(shape, dt.numpy_dtype)
        return _finish(arr, dt, self._device if device is None else device, requires_grad)
    method.__name__ = name
    setattr(Tensor, name, method)


_new("new_zeros", np.zeros)
_new("new_ones", np.ones)
_new("new_empty", np.empty)


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
              layout=None, pin_memory=False):
    dt = self._dtype if dtype is None else dtype
    return full(size, fill_value, dtype=dt, device=self._device if device is None else device,
                requires_grad=requires_grad)


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None,
                pin_memory=False):
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.clone()."
            "detach() or sourceTensor.clone().detach().requires_grad_(True), rather than "
            "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
    dt = self._dtype if dtype is None else dtype
    return tensor(data if not isinstance(data, Tensor) else data.detach(), dtype=dt,
                  device=self._device if device is None else device,
                  requires_grad=requires_grad)


def _new_legacy(self, *args, **kwargs):
    """``t.new(...)``: the legacy constructor with ``t``'s dtype and device."""
    return legacy_new(Tensor, self._dtype, self._device, args, kwargs)


Tensor.new_full = _new_full
Tensor.new_tensor = _new_tensor
Tensor.new = _new_legacy


def legacy_new(cls, dtype, device, args, kwargs):
    """The legacy constructors: ``Tensor(2, 3)``, ``Tensor([1, 2])``, ``Tensor(ndarray)``,
    ``Tensor(storage)``, ``Tensor(tensor)``, ``Tensor(torch.Size([2, 3]))``."""
    device = kwargs.pop("device", device)
    if kwargs:
        raise TypeError(f"new() received an invalid combination of arguments - got "
                        f"{tuple(kwargs)}")
    dev = as_device(device)
    if not args:
        t = _finish(np.empty((0,), dtype.numpy_dtype), dtype, dev, False)
    elif len(args) == 1 and isinstance(args[0], Tensor):
        src = args[0]
        if src._dtype is not dtype:
            raise TypeError(f"expected {dtype} (got {src.dtype})")
        t = src.detach()
    elif len(args) == 1 and _is_storage(args[0]):
        t = args[0]._as_tensor(dtype)
    elif len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray)) and \
            not isinstance(args[0], Size):
        arr, _ = _data_to_numpy(args[0])
        t = _finish(np.array(arr, dtype=dtype.numpy_dtype), dtype, dev, False)
    else:
        shape = shape_arg(args, "new")
        t = _finish(np.empty(shape, dtype.numpy_dtype), dtype, dev, False)
    if cls is not Tensor:
        t.__class__ = cls
    return t


def _is_storage(x):
    from .._storage import TypedStorage, UntypedStorage
    return isinstance(x, (TypedStorage, UntypedStorage))


# ----------------------------------------------------------------------------------------------
# Ranges and special matrices
# ----------------------------------------------------------------------------------------------

def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    """Values from ``start`` up to (not including) ``end`` in steps of ``step``."""
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        is_float = any(isinstance(v, (float, np.floating)) for v in (start, end, step))
        dtype = D.get_default_dtype() if is_float else D.int64
    n = math.ceil((end - start) / step)
    if dtype.category == D.INTEGRAL or dtype is D.bool:
        arr = (np.arange(n, dtype=np.int64) * int(step) + int(start)) if \
            all(isinstance(v, (int, np.integer)) for v in (start, step)) else \
            (start + np.arange(n, dtype=np.float64) * step)
        arr = arr.astype(dtype.numpy_dtype)
    else:
        arr = (start + np.arange(n, dtype=np.float64) * step).astype(dtype.numpy_dtype)
    return _finish(arr, dtype, device, requires_grad, out)


register("arange", arange, method=False, family="creation")


def range_(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    """Deprecated inclusive range: ``torch.range(1, 4)`` is [1., 2., 3., 4.]."""
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its "
        "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, which "
        "produces values in [start, end).", UserWarning, stacklevel=2)
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    dt = _resolve_dtype(dtype)
    n = int(math.floor((end - start) / step)) + 1
    arr = (start + np.arange(n, dtype=np.float64) * step).astype(dt.numpy_dtype)
    return _finish(arr, dt, device, requires_grad, out)


register("range", range_, method=False, family="creation")


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    start, end = _num(start), _num(end)
    if not isinstance(steps, (int, np.integer)) or steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = _resolve_dtype(dtype)
    # PyTorch fills the first half forwards from start and the second half backwards from end.
    if steps == 1:
        arr = np.array([start], dtype=np.float64)
    else:
        step = (end - start) / (steps - 1)
        i = np.arange(steps, dtype=np.float64)
        half = steps // 2
        arr = np.where(i < half, start + i * step, end - (steps - 1 - i) * step)
    if dt.category == D.INTEGRAL:
        arr = np.trunc(arr)
    return _finish(arr.astype(dt.numpy_dtype), dt, device, requires_grad, out)


register("linspace", linspace, method=False, family="creation")


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    dt = _resolve_dtype(dtype)
    exps = linspace(start, end, steps, dtype=D.float64)._data
    arr = np.power(float(base), exps)
    return _finish(arr.astype(dt.numpy_dtype), dt, device, requires_grad, out)


register("logspace", logspace, method=False, family="creation")


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    dt = _resolve_dtype(dtype)
    arr = np.eye(n, n if m is None else m, dtype=dt.numpy_dtype)
    return _finish(arr, dt, device, requires_grad, out)


register("eye", eye, method=False, family="creation")


def complex(real, imag, *, out=None):
    """A complex tensor from real and imaginary parts of the same float dtype."""
    if real._dtype is not imag._dtype or real._dtype not in (D.float32, D.float64, D.float16):
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{real.dtype} and {imag.dtype}")
    from .pointwise import add, mul
    j = make_tensor(np.array(1j, dtype=real._dtype.to_complex().numpy_dtype), None,
                    real._device)
    return add(real.to(real._dtype.to_complex()), mul(imag, j), out=out)


register("complex", complex, method=False, family="creation")


def polar(abs, angle, *, out=None):
    return complex(abs * angle.cos(), abs * angle.sin(), out=out)


register("polar", polar, method=False, family="creation")


def _tri_indices(row, col, offset, upper, dtype, device):
    r, c = (np.triu_indices if upper else np.tril_indices)(row, offset, col)
    arr = np.stack([r, c]).astype(dtype.numpy_dtype)
    return _finish(arr, dtype, device, False)


def tril_indices(row, col, offset=0, *, dtype=D.int64, device=None, layout=None):
    return _tri_indices(row, col, offset, False, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=D.int64, device=None, layout=None):
    return _tri_indices(row, col, offset, True, dtype, device)


register("tril_indices", tril_indices, method=False, family="creation")
register("triu_indices", triu_indices, method=False, family="creation")


def scalar_to_tensor_like(value, like):
    return make_tensor(np.asarray(value, dtype=like._dtype.numpy_dtype), like._dtype, CPU)


def zeros_for_grad(t):
    """Zeros with ``t``'s shape, dtype and device (used by derivative formulas)."""
    xp = np if t._device is CPU else backend.array_module(t._device)
    return wrap(xp.zeros(t._data.shape, t._dtype.numpy_dtype), t._dtype, t._device)


_ = grad_mode
