"""Creation ops: tensor, from_numpy, zeros/ones/full/empty (+ _like, new_*), arange, range,
linspace, logspace, eye, complex, polar, tril/triu_indices, and the legacy ``Tensor(...)``."""

import builtins
import math
import warnings

import numpy as np

from .. import _dtype as D
from .. import _runtime, backend
from .._device import CPU, as_device
from .._random_engine import _fma32, _fma64
from .._tensor import Tensor, make_tensor
from .._storage import adopt_numpy
from ..autograd import grad_mode
from ._layouts import iterator_layout, like_preserved
from ._prep import (check_tensor_arg, checked_scalar, common_device, fill_scalar, result_type,
                    wrap, xp_of)
from ._creation_factory import check_dtype, check_options, filled, is_int_arg
from ._creation_factory import finish as _finish
from ._registry import needs_grad, node_class, record, register, write_out
from ._prep import reraise_broadcast

__all__ = ["as_tensor", "asarray", "empty", "from_numpy", "full", "ones", "tensor", "zeros"]


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


def _data_to_numpy(data, dtype=None):
    """Nested Python data (numbers, lists, tuples, tensors, arrays) as (array, inferred dtype).

    ``dtype`` is the requested result dtype, if any."""
    if isinstance(data, Tensor):
        return backend.to_numpy(data._data), data._dtype
    if isinstance(data, np.ndarray):
        if data.dtype.kind in "USO":
            raise TypeError(f"can't convert np.ndarray of type numpy.{data.dtype.type.__name__}. "
                            "The only supported types are: float64, float32, float16, "
                            "complex64, complex128, int64, int32, int16, int8, uint8, and bool.")
        return data, D.from_numpy_dtype(data.dtype)
    if isinstance(data, np.generic):
        return np.asarray(data), D.from_numpy_dtype(data.dtype)
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if data is None:
        raise RuntimeError("Could not infer dtype of NoneType")
    if isinstance(data, (list, tuple)) and _has_tensor(data):
        # tensors inside a sequence are read as scalars (one element each)
        as_index = dtype is not None and dtype.category < D.FLOATING
        return np.array(_tensors_as_scalars(data, as_index)), _infer_scalar_type(data)
    try:
        arr = np.array(data)
    except ValueError as e:
        if isinstance(data, list) and data and isinstance(data[0], (list, tuple)):
            raise ValueError(f"expected sequence of length {len(data[0])} at dim 1 (got "
                             f"{_first_bad_len(data)})") from e
        raise
    if arr.dtype == object or arr.dtype.kind in "USO":
        bad = _first_non_number(data)
        if bad is not None:
            raise TypeError(f"new(): invalid data type '{type(bad).__name__}'")
    inferred = _infer_scalar_type(data)
    if dtype is D.uint64 and arr.dtype != np.uint64 and inferred.category < D.FLOATING:
        arr = np.array(data, dtype=np.uint64)       # integers up to 2**64 - 1, exactly
    elif arr.dtype == object or (inferred.category < D.FLOATING and arr.dtype.kind not in "biu"):
        # a Python int beyond 64 bits (NumPy fell back to object or float64): PyTorch reads
        # integers as int64 and refuses; beside a float it is just a large float
        if inferred.category < D.FLOATING:
            raise ValueError("Overflow when unpacking long long")
        arr = np.array(data, dtype=np.complex128 if inferred.category == D.COMPLEX
                       else np.float64)
    elif arr.dtype == np.uint64 and dtype is not D.uint64:
        raise ValueError("Overflow when unpacking long long")
    return arr, inferred


_NUMBER_TYPES = (bool, int, float, builtins.complex)


def _python_scalar_type(t):
    # subclasses count as their base (an IntEnum member is an int, as PyTorch reads it)
    if issubclass(t, bool):
        return D.bool
    if issubclass(t, int):
        return D.int64
    if issubclass(t, float):
        return D.get_default_dtype()
    return D.default_complex_dtype()


