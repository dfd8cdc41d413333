"""Reductions: sum, mean, prod, max/min, argmax/argmin, amax/amin, std/var, all/any, norm.

Each op is a body published by the reduction factory (``_reduction_factory.reduction``), which
does the argument checks, ``out=``, the named tuples and the recording; the bodies compute.
"""

import builtins
import math
import warnings

import numpy as np

from .. import _dtype as D
from .. import return_types
from .._tensor import Tensor
from ..autograd import grad_mode
from ._prep import wrap, xp_of
from ._reduction_factory import (
    Reduced,
    acc_dtype,
    as_result_array,
    count,
    dim_axes,
    np_axes,
    one_dim,
    reduced_shape,
    reduction,
    scan_inplace,
    scan_op,
    unreduce,
)
from ._registry import FUNCTIONS, OPS, node_class, register
from ._prep import shape_arg

# ----------------------------------------------------------------------------------------------
# sum / nansum / sum_to_size / mean / prod
# ----------------------------------------------------------------------------------------------

SumNode0 = node_class("SumBackward0", {
    "self": lambda grad, s: grad.expand(s.self_sizes)})
SumNode1 = node_class("SumBackward1", {
    "self": lambda grad, s: unreduce(grad, s.self_sizes, s.dim, s.keepdim).expand(
        s.self_sizes)})


def _sum_dtype(input, dtype):
    return dtype or (D.int64 if input._dtype.category <= D.INTEGRAL else input._dtype)


_SUM_OVERLOADS = (" * (Tensor input, *, torch.dtype dtype = None)\n * (Tensor input, tuple of "
                  "ints dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = "
                  "None)")


@reduction("sum", nodes=(SumNode0, SumNode1), overloads=_SUM_OVERLOADS, full_out=False)
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over all elements or over ``dim`` (int or tuple). Integer inputs sum to int64."""
    axes = dim_axes(input, dim)
    dt = _sum_dtype(input, dtype)
    arr = input._data
    # the array's own method: NumPy's np.sum adds a Python layer that costs more than the
    # addition itself on small tensors (and CuPy arrays have the same method)
    res = arr.sum(axis=np_axes(axes), keepdims=keepdim, dtype=acc_dtype(dt) or dt.numpy_dtype)
    result = wrap(as_result_array(res, input, dt), dt, input._device)
    if dim is None:
        return Reduced(result, node=SumNode0, self_sizes=arr.shape)
    return Reduced(result, node=SumNode1, self_sizes=arr.shape, dim=axes, keepdim=keepdim)


NansumNode = node_class("NansumBackward0", {
    "self": lambda grad, s: unreduce(grad, s.self_sizes, s.dim, s.keepdim).expand(
        s.self_sizes) * s.self.isnan().logical_not()})


@reduction("nansum", nodes=(NansumNode,))
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """``sum`` treating NaN as zero."""
    if input._dtype.category == D.COMPLEX:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    axes = dim_axes(input, dim)
    dt = _sum_dtype(input, dtype)
    xp = xp_of(input)
    arr = input._data
    if input._dtype.category >= D.FLOATING:
        arr = xp.where(xp.isnan(arr), 0, arr).astype(arr.dtype, copy=False)
    res = xp.sum(arr, axis=np_axes(axes), keepdims=keepdim, dtype=acc_dtype(dt) or
                 dt.numpy_dtype)
    result = wrap(xp.asarray(res, dtype=dt.numpy_dtype), dt, input._device)
    return Reduced(result, node=NansumNode, self_sizes=input._data.shape, dim=axes,
                   keepdim=keepdim)


def _expandable(size, shape):
    if len(size) > len(shape):
        return False
    return builtins.all(s == n or s == 1 for s, n in zip(reversed(size), reversed(shape)))


def sum_to_size(input, *size):
    """Sum ``input`` down to ``size`` (the shape it was broadcast from)."""
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
    "self": lambda grad, s: unreduce(grad, s.self_sizes, s.dim, s.keepdim).expand(
        s.self_sizes) / s.count})


@reduction("mean", nodes=(MeanNode0, MeanNode1), overloads=(
    " * (Tensor input, *, torch.dtype dtype = None, Tensor out = None)\n * (Tensor input, tuple "
    "of ints dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)"))
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Arithmetic mean; floating and complex inputs only (or an explicit float ``dtype``)."""
    dt = dtype or input._dtype
    if dt.category < D.FLOATING:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {dt.scalar_name}")
    axes = dim_axes(input, dim)
    xp = xp_of(input)
    arr = input._data
    if dt.category < input._dtype.category:
        arr = arr.real
    if arr.size:
        res = arr.mean(axis=np_axes(axes), keepdims=keepdim, dtype=acc_dtype(dt) or dt.numpy_dtype)
    else:
        res = xp.full(reduced_shape(arr.shape, axes, keepdim), np.nan, dtype=dt.numpy_dtype)
    result = wrap(as_result_array(res, input, dt), dt, input._device)
    if dim is None:
        return Reduced(result, node=MeanNode0, self_sizes=arr.shape, numel=arr.size)
    return Reduced(result, node=MeanNode1, self_sizes=arr.shape, dim=axes, keepdim=keepdim,
                   count=count(arr.shape, axes))


