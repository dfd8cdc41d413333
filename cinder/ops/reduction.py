"""Reductions: sum, mean, prod, max/min, argmax/argmin, amax/amin, std/var, all/any, norm."""

import builtins
import math
import warnings

import numpy as np

from .. import _dtype as D
from .. import return_types
from .._tensor import Tensor
from ..autograd import grad_mode
from ._prep import check_tensor_arg, dims_arg, wrap, xp_of
from ._registry import FUNCTIONS, make_inplace, needs_grad, node_class, record, register, write_out

_MAX_OUT = return_types.max_out
_MIN_OUT = return_types.min_out

# ----------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------


def _axes(input, dim):
    """Reduced axes as a tuple (None means all); ``dim=[]`` also means all, as in PyTorch."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)) and len(dim) == 0:
        return None
    axes = dims_arg(dim, input._data.ndim)
    return axes if input._data.ndim else ()


def _one_dim(name, dim, ndim, overloads):
    """A single reduction dim (PyTorch's ``int dim`` overloads refuse tuples)."""
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                        f"{type(dim).__name__}), but expected one of:\n{overloads}")
    return dims_arg(dim, ndim)[0] if ndim else 0


def _unreduce(grad, sizes, axes, keepdim):
    """Reshape a reduced gradient so it broadcasts against the input (undo a keepdim=False)."""
    if axes is None:
        axes = tuple(range(len(sizes)))
    if not keepdim and sizes:
        shape = list(grad.shape)
        for a in sorted(axes):
            shape.insert(a, 1)
        grad = grad.reshape(shape)
    return grad


def _np_axes(axes):
    return axes if axes is None else tuple(axes)


def _acc_dtype(dt):
    """Half types accumulate in float32, like PyTorch's reductions."""
    return np.float32 if dt in (D.float16, D.bfloat16) else None


def _count(shape, axes):
    n = 1
    for a in (range(len(shape)) if axes is None else axes):
        n *= shape[a]
    return n


def _reduced_shape(shape, axes, keepdim):
    axes = range(len(shape)) if axes is None else axes
    if keepdim:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _check_differentiable(input, dt):
    """An integer result of a reduction over a tensor that requires grad is an error."""
    if dt.category < D.FLOATING and needs_grad(input):
        raise RuntimeError(f"Autograd not support dtype: {dt.scalar_name}")


def _no_out_overload(name, out, what="Tensor"):
    """PyTorch's full-reduction overloads (no ``dim``) have no ``out=``."""
    if out is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({what}, "
                        f"out=Tensor), but expected one of:\n * (Tensor input, *, torch.dtype "
                        "dtype = None)\n * (Tensor input, tuple of ints dim, bool keepdim = False, "
                        "*, torch.dtype dtype = None, Tensor out = None)")


# ----------------------------------------------------------------------------------------------
# sum / nansum / sum_to_size / mean / prod
# ----------------------------------------------------------------------------------------------

SumNode0 = node_class("SumBackward0", {
    "self": lambda grad, s: grad.expand(s.self_sizes)})
SumNode1 = node_class("SumBackward1", {
    "self": lambda grad, s: _unreduce(grad, s.self_sizes, s.dim, s.keepdim).expand(
        s.self_sizes)})


