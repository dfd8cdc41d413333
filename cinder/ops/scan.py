"""Scans and finite differences: cumprod, cummax, cummin, logcumsumexp, diff, gradient,
trapezoid/trapz, cumulative_trapezoid. (cumsum lives with the reductions.)"""

import numpy as np

from .. import _dtype as D
from .. import backend
from .. import return_types
from ..autograd import grad_mode
from .._tensor import Tensor, wrap_dim
from ._prep import check_tensor_arg, wrap, xp_of
from ._registry import needs_grad, node_class, record, register, write_out
from ._reduction_factory import pair_result, scan_inplace, scan_op
from .sorting import _as_1d_plus
from .sorting import _dim_of as _scan_dim


def _reverse_cumsum(t, dim):
    return t.flip(dim).cumsum(dim).flip(dim)


# ----------------------------------------------------------------------------------------------
# cumprod
# ----------------------------------------------------------------------------------------------

def _cumprod_backward(grad, s):
    """d/dx_i of sum_k g_k y_k with y_k = prod_{j<=k} x_j.

    Without zeros that is sum_{k>=i} g_k y_k / x_i. With zeros (as PyTorch's
    cumprod_backward): before the first zero of a line the same formula holds; at the first
    zero z it is sum_{k>=z} g_k prod_{j<=k, j!=z} x_j (the running product with x_z taken as
    1); after it every factor list holds x_z = 0, so the gradient is 0. Written with cinder ops
    so that second derivatives follow."""
    x, d = s.self, s.dim
    if x.dim() == 0:
        return grad * 1
    y = s.result
    if x.is_complex():
        x, y = x.conj(), y.conj()
    is_zero = x == 0
    if not bool(is_zero.any()):
        return _reverse_cumsum(grad * y, d) / x
    if grad_mode.STATE.grad_enabled:
        # (create_graph: the masked O(n) form below treats the zero pattern as constant, so
        # its own derivative misses terms; this form is exact to every order)
        return _cumprod_backward_by_slices(grad, x, d)
    zeros_so_far = is_zero.to(D.int64).cumsum(d)
    before = zeros_so_far == 0
    first_zero = is_zero & (zeros_so_far == 1)
    safe_x = x.where(before, 1)
    before_part = (_reverse_cumsum(grad * y, d) / safe_x).where(before, 0)
    y_skip = x.where(~first_zero, 1).cumprod(d)
    at_zero = (grad * y_skip).where(~before, 0).sum(d, keepdim=True)
    return before_part + at_zero.where(first_zero, 0)


def _cumprod_backward_by_slices(grad, x, d):
    """The same gradient as sums of explicit products, one slice of ``dim`` at a time
    (quadratic in the length of ``dim``; used only for higher-order gradients with zeros):
    d/dx_k = sum_{j>=k} g_j * prod_{i<k} x_i * prod_{k<i<=j} x_i."""
    from .shape import cat, stack
    n = x.shape[d]
    parts = []
    for k in range(n):
        until_k = x.narrow(d, 0, k).prod(d, keepdim=True)     # (1 when k == 0)
        after_k = until_k * x.narrow(d, k + 1, n - k - 1).cumprod(d)
        omitted = cat([until_k, after_k], d)
        parts.append((grad.narrow(d, k, n - k) * omitted).sum(d))
    return stack(parts, d)


CumprodNode = node_class("CumprodBackward0", {"self": _cumprod_backward})


cumprod = scan_op("cumprod", "multiply", CumprodNode, saves_self=True)
cumprod.__doc__ = """Running products along ``dim``. Integer and bool inputs accumulate in int64."""


register("cumprod", cumprod, inplace=scan_inplace(cumprod, "cumprod"),
         family="scan", nodes=(CumprodNode,))

# ----------------------------------------------------------------------------------------------
# cummax / cummin
# ----------------------------------------------------------------------------------------------


def _cumext_backward(grad, s):
    from .creation import zeros
    if not s.self_sizes:
        return grad * 1
    return zeros(s.self_sizes, dtype=grad.dtype, device=grad.device).scatter_add(
        s.dim, s.indices, grad)


CummaxNode = node_class("CummaxBackward0", {"self": _cumext_backward})
CumminNode = node_class("CumminBackward0", {"self": _cumext_backward})