def _prod_backward(grad, s):
    """grad * (product of the other elements), exact when the input holds zeros."""
    self_ = s.self
    if not self_._data.ndim:
        return grad * 1
    g = unreduce(grad, s.self_sizes, s.dim, s.keepdim)
    if not builtins.bool((self_._data == 0).any()):
        r = unreduce(s.result, s.self_sizes, s.dim, s.keepdim)
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


@reduction("prod", nodes=(ProdNode0, ProdNode1), overloads=_PROD_OVERLOADS, full_out=False)
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product over all elements or over one ``dim``. Integer inputs give int64."""
    if dim is None:
        axes = None
    else:
        d = one_dim("prod", dim, input._data.ndim, _PROD_OVERLOADS)
        axes = (d,) if input._data.ndim else ()
    dt = _sum_dtype(input, dtype)
    xp = xp_of(input)
    res = xp.prod(input._data, axis=np_axes(axes), keepdims=keepdim,
                  dtype=acc_dtype(dt) or dt.numpy_dtype)
    result = wrap(xp.asarray(res, dtype=dt.numpy_dtype), dt, input._device)
    return Reduced(result, node=ProdNode0 if dim is None else ProdNode1,
                   self_sizes=input._data.shape, dim=axes, keepdim=keepdim or dim is None)


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
    g = unreduce(grad, s.self_sizes, (s.dim,), s.keepdim)
    idx = unreduce(s.indices, s.self_sizes, (s.dim,), s.keepdim)
    n = s.self_sizes[s.dim]
    shape = [1] * len(s.self_sizes)
    shape[s.dim] = n
    onehot = arange(n, device=grad.device).reshape(shape) == idx
    return g * onehot


def _amax_backward(grad, s):
    g = unreduce(grad, s.self_sizes, s.dim, s.keepdim)
    r = unreduce(s.result, s.self_sizes, s.dim, s.keepdim)
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


def _check_dim_not_empty(name, arr, axes):
    """Reducing an empty dim has no identity for max/min-like ops: PyTorch's IndexError."""
    for a in axes:
        if arr.ndim and arr.shape[a] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {a} to have non-zero size.")


def _extreme(name, is_max, all_node, dim_node, tuple_type):
    def fn(input, dim=None, keepdim=False):
        if isinstance(dim, Tensor):
            from .pointwise import maximum, minimum
            return Reduced((maximum if is_max else minimum)(input, dim))
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
            return Reduced(wrap(xp.asarray(res), input._dtype, input._device), node=all_node)
        d = one_dim(name, dim, arr.ndim, _EXTREME_OVERLOADS)
        _check_dim_not_empty(name, arr, (d,))
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
        return Reduced(values, indices, node=dim_node, self_sizes=arr.shape, dim=d,
                       keepdim=keepdim, indices=indices)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"The {name}imum of all elements; or, over ``dim``, the {name}imum values "
                  f"and their indices; or, with a Tensor ``other``, ``{name}imum``.")
    return reduction(name, nodes=(all_node, dim_node), returns=tuple_type)(fn)


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


max = _extreme("max", True, MaxAllNode, MaxDimNode, return_types.max)
min = _extreme("min", False, MinAllNode, MinDimNode, return_types.min)