def _sum_dtype(input, dtype):
    return dtype or (D.int64 if input._dtype.category <= D.INTEGRAL else input._dtype)


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum over all elements or over ``dim`` (int or tuple). Integer inputs sum to int64."""
    check_tensor_arg(input, "sum", "input", 1)
    if isinstance(dim, D.dtype):
        dim, dtype = None, dim
    if dim is None:
        _no_out_overload("sum", out)
    axes = _axes(input, dim)
    dt = _sum_dtype(input, dtype)
    xp = xp_of(input)
    arr = input._data
    acc = _acc_dtype(dt)
    res = xp.sum(arr, axis=_np_axes(axes), keepdims=keepdim, dtype=acc or dt.numpy_dtype)
    result = wrap(xp.asarray(res, dtype=dt.numpy_dtype), dt, input._device)
    if input._requires_grad and needs_grad(input):
        _check_differentiable(input, dt)
        if dim is None:
            record(SumNode0, (input,), (result,), self_sizes=arr.shape)
        else:
            record(SumNode1, (input,), (result,), self_sizes=arr.shape, dim=axes,
                   keepdim=keepdim)
    return write_out(out, result) if out is not None else result


register("sum", sum, family="reduction", nodes=(SumNode0, SumNode1))

NansumNode = node_class("NansumBackward0", {
    "self": lambda grad, s: _unreduce(grad, s.self_sizes, s.dim, s.keepdim).expand(
        s.self_sizes) * s.self.isnan().logical_not()})


def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """``sum`` treating NaN as zero."""
    check_tensor_arg(input, "nansum", "input", 1)
    if input._dtype.category == D.COMPLEX:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    axes = _axes(input, dim)
    dt = _sum_dtype(input, dtype)
    xp = xp_of(input)
    arr = input._data
    if input._dtype.category >= D.FLOATING:
        arr = xp.where(xp.isnan(arr), 0, arr).astype(arr.dtype, copy=False)
    res = xp.sum(arr, axis=_np_axes(axes), keepdims=keepdim, dtype=_acc_dtype(dt) or
                 dt.numpy_dtype)
    result = wrap(xp.asarray(res, dtype=dt.numpy_dtype), dt, input._device)
    if input._requires_grad and needs_grad(input):
        _check_differentiable(input, dt)
        record(NansumNode, (input,), (result,), self=input, self_sizes=input._data.shape,
               dim=axes, keepdim=keepdim)
    return write_out(out, result) if out is not None else result


register("nansum", nansum, family="reduction", nodes=(NansumNode,))


def _expandable(size, shape):
    if len(size) > len(shape):
        return False
    return builtins.all(s == n or s == 1 for s, n in zip(reversed(size), reversed(shape)))


def sum_to_size(input, *size):
    """Sum ``input`` down to ``size`` (the shape it was broadcast from)."""
    from ._prep import shape_arg
    size = shape_arg(size, "sum_to_size")
    shape = input._data.shape
    if not _expandable(size, shape):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if not size:
        return sum(input)
    if tuple(size) == shape:
        return input
    lead = len(shape) - len(size)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(size) if n == 1 and shape[lead + i] != 1)
    out = sum(input, axes, keepdim=True) if axes else input
    return out.reshape(size) if out.shape != tuple(size) else out


# A Tensor method only (there is no torch.sum_to_size).
register("sum_to_size", sum_to_size, function_too=False, family="reduction")

MeanNode0 = node_class("MeanBackward0", {
    "self": lambda grad, s: grad.expand(s.self_sizes) / s.numel})
MeanNode1 = node_class("MeanBackward1", {
    "self": lambda grad, s: _unreduce(grad, s.self_sizes, s.dim, s.keepdim).expand(
        s.self_sizes) / s.count})


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Arithmetic mean; floating and complex inputs only (or an explicit float ``dtype``)."""
    check_tensor_arg(input, "mean", "input", 1)
    if isinstance(dim, D.dtype):
        dim, dtype = None, dim
    dt = dtype or input._dtype
    if dt.category < D.FLOATING:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {dt.scalar_name}")
    axes = _axes(input, dim)
    xp = xp_of(input)
    arr = input._data
    if dt.category < input._dtype.category:
        arr = arr.real
    acc = _acc_dtype(dt)
    if arr.size:
        res = xp.mean(arr, axis=_np_axes(axes), keepdims=keepdim, dtype=acc or dt.numpy_dtype)
    else:
        res = xp.full(_reduced_shape(arr.shape, axes, keepdim), np.nan, dtype=dt.numpy_dtype)
    result = wrap(xp.asarray(res, dtype=dt.numpy_dtype), dt, input._device)
    if input._requires_grad and needs_grad(input):
        if dim is None:
            record(MeanNode0, (input,), (result,), self_sizes=arr.shape, numel=arr.size)
        else:
            record(MeanNode1, (input,), (result,), self_sizes=arr.shape, dim=axes,
                   keepdim=keepdim, count=_count(arr.shape, axes))
    return write_out(out, result) if out is not None else result


