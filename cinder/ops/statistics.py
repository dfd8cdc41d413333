"""Statistics: logsumexp, aminmax, nanmean, dist, quantile/nanquantile, cov, corrcoef."""

import numpy as np

from .. import _dtype as D
from .. import return_types
from .._tensor import Tensor, wrap_dim
from ..autograd.grad_mode import no_grad
from ._layouts import in_order, row_major
from ._prep import as_compute, check_tensor_arg, common_device, dims_arg, wrap, xp_of
from ._registry import make_inplace, needs_grad, node_class, record, register, write_out
from ._reduction_factory import Reduced, reduced_shape, reduction, sum_by_matmul, unreduce
from ._prep import broadcast_shape, result_type

# ----------------------------------------------------------------------------------------------
# logsumexp
# ----------------------------------------------------------------------------------------------

LogsumexpNode = node_class("LogsumexpBackward0", {
    "self": lambda grad, s: unreduce(grad, s.self_sizes, s.dim, s.keepdim) *
    (s.self - unreduce(s.result, s.self_sizes, s.dim, s.keepdim)).exp()})


@reduction("logsumexp", nodes=(LogsumexpNode,), family="statistics")
def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input)))`` over ``dim``, computed stably (the max is factored out)."""
    nd = input._data.ndim
    axes = dims_arg(dim, nd) if nd else ()
    if isinstance(dim, (list, tuple)) and len(dim) == 0:
        axes = tuple(range(nd))
    dt = input._dtype if input._dtype.category >= D.FLOATING else D.get_default_dtype()
    xp = xp_of(input)
    a = input._data.astype(np.float32 if dt.itemsize == 2 else dt.numpy_dtype, copy=False)
    if a.size == 0 or not axes:
        with np.errstate(all="ignore"):
            res = xp.log(xp.exp(a).sum(axis=axes, keepdims=keepdim)) if axes else a.copy()
    else:
        m = (a.real if a.dtype.kind == "c" else a).max(axis=axes, keepdims=True)
        m = xp.where(xp.isfinite(m), m, 0)
        with np.errstate(all="ignore"):
            shifted = a - m
            terms = xp.exp(shifted, out=shifted)
            sums = sum_by_matmul(xp, terms, axes, keepdims=True)
            if sums is None:
                sums = terms.sum(axis=axes, keepdims=True)
            res = xp.log(sums, out=sums)
            res += m
        if not keepdim:
            res = res.reshape(reduced_shape(a.shape, axes, False))
    result = wrap(xp.asarray(res).astype(dt.numpy_dtype, copy=False), dt, input._device)
    return Reduced(result, node=LogsumexpNode, self_sizes=input._data.shape, dim=axes,
                   keepdim=keepdim)


# ----------------------------------------------------------------------------------------------
# aminmax / nanmean / dist
# ----------------------------------------------------------------------------------------------


def _aminmax_backward(grad, s):
    g_min, g_max = grad
    total = None
    for g, r in ((g_min, s.result0), (g_max, s.result1)):
        if g is None:
            continue
        gu = unreduce(g, s.self_sizes, s.dim, s.keepdim)
        ru = unreduce(r, s.self_sizes, s.dim, s.keepdim)
        mask = s.self == ru
        part = gu * mask / mask.sum(s.dim if s.dim is not None else None, keepdim=True) \
            if s.dim is not None else gu * mask / mask.sum()
        total = part if total is None else total + part
    return total


AminmaxNode = node_class("AminmaxBackward0", {"self": _aminmax_backward},
                         saves_also=("self", "result0", "result1", "self_sizes", "dim",
                                     "keepdim"), num_outputs=2)


@reduction("aminmax", nodes=(AminmaxNode,), returns=return_types.aminmax, family="statistics")
def aminmax(input, *, dim=None, keepdim=False):
    """The minimum and maximum (over ``dim``, or all elements) in one pass."""
    if input._dtype.category == D.COMPLEX:
        raise NotImplementedError(f"\"aminmax_cpu\" not implemented for "
                                  f"'{input._dtype.scalar_name}'")
    xp = xp_of(input)
    a = input._data
    if dim is None:
        if a.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                               "operation has no identity.")
        axes = None
        lo, hi = a.min(), a.max()
        if keepdim:
            lo, hi = lo.reshape((1,) * a.ndim), hi.reshape((1,) * a.ndim)
    else:
        d = wrap_dim(dim, max(a.ndim, 1))
        if a.ndim and a.shape[d] == 0:
            raise IndexError(f"aminmax(): Expected reduction dim {d} to have non-zero size.")
        axes = (d,) if a.ndim else None
        src = a if a.ndim else a.reshape(1)
        lo, hi = src.min(axis=d, keepdims=keepdim), src.max(axis=d, keepdims=keepdim)
        if not a.ndim:
            lo, hi = lo.reshape(()), hi.reshape(())
    mn = wrap(xp.asarray(lo), input._dtype, input._device)
    mx = wrap(xp.asarray(hi), input._dtype, input._device)
    # (the formula's result0/result1 are saved by ``record`` as the node's outputs)
    return Reduced(mn, mx, node=AminmaxNode, self_sizes=input._data.shape, dim=axes,
                   keepdim=keepdim)


@reduction("nanmean", family="statistics")
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the non-NaN elements (NaN where all are NaN)."""
    if input._dtype.category < D.FLOATING:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype "
                           f"but got {input._dtype.scalar_name}")
    count = input.isnan().logical_not().sum(dim, keepdim)
    # a composite: the graph is made by the ops it calls
    return Reduced(input.nansum(dim, keepdim, dtype=dtype) / count)


