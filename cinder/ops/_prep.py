"""Argument preparation shared by every op: tensors vs scalars, promotion, devices, dims.

This is done once here, not in each op: ``binary_operands`` gives the kernel two arrays (or an
array and a Python scalar) already in the result dtype and on one device.
"""

import math

import ml_dtypes
import numpy as np

from .. import _dtype as D
from .. import backend
from .._device import CPU
from .._tensor import Tensor, make_tensor, wrap_dim

_SCALAR_TYPES = (int, float, bool, complex, np.number, np.bool_)


def xp_of(t):
    """The array namespace (numpy or cupy) of a tensor."""
    return np if t._device is CPU else backend.array_module(t._device)


def is_scalar(x):
    return isinstance(x, _SCALAR_TYPES)


def device_mismatch(a, b, name=""):
    raise RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{_dev_name(a)} and {_dev_name(b)}!" if not name else
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{_dev_name(a)} and {_dev_name(b)}! (when checking argument for argument {name})")


def _dev_name(d):
    return "cuda:0" if d.type == "cuda" and d.index is None else str(d)


def common_device(tensors):
    """The device all tensors share; 0-d CPU tensors may join CUDA tensors, as in PyTorch."""
    dev = None
    for t in tensors:
        d = t._device
        if dev is None or dev is d:
            dev = d
            continue
        if d == dev:
            continue
        if d is CPU and t._data.ndim == 0:
            continue
        if dev is CPU and not any(x._device is CPU and x._data.ndim > 0 for x in tensors):
            dev = d
            continue
        device_mismatch(dev, d)
    return dev


def result_type(*args):
    """PyTorch's promotion over tensors (n-d over 0-d) and Python scalars."""
    dim, zero, scal = [], [], []
    for a in args:
        if isinstance(a, Tensor):
            (dim if a._data.ndim else zero).append(a._dtype)
        elif a is not None:
            scal.append(a)
    return D.result_type_of(dim, zero, scal)


def as_compute(t, dtype, dev):
    """The array of ``t`` in ``dtype`` on ``dev`` (no copy when nothing changes)."""
    arr = t._data
    if t._device is not dev and t._device != dev:
        arr = backend.to_device(arr, dev)
    if t._dtype is not dtype:
        arr = arr.astype(dtype.numpy_dtype)
    return arr


def scalar_as(value, dtype):
    """A Python scalar converted to the kernel dtype's Python kind (so NumPy keeps the dtype)."""
    if isinstance(value, np.generic):
        value = value.item()
    cat = dtype.category
    if cat == D.COMPLEX:
        return complex(value)
    if cat == D.FLOATING:
        if isinstance(value, complex):
            raise RuntimeError("value cannot be converted to type float without overflow")
        if dtype is D.float16:
            # C++ reaches Half from double through float: round to float32 first, so the
            # later conversion to float16 rounds the way PyTorch's does
            return float(np.float32(value))
        return float(value)
    if cat == D.INTEGRAL:
        value = int(value)
        lo, hi = _INT_RANGE[dtype]
        if lo <= value <= hi:
            return value
        return wrap_int(value, dtype)
    return bool(value)


_INT_RANGE = {d: (int(np.iinfo(d.numpy_dtype).min), int(np.iinfo(d.numpy_dtype).max))
              for d in (D.uint8, D.int8, D.int16, D.int32, D.int64) + D.LIMITED_UINTS}


def wrap_int(value, dtype):
    """An out-of-range Python int as PyTorch casts it to an integer dtype: modulo 2**bits."""
    lo, hi = _INT_RANGE[dtype]
    if dtype is D.int64 or dtype is D.uint64:
        overflow_error(dtype)
    span = hi - lo + 1
    return (value - lo) % span + lo


_FLOAT_MAX = {D.float32: float(np.finfo(np.float32).max), D.float16: 65504.0,
              D.bfloat16: float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)}


# The C++ names PyTorch's overflow message gives the scalar types (the rest are "<name>_t").
_C_TYPE_NAMES = {D.int32: "int", D.float32: "float", D.float64: "double",
                 D.float16: "c10::Half", D.bfloat16: "c10::BFloat16"}


def overflow_error(dtype):
    """PyTorch's error for a scalar that does not fit ``dtype``."""
    cname = _C_TYPE_NAMES.get(dtype, f"{dtype.name}_t")
    raise RuntimeError(f"value cannot be converted to type {cname} without overflow")


