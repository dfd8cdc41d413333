"""The reduction factory: what every reduction shares, written once.

A reduction (``sum``, ``max(dim)``, ``var_mean``, ``logsumexp``...) is defined by a *body*: a
function with the op's Python signature, less ``out=``, that computes the result arrays and
says which graph node (if any) the result needs. ``reduction(name, ...)`` turns the body into
the published op and does the rest in one place:

- the ``input`` must be a Tensor (PyTorch's ``TypeError`` otherwise);
- PyTorch's parser errors: a dtype in the ``dim`` position of ``sum``/``mean``/``prod``, and
  ``out=`` for their full-reduction overload, which has none (``full_out=False``);
- recording: the body's ``Reduced`` names the node and the values to save; the factory binds
  the node's inputs **by name** (``self`` is the input) and refuses an integer result that
  would need a gradient;
- ``out=``: one tensor, or ``out=(values, indices)`` for the named-tuple family
  (``returns=return_types.max``), answered with ``torch.return_types.<name>_out``.

The helpers for dims (``dim_axes``, ``one_dim``), accumulation (``acc_dtype``) and
derivatives (``unreduce``, ``reduced_shape``, ``count``) are here too, for bodies and formulas.
"""

import functools
import inspect
from math import prod as _prod

import numpy as np

from .. import _dtype as D
from .. import return_types
from ..backend import scan as blocked_scan
from .._tensor import Tensor, make_tensor, wrap_dim
from . import limited_uint
from ._layouts import row_major
from ._prep import check_tensor_arg, dims_arg, xp_of
from ._registry import make_inplace, needs_grad, record, register, write_out

__all__ = ["Reduced", "acc_dtype", "as_result_array", "count", "dim_axes", "one_dim",
           "pair_result", "reduced_shape", "reduction", "unreduce"]

# ----------------------------------------------------------------------------------------------
# Dims, shapes and dtypes
# ----------------------------------------------------------------------------------------------


def dim_axes(input, dim):
    """The reduced axes of ``input`` as a tuple, or None for all of them.

    ``dim`` may be None, an int, or a tuple/list of ints; an empty list also means every dim,
    as in PyTorch. Out-of-range and repeated dims raise PyTorch's errors. A 0-d input accepts
    dims 0 and -1 and reduces nothing (``()``).
    """
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)) and len(dim) == 0:
        return None
    axes = dims_arg(dim, input._data.ndim)
    return axes if input._data.ndim else ()


def one_dim(name, dim, ndim, overloads):
    """A single reduction dim, wrapped; PyTorch's ``int dim`` overloads refuse a tuple with
    the argument parser's ``TypeError`` (``overloads`` lists the signatures it prints)."""
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                        f"{type(dim).__name__}), but expected one of:\n{overloads}")
    return dims_arg(dim, ndim)[0] if ndim else 0


def np_axes(axes):
    """``axes`` as NumPy's ``axis=`` wants it (None or a tuple)."""
    return axes if axes is None else tuple(axes)


def acc_dtype(dt):
    """The NumPy dtype to accumulate a ``dt`` result in: half types sum in float32, as
    PyTorch's CPU reductions do; None means the result dtype itself."""
    return np.float32 if dt in (D.float16, D.bfloat16) else None


# PyTorch's CPU scans (cumsum, cumprod) carry the running value in ``acc_type``: double for
# float32, complex<double> for complex64, float for the half types. Accumulating in the same
# type gives its results bit for bit (a float32 accumulator differs in most elements).
_SCAN_ACC = {D.float32: np.dtype(np.float64), D.complex64: np.dtype(np.complex128),
             D.float16: np.dtype(np.float32), D.bfloat16: np.dtype(np.float32)}


