"""Reductions: sum, mean, prod, max/min, argmax/argmin, amax/amin, std/var, all/any, norm."""

import math

import numpy as np

from .. import _dtype as D
from .. import return_types
from .._tensor import Tensor
from ._prep import dims_arg, wrap, xp_of
from ._registry import node_class, needs_grad, record, register, write_out, _type_name

# ----------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------


def _axes(input, dim):
    """Reduced axes as a tuple (None means all); ``dim=[]`` also means all, as in PyTorch."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)) and len(dim) == 0:
        return None
    return dims_arg(dim, input._data.ndim) if input._data.ndim else ()


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


# ----------------------------------------------------------------------------------------------
# sum / mean / prod
# ----------------------------------------------------------------------------------------------

SumNode0 = node_class("SumBackward0", {
    "self": lambda grad, s: grad.expand(s.self_sizes)})
SumNode1 = node_class("SumBackward1", {
    "self": lambda grad, s: _unreduce(grad, s.self_sizes, s.dim, s.keepdim).expand(
        s.self_sizes)})


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum over all elements or over ``dim`` (int or tuple). Integer inputs sum to int64."""
    if isinstance(dim, D.dtype):
        dim, dtype = None, dim
    axes = _axes(input, dim)
    dt = dtype or (D.int64 if input._dtype.category <= D.INTEGRAL else input._dtype)
    xp = xp_of(input)
    arr = input._data
    acc = _acc_dtype(dt)
    res = xp.sum(arr, axis=_np_axes(axes), keepdims=keepdim,
                 dtype=acc or dt.numpy_dtype)
    result = wrap(xp.asarray(res, dtype=dt.numpy_dtype), dt, input._device)
    if input._requires_grad and needs_grad(input):
        if dim is None:
            record(SumNode0, (input,), (result,), self_sizes=arr.shape)
        else:
            record(SumNode1, (input,), (result,), self_sizes=arr.shape, dim=axes,
                   keepdim=keepdim)
    return write_out(out, result) if out is not None else result


register("sum", sum, family="reduction", nodes=(SumNode0, SumNode1))


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    return sum(input.masked_fill(input.isnan(), 0) if input.is_floating_point() else input,
               dim, keepdim, dtype=dtype)


register("nansum", nansum, family="reduction")


def sum_to_size(input, *size):
    """Sum ``input`` down to ``size`` (the shape it was broadcast from)."""
    from ._prep import shape_arg
    size = shape_arg(size, "sum_to_size")
    shape = input._data.shape
    if tuple(size) == shape:
        return input
    lead = len(shape) - len(size)
    if lead < 0:
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size "
                           f"{{{list(shape)}}}.")
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(size) if n == 1 and shape[lead + i] != 1)
    out = sum(input, axes, keepdim=True) if axes else input
    return out.reshape(size) if out.shape != tuple(size) else out


register("sum_to_size", sum_to_size, family="reduction")

MeanNode0 = node_class("MeanBackward0", {
    "self": lambda grad, s: grad.expand(s.self_sizes) / s.numel})