def checked_scalar(value, dtype):
    """A Python scalar converted for storing into a ``dtype`` tensor (``fill_``, ``clamp``
    bounds), with PyTorch's overflow check: integers must fit the dtype, except that an
    unsigned dtype also takes negative values down to -max (they wrap, two's complement); a
    float stored into an integer dtype must lie in its range (it then truncates)."""
    if isinstance(value, np.generic):
        value = value.item()
    if dtype.category == D.INTEGRAL and not isinstance(value, bool):
        lo, hi = _INT_RANGE[dtype]
        if isinstance(value, int):
            if not -2**63 <= value < 2**64:     # no C++ scalar holds it
                raise OverflowError("int too big to convert")
            if value > hi or (value < lo and (lo < 0 or -value > hi)):
                overflow_error(dtype)
            return value if value >= lo else value + hi + 1
        if isinstance(value, float) and not lo <= value <= hi:     # (NaN too)
            overflow_error(dtype)
    if dtype in _FLOAT_MAX and isinstance(value, float) and \
            _FLOAT_MAX[dtype] < abs(value) < math.inf:
        # a finite double beyond the type's largest finite value (inf and NaN pass)
        overflow_error(dtype)
    if dtype.category < D.COMPLEX and isinstance(value, complex):
        overflow_error(dtype)
    return scalar_as(value, dtype)


def fill_scalar(value, dtype, numel):
    """``fill_``'s conversion of a Python scalar: ``checked_scalar``, except that PyTorch fills
    a one-element tensor by a direct store, which converts a double to the half types without
    the range check (1e5 becomes inf)."""
    if numel == 1 and dtype in (D.float16, D.bfloat16):
        return scalar_as(value, dtype)
    return checked_scalar(value, dtype)


def not_implemented(kernel, dt):
    """PyTorch's error for a dtype a kernel has no implementation for."""
    raise NotImplementedError(f'"{kernel}" not implemented for \'{dt.scalar_name}\'')


def check_tensor_arg(x, fname, name="other", pos=2):
    """TypeError for a non-Tensor where PyTorch's signature only takes a Tensor."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


def binary_operands(a, b, name):
    """(array_a, array_b_or_scalar, result dtype, device) for a binary op with ``a`` a Tensor."""
    if isinstance(b, Tensor):
        dt = a._dtype
        if dt is not b._dtype:
            dt = result_type(a, b)
        dev = a._device
        if dev is not b._device and dev != b._device:
            dev = common_device((a, b))
        return as_compute(a, dt, dev), as_compute(b, dt, dev), dt, dev
    if is_scalar(b):
        dt = a._dtype
        cat = dt.category
        if cat == D.BOOL or (cat == D.INTEGRAL and not isinstance(b, (int, np.integer))) or \
                (cat == D.FLOATING and isinstance(b, (complex, np.complexfloating))):
            dt = D.result_type_of((dt,) if a._data.ndim else (),
                                  (dt,) if not a._data.ndim else (), (b,))
        arr = a._data if dt is a._dtype else a._data.astype(dt.numpy_dtype)
        return arr, scalar_as(b, dt), dt, a._device
    raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not "
                    f"{type(b).__name__}")


def broadcast_shape(*shapes):
    """The broadcast of ``shapes``, or PyTorch's RuntimeError naming the first mismatch (counted
    from the right, as PyTorch's ``infer_size`` scans)."""
    out = tuple(shapes[0])
    for shape in shapes[1:]:
        shape = tuple(shape)
        n = max(len(out), len(shape))
        a = (1,) * (n - len(out)) + out
        b = (1,) * (n - len(shape)) + shape
        merged = []
        for i in range(n - 1, -1, -1):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor "
                                   f"b ({b[i]}) at non-singleton dimension {i}")
            merged.append(b[i] if a[i] == 1 else a[i])
        out = tuple(reversed(merged))
    return out


def reraise_broadcast(exc, *arrays):
    """Turn NumPy's broadcasting ValueError into PyTorch's RuntimeError (other errors pass)."""
    broadcast_shape(*(np.shape(x) for x in arrays))
    raise exc


def to_tensor_like(x, like=None):
    """A scalar or sequence as a Tensor on ``like``'s device (Tensor inputs pass through)."""
    if isinstance(x, Tensor):
        return x
    from .creation import tensor
    dev = None if like is None else like._device
    return tensor(x, device=dev)


def wrap(arr, dtype, dev):
    return make_tensor(arr, dtype, dev)


def dims_arg(dim, ndim):
    """Normalise a dim argument (int, tuple/list of ints, or None) to a sorted tuple or None."""
    if dim is None:
        return None
    if isinstance(dim, (int, np.integer, Tensor)):
        return (wrap_dim(int(dim), ndim),)
    dims = tuple(wrap_dim(d, ndim) for d in dim)
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
    return dims


# What PyTorch calls the int-list argument of these ops in its errors (else "size").
_SIZE_ARG_NAMES = {"reshape": "shape", "permute": "dims", "repeat": "repeats", "tile": "dims"}


def shape_arg(args, name="size"):
    """``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(torch.Size)`` all mean shape (2, 3)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    out = []
    for s in args:
        if isinstance(s, Tensor):
            s = int(s)
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            arg = _SIZE_ARG_NAMES.get(name, "size")
            raise TypeError(f"{name}(): argument '{arg}' failed to unpack the object at pos "
                            f"{len(out) + 1} with error \"type must be tuple of ints,but got "
                            f"{type(s).__name__}\"")
        out.append(int(s))
    return tuple(out)