def accumulate(xp, ufunc, arr, axis, dt):
    """Running ``ufunc`` ("add" or "multiply") of ``arr`` along ``axis`` with a ``dt``
    result, accumulated in PyTorch's type. One copy in the accumulator type, then
    ``ufunc.accumulate`` (which skips the argument handling of ``np.cumsum``). Long float
    lines go through the blocked scans of ``backend.scan`` instead, and scans along a leading
    dim with wide steps through ``_scan_by_slices``. The result is row-major whatever the
    input's layout, as PyTorch's."""
    if xp is np and arr.size >= _BLOCKED_FROM[ufunc] and arr.shape[axis] >= _MIN_RUN:
        res = _blocked_accumulate(ufunc, arr, axis, dt)
        if res is not None:
            return res
    target = dt.numpy_dtype
    acc = _SCAN_ACC.get(dt)
    if acc is None:
        buf = arr.astype(target, order="C")
    else:
        if arr.dtype != target:
            # PyTorch converts the input to the result's dtype first (float64 data summed
            # into a float32 result: each value rounded to float32, then carried in float64)
            arr = arr.astype(target)
        buf = arr.astype(acc, order="C")
    if xp is not np:
        buf = (xp.cumsum if ufunc == "add" else xp.cumprod)(buf, axis=axis)
    elif axis < buf.ndim - 1 and buf.shape[axis] and buf.size >= _SLICED * buf.shape[axis]:
        _scan_by_slices(_UFUNCS[ufunc], buf, axis)
    else:
        # (into a new array: accumulating in place makes NumPy guard the overlap, which
        # costs more than the allocation at small sizes)
        buf = _UFUNCS[ufunc].accumulate(buf, axis)
    return buf if acc is None else buf.astype(target)


def scan_op(name, ufunc, node, saves_self):
    """The function of the running-``ufunc`` op ``name`` (cumsum: "add", cumprod:
    "multiply"): along ``dim``, in ``dtype`` (integer and bool inputs accumulate in int64),
    recording ``node`` with the dim (and the input as ``self`` when ``saves_self``)."""
    def fn(input, dim, *, dtype=None, out=None):
        if not isinstance(input, Tensor):
            check_tensor_arg(input, name, "input", 1)
        if type(dim) is not int:
            if isinstance(dim, bool) or not hasattr(type(dim), "__index__"):
                raise TypeError(f"{name}(): argument 'dim' (position 2) must be int, not "
                                f"{type(dim).__name__}")
            dim = dim.__index__()           # (NumPy integers, integer 0-d tensors)
        data = input._data
        d = wrap_dim(dim, data.ndim)        # (a 0-d tensor takes dims 0 and -1)
        dt = dtype or (D.int64 if input._dtype.category <= D.INTEGRAL else input._dtype)
        if data.ndim:
            res = accumulate(xp_of(input), ufunc, data, d, dt)
        else:
            res = accumulate(xp_of(input), ufunc, data.reshape(1), 0, dt).reshape(())
        result = make_tensor(res, dt, input._device)
        if input._requires_grad and needs_grad(input):
            saved = {"self": input} if saves_self else {}
            record(node, (input,), (result,), **saved, dim=d)
        return write_out(out, result) if out is not None else result
    fn.__name__ = fn.__qualname__ = name
    return fn


def scan_inplace(scan, name):
    """``Tensor.<name>_`` of a scan (cumsum_, cumprod_): the scan in the tensor's own dtype,
    with the in-place form's own refusals."""
    def fn(self, dim, *, dtype=None):
        if dtype is not None and dtype is not self._dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {self._dtype.cpp_name} "
                               f"and output tensor dtype {dtype.cpp_name} should match")
        if self._dtype is D.bool and self._data.ndim and self._data.size:
            # (0-d and empty tensors never reach a kernel in PyTorch, so they pass)
            raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")
        return scan(self, dim, dtype=self._dtype)
    return make_inplace(fn, name)


_UFUNCS = {"add": np.add, "multiply": np.multiply}
_BLOCKED_FROM = blocked_scan.MIN_LENGTH      # lines at least this long: the blocked scans
_MIN_RUN = 16       # shortest line the blocked scans take (two segments)
# Scans along a dim with at least this many elements per step (the slice across every other
# dim) run as one vectorised operation per step: NumPy's accumulate would walk each line
# separately, at ~3 ns an element.
_SLICED = 256


def _scan_by_slices(ufunc, buf, axis):
    """The running ``ufunc`` of ``buf`` along ``axis``, in place, one whole slice at a time:
    each element is combined with the running value in the sequential order, so the results
    are PyTorch's bit for bit."""
    steps = np.moveaxis(buf, axis, 0)
    ufunc(steps[0], ufunc.identity, out=steps[0])    # (PyTorch's 0 + x turns -0.0 into 0.0)
    for i in range(1, steps.shape[0]):
        ufunc(steps[i - 1], steps[i], out=steps[i])