def _infer_scalar_type(data):
    """PyTorch's dtype inference for ``torch.tensor(data)``: the promotion of every element's
    type, where Python numbers count as int64 / the default float / complex, and NumPy
    scalars, arrays and tensors as their own dtype. An empty sequence is the default float."""
    t = type(data)
    if t in _NUMBER_TYPES:
        return _python_scalar_type(t)
    if isinstance(data, Tensor):
        return data._dtype
    if isinstance(data, (np.ndarray, np.generic)):
        return D.from_numpy_dtype(data.dtype)
    if not isinstance(data, (list, tuple)):
        if isinstance(data, _NUMBER_TYPES):     # subclasses (IntEnum members...) as their base
            return _python_scalar_type(type(data))
        return _python_scalar_type(float)
    if not data:
        return D.get_default_dtype()
    kinds = set(map(type, data))
    result = None
    if kinds <= set(_NUMBER_TYPES):          # the common flat case, without a Python loop
        for k in kinds:
            d = _python_scalar_type(k)
            result = d if result is None else D.promote_types(result, d)
        return result
    for item in data:
        d = _infer_scalar_type(item)
        result = d if result is None else D.promote_types(result, d)
    return result


def _tensors_as_scalars(seq, as_index=False):
    """``seq`` with each tensor replaced by its single value (PyTorch reads them as Python
    numbers: ``__index__`` when an integer dtype was asked for)."""
    out = []
    for x in seq:
        if isinstance(x, Tensor):
            if as_index and (x.numel() != 1 or x._dtype.category >= D.FLOATING):
                raise TypeError("only integer tensors of a single element can be converted to "
                                "an index")
            if x.numel() != 1:
                raise ValueError("only one element tensors can be converted to Python scalars")
            x = backend.to_numpy(x._data).reshape(())
        elif isinstance(x, (list, tuple)):
            x = _tensors_as_scalars(x, as_index)
        out.append(x)
    return out


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
    return None if isinstance(data, (int, float, bool, builtins.complex, np.number)) else data


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor that copies ``data``; dtype inferred as PyTorch does when not given."""
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach()."
            "clone() or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).", UserWarning, stacklevel=2)
    arr, inferred = _data_to_numpy(data, dtype)
    dt = check_dtype("tensor", dtype, None) or inferred
    check_options("tensor", None, pin_memory)
    if dt is D.float16:
        arr = D.cast_array(np.asarray(arr), dt)     # float64 data rounds through float32
    arr = np.array(arr, dtype=dt.numpy_dtype, copy=True, order="C")
    if isinstance(data, Tensor) and not data._data.flags.c_contiguous:
        arr = like_preserved(arr, data._data)     # a copied tensor keeps its layout
    return _finish(arr, dt, device, requires_grad)


register("tensor", tensor, method=False, family="creation")


def scalar_tensor_like(value, other):
    """A 0-d tensor holding the scalar ``value``, on ``other``'s device (torch.add(2, t)).

    PyTorch keeps a Python number as a double ("wrapped number") until the op casts it to the
    result dtype, so ``0.1 + t`` with a float64 ``t`` sees 0.1 itself, not 0.1 rounded to
    float32: when the result is a double type, the tensor is made in that type directly.
    """
    dev = other._device if isinstance(other, Tensor) else CPU
    if isinstance(other, Tensor):
        dt = result_type(other, value)
        if dt is D.float64 or dt is D.complex128:
            return tensor(value, dtype=dt, device=dev)
    return tensor(value, device=dev)


def from_numpy(ndarray):
    """A tensor sharing memory with ``ndarray`` (changes to one show in the other)."""
    if ndarray.__class__ is not np.ndarray and not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    strides = ndarray.strides
    if strides and min(strides) < 0:
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative "
            "strides are not currently supported. (You can probably work around this by making a "
            "copy of your array  with array.copy().) ")
    if not ndarray.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte "
                         "order. Conversion between byte orders is currently not supported.")
    # (a DataLoader calls this for every sample: the dtype lookup is one dict probe)
    dt = D._FROM_NUMPY.get(ndarray.dtype) or D.from_numpy_dtype(ndarray.dtype)
    # The storage is exactly the memory the array spans (offset 0), as PyTorch makes it.
    return make_tensor(adopt_numpy(ndarray), dt, CPU)


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
        if copy is False and not isinstance(obj, (Tensor, np.ndarray)):
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        if copy is False:
            src_dtype = obj._dtype if isinstance(obj, Tensor) else D.from_numpy_dtype(obj.dtype)
            if dtype is not None and dtype is not src_dtype:
                raise ValueError(f"can't alias tensor with dtype '{src_dtype.scalar_name}' into "
                                 f"dtype '{dtype.scalar_name}'.")
        out = as_tensor(obj, dtype=dtype, device=device)
        if copy is False:
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

def _uninitialized(shape, dtype):
    """Memory for the ``empty`` family: left as it is, unless deterministic algorithms are on
    (then NaN for floating dtypes and the largest value for integers and bool, as PyTorch's
    ``fill_uninitialized_memory`` does)."""
    arr = np.empty(shape, dtype=dtype)
    _fill_if_deterministic(arr)
    return arr


def _fill_if_deterministic(arr):
    switches = _runtime.SWITCHES
    if switches.deterministic and switches.fill_uninitialized_memory:
        kind = np.dtype(arr.dtype).kind
        if kind == "b":
            arr.fill(True)
        elif kind in "iu":
            arr.fill(np.iinfo(arr.dtype).max)
        else:
            arr.fill(np.nan)


def _fill_with(arr, value):
    # the fill value converted as fill_ converts it (PyTorch's overflow errors, float16 through
    # float32)
    arr[...] = fill_scalar(value, D.from_numpy_dtype(arr.dtype), arr.size)


# One entry per family: cinder.<name>, cinder.<name>_like and Tensor.new_<name>.
zeros, zeros_like, _ = filled("zeros", lambda arr: arr.fill(0), alloc=np.zeros,
                              negative="zeros: Dimension size must be non-negative.",
                              doc="A tensor of ``size`` filled with zeros.")
ones, ones_like, _ = filled("ones", lambda arr: arr.fill(1), alloc=np.ones,
                            doc="A tensor of ``size`` filled with ones.")
empty, empty_like, _ = filled("empty", _fill_if_deterministic, alloc=_uninitialized,
                              memory_format=True,
                              doc="An uninitialised tensor of ``size``.")
full, full_like, _ = filled("full", _fill_with, value=True,
                            doc="A tensor of ``size`` filled with ``fill_value`` (its dtype "
                                "inferred from the value unless given).")


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None,
                pin_memory=False):
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach()."
            "clone() or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
    dt = self._dtype if dtype is None else check_dtype("new_tensor", dtype, None)
    if isinstance(data, Tensor):    # (warned above; tensor() must not warn again)
        data = backend.to_numpy(data._data)
    return tensor(data, dtype=dt, device=self._device if device is None else device,
                  requires_grad=requires_grad)


register("new_tensor", _new_tensor, function_too=False, family="creation")


# ----------------------------------------------------------------------------------------------
# Ranges and special matrices
# ----------------------------------------------------------------------------------------------

def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def _check_numbers(name, named):
    """Each (parameter name, value) must be a number: PyTorch's TypeError names the first
    one that is not, with its position."""
    for pos, (param, v) in enumerate(named, 1):
        if not isinstance(v, (int, float, builtins.complex, np.number, np.bool_)):
            raise TypeError(f"{name}(): argument '{param}' (position {pos}) must be Number, not "
                            f"{type(v).__name__}")


def _range_acc(dt):
    """The type PyTorch's CPU range kernels compute in: int64 for integers, float32 for the
    half types, double for float32/float64."""
    if dt.category < D.FLOATING:
        return np.int64
    if dt in (D.float16, D.bfloat16):
        return np.float32
    return np.complex128 if dt.category == D.COMPLEX else np.float64


def _trunc_div(a, b):
    """C++ integer division (rounds toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False):
    """Values from ``start`` up to (not including) ``end`` in steps of ``step``."""
    dtype = check_dtype("arange", dtype, None)
    check_options("arange", layout, pin_memory, out, dtype)
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
        _check_numbers("arange", (("end", end),))
    else:
        _check_numbers("arange", (("start", start), ("end", end), ("step", step)))
    if dtype is None:
        if out is not None:
            dtype = out._dtype
        else:
            is_float = any(isinstance(v, (float, np.floating)) for v in (start, end, step))
            dtype = D.get_default_dtype() if is_float else D.int64
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if dtype is D.bool or dtype.category == D.COMPLEX:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dtype.scalar_name}'")
    if dtype.category == D.INTEGRAL:
        # integer ranges run on truncated start/end/step, as PyTorch's int64 kernels do
        xs, xe, xst = int(start), int(end), int(step)
        if xst == 0:
            raise ValueError("step must be nonzero")
        _check_range_sign(xs, xe, xst)
        if dtype is D.int64:
            sgn = (xst > 0) - (xst < 0)
            n = _trunc_div(xe - xs + xst - sgn, xst)
        else:
            n = math.ceil((end - start) / step)
        arr = (xs + np.arange(max(n, 0), dtype=np.int64) * xst).astype(dtype.numpy_dtype)
    else:
        _check_range_sign(start, end, step)
        n = math.ceil((end - start) / step)
        acc = _range_acc(dtype)
        arr = (acc(start) + np.arange(n, dtype=acc) * acc(step)).astype(dtype.numpy_dtype)
    return _finish(arr, dtype, device, requires_grad, out)