def _arg(name, is_max):
    def fn(input, dim=None, keepdim=False):
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
            d = dim_axes(input, dim)
            d = d[0] if d else 0
            _check_dim_not_empty(name, arr, (d,))
            a = arr if arr.ndim else arr.reshape(1)
            idx = _argext(xp, a, d, is_max)
            if keepdim:
                idx = xp.expand_dims(idx, d)
            if arr.ndim == 0:
                idx = idx.reshape(())
        return Reduced(wrap(xp.asarray(idx, dtype=np.int64), D.int64, input._device))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"The index of the first {name[3:]}imum (over all elements or along ``dim``)."
    return reduction(name)(fn)


argmax = _arg("argmax", True)
argmin = _arg("argmin", False)


def _amax_like(name, is_max, node):
    def fn(input, dim=(), keepdim=False):
        if input._dtype.category == D.COMPLEX:
            raise NotImplementedError(f"\"{'max' if is_max else 'min'}_values_cpu\" not "
                                      f"implemented for '{input._dtype.scalar_name}'")
        axes = dim_axes(input, dim)
        xp = xp_of(input)
        arr = input._data
        if arr.size == 0:
            if axes is None:
                _empty_full_reduction(name)
            _check_dim_not_empty(name, arr, axes)
        res = (xp.max if is_max else xp.min)(arr, axis=np_axes(axes), keepdims=keepdim)
        result = wrap(xp.asarray(res), input._dtype, input._device)
        return Reduced(result, node=node, self_sizes=arr.shape, dim=axes, keepdim=keepdim)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"The {name[1:]}imum over ``dim`` (all dims by default); no indices."
    return reduction(name, nodes=(node,))(fn)


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
    r = unreduce(result, s.self_sizes, s.dim, s.keepdim)
    centered = s.self - s.self.mean(s.dim, keepdim=True)
    return (g * centered / (r * s.dof)).masked_fill(r == 0, 0)


def _mean_grad(g, s):
    return g.expand(s.self_sizes) / count(s.self_sizes, s.dim)


# The formulas call helpers, so the names those helpers read are listed in ``saves_also``.
_MOMENT_SAVES = ("self", "self_sizes", "dim", "keepdim", "dof")
VarNode = node_class("VarBackward0", {
    "self": lambda grad, s: _var_grad(unreduce(grad, s.self_sizes, s.dim, s.keepdim), s)},
    saves_also=_MOMENT_SAVES)
StdNode = node_class("StdBackward0", {
    "self": lambda grad, s: _std_grad(unreduce(grad, s.self_sizes, s.dim, s.keepdim), s,
                                      s.result)}, saves_also=_MOMENT_SAVES)


def _var_mean_backward(take_sqrt):
    def formula(grads, s):
        g_spread, g_mean = grads
        total = None
        if g_spread is not None:
            g = unreduce(g_spread, s.self_sizes, s.dim, s.keepdim)
            total = _std_grad(g, s, s.result) if take_sqrt else _var_grad(g, s)
        if g_mean is not None:
            part = _mean_grad(unreduce(g_mean, s.self_sizes, s.dim, s.keepdim), s)
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
    dim, corr = _parse_correction(name, dim, unbiased, correction)
    if input._dtype.category < D.FLOATING:
        what = "std and var" if name in ("var", "std") else name
        raise RuntimeError(f"{what} only support floating point and complex dtypes")
    axes = dim_axes(input, dim)
    xp = xp_of(input)
    arr = input._data
    dof = count(arr.shape, axes) - corr
    if dof <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=5)
    with np.errstate(all="ignore"):
        acc = acc_dtype(input._dtype)
        m = xp.mean(arr, axis=np_axes(axes), keepdims=True, dtype=acc)
        dev = arr - m
        sq = (dev * dev.conj()).real if arr.dtype.kind == "c" else dev * dev
        res = xp.sum(sq, axis=np_axes(axes), keepdims=keepdim, dtype=acc) / builtins.max(0, dof)
        if take_sqrt:
            res = xp.sqrt(res)
    mean_arr = m if keepdim else m.reshape(reduced_shape(arr.shape, axes, False))
    spread_dt = input._dtype.to_real()
    spread = wrap(xp.asarray(res, dtype=spread_dt.numpy_dtype), spread_dt, input._device)
    return spread, mean_arr, axes, builtins.max(dof, 0)