MeanNode1 = node_class("MeanBackward1", {
    "self": lambda grad, s: _unreduce(grad, s.self_sizes, s.dim, s.keepdim).expand(
        s.self_sizes) / s.count})


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Arithmetic mean; floating and complex inputs only (or an explicit float ``dtype``)."""
    if isinstance(dim, D.dtype):
        dim, dtype = None, dim
    dt = dtype or input._dtype
    if dt.category < D.FLOATING:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {_type_name(dt)}")
    axes = _axes(input, dim)
    xp = xp_of(input)
    arr = input._data
    acc = _acc_dtype(dt)
    res = xp.mean(arr, axis=_np_axes(axes), keepdims=keepdim, dtype=acc or dt.numpy_dtype) \
        if arr.size else xp.full(_reduced_shape(arr.shape, axes, keepdim), np.nan)
    result = wrap(xp.asarray(res, dtype=dt.numpy_dtype), dt, input._device)
    if input._requires_grad and needs_grad(input):
        if dim is None:
            record(MeanNode0, (input,), (result,), self_sizes=arr.shape, numel=arr.size)
        else:
            count = 1
            for a in axes:
                count *= arr.shape[a]
            record(MeanNode1, (input,), (result,), self_sizes=arr.shape, dim=axes,
                   keepdim=keepdim, count=count)
    return write_out(out, result) if out is not None else result


def _reduced_shape(shape, axes, keepdim):
    axes = range(len(shape)) if axes is None else axes
    if keepdim:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


register("mean", mean, family="reduction", nodes=(MeanNode0, MeanNode1))


def _prod_backward(grad, s):
    self_, result = s.self, s.result
    g = _unreduce(grad, s.self_sizes, s.dim, s.keepdim)
    r = _unreduce(result, s.self_sizes, s.dim, s.keepdim)
    if not bool((self_ == 0).any()):
        return g * (r / self_)
    # With zeros, the product of the *other* elements: exclusive cumulative products.
    from .._tensor import make_tensor
    arr = self_._data
    axes = range(arr.ndim) if s.dim is None else s.dim
    flat_axis = None
    if s.dim is None:
        others = _prod_of_others(arr.reshape(-1), 0).reshape(arr.shape)
    else:
        flat_axis = axes[0]
        others = _prod_of_others(arr, flat_axis)
    return g * make_tensor(others, self_._dtype, self_._device)


def _prod_of_others(arr, axis):
    """For each element, the product of all other elements along ``axis``."""
    xp = np
    moved = xp.moveaxis(arr, axis, -1)
    ones = xp.ones(moved.shape[:-1] + (1,), arr.dtype)
    left = xp.cumprod(xp.concatenate([ones, moved[..., :-1]], -1), -1)
    right = xp.flip(xp.cumprod(xp.flip(xp.concatenate([moved[..., 1:], ones], -1), -1), -1),
                    -1)
    return xp.moveaxis(left * right, -1, axis)


ProdNode0 = node_class("ProdBackward0", {"self": _prod_backward})
ProdNode1 = node_class("ProdBackward1", {"self": _prod_backward})


def prod(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Product over all elements or over one ``dim``. Integer inputs give int64."""
    if isinstance(dim, D.dtype):
        dim, dtype = None, dim
    axes = None if dim is None else dims_arg(dim, input._data.ndim)
    dt = dtype or (D.int64 if input._dtype.category <= D.INTEGRAL else input._dtype)
    xp = xp_of(input)
    res = xp.prod(input._data, axis=axes, keepdims=keepdim,
                  dtype=_acc_dtype(dt) or dt.numpy_dtype)
    result = wrap(xp.asarray(res, dtype=dt.numpy_dtype), dt, input._device)
    if input._requires_grad and needs_grad(input):
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
    return g * mask / mask.sum(s.dim if s.dim is not None else None, keepdim=True)


MaxAllNode = node_class("MaxBackward1", {"self": _evenly})
MinAllNode = node_class("MinBackward1", {"self": _evenly})
MaxDimNode = node_class("MaxBackward0", {"self": _select_index})
MinDimNode = node_class("MinBackward0", {"self": _select_index})
AmaxNode = node_class("AmaxBackward0", {"self": _amax_backward})
AminNode = node_class("AminBackward0", {"self": _amax_backward})


def _extreme(name, is_max, all_node, dim_node, tuple_type):
    def fn(input, dim=None, keepdim=False, *, out=None):
        if isinstance(dim, Tensor):
            from .pointwise import maximum, minimum
            return (maximum if is_max else minimum)(input, dim, out=out)
        xp = xp_of(input)
        arr = input._data
        if dim is None:
            if arr.size == 0:
                raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                                   "input.numel() == 0. Specify the reduction dim with the 'dim' "
                                   "argument.")
            res = xp.max(arr) if is_max else xp.min(arr)
            result = wrap(xp.asarray(res), input._dtype, input._device)
            if input._requires_grad and needs_grad(input):
                record(all_node, (input,), (result,), self=input)
            return result
        d = dims_arg(dim, arr.ndim)[0] if arr.ndim else 0
        if arr.ndim and arr.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        a = arr if arr.ndim else arr.reshape(1)
        idx = _argext(xp, a, d, is_max)
        vals = xp.take_along_axis(a, xp.expand_dims(idx, d), d)
        if not keepdim:
            vals = vals.squeeze(d)
            if arr.ndim == 0:
                vals, idx = vals.reshape(()), idx.reshape(())
        else:
            idx = xp.expand_dims(idx, d)
            if arr.ndim == 0:
                vals, idx = vals.reshape(()), idx.reshape(())
        values = wrap(vals, input._dtype, input._device)
        indices = wrap(idx.astype(np.int64), D.int64, input._device)
        if input._requires_grad and needs_grad(input):
            record(dim_node, (input,), (values,), self_sizes=arr.shape, dim=d, keepdim=keepdim,
                   indices=indices)
        result = tuple_type((values, indices))
        if out is not None:
            write_out(out[0], values)
            write_out(out[1], indices)
            return tuple_type(out)
        return result
    fn.__name__ = fn.__qualname__ = name
    register(name, fn, family="reduction", nodes=(all_node, dim_node))
    return fn


def _argext(xp, a, d, is_max):
    """Index of the first max (min), NaN counting as the extreme, like PyTorch."""
    if a.dtype.kind in "fc" or a.dtype == np.dtype("bfloat16"):
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
    def fn(input, dim=None, keepdim=False, *, out=None):
        xp = xp_of(input)
        arr = input._data
        if dim is None:
            if arr.size == 0:
                raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                                   "input.numel() == 0.")
            idx = _argext(xp, arr.reshape(-1), 0, is_max)
            if keepdim:
                idx = xp.asarray(idx).reshape((1,) * arr.ndim)
        else:
            d = dims_arg(dim, arr.ndim)[0] if arr.ndim else 0
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
        axes = _axes(input, dim)
        xp = xp_of(input)
        arr = input._data
        if arr.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0. Specify the reduction dim with the 'dim' "
                             "argument.")
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
# var / std
# ----------------------------------------------------------------------------------------------