def _check_range_sign(start, end, step):
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")


register("arange", arange, method=False, family="creation")


def range_(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False):
    """Deprecated inclusive range: ``torch.range(1, 4)`` is [1., 2., 3., 4.]."""
    dtype = check_dtype("range", dtype, None)
    check_options("range", layout, pin_memory, out, dtype)
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its "
        "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, which "
        "produces values in [start, end).", UserWarning, stacklevel=2)
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if dtype is None and out is not None:
        dtype = out._dtype
    dt = _resolve_dtype(dtype)
    if dt is D.bool or dt.category == D.COMPLEX:
        raise NotImplementedError(f"\"range_cpu\" not implemented for '{dt.scalar_name}'")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    _check_range_sign(start, end, step)
    n = math.floor((end - start) / step) + 1
    acc = _range_acc(dt)
    arr = (acc(start) + np.arange(n, dtype=acc) * acc(step)).astype(dt.numpy_dtype)
    return _finish(arr, dt, device, requires_grad, out)


register("range", range_, method=False, family="creation")


def _linspace_array(start, end, steps, dt):
    """PyTorch's CPU linspace, value for value: the first half counts up from ``start``, the
    second half down from ``end`` (so both ends are exact). Its kernel computes in the result
    type (in double for integers, from ``start`` and ``end`` truncated to integers), and the
    compiler fuses ``start + step * i`` into one fused multiply-add, rounded once; half types
    round after every operation instead (``c10::Half`` arithmetic goes through float), and
    complex types count each part on its own. One step is a plain fill with ``start``."""
    integral = dt.category == D.INTEGRAL
    if steps == 1:                          # (only ``start`` must fit)
        value = checked_scalar(start, dt) if integral else start
        return np.array([value], dtype=_linspace_acc(dt))
    if dt.category == D.COMPLEX:
        part = D.float32 if dt is D.complex64 else D.float64
        start, end = builtins.complex(start), builtins.complex(end)
        return (_linspace_array(start.real, end.real, steps, part)
                + 1j * _linspace_array(start.imag, end.imag, steps, part)).astype(
                    dt.numpy_dtype)
    start, end = checked_scalar(start, dt), checked_scalar(end, dt)    # both must fit
    if dt in (D.float16, D.bfloat16):
        return _linspace_half(start, end, steps, dt.numpy_dtype.type)
    acc = _linspace_acc(dt)
    a, b = (acc(math.trunc(v) if integral else v) for v in (start, end))
    with np.errstate(all="ignore"):
        step = (b - a) / acc(steps - 1)
    if not (np.isfinite(step) and max(abs(float(a)), abs(float(b))) < 2.0 ** 900):
        return _linspace_plain(a, b, steps, acc)    # (the fused emulation would overflow)
    i = np.arange(steps)
    up = i < steps // 2
    count = np.where(up, i, steps - 1 - i).astype(acc)
    fma = _fma32 if acc is np.float32 else _fma64
    return fma(np.where(up, step, -step), count, np.where(up, a, b)).astype(acc, copy=False)