def _no_legacy_out(name):
    """The legacy ``var(t, unbiased)`` overloads have no ``out=``."""
    def check(input, dim=None, unbiased=None, *args, **kwargs):
        if isinstance(dim, bool) or dim is None and unbiased is not None:
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            "(Tensor, bool, out=Tensor)")
    return check


def _var_std(name, take_sqrt, node):
    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        spread, _, axes, dof = _moments(name, input, dim, unbiased, keepdim, correction,
                                        take_sqrt)
        return Reduced(spread, node=node, self_sizes=input._data.shape, dim=axes,
                       keepdim=keepdim, dof=dof)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"The {'standard deviation' if take_sqrt else 'variance'} over ``dim`` "
                  "with Bessel's ``correction`` (1 by default).")
    return reduction(name, nodes=(node,), check_out=_no_legacy_out(name))(fn)


var = _var_std("var", False, VarNode)
std = _var_std("std", True, StdNode)


def _var_std_mean(name, take_sqrt, node):
    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        spread, mean_arr, axes, dof = _moments(name, input, dim, unbiased, keepdim, correction,
                                               take_sqrt)
        mean_t = wrap(xp_of(input).asarray(mean_arr).astype(input._dtype.numpy_dtype,
                                                            copy=False),
                      input._dtype, input._device)
        return Reduced(spread, mean_t, node=node, self_sizes=input._data.shape, dim=axes,
                       keepdim=keepdim, dof=dof)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``({name[:3]}, mean)`` over ``dim`` in one pass (a plain tuple)."
    return reduction(name, nodes=(node,), has_out=False, method=False)(fn)


var_mean = _var_std_mean("var_mean", False, VarMeanNode)
std_mean = _var_std_mean("std_mean", True, StdMeanNode)

# ----------------------------------------------------------------------------------------------
# all / any / norm
# ----------------------------------------------------------------------------------------------


def _logical_reduce(name):
    def fn(input, dim=None, keepdim=False):
        axes = dim_axes(input, dim)
        xp = xp_of(input)
        res = getattr(xp, name)(input._data, axis=np_axes(axes), keepdims=keepdim)
        dt = D.uint8 if input._dtype is D.uint8 else D.bool
        return Reduced(wrap(xp.asarray(res, dtype=dt.numpy_dtype), dt, input._device))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Whether {name} elements (over ``dim``) are non-zero; uint8 inputs give "
                  "uint8, others bool.")
    return reduction(name)(fn)


all = _logical_reduce("all")
any = _logical_reduce("any")


def _norm_backward(grad, s):
    g = unreduce(grad, s.self_sizes, s.dim, s.keepdim)
    r = unreduce(s.result, s.self_sizes, s.dim, s.keepdim)
    x, p = s.self, s.p
    if p == 0:
        return None     # PyTorch leaves the gradient of a 0-"norm" undefined
    if p == 1:
        return g * x.sgn()
    # PyTorch's three regimes. Where the norm is 0 the gradient is 0 (masked_fill); dividing
    # by 1 there instead of 0 keeps NumPy from warning about 0/0.
    zero = r == 0
    safe_r = r.masked_fill(zero, 1)
    if p == 2:
        return (g * x / safe_r).masked_fill(zero, 0)
    if math.isinf(p):
        mask = x.abs() == r
        return g * x.sgn() * mask / mask.sum(s.dim, keepdim=True)
    if p < 1:
        # |x|^(p-1) is infinite at x == 0, where the gradient is 0
        scaled = x.sgn() * x.abs().pow(p - 1).masked_fill(x == 0, 0)
        return scaled * g * r.pow(1 - p)
    scaled = x.sgn() * x.abs().pow(p - 1) if p < 2 else x * x.abs().pow(p - 2)
    return scaled * (g / safe_r.pow(p - 1)).masked_fill(zero, 0)


NormNode = node_class("LinalgVectorNormBackward0", {"self": _norm_backward})
# ATen's ``norm.ScalarOpt_dim``, which PyTorch's C++ composites call (``pairwise_distance``):
# vector_norm's values and formula, under its own node name
AtenNormNode = node_class("NormBackward1", {"self": _norm_backward})