def _blocked_accumulate(ufunc, arr, axis, dt):
    """``accumulate`` along the last dim of float32/float64 data with a float result at least
    as wide (PyTorch carries these in float64), by the blocked scans of ``backend.scan``: in
    float64 too but in another order, so within float64 rounding of the sequential scan. None
    where that does not apply, or where the data holds values (non-finite, zero, out of range)
    for which the orders could disagree by more than rounding."""
    out_dt = dt.numpy_dtype
    if arr.dtype.char not in "fd" or out_dt.char not in "fd" or out_dt.itemsize < arr.itemsize:
        return None
    length = arr.shape[axis]
    if axis != arr.ndim - 1:
        if arr.size // length > 1:
            return None     # (several lines along another dim: see _scan_by_slices)
        arr, axis = arr.reshape(-1), 0
    res = np.empty(arr.shape, out_dt)
    if not blocked_scan.running_scan(ufunc, arr.reshape(-1, length), res.reshape(-1, length)):
        return None
    return res


def sum_by_matmul(xp, a, axes, keepdims=False):
    """The sum of a C-contiguous float32/float64 array over a leading or a trailing block of
    its axes, as a product with a vector of ones (BLAS gemv, about twice as fast as NumPy's
    reduction over a leading axis); None for other sums, and for arrays under 2**14 elements
    (there the vector of ones and the call cost more than the reduction). Only partial sums of
    at most 2**16 terms each: gemv adds each output's terms in a few running partial sums, so
    its rounding stays that of a plain reduction."""
    k, nd = len(axes), a.ndim
    if a.dtype.char not in "fd" or k == nd or a.size < 1 << 14 or not a.flags.c_contiguous:
        return None
    if axes == tuple(range(k)):
        n = _prod(a.shape[:k])
        res = None if n > 1 << 16 else xp.matmul(xp.ones(n, a.dtype), a.reshape(n, -1))
    elif axes == tuple(range(nd - k, nd)):
        n = _prod(a.shape[nd - k:])
        res = None if n > 1 << 16 else xp.matmul(a.reshape(-1, n), xp.ones(n, a.dtype))
    else:
        return None
    if res is None:
        return None
    return res.reshape(reduced_shape(a.shape, axes, keepdims))


def as_result_array(res, input, dt):
    """A reduction's ``res`` as an array of ``dt``: a full reduction answers a NumPy scalar
    and half types accumulate in float32; otherwise ``res`` already is the result."""
    if res.__class__ is input._data.__class__ and res.dtype == dt.numpy_dtype:
        return res
    return xp_of(input).asarray(res, dtype=dt.numpy_dtype)


def count(shape, axes):
    """How many elements each output element reduces over."""
    n = 1
    for a in (range(len(shape)) if axes is None else axes):
        n *= shape[a]
    return n


def reduced_shape(shape, axes, keepdim):
    """The output shape of reducing ``shape`` over ``axes`` (None: all)."""
    axes = range(len(shape)) if axes is None else axes
    if keepdim:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def unreduce(grad, sizes, axes, keepdim):
    """Reshape a reduced gradient so that it broadcasts against the input of shape ``sizes``
    (puts back the dims a ``keepdim=False`` reduction dropped)."""
    if axes is None:
        axes = tuple(range(len(sizes)))
    if not keepdim and sizes:
        shape = list(grad.shape)
        for a in sorted(axes):
            shape.insert(a, 1)
        grad = grad.reshape(shape)
    return grad


# ----------------------------------------------------------------------------------------------
# What a body returns, and out=
# ----------------------------------------------------------------------------------------------

class Reduced:
    """A body's answer: the output tensors, the graph node to record when the input needs
    a gradient (None: not differentiable), and the values the node may save (the node keeps
    only those its formulas read; ``self``, the input, is always offered)."""

    __slots__ = ("outputs", "node", "saves")

    def __init__(self, /, *outputs, node=None, **saves):
        self.outputs = outputs
        self.node = node
        self.saves = saves


_OUT_TYPES = {}


def out_type(tuple_type):
    """``torch.return_types.<name>_out``: the named tuple an ``out=(a, b)`` call returns."""
    name = tuple_type.__name__ + "_out"
    if name not in _OUT_TYPES:
        _OUT_TYPES[name] = getattr(return_types, name, None) or \
            return_types._named(name, tuple_type._fields)
    return _OUT_TYPES[name]


def pair_result(tuple_type, outputs, out):
    """The named tuple of ``outputs``; with ``out=`` the results are written there first."""
    if out is None:
        return tuple_type(outputs)
    if not isinstance(out, (tuple, list)) or len(out) != len(outputs):
        raise TypeError(f"{tuple_type.__name__}(): argument 'out' must be tuple of "
                        f"{len(outputs)} Tensors")
    for o, r in zip(out, outputs):
        write_out(o, r)
    return out_type(tuple_type)(tuple(out))


def invalid_combination(name, got, overloads):
    """PyTorch's argument-parser ``TypeError`` when no overload takes the arguments ``got``."""
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but "
                    f"expected one of:\n{overloads}")