def _cumext(name, is_max, node, tuple_type):
    def fn(input, dim, *, out=None):
        check_tensor_arg(input, name, "input", 1)
        if input._dtype.category == D.COMPLEX:
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for "
                                      f"'{input._dtype.scalar_name}'")
        d = _scan_dim(input, dim)
        xp = xp_of(input)
        a = _as_1d_plus(input._data)
        if a.dtype == np.bool_:
            work = a.view(np.uint8)
        elif a.dtype.itemsize == 2 and a.dtype.kind not in "iu":
            work = a.astype(np.float32)
        else:
            work = a
        vals = backend.accumulate("maximum" if is_max else "minimum", work, d)
        # PyTorch moves the index to every later element equal to the running extreme (>=)
        # and to every NaN
        hit = work == vals
        if work.dtype.kind == "f":
            hit |= xp.isnan(work)
        shape = [1] * work.ndim
        shape[d] = work.shape[d]
        pos = xp.arange(work.shape[d]).reshape(shape)
        idx = backend.accumulate("maximum", xp.where(hit, pos, 0), d)
        # (row-major results whatever the input's layout, as PyTorch's)
        values = wrap(vals.astype(a.dtype, order="C").reshape(input._data.shape),
                      input._dtype, input._device)
        indices = wrap(idx.astype(np.int64, order="C").reshape(input._data.shape), D.int64,
                       input._device)
        if input._requires_grad and needs_grad(input):
            record(node, (input,), (values,), self_sizes=input._data.shape, dim=d,
                   indices=indices)
        return pair_result(tuple_type, (values, indices), out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Running {'maximum' if is_max else 'minimum'} along ``dim`` and the index "
                  "where it was attained.")
    register(name, fn, family="scan", nodes=(node,))
    return fn


cummax = _cumext("cummax", True, CummaxNode, return_types.cummax)
cummin = _cumext("cummin", False, CumminNode, return_types.cummin)

# ----------------------------------------------------------------------------------------------
# logcumsumexp
# ----------------------------------------------------------------------------------------------


def _logcumsumexp_backward(grad, s):
    # d result_k / d x_i = exp(x_i - result_k) for i <= k
    if s.self.dim() == 0:
        return grad * 1
    d = s.dim
    return _reverse_cumsum(grad * (-s.result).exp(), d) * s.self.exp()


LogcumsumexpNode = node_class("LogcumsumexpBackward0", {"self": _logcumsumexp_backward})


def logcumsumexp(input, dim, *, out=None):
    """``log(cumsum(exp(input)))`` along ``dim``, computed without overflow."""
    check_tensor_arg(input, "logcumsumexp", "input", 1)
    dt = input._dtype
    if dt.category < D.FLOATING:
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for "
                                  f"'{dt.scalar_name}'")
    d = _scan_dim(input, dim)
    xp = xp_of(input)
    a = _as_1d_plus(input._data)
    work = a.astype(np.float32) if a.dtype.itemsize == 2 else a
    with np.errstate(all="ignore"):
        if work.dtype.kind == "c":
            res = xp.log(xp.cumsum(xp.exp(work), axis=d))
        else:
            res = backend.accumulate("logaddexp", work, d)
    result = wrap(res.astype(a.dtype, order="C").reshape(input._data.shape), dt, input._device)
    if input._requires_grad and needs_grad(input):
        record(LogcumsumexpNode, (input,), (result,), self=input, dim=d)
    return write_out(out, result) if out is not None else result


register("logcumsumexp", logcumsumexp, family="scan", nodes=(LogcumsumexpNode,))

# ----------------------------------------------------------------------------------------------
# diff / gradient / trapezoid
# ----------------------------------------------------------------------------------------------


def diff(input, n=1, dim=-1, prepend=None, append=None, *, out=None):
    """The ``n``-th forward difference along ``dim`` (after joining ``prepend``/``append``)."""
    check_tensor_arg(input, "diff", "input", 1)
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input._data.ndim)
    from .shape import cat
    parts = [p if isinstance(p, Tensor) or p is None else None for p in (prepend, append)]
    x = cat([t for t in (parts[0], input, parts[1]) if t is not None], d) \
        if prepend is not None or append is not None else input
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        hi, lo = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = hi.logical_xor(lo) if x.dtype is D.bool else hi - lo
    return write_out(out, x) if out is not None else x