def _linspace_acc(dt):
    """The NumPy type linspace's values are computed in for ``dt``."""
    if dt.category == D.INTEGRAL or dt is D.bool:
        return np.float64
    return np.float32 if dt in (D.float16, D.bfloat16) else dt.numpy_dtype.type


def _linspace_plain(start, end, steps, acc):
    """linspace with each operation rounded: ``start + step * i`` as two roundings."""
    if steps == 1:
        return np.array([start], dtype=acc)
    a, b = acc(start), acc(end)
    step = (b - a) / acc(steps - 1)
    i = np.arange(steps, dtype=np.int64)
    half = steps // 2
    with np.errstate(all="ignore"):
        return np.where(i < half, a + step * i.astype(acc),
                        b - step * (steps - 1 - i).astype(acc)).astype(acc)


def _linspace_half(start, end, steps, half_type):
    """linspace in float16/bfloat16: every product and sum is computed in float32 and rounded
    back to the half type, the index included (``c10::Half(i)``)."""
    def r(x):
        return np.asarray(x, dtype=np.float32).astype(half_type).astype(np.float32)
    a, b = r(start), r(end)
    if steps == 1:
        return a.reshape(1)
    step = r(r(b - a) / r(steps - 1))
    i = np.arange(steps, dtype=np.float32)
    half = steps // 2
    with np.errstate(all="ignore"):
        up = r(a + r(step * r(i[:half])))
        down = r(b - r(step * r(steps - 1 - i[half:])))
    return np.concatenate([up, down])