def _dist_backward(grad, s):
    diff = s.self - s.other
    p, r = s.p, s.result
    if p == 0:
        g = diff * 0
    elif p == 1:
        g = grad * diff.sign()
    elif p == float("inf"):
        mask = diff.abs() == r
        g = grad * diff.sign() * mask / mask.sum()
    else:
        safe = r.masked_fill(r == 0, 1)
        g = grad * diff.sign() * diff.abs().pow(p - 1) / safe.pow(p - 1)
        g = g.masked_fill(r == 0, 0)
    return g


DistNode = node_class("DistBackward0", {
    "self": lambda grad, s: _dist_backward(grad, s).sum_to_size(s.self_sizes),
    "other": lambda grad, s: (-_dist_backward(grad, s)).sum_to_size(s.other_sizes)},
    saves_also=("self", "other", "p", "result"))


def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (broadcast)."""
    check_tensor_arg(input, "dist", "input", 1)
    check_tensor_arg(other, "dist", "other", 2)
    dt = result_type(input, other)
    if dt.category < D.FLOATING:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {input._dtype.scalar_name}")
    broadcast_shape(input._data.shape, other._data.shape)
    dev = common_device((input, other))
    xp = xp_of(input)
    diff = xp.abs(as_compute(input, dt, dev) - as_compute(other, dt, dev))
    work = diff.astype(np.float32) if diff.dtype.itemsize == 2 else diff
    p = float(p)
    if p == 0:
        res = (work != 0).sum()
    elif p == float("inf"):
        res = work.max() if work.size else 0.0
    elif p == float("-inf"):
        res = work.min() if work.size else float("inf")
    else:
        res = (work ** p).sum() ** (1 / p)
    rdt = dt.to_real()
    result = wrap(xp.asarray(res).astype(rdt.numpy_dtype), rdt, dev)
    if needs_grad(input, other):
        record(DistNode, (input, other), (result,), self=input, other=other, p=p,
               self_sizes=input._data.shape, other_sizes=other._data.shape)
    return result


register("dist", dist, family="statistics", nodes=(DistNode,))

# ----------------------------------------------------------------------------------------------
# quantile / nanquantile
# ----------------------------------------------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_plan(xp, rows, q, interpolation, ignore_nan):
    """For each row of ``rows`` (2-D, reduced dim last) and each q: the original positions of
    the two order statistics to blend and the blend weight, plus a NaN mask."""
    order = xp.argsort(rows, axis=-1, kind="stable")        # NaN sorts last
    nan = xp.isnan(rows)
    n = rows.shape[-1]
    valid = (n - nan.sum(-1)) if ignore_nan else xp.full(rows.shape[0], n)
    rank = q[:, None] * (valid[None, :] - 1)                 # (nq, rows)
    if interpolation == "lower":
        rank = xp.floor(rank)
    elif interpolation == "higher":
        rank = xp.ceil(rank)
    elif interpolation == "nearest":
        rank = xp.round(rank)                                # half to even, as PyTorch
    lo = xp.clip(xp.floor(rank), 0, max(n - 1, 0)).astype(np.int64)
    hi = xp.clip(xp.ceil(rank), 0, max(n - 1, 0)).astype(np.int64)
    weight = 0.5 * xp.ones_like(rank) if interpolation == "midpoint" else rank - xp.floor(rank)
    if interpolation == "midpoint":
        weight = xp.where(lo == hi, 0.0, weight)
    rows_idx = xp.arange(rows.shape[0])[None, :]
    pos_lo, pos_hi = order[rows_idx, lo], order[rows_idx, hi]
    bad = (valid == 0)[None, :] if ignore_nan else nan.any(-1)[None, :]
    return pos_lo, pos_hi, weight, xp.broadcast_to(bad, rank.shape)


def _quantile_backward(grad, s):
    from .creation import zeros
    g = grad.reshape(s.flat_shape)                          # (nq, rows)
    out = zeros((s.flat_shape[1], s.n), dtype=grad.dtype, device=grad.device)
    w = wrap(s.weight, grad.dtype, grad.device)
    lo, hi = s.pos_lo, s.pos_hi
    out = out.scatter_add(1, lo.t(), (g * (1 - w)).t()).scatter_add(1, hi.t(), (g * w).t())
    out = out.reshape(s.moved_shape)
    return out.movedim(-1, s.dim) if s.dim is not None else out.reshape(s.self_sizes)


QuantileNode = node_class("QuantileBackward0", {"self": _quantile_backward},
                          saves_also=("flat_shape", "n", "weight", "pos_lo", "pos_hi",
                                      "moved_shape", "dim", "self_sizes"))


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    if input._dtype not in (D.float32, D.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest. Got {interpolation}")
    xp = xp_of(input)
    scalar_q = not isinstance(q, Tensor)
    qa = xp.asarray([q] if scalar_q else q._data.reshape(-1), dtype=np.float64)
    if not scalar_q and q._data.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if qa.size and (qa.min() < 0 or qa.max() > 1):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    if input._data.size == 0:
        raise IndexError(f"{name}() input tensor must be non-empty")
    a = input._data
    d = None if dim is None else wrap_dim(dim, max(a.ndim, 1))
    moved = a.reshape(1, -1) if d is None else xp.moveaxis(a if a.ndim else a.reshape(1), d, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    pos_lo, pos_hi, weight, bad = _quantile_plan(xp, rows, qa, interpolation, ignore_nan)
    r = xp.arange(rows.shape[0])[None, :]
    v_lo, v_hi = rows[r, pos_lo], rows[r, pos_hi]
    vals = v_lo + weight * (v_hi - v_lo)
    vals = xp.where(bad, np.nan, vals).astype(a.dtype)
    if d is None:
        red = (1,) * a.ndim if keepdim else ()
    else:
        red = list(a.shape)
        if keepdim:
            red[d] = 1
        elif red:
            del red[d]
        red = tuple(red)
    if scalar_q:
        out = vals.reshape(red)
    else:
        # PyTorch gathers the quantiles along a last dim and moves it to the front: the other
        # dims row-major outside, the quantiles innermost
        out = in_order(vals.reshape((qa.size,) + red), list(range(1, len(red) + 1)) + [0])
    result = wrap(out, input._dtype, input._device)
    return Reduced(result, node=QuantileNode, flat_shape=pos_lo.shape, n=rows.shape[-1],
                   weight=weight, pos_lo=wrap(pos_lo, D.int64, input._device),
                   pos_hi=wrap(pos_hi, D.int64, input._device), moved_shape=moved.shape, dim=d,
                   self_sizes=a.shape)


@reduction("quantile", nodes=(QuantileNode,), family="statistics", own_layout=True)
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-quantiles over ``dim`` (all elements by default); NaN if any element is."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


@reduction("nanquantile", nodes=(QuantileNode,), family="statistics", own_layout=True)
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """Like :func:`quantile`, ignoring NaN elements."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)