register("mean", mean, family="reduction", nodes=(MeanNode0, MeanNode1))


def _prod_backward(grad, s):
    """grad * (product of the other elements), exact when the input holds zeros."""
    self_ = s.self
    if not self_._data.ndim:
        return grad * 1
    g = _unreduce(grad, s.self_sizes, s.dim, s.keepdim)
    if not builtins.bool((self_._data == 0).any()):
        r = _unreduce(s.result, s.self_sizes, s.dim, s.keepdim)
        return g * (r / self_)
    if grad_mode.STATE.grad_enabled:       # create_graph=True: stay differentiable
        return g * _prod_of_others_differentiable(self_, s.dim)
    # With zeros, the product of the *other* elements: exclusive cumulative products.
    arr = self_._data
    if s.dim is None:
        others = _prod_of_others(xp_of(self_), arr.reshape(-1), 0).reshape(arr.shape)
    else:
        others = _prod_of_others(xp_of(self_), arr, s.dim[0])
    return g * wrap(others, self_._dtype, self_._device)


def _prod_of_others_differentiable(x, dims):
    """The product of the other elements along ``dims`` (all dims when None), written in
    cinder ops so that ``create_graph=True`` differentiates it again: each element's row of
    the slice with that element replaced by one, multiplied out. (Quadratic in the slice
    length; only the backward of a product with zeros under create_graph comes here.)"""
    shape = x._data.shape
    if dims is None:
        x, axis = x.reshape(-1), 0
    else:
        axis = dims[0]
    moved = x.movedim(axis, -1)
    n = moved._data.shape[-1]
    rows = moved.unsqueeze(-2).expand(*moved._data.shape[:-1], n, n)
    eye = FUNCTIONS["eye"](n, dtype=D.bool, device=x.device)
    others = FUNCTIONS["where"](eye, 1, rows).prod(-1)
    return others.movedim(-1, axis).reshape(shape)


def _prod_of_others(xp, arr, axis):
    """For each element, the product of all other elements along ``axis``."""
    moved = xp.moveaxis(arr, axis, -1)
    ones = xp.ones(moved.shape[:-1] + (1,), arr.dtype)
    left = xp.cumprod(xp.concatenate([ones, moved[..., :-1]], -1), -1)
    right = xp.flip(xp.cumprod(xp.flip(xp.concatenate([moved[..., 1:], ones], -1), -1), -1),
                    -1)
    return xp.moveaxis(left * right, -1, axis)


ProdNode0 = node_class("ProdBackward0", {"self": _prod_backward})
ProdNode1 = node_class("ProdBackward1", {"self": _prod_backward})
_PROD_OVERLOADS = (" * (Tensor input, *, torch.dtype dtype = None)\n * (Tensor input, int dim, "
                   "bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)")