def _spaced_arguments(name, start, end, steps, dtype, out, layout, pin_memory):
    """linspace/logspace's checked arguments: (start, end, steps, result dtype). Without a
    dtype, complex endpoints give the default complex type."""
    dtype = check_dtype(name, dtype, None)
    check_options(name, layout, pin_memory, out, dtype)
    start, end = _num(start), _num(end)
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool):
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"steps of type {type(steps).__name__}, but expected an int")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if dtype is None and out is not None:
        dtype = out._dtype
    dt = _resolve_dtype(dtype)
    if dtype is None and (isinstance(start, builtins.complex) or
                          isinstance(end, builtins.complex)):
        dt = dt.to_complex()
    if dt is D.bool and steps > 1:   # (one step is filled without a kernel)
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Bool'")
    return start, end, int(steps), dt


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    start, end, steps, dt = _spaced_arguments("linspace", start, end, steps, dtype, out,
                                              layout, pin_memory)
    arr = _linspace_array(start, end, steps, dt)
    with np.errstate(all="ignore"):     # (values outside an integer dtype wrap, as in C)
        arr = np.trunc(arr).astype(dt.numpy_dtype) if dt.category == D.INTEGRAL else \
            arr.astype(dt.numpy_dtype)
    return _finish(arr, dt, device, requires_grad, out)


register("linspace", linspace, method=False, family="creation")


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """``base ** linspace(start, end, steps)``."""
    start, end, steps, dt = _spaced_arguments("logspace", start, end, steps, dtype, out,
                                              layout, pin_memory)
    # PyTorch's kernel: exponents in double (complex double), rounded after each operation,
    # and C's pow, which NumPy's vectorised power can differ from in the last bit: results
    # kept in double or truncated to integers take C's pow element by element
    if dt.category == D.INTEGRAL and steps > 1:     # integer endpoints, as linspace's
        start, end = math.trunc(checked_scalar(start, dt)), math.trunc(checked_scalar(end, dt))
    exps = _linspace_plain(start, end, steps,
                           np.complex128 if dt.category == D.COMPLEX else np.float64)
    base = float(base)
    if dt is D.float64 or dt.category == D.INTEGRAL:
        arr = np.fromiter((_c_pow(base, e) for e in exps.tolist()), np.float64, steps)
    else:
        with np.errstate(all="ignore"):
            arr = np.power(base, exps)
    with np.errstate(all="ignore"):     # (inf and NaN into integers, as C's cast)
        arr = arr.astype(dt.numpy_dtype)
    return _finish(arr, dt, device, requires_grad, out)


def _c_pow(base, exponent):
    """C's ``pow`` (``math.pow`` raises where C returns inf or NaN)."""
    try:
        return math.pow(base, exponent)
    except (OverflowError, ValueError):
        with np.errstate(all="ignore"):
            return float(np.power(base, exponent))