# ----------------------------------------------------------------------------------------------
# cov / corrcoef
# ----------------------------------------------------------------------------------------------


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in the
    columns), with optional integer frequency and float observation weights."""
    check_tensor_arg(input, "cov", "input", 1)
    if input._dtype is D.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    if input._data.ndim > 2:
        raise ValueError(f"cov(): expected input to have two or fewer dimensions but got an "
                         f"input with {input._data.ndim} dimensions")
    x = input.reshape(1, -1) if input._data.ndim < 2 else input
    if not (x.is_floating_point() or x.is_complex()):
        x = x.to(D.get_default_dtype())
    n = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.dim() > 1:
            raise RuntimeError(f"cov(): expected fweights to have one or fewer dimensions but "
                               f"got fweights with {fweights.dim()} dimensions")
        w = fweights
    if aweights is not None:
        if aweights.dim() > 1:
            raise RuntimeError(f"cov(): expected aweights to have one or fewer dimensions but "
                               f"got aweights with {aweights.dim()} dimensions")
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1)
        norm = n - correction
    else:
        w = w.to(x.dtype)
        wsum = w.sum()
        avg = (x * w).sum(1) / wsum
        norm = wsum - correction * ((w * aweights).sum() / wsum if aweights is not None else 1)
    if not isinstance(norm, Tensor) and norm <= 0:
        norm = 0
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = xw.mm(xm.t().conj()) / (norm.clamp(min=0) if isinstance(norm, Tensor) else norm)
    return c.squeeze()


def corrcoef(input):
    """Pearson correlation coefficients of the rows of ``input`` (clipped to [-1, 1])."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    stddev = d.real.sqrt() if c.is_complex() else d.sqrt()
    c = c / stddev.unsqueeze(1)
    c = c / stddev.unsqueeze(0)
    return c.clip(-1, 1) if not c.is_complex() else c