def _dim_of_call(args, kwargs):
    return args[0] if args else kwargs.get("dim")


# ----------------------------------------------------------------------------------------------
# The factory
# ----------------------------------------------------------------------------------------------

def _check_differentiable(result):
    """An integer result of a reduction over a tensor that requires grad is an error."""
    dt = result._dtype
    if dt.category < D.FLOATING:
        raise RuntimeError(f"Autograd not support dtype: {dt.scalar_name}")


def _row_major_outputs(outputs):
    """Give each output PyTorch's row-major strides: its reductions allocate their results
    row-major whatever the input's layout, where NumPy keeps the input's dim order."""
    for t in outputs:
        t._data = row_major(t._data)


def _record(answer, input):
    """Record ``answer.node`` with its inputs bound by name: ``self`` is the input, unless the
    body names another tensor ``self`` (the input after a dtype conversion)."""
    node = answer.node
    values = {"self": input}
    values.update(answer.saves)
    inputs = tuple(values.get(n) for n in node._inputs)
    _check_differentiable(answer.outputs[0])
    # only the differentiable outputs join the graph (``max(dim)``'s indices do not)
    record(node, inputs, answer.outputs[:node._num_outputs], **values)


def _public_signature(body, with_out):
    """The body's signature with PyTorch's keyword-only ``out=None`` appended."""
    sig = inspect.signature(body)
    if not with_out:
        return sig
    out = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)
    return sig.replace(parameters=[*sig.parameters.values(), out])


def reduction(name, *, nodes=(), returns=None, has_out=True, check_out=None, overloads=None,
              full_out=True, error_name=None, family="reduction", method=True,
              function_too=True, inplace=None, own_layout=False):
    """Decorator: publish the body below it as the reduction ``name``.

    ``nodes``: the graph-node classes the body may name (for the op table). ``returns``: the
    ``torch.return_types`` named tuple of a multi-output op (None: a plain tuple).
    ``has_out=False``: the op has no ``out=`` argument; ``check_out(input, *args, **kwargs)``
    refuses ``out=`` for some argument combinations. ``overloads``: the signatures PyTorch's
    parser prints (for ``sum``/``mean``/``prod``, which refuse a dtype in the ``dim`` position);
    with ``full_out=False`` the full reduction (no ``dim``) has no ``out=``. ``error_name``:
    the name PyTorch's argument errors use when it differs (``linalg_vector_norm``).
    ``own_layout``: the body lays its outputs out itself (otherwise they are made row-major
    when the input is not). The other arguments go to ``register``. Returns the
    implementation (the op table holds the public function that passes the dispatch point).
    """
    label = error_name or name
    # the refusal of uint16/32/64 inputs (limited_uint.py), tested here on the input's dtype
    # instead of in a wrapper around every call
    spec = limited_uint.REFUSED.get(name)
    limited = None
    if (spec is not None and spec[1] == limited_uint.SELF and method is True and inplace is None
            and not getattr(spec[0], "decides", False)):
        limited = limited_uint.claim_check(name)

    def build(body):
        @functools.wraps(body)
        def fn(input, *args, out=None, **kwargs):
            if not isinstance(input, Tensor):
                check_tensor_arg(input, label, "input", 1)
            if limited is not None and input._dtype in limited_uint.LIMITED:
                limited(fn, (input, *args), kwargs if out is None else {**kwargs, "out": out})
            if overloads is not None and args and isinstance(args[0], D.dtype):
                invalid_combination(label, "Tensor, torch.dtype", overloads)
            if out is not None:
                if not has_out:
                    raise TypeError(f"{label}() got an unexpected keyword argument 'out'")
                if not full_out and _dim_of_call(args, kwargs) is None:
                    invalid_combination(label, "Tensor, out=Tensor", overloads)
                if check_out is not None:
                    check_out(input, *args, **kwargs)
            answer = body(input, *args, **kwargs)
            if not (own_layout or input._data.flags.c_contiguous):
                _row_major_outputs(answer.outputs)
            if answer.node is not None and input._requires_grad and needs_grad(input):
                _record(answer, input)
            outputs = answer.outputs
            if len(outputs) > 1:
                return outputs if returns is None else pair_result(returns, outputs, out)
            if out is not None:
                return write_out(out, outputs[0])
            return outputs[0]

        fn.__signature__ = _public_signature(body, has_out)
        register(name, fn, method=method, inplace=inplace, family=family, nodes=tuple(nodes),
                 function_too=function_too)
        return fn
    return build