def _var_backward(grad, s):
    g = _unreduce(grad, s.self_sizes, s.dim, s.keepdim)
    centered = s.self - s.self.mean(s.dim, keepdim=True)
    return g * 2 * centered / s.dof


def _std_backward(grad, s):
    g = _unreduce(grad, s.self_sizes, s.dim, s.keepdim)
    r = _unreduce(s.result, s.self_sizes, s.dim, s.keepdim)
    centered = s.self - s.self.mean(s.dim, keepdim=True)
    return (g * centered / (r * s.dof)).masked_fill(r == 0, 0)


VarNode = node_class("VarBackward0", {"self": _var_backward})
StdNode = node_class("StdBackward0", {"self": _std_backward})


def _parse_correction(dim, unbiased, correction, keepdim):
    # Legacy positional forms: var(t, True) and var(t, dim, True, keepdim).
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    if correction is not None and unbiased is not None:
        raise RuntimeError("Cannot specify both correction and unbiased arguments")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return dim, correction


def _var_std(name, take_sqrt, node):
    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
        dim, corr = _parse_correction(dim, unbiased, correction, keepdim)
        if input._dtype.category < D.FLOATING:
            raise RuntimeError(f"{name}(): input dtype should be either floating point or "
                               f"complex dtypes. Got {_type_name(input._dtype)} instead.")
        axes = _axes(input, dim)
        xp = xp_of(input)
        arr = input._data
        n = arr.size if axes is None else int(np.prod([arr.shape[a] for a in axes]))
        dof = n - corr
        with np.errstate(all="ignore"):
            acc = _acc_dtype(input._dtype)
            m = xp.mean(arr, axis=_np_axes(axes), keepdims=True, dtype=acc)
            dev = arr - m
            sq = (dev * dev.conj()).real if arr.dtype.kind == "c" else dev * dev
            res = xp.sum(sq, axis=_np_axes(axes), keepdims=keepdim, dtype=acc) / \
                (dof if dof > 0 else (0.0 if dof == 0 else float("nan")))
            if dof <= 0 and dof != 0:
                res = res * np.nan
            if take_sqrt:
                res = xp.sqrt(res)
        out_dt = input._dtype.to_real()
        result = wrap(xp.asarray(res, dtype=out_dt.numpy_dtype), out_dt, input._device)
        if input._requires_grad and needs_grad(input):
            record(node, (input,), (result,), self=input, self_sizes=arr.shape, dim=axes,
                   keepdim=keepdim, dof=max(dof, 0))
        return write_out(out, result) if out is not None else result
    fn.__name__ = fn.__qualname__ = name
    register(name, fn, family="reduction", nodes=(node,))
    return fn


var = _var_std("var", False, VarNode)
std = _var_std("std", True, StdNode)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return return_types.var_mean((var(input, dim, unbiased, keepdim, correction=correction),
                                  mean(input, _parse_correction(dim, unbiased, None, 0)[0],
                                       keepdim)))


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return return_types.std_mean((std(input, dim, unbiased, keepdim, correction=correction),
                                  mean(input, _parse_correction(dim, unbiased, None, 0)[0],
                                       keepdim)))


register("var_mean", var_mean, method=False, family="reduction")
register("std_mean", std_mean, method=False, family="reduction")

# ----------------------------------------------------------------------------------------------
# all / any / norm
# ----------------------------------------------------------------------------------------------


def _logical_reduce(name, fn_name):
    def fn(input, dim=None, keepdim=False, *, out=None):
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
        return g * 0
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
    if input._dtype.category < D.FLOATING:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_type_name(input._dtype)}")
    axes = _axes(input, dim)
    xp = xp_of(input)
    a = xp.abs(input._data)
    acc = _acc_dtype(input._dtype)
    ax = _np_axes(axes)
    p = float(ord)
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
    out_dt = dtype or input._dtype.to_real()
    result = wrap(xp.asarray(res, dtype=out_dt.numpy_dtype), out_dt, input._device)
    if input._requires_grad and needs_grad(input):
        record(NormNode, (input,), (result,), self=input, self_sizes=input._data.shape,
               dim=axes, keepdim=keepdim, p=p)
    return write_out(out, result) if out is not None else result


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """``torch.norm``: Frobenius / p-norm over all elements or ``dim``."""
    if p == "fro" or p is None:
        p = 2
    if p == "nuc":
        raise NotImplementedError("nuclear norm is provided by cinder.linalg.matrix_norm")
    return vector_norm(input, p, dim, keepdim, dtype=dtype, out=out)


register("norm", norm, family="reduction", nodes=(NormNode,))
register("vector_norm", vector_norm, method=False, family="reduction")