register("logspace", logspace, method=False, family="creation")


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
        pin_memory=False):
    """The ``n x m`` identity matrix (square when ``m`` is omitted)."""
    dtype = check_dtype("eye", dtype, None)
    check_options("eye", layout, pin_memory, out, dtype)
    if not is_int_arg(n):
        raise TypeError(f"eye(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if m is not None and not is_int_arg(m):
        raise TypeError(f"eye() received an invalid combination of arguments - got "
                        f"({type(n).__name__}, {type(m).__name__}), but expected one of:\n"
                        " * (int n, *, Tensor out = None, torch.dtype dtype = None, "
                        "torch.layout layout = None, torch.device device = None, "
                        "bool pin_memory = False, bool requires_grad = False)\n"
                        " * (int n, int m, *, Tensor out = None, torch.dtype dtype = None, "
                        "torch.layout layout = None, torch.device device = None, "
                        "bool pin_memory = False, bool requires_grad = False)\n")
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    if dtype is None and out is not None:
        dtype = out._dtype
    dt = _resolve_dtype(dtype)
    arr = np.eye(n, n if m is None else m, dtype=dt.numpy_dtype)
    return _finish(arr, dt, device, requires_grad, out)


register("eye", eye, method=False, family="creation")


def _real_of(t, imag=False):
    """The real (or imaginary) part of a complex gradient, as a real tensor (first order)."""
    xp = xp_of(t)
    part = xp.imag(t._data) if imag else xp.real(t._data)
    return wrap(xp.ascontiguousarray(part), t._dtype.to_real(), t._device)


def _check_complex_parts(a, b, what=("real", "imag")):
    if a._dtype is not b._dtype:
        raise RuntimeError(f"Expected object of scalar type {a._dtype.scalar_name} but got "
                           f"scalar type {b._dtype.scalar_name} for second argument")
    if a._dtype not in (D.float32, D.float64, D.float16):
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{a._dtype.scalar_name} and {b._dtype.scalar_name}")
    if a._dtype is D.float16:
        raise NotImplementedError("cinder has no complex32 (ComplexHalf) dtype: "
                                  f"torch.{what[0]}/{what[1]} of float16 tensors is unsupported")


ComplexNode = node_class("ComplexBackward0", {
    "real": lambda grad, s: _real_of(grad),
    "imag": lambda grad, s: _real_of(grad, imag=True)})
PolarNode = node_class("PolarBackward0", {
    "abs": lambda grad, s: _real_of(grad.conj() * s.result.sgn()),
    "angle": lambda grad, s: _real_of(grad.conj() * s.result * 1j)})


def _complex_result(re, im, inputs, node, out, **saved):
    dt = inputs[0]._dtype.to_complex()
    xp = xp_of(inputs[0])
    try:
        arr = xp.asarray(re + 1j * im).astype(dt.numpy_dtype)
    except ValueError as exc:
        reraise_broadcast(exc, re, im)
    arr = iterator_layout(arr, [t._data for t in inputs])   # one iterator over both parts
    result = wrap(arr, dt, common_device(inputs))
    if needs_grad(*inputs):
        record(node, inputs, (result,), **saved)
    return write_out(out, result) if out is not None else result


def complex(real, imag, *, out=None):
    """A complex tensor from real and imaginary parts of the same float dtype."""
    check_tensor_arg(real, "complex", "real", 1)
    check_tensor_arg(imag, "complex", "imag", 2)
    _check_complex_parts(real, imag)
    return _complex_result(real._data, imag._data, (real, imag), ComplexNode, out)


register("complex", complex, method=False, family="creation", nodes=(ComplexNode,))


def polar(abs, angle, *, out=None):
    """``abs * (cos(angle) + i sin(angle))``."""
    check_tensor_arg(abs, "polar", "abs", 1)
    check_tensor_arg(angle, "polar", "angle", 2)
    _check_complex_parts(abs, angle, ("abs", "angle"))
    xp = xp_of(abs)
    return _complex_result(abs._data * xp.cos(angle._data), abs._data * xp.sin(angle._data),
                           (abs, angle), PolarNode, out)


register("polar", polar, method=False, family="creation", nodes=(PolarNode,))


def _tri_indices(name, row, col, offset, upper, dtype, device):
    dtype = check_dtype(name, dtype, None)
    if dtype not in (D.int64, D.int32):
        raise NotImplementedError(f"\"{name}\" not implemented for '{dtype.scalar_name}'")
    if row < 0 or col < 0:
        raise RuntimeError(f"row must be non-negative, got{row}" if row < 0 else
                           f"col must be non-negative, got{col}")
    r, c = (np.triu_indices if upper else np.tril_indices)(row, offset, col)
    arr = np.stack([r, c]).astype(dtype.numpy_dtype).reshape(2, -1)
    return _finish(arr, dtype, device, False)


def tril_indices(row, col, offset=0, *, dtype=D.int64, device=None, layout=None):
    """Indices (2 x N) of the lower triangle of a ``row x col`` matrix, row by row."""
    return _tri_indices("tril_indices", row, col, offset, False, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=D.int64, device=None, layout=None):
    """Indices (2 x N) of the upper triangle of a ``row x col`` matrix, row by row."""
    return _tri_indices("triu_indices", row, col, offset, True, dtype, device)


register("tril_indices", tril_indices, method=False, family="creation")
register("triu_indices", triu_indices, method=False, family="creation")


def scalar_to_tensor_like(value, like):
    return make_tensor(np.asarray(value, dtype=like._dtype.numpy_dtype), like._dtype, CPU)


def zeros_for_grad(t):
    """Zeros with ``t``'s shape, dtype and device (used by derivative formulas)."""
    xp = xp_of(t)
    return wrap(xp.zeros(t._data.shape, t._dtype.numpy_dtype), t._dtype, t._device)


_ = grad_mode