register("diff", diff, family="scan")


def _spacings(spacing, dims):
    if isinstance(spacing, (int, float)):
        return [float(spacing)] * len(dims)
    spacing = list(spacing)
    if len(spacing) == 1 and len(dims) > 1:
        spacing = spacing * len(dims)
    if len(spacing) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or a "
                           f"list of length equal to 'self.dim() = {len(dims)}', since dim "
                           f"argument was not given, but got a list of length {len(spacing)}")
    out = []
    for s in spacing:
        if isinstance(s, Tensor):
            if s._data.ndim:
                raise NotImplementedError("cinder: torch.gradient with coordinate tensors is not "
                                          "implemented (use scalar spacings)")
            s = s.item()
        out.append(float(s))
    return out


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimates the derivative along each of ``dim`` by central differences inside and
    one-sided differences (first or second order) at the edges; returns one tensor per dim."""
    check_tensor_arg(input, "gradient", "input", 1)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    nd = input._data.ndim
    if dim is None:
        dims = list(range(nd))
    else:
        dims = [wrap_dim(d, nd) for d in ((dim,) if isinstance(dim, int) else dim)]
    hs = _spacings(spacing, dims)
    if input._dtype is D.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if input._dtype is D.bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    return tuple(_gradient_along(input, d, h, edge_order) for d, h in zip(dims, hs))


def _gradient_along(input, d, h, edge_order):
    """Central differences inside, one-sided (order 1 or 2) at both ends, along ``d``."""
    from .shape import cat
    n = input.shape[d]
    if n < edge_order + 1:
        raise RuntimeError("torch.gradient expected each dimension size to be at least "
                           "edge_order+1")
    x = input if input.is_floating_point() or input.is_complex() else input.float()

    def at(i, length=1):
        return x.narrow(d, i % n, length)
    inner = (at(2, n - 2) - at(0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (at(1) - at(0)) / h
        last = (at(-1) - at(-2)) / h
    else:
        first = (-1.5 * at(0) + 2 * at(1) - 0.5 * at(2)) / h
        last = (0.5 * at(-3) - 2 * at(-2) + 1.5 * at(-1)) / h
    return cat([first, inner, last], d)


register("gradient", gradient, method=False, family="scan")


def _no_bool_y(name, y):
    if y._dtype is D.bool:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal-rule integral of ``y`` along ``dim`` (sample points ``x`` or spacing
    ``dx``, default 1)."""
    check_tensor_arg(y, "trapezoid", "y", 1)
    _no_bool_y("trapezoid", y)
    d = wrap_dim(dim, max(y._data.ndim, 1))
    n = y.shape[d]
    if isinstance(x, Tensor):
        if n == 0:
            return y.sum(d) * 0
        dxs = diff(x, dim=-1 if x.dim() == 1 else d)
        if x.dim() == 1:
            shape = [1] * y.dim()
            shape[d] = n - 1
            dxs = dxs.reshape(shape)
        return ((y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) * dxs).sum(d) / 2
    step = 1 if dx is None and x is None else (dx if dx is not None else x)
    if n == 0:
        return y.sum(d) * step
    return (y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * step


def trapz(y, x=None, *, dx=None, dim=-1):
    """Alias of :func:`trapezoid`."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """Running trapezoidal-rule integrals of ``y`` along ``dim`` (one fewer than y's length)."""
    check_tensor_arg(y, "cumulative_trapezoid", "y", 1)
    _no_bool_y("cumulative_trapezoid", y)
    d = wrap_dim(dim, max(y._data.ndim, 1))
    n = y.shape[d]
    if n == 0:
        return y.narrow(d, 0, 0) * 1
    pair = (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) / 2
    if isinstance(x, Tensor):
        dxs = diff(x, dim=-1 if x.dim() == 1 else d)
        if x.dim() == 1:
            shape = [1] * y.dim()
            shape[d] = n - 1
            dxs = dxs.reshape(shape)
        return (pair * dxs).cumsum(d)
    step = 1 if dx is None and x is None else (dx if dx is not None else x)
    return (pair * step).cumsum(d)


register("trapezoid", trapezoid, method=False, family="scan")
register("trapz", trapz, method=False, family="alias")
register("cumulative_trapezoid", cumulative_trapezoid, method=False, family="scan")