register("cov", cov, family="statistics")
register("corrcoef", corrcoef, family="statistics")

# ----------------------------------------------------------------------------------------------
# renorm
# ----------------------------------------------------------------------------------------------


def _renorm_parts(x, p, dim, maxnorm):
    """(norms, scale, active) of each slice along ``dim``: slices whose p-norm exceeds
    ``maxnorm`` are scaled by maxnorm / (norm + 1e-7), as PyTorch does."""
    others = tuple(i for i in range(x.dim()) if i != dim)
    norms = x.abs().pow(p).sum(others, keepdim=True).pow(1.0 / p)
    active = norms > maxnorm
    scale = (maxnorm / (norms + 1e-7)).masked_fill(~active, 1.0)
    return norms, scale, active, others


def _renorm_backward(grad, s):
    x, p = s.self, s.p
    norms, scale, active, others = _renorm_parts(x, p, s.dim, s.maxnorm)
    # d scale / d x = -maxnorm / (norm + eps)^2 * d norm / d x,
    # d norm / d x = x |x|^(p-2) / norm^(p-1)
    dnorm = x * x.abs().pow(p - 2) / norms.pow(p - 1)
    inner = (grad * x).sum(others, keepdim=True)
    extra = (-s.maxnorm / (norms + 1e-7).square()) * inner * dnorm
    return grad * scale + extra.masked_fill(~active, 0.0)


RenormNode = node_class("RenormBackward0", {"self": _renorm_backward})


def renorm(input, p, dim, maxnorm, *, out=None):
    """Rescales each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` to norm
    ``maxnorm`` (the others are unchanged)."""
    check_tensor_arg(input, "renorm", "input", 1)
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input._data.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input._data.ndim} "
                           "dimensions")
    if input._dtype.category < D.FLOATING:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {input._dtype.scalar_name}")
    d = wrap_dim(dim, input._data.ndim)
    with no_grad():
        _, scale, _, _ = _renorm_parts(input.detach(), p, d, maxnorm)
        result = input.detach() * scale
    # row-major whatever the input's layout, as PyTorch's kernel writes it
    result = wrap(row_major(result._data.astype(input._data.dtype, copy=False)), input._dtype,
                  input._device)
    if input._requires_grad and needs_grad(input):
        record(RenormNode, (input,), (result,), self=input, p=p, dim=d, maxnorm=maxnorm)
    return write_out(out, result) if out is not None else result


register("renorm", renorm, inplace=make_inplace(renorm, "renorm"), family="statistics",
         nodes=(RenormNode,))