def _norm_kernel(xp, arr, p, axes, keepdim, acc):
    """The p-norm of ``arr`` over ``axes`` (NumPy arrays in, array out)."""
    a = xp.abs(arr)
    ax = np_axes(axes)
    with np.errstate(all="ignore"):
        if p == 2:
            return xp.sqrt(xp.sum(a * a, axis=ax, keepdims=keepdim, dtype=acc))
        if p == 1:
            return xp.sum(a, axis=ax, keepdims=keepdim, dtype=acc)
        if math.isinf(p):
            return (xp.max if p > 0 else xp.min)(a, axis=ax, keepdims=keepdim)
        if p == 0:
            return xp.sum(a != 0, axis=ax, keepdims=keepdim, dtype=a.dtype)
        return xp.sum(a ** p, axis=ax, keepdims=keepdim, dtype=acc) ** (1.0 / p)


@reduction("vector_norm", nodes=(NormNode,), method=False, function_too=False,
           error_name="linalg_vector_norm")
def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None):
    """``linalg.vector_norm``: the p-norm of the flattened input or over ``dim``."""
    if input._dtype.category < D.FLOATING:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {input._dtype.scalar_name}")
    if dtype is not None and dtype is not input._dtype:
        if input._dtype.category == D.COMPLEX and dtype.category != D.COMPLEX:
            raise RuntimeError("linalg.vector_norm: dtype should be complex for complex inputs, "
                               f"but got {dtype.scalar_name}")
        input = input.to(dtype)
    return _p_norm(input, ord, dim, keepdim, NormNode)


@reduction("_norm", nodes=(AtenNormNode,), method=False, function_too=False, has_out=False)
def _aten_norm(input, p, dim, keepdim=False):
    """ATen's ``norm(input, p, dim, keepdim)`` (what ``pairwise_distance`` reduces with)."""
    return _p_norm(input, p, dim, keepdim, AtenNormNode)


def _p_norm(input, ord, dim, keepdim, node):
    """The p-norm body of ``vector_norm`` and ``_norm``, recorded as ``node``."""
    axes = dim_axes(input, dim)
    p = float(ord)
    arr = input._data
    if math.isinf(p) and arr.size == 0:
        for a in (range(arr.ndim) if axes is None else axes):
            if arr.shape[a] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on the "
                                   f"dimension {a}because this dimension is empty and the "
                                   "operation does not have an identity")
    xp = xp_of(input)
    res = _norm_kernel(xp, arr, p, axes, keepdim, acc_dtype(input._dtype))
    out_dt = input._dtype.to_real()
    result = wrap(xp.asarray(res, dtype=out_dt.numpy_dtype), out_dt, input._device)
    # ``self`` is the input after any dtype conversion: the graph goes through ``to``
    return Reduced(result, node=node, self=input, self_sizes=input._data.shape, dim=axes,
                   keepdim=keepdim, p=p)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """``torch.norm``: Frobenius / p-norm over all elements or ``dim``."""
    if isinstance(p, str):
        if p == "fro":
            if dim is not None and not isinstance(dim, int) and len(dim) > 2:
                raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                                   f"{' '.join(str(d) for d in dim)}")
            p = 2
        else:           # "nuc" and the names matrix_norm refuses, as torch.norm sends them
            dims = list(range(input.dim())) if dim is None else dim
            return OPS["linalg_matrix_norm"].function(input, p, dims, keepdim, dtype=dtype,
                                                      out=out)
    elif p is None:
        p = 2
    return vector_norm(input, p, dim, keepdim, dtype=dtype, out=out)


register("norm", norm, family="reduction", nodes=(NormNode,))


# ----------------------------------------------------------------------------------------------
# cumulative sums
# ----------------------------------------------------------------------------------------------

CumsumNode = node_class("CumsumBackward0", {
    "self": lambda grad, s: grad.flip(s.dim).cumsum(s.dim).flip(s.dim)})


cumsum = scan_op("cumsum", "add", CumsumNode, saves_self=False)
cumsum.__doc__ = """Running sums along ``dim``. Integer and bool inputs accumulate in int64."""


register("cumsum", cumsum, inplace=scan_inplace(cumsum, "cumsum"),
         family="reduction", nodes=(CumsumNode,))