def prod(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Product over all elements or over one ``dim``. Integer inputs give int64."""
    check_tensor_arg(input, "prod", "input", 1)
    if isinstance(dim, D.dtype):
        dim, dtype = None, dim
    if dim is None:
        _no_out_overload("prod", out)
        axes = None
    else:
        d = _one_dim("prod", dim, input._data.ndim, _PROD_OVERLOADS)
        axes = (d,) if input._data.ndim else ()
    dt = _sum_dtype(input, dtype)
    xp = xp_of(input)
    res = xp.prod(input._data, axis=_np_axes(axes), keepdims=keepdim,
                  dtype=_acc_dtype(dt) or dt.numpy_dtype)
    result = wrap(xp.asarray(res, dtype=dt.numpy_dtype), dt, input._device)
    if input._requires_grad and needs_grad(input):
        _check_differentiable(input, dt)
        record(ProdNode0 if dim is None else ProdNode1, (input,), (result,), self=input,
               self_sizes=input._data.shape, dim=axes, keepdim=keepdim or dim is None)
    return write_out(out, result) if out is not None else result


register("prod", prod, family="reduction", nodes=(ProdNode0, ProdNode1))

# ----------------------------------------------------------------------------------------------
# max / min / argmax / argmin / amax / amin
# ----------------------------------------------------------------------------------------------


def _evenly(grad, s):
    """Gradient of a full max/min: shared equally among the elements equal to the result."""
    mask = s.self == s.result
    return grad * mask / mask.sum()


def _select_index(grad, s):
    """Gradient of max/min along a dim: goes to the selected index only."""
    from .creation import arange
    if not s.self_sizes:
        return grad * 1
    g = _unreduce(grad, s.self_sizes, (s.dim,), s.keepdim)
    idx = _unreduce(s.indices, s.self_sizes, (s.dim,), s.keepdim)
    n = s.self_sizes[s.dim]
    shape = [1] * len(s.self_sizes)
    shape[s.dim] = n
    onehot = arange(n, device=grad.device).reshape(shape) == idx
    return g * onehot


def _amax_backward(grad, s):
    g = _unreduce(grad, s.self_sizes, s.dim, s.keepdim)
    r = _unreduce(s.result, s.self_sizes, s.dim, s.keepdim)
    mask = s.self == r
    return g * mask / mask.sum(s.dim, keepdim=True)


MaxAllNode = node_class("MaxBackward1", {"self": _evenly})
MinAllNode = node_class("MinBackward1", {"self": _evenly})
MaxDimNode = node_class("MaxBackward0", {"self": _select_index})
MinDimNode = node_class("MinBackward0", {"self": _select_index})
AmaxNode = node_class("AmaxBackward0", {"self": _amax_backward})
AminNode = node_class("AminBackward0", {"self": _amax_backward})
_EXTREME_OVERLOADS = (" * (Tensor input, *, Tensor out = None)\n * (Tensor input, Tensor other, "
                      "*, Tensor out = None)\n * (Tensor input, int dim, bool keepdim = False, *, "
                      "tuple of Tensors out = None)")


def _empty_full_reduction(name, error=RuntimeError, hint=True):
    raise error(f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
                + (" Specify the reduction dim with the 'dim' argument." if hint else ""))


def _extreme(name, is_max, all_node, dim_node, tuple_type, out_type):
    def fn(input, dim=None, keepdim=False, *, out=None):
        if isinstance(dim, Tensor):
            from .pointwise import maximum, minimum
            return (maximum if is_max else minimum)(input, dim, out=out)
        check_tensor_arg(input, name, "input", 1)
        xp = xp_of(input)
        arr = input._data
        if input._dtype.category == D.COMPLEX:
            if dim is None:
                raise NotImplementedError(f"\"{name}_all\" not implemented for "
                                          f"'{input._dtype.scalar_name}'")
            raise RuntimeError(f"{name}(): does not support complex input")
        if dim is None:
            if arr.size == 0:
                _empty_full_reduction(name)
            res = xp.max(arr) if is_max else xp.min(arr)
            result = wrap(xp.asarray(res), input._dtype, input._device)
            if input._requires_grad and needs_grad(input):
                record(all_node, (input,), (result,), self=input)
            return write_out(out, result) if out is not None else result
        d = _one_dim(name, dim, arr.ndim, _EXTREME_OVERLOADS)
        if arr.ndim and arr.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        a = arr if arr.ndim else arr.reshape(1)
        idx = _argext(xp, a, d, is_max)
        vals = xp.take_along_axis(a, xp.expand_dims(idx, d), d)
        if not keepdim:
            vals = vals.squeeze(d)
        else:
            idx = xp.expand_dims(idx, d)
        if arr.ndim == 0:
            vals, idx = vals.reshape(()), idx.reshape(())
        values = wrap(vals, input._dtype, input._device)
        indices = wrap(idx.astype(np.int64), D.int64, input._device)
        if input._requires_grad and needs_grad(input):
            record(dim_node, (input,), (values,), self_sizes=arr.shape, dim=d, keepdim=keepdim,
                   indices=indices)
        if out is not None:
            write_out(out[0], values)
            write_out(out[1], indices)
            return out_type(out)
        return tuple_type((values, indices))
    fn.__name__ = fn.__qualname__ = name
    register(name, fn, family="reduction", nodes=(all_node, dim_node))
    return fn


def _argext(xp, a, d, is_max):
    """Index of the first max (min), NaN counting as the extreme, like PyTorch."""
    if a.dtype.kind in "fc" or a.dtype == D.bfloat16.numpy_dtype:
        nan = xp.isnan(a)
        if nan.any():
            has = nan.any(axis=d)
            first_nan = xp.argmax(nan, axis=d)
            other = xp.argmax(a, axis=d) if is_max else xp.argmin(a, axis=d)
            return xp.where(has, first_nan, other)
    return xp.argmax(a, axis=d) if is_max else xp.argmin(a, axis=d)


max = _extreme("max", True, MaxAllNode, MaxDimNode, return_types.max, _MAX_OUT)
min = _extreme("min", False, MinAllNode, MinDimNode, return_types.min, _MIN_OUT)


def _arg(name, is_max):
    def fn(input, dim=None, keepdim=False, *, out=None):
        check_tensor_arg(input, name, "input", 1)
        if input._dtype is D.bool or input._dtype.category == D.COMPLEX:
            kind = "bool" if input._dtype is D.bool else "complex"
            raise RuntimeError(f"{name}(): does not support {kind} input")
        xp = xp_of(input)
        arr = input._data
        if dim is None:
            if arr.size == 0:
                _empty_full_reduction(name, IndexError, hint=False)
            idx = _argext(xp, arr.reshape(-1), 0, is_max)
            if keepdim:
                idx = xp.asarray(idx).reshape((1,) * arr.ndim)
        else:
            if not isinstance(dim, (int, np.integer)):
                raise TypeError(f"{name}(): argument 'dim' must be int, not "
                                f"{type(dim).__name__}")
            d = dims_arg(dim, arr.ndim)[0] if arr.ndim else 0
            if arr.ndim and arr.shape[d] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
            a = arr if arr.ndim else arr.reshape(1)
            idx = _argext(xp, a, d, is_max)
            if keepdim:
                idx = xp.expand_dims(idx, d)
            if arr.ndim == 0:
                idx = idx.reshape(())
        result = wrap(xp.asarray(idx, dtype=np.int64), D.int64, input._device)
        return write_out(out, result) if out is not None else result
    fn.__name__ = fn.__qualname__ = name
    register(name, fn, family="reduction")
    return fn


argmax = _arg("argmax", True)
argmin = _arg("argmin", False)


def _amax_like(name, is_max, node):
    def fn(input, dim=(), keepdim=False, *, out=None):
        check_tensor_arg(input, name, "input", 1)
        if input._dtype.category == D.COMPLEX:
            raise NotImplementedError(f"\"{'max' if is_max else 'min'}_values_cpu\" not "
                                      f"implemented for '{input._dtype.scalar_name}'")
        axes = _axes(input, dim)
        xp = xp_of(input)
        arr = input._data
        if arr.size == 0:
            if axes is None:
                _empty_full_reduction(name)
            for a in axes:
                if arr.shape[a] == 0:
                    raise IndexError(f"{name}(): Expected reduction dim {a} to have non-zero "
                                     "size.")
        res = (xp.max if is_max else xp.min)(arr, axis=_np_axes(axes), keepdims=keepdim)
        result = wrap(xp.asarray(res), input._dtype, input._device)
        if input._requires_grad and needs_grad(input):
            record(node, (input,), (result,), self=input, self_sizes=arr.shape, dim=axes,
                   keepdim=keepdim)
        return write_out(out, result) if out is not None else result
    fn.__name__ = fn.__qualname__ = name
    register(name, fn, family="reduction", nodes=(node,))
    return fn


amax = _amax_like("amax", True, AmaxNode)
amin = _amax_like("amin", False, AminNode)

# ----------------------------------------------------------------------------------------------
# var / std (and var_mean / std_mean)
# ----------------------------------------------------------------------------------------------


def _var_grad(g, s):
    """d var / d self for a reduced gradient ``g`` (already unreduced)."""
    centered = s.self - s.self.mean(s.dim, keepdim=True)
    return g * 2 * centered / s.dof


def _std_grad(g, s, result):
    r = _unreduce(result, s.self_sizes, s.dim, s.keepdim)
    centered = s.self - s.self.mean(s.dim, keepdim=True)
    return (g * centered / (r * s.dof)).masked_fill(r == 0, 0)


def _mean_grad(g, s):
    return g.expand(s.self_sizes) / _count(s.self_sizes, s.dim)


# The formulas call helpers, so the names those helpers read are listed in ``saves_also``.
_MOMENT_SAVES = ("self", "self_sizes", "dim", "keepdim", "dof")
VarNode = node_class("VarBackward0", {
    "self": lambda grad, s: _var_grad(_unreduce(grad, s.self_sizes, s.dim, s.keepdim), s)},
    saves_also=_MOMENT_SAVES)
StdNode = node_class("StdBackward0", {
    "self": lambda grad, s: _std_grad(_unreduce(grad, s.self_sizes, s.dim, s.keepdim), s,
                                      s.result)}, saves_also=_MOMENT_SAVES)


def _var_mean_backward(take_sqrt):
    def formula(grads, s):
        g_spread, g_mean = grads
        total = None
        if g_spread is not None:
            g = _unreduce(g_spread, s.self_sizes, s.dim, s.keepdim)
            total = _std_grad(g, s, s.result) if take_sqrt else _var_grad(g, s)
        if g_mean is not None:
            part = _mean_grad(_unreduce(g_mean, s.self_sizes, s.dim, s.keepdim), s)
            total = part if total is None else total + part
        return total
    return formula


VarMeanNode = node_class("VarMeanBackward0", {"self": _var_mean_backward(False)},
                         saves_also=_MOMENT_SAVES, num_outputs=2)
StdMeanNode = node_class("StdMeanBackward0", {"self": _var_mean_backward(True)},
                         saves_also=_MOMENT_SAVES + ("result",), num_outputs=2)


def _parse_correction(name, dim, unbiased, correction):
    # Legacy positional forms: var(t, True) and var(t, dim, True, keepdim).
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    if correction is not None and unbiased is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        "(correction=..., unbiased=...), but expected one of:\n * (Tensor "
                        "input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, "
                        "Tensor out = None)\n * (Tensor input, tuple of ints dim = None, *, "
                        "Number correction = None, bool keepdim = False, Tensor out = None)")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return dim, correction


def _moments(name, input, dim, unbiased, keepdim, correction, take_sqrt):
    """(spread array, mean array, axes, dof) of var/std over ``dim``."""
    check_tensor_arg(input, name, "input", 1)
    dim, corr = _parse_correction(name, dim, unbiased, correction)
    if input._dtype.category < D.FLOATING:
        what = "std and var" if name in ("var", "std") else name
        raise RuntimeError(f"{what} only support floating point and complex dtypes")
    axes = _axes(input, dim)
    xp = xp_of(input)
    arr = input._data
    dof = _count(arr.shape, axes) - corr
    if dof <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=3)
    with np.errstate(all="ignore"):
        acc = _acc_dtype(input._dtype)
        m = xp.mean(arr, axis=_np_axes(axes), keepdims=True, dtype=acc)
        dev = arr - m
        sq = (dev * dev.conj()).real if arr.dtype.kind == "c" else dev * dev
        res = xp.sum(sq, axis=_np_axes(axes), keepdims=keepdim, dtype=acc) / builtins.max(0, dof)
        if take_sqrt:
            res = xp.sqrt(res)
    mean_arr = m if keepdim else m.reshape(_reduced_shape(arr.shape, axes, False))
    return res, mean_arr, axes, builtins.max(dof, 0), dim


def _var_std(name, take_sqrt, node):
    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
        if out is not None and (isinstance(dim, bool) or dim is None and unbiased is not None):
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            "(Tensor, bool, out=Tensor)")
        res, _, axes, dof, _ = _moments(name, input, dim, unbiased, keepdim, correction,
                                        take_sqrt)
        xp = xp_of(input)
        out_dt = input._dtype.to_real()
        result = wrap(xp.asarray(res, dtype=out_dt.numpy_dtype), out_dt, input._device)
        if input._requires_grad and needs_grad(input):
            record(node, (input,), (result,), self=input, self_sizes=input._data.shape,
                   dim=axes, keepdim=keepdim, dof=dof)
        return write_out(out, result) if out is not None else result
    fn.__name__ = fn.__qualname__ = name
    register(name, fn, family="reduction", nodes=(node,))
    return fn


var = _var_std("var", False, VarNode)
std = _var_std("std", True, StdNode)


def _var_std_mean(name, take_sqrt, node):
    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        res, mean_arr, axes, dof, _ = _moments(name, input, dim, unbiased, keepdim, correction,
                                               take_sqrt)
        xp = xp_of(input)
        out_dt = input._dtype.to_real()
        spread = wrap(xp.asarray(res, dtype=out_dt.numpy_dtype), out_dt, input._device)
        mean_t = wrap(xp.asarray(mean_arr).astype(input._dtype.numpy_dtype, copy=False),
                      input._dtype, input._device)
        if input._requires_grad and needs_grad(input):
            record(node, (input,), (spread, mean_t), self=input, self_sizes=input._data.shape,
                   dim=axes, keepdim=keepdim, dof=dof)
        return spread, mean_t
    fn.__name__ = fn.__qualname__ = name
    register(name, fn, method=False, family="reduction", nodes=(node,))
    return fn


var_mean = _var_std_mean("var_mean", False, VarMeanNode)
std_mean = _var_std_mean("std_mean", True, StdMeanNode)

# ----------------------------------------------------------------------------------------------
# all / any / norm
# ----------------------------------------------------------------------------------------------


def _logical_reduce(name, fn_name):
    def fn(input, dim=None, keepdim=False, *, out=None):
        check_tensor_arg(input, name, "input", 1)
        axes = _axes(input, dim)
        xp = xp_of(input)
        res = getattr(xp, fn_name)(input._data, axis=_np_axes(axes), keepdims=keepdim)
        dt = D.uint8 if input._dtype is D.uint8 else D.bool
        result = wrap(xp.asarray(res, dtype=dt.numpy_dtype), dt, input._device)
        return write_out(out, result) if out is not None else result
    fn.__name__ = fn.__qualname__ = name
    register(name, fn, family="reduction")
    return fn


all = _logical_reduce("all", "all")
any = _logical_reduce("any", "any")


def _norm_backward(grad, s):
    g = _unreduce(grad, s.self_sizes, s.dim, s.keepdim)
    r = _unreduce(s.result, s.self_sizes, s.dim, s.keepdim)
    x, p = s.self, s.p
    if p == 0:
        return None     # PyTorch leaves the gradient of a 0-"norm" undefined
    if p == 1:
        return g * x.sgn()
    if p == 2:
        return (g * x / r).masked_fill(r == 0, 0)
    if math.isinf(p):
        mask = x.abs() == r
        return g * x.sgn() * mask / mask.sum(s.dim, keepdim=True)
    return (g * x * x.abs().pow(p - 2) / r.pow(p - 1)).masked_fill(r == 0, 0)


NormNode = node_class("LinalgVectorNormBackward0", {"self": _norm_backward})


def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """``linalg.vector_norm``: the p-norm of the flattened input or over ``dim``."""
    check_tensor_arg(input, "linalg_vector_norm", "input", 1)
    if input._dtype.category < D.FLOATING:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {input._dtype.scalar_name}")
    if dtype is not None and dtype is not input._dtype:
        if input._dtype.category == D.COMPLEX and dtype.category != D.COMPLEX:
            raise RuntimeError("linalg.vector_norm: dtype should be complex for complex inputs, "
                               f"but got {dtype.scalar_name}")
        input = input.to(dtype)
    axes = _axes(input, dim)
    xp = xp_of(input)
    p = float(ord)
    arr = input._data
    if math.isinf(p) and arr.size == 0:
        for a in (range(arr.ndim) if axes is None else axes):
            if arr.shape[a] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on the "
                                   f"dimension {a}because this dimension is empty and the "
                                   "operation does not have an identity")
    a = xp.abs(arr)
    acc = _acc_dtype(input._dtype)
    ax = _np_axes(axes)
    with np.errstate(all="ignore"):
        if p == 2:
            res = xp.sqrt(xp.sum(a * a, axis=ax, keepdims=keepdim, dtype=acc))
        elif p == 1:
            res = xp.sum(a, axis=ax, keepdims=keepdim, dtype=acc)
        elif math.isinf(p):
            res = (xp.max if p > 0 else xp.min)(a, axis=ax, keepdims=keepdim)
        elif p == 0:
            res = xp.sum(a != 0, axis=ax, keepdims=keepdim, dtype=a.dtype)
        else:
            res = xp.sum(a ** p, axis=ax, keepdims=keepdim, dtype=acc) ** (1.0 / p)
    out_dt = input._dtype.to_real()
    result = wrap(xp.asarray(res, dtype=out_dt.numpy_dtype), out_dt, input._device)
    if input._requires_grad and needs_grad(input):
        record(NormNode, (input,), (result,), self=input, self_sizes=input._data.shape,
               dim=axes, keepdim=keepdim, p=p)
    return write_out(out, result) if out is not None else result


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """``torch.norm``: Frobenius / p-norm over all elements or ``dim``."""
    if isinstance(p, str):
        if p == "fro":
            if dim is not None and not isinstance(dim, int) and len(dim) > 2:
                raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                                   f"{' '.join(str(d) for d in dim)}")
            p = 2
        elif p == "nuc":
            raise NotImplementedError("nuclear norm is provided by cinder.linalg.matrix_norm")
        else:
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    elif p is None:
        p = 2
    return vector_norm(input, p, dim, keepdim, dtype=dtype, out=out)


register("norm", norm, family="reduction", nodes=(NormNode,))
# PyTorch spells it torch.linalg.vector_norm: kept out of the top-level namespace.
register("vector_norm", vector_norm, method=False, function_too=False, family="reduction")


# ----------------------------------------------------------------------------------------------
# cumulative sums
# ----------------------------------------------------------------------------------------------

CumsumNode = node_class("CumsumBackward0", {
    "self": lambda grad, s: grad.flip(s.dim).cumsum(s.dim).flip(s.dim)})


def cumsum(input, dim, *, dtype=None, out=None):
    """Running sums along ``dim``. Integer and bool inputs accumulate in int64."""
    from .._tensor import wrap_dim
    d = wrap_dim(dim, input._data.ndim)
    dt = dtype or (D.int64 if input._dtype.category <= D.INTEGRAL else input._dtype)
    xp = xp_of(input)
    arr = input._data if input._data.ndim else input._data.reshape(1)
    res = xp.cumsum(arr, axis=d, dtype=_acc_dtype(dt) or dt.numpy_dtype)
    res = res.reshape(input._data.shape).astype(dt.numpy_dtype, copy=False)
    result = wrap(res, dt, input._device)
    if input._requires_grad and needs_grad(input):
        record(CumsumNode, (input,), (result,), dim=d)
    return write_out(out, result) if out is not None else result


def scan_for_inplace(scan, name):
    """What ``<scan>_`` (cumsum_, cumprod_) computes, with its own refusals (run by the
    generated in-place)."""
    def fn(self, dim, *, dtype=None):
        if dtype is not None and dtype is not self._dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {self._dtype.cpp_name} "
                               f"and output tensor dtype {dtype.cpp_name} should match")
        if self._dtype is D.bool and self._data.ndim and self._data.size:
            # (0-d and empty tensors never reach a kernel in PyTorch, so they pass)
            raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")
        return scan(self, dim, dtype=self._dtype)
    return make_inplace(fn, name)


register("cumsum", cumsum, inplace=scan_for_inplace(cumsum, "cumsum"),
         family="reduction", nodes=(CumsumNode,))
