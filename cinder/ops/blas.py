"""More products (BLAS through NumPy/CuPy): vdot, trace, addmv, addr, addbmm, baddbmm,
chain_matmul, kron, block_diag, cdist, einsum, tensordot, cross, vander."""

import warnings

import numpy as np

from .. import _dtype as D
from ._layouts import iterator_layout, row_major
from ._prep import (
    as_compute,
    check_tensor_arg,
    common_device,
    not_implemented,
    result_type,
    wrap,
    xp_of,
)
from ._registry import make_inplace, needs_grad, node_class, record, register, write_out
from .linalg import _scaled
from .views import UnsafeViewNode

# ----------------------------------------------------------------------------------------------
# vdot / trace
# ----------------------------------------------------------------------------------------------

VdotNode = node_class("VdotBackward0", {
    "self": lambda grad, s: grad.conj() * s.other,
    "other": lambda grad, s: grad * s.self})


def vdot(input, other, *, out=None):
    """The dot product of two 1-D tensors, conjugating the first."""
    check_tensor_arg(input, "vdot", "input", 1)
    check_tensor_arg(other, "vdot", "other", 2)
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and "
                           f"{other._data.ndim}D tensors")
    if input._dtype is not other._dtype:
        raise RuntimeError(f"expected both vectors to have same dtype, but found "
                           f"{input._dtype.scalar_name} and {other._dtype.scalar_name}")
    n, m = input._data.shape[0], other._data.shape[0]
    if input._dtype is D.bool:
        not_implemented("dot", input._dtype)
    if n != m:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to "
                           f"have the same number of elements, but got {n} and {m} elements "
                           "respectively")
    xp = xp_of(input)
    res = xp.asarray(xp.vdot(input._data, other._data)).astype(input._data.dtype)
    result = wrap(res, input._dtype, input._device)
    if needs_grad(input, other):
        record(VdotNode, (input, other), (result,), self=input, other=other)
    return write_out(out, result) if out is not None else result


def _trace_backward(grad, s):
    from .creation import zeros
    k = min(s.self_sizes)
    return zeros(s.self_sizes, dtype=grad.dtype, device=grad.device).diagonal_scatter(
        grad.expand(k))


TraceNode = node_class("TraceBackward0", {"self": _trace_backward})


def trace(input):
    """The sum of the main diagonal of a 2-D tensor (integers sum in int64)."""
    check_tensor_arg(input, "trace", "input", 1)
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim "
                           f"{input._data.ndim}")
    if input._dtype is D.bool:
        not_implemented("trace", input._dtype)
    dt = D.int64 if input._dtype.category <= D.INTEGRAL else input._dtype
    xp = xp_of(input)
    res = xp.asarray(xp.trace(input._data, dtype=dt.numpy_dtype if dt.itemsize > 2
                              else np.float32)).astype(dt.numpy_dtype)
    result = wrap(res, dt, input._device)
    if input._requires_grad and needs_grad(input):
        record(TraceNode, (input,), (result,), self_sizes=input._data.shape)
    return result


register("vdot", vdot, family="blas", nodes=(VdotNode,))
register("trace", trace, family="blas", nodes=(TraceNode,))

# ----------------------------------------------------------------------------------------------
# addmv / addr / addbmm / baddbmm: beta * input + alpha * (product)
# ----------------------------------------------------------------------------------------------


def _self_grad(grad, s):
    g = grad if s.beta == 1 else grad * s.beta
    return g.sum_to_size(s.self_sizes) if tuple(g.shape) != tuple(s.self_sizes) else g


AddmvNode = node_class("AddmvBackward0", {
    "self": _self_grad,
    "mat": lambda grad, s: _scaled(grad.outer(s.vec.conj()), s.alpha),
    "vec": lambda grad, s: _scaled(s.mat.mH.mv(grad), s.alpha)},
    saves_also=("beta", "self_sizes"))
AddrNode = node_class("AddrBackward0", {
    "self": _self_grad,
    "vec1": lambda grad, s: _scaled(grad.mv(s.vec2.conj()), s.alpha),
    "vec2": lambda grad, s: _scaled(grad.mH.mv(s.vec1.conj()), s.alpha)},
    saves_also=("beta", "self_sizes"))
BaddbmmNode = node_class("BaddbmmBackward0", {
    "self": _self_grad,
    "batch1": lambda grad, s: _scaled(grad.bmm(s.batch2.mH), s.alpha),
    "batch2": lambda grad, s: _scaled(s.batch1.mH.bmm(grad), s.alpha)},
    saves_also=("beta", "self_sizes"))
AddbmmNode = node_class("AddbmmBackward0", {
    "self": _self_grad,
    "batch1": lambda grad, s: _scaled(
        grad.unsqueeze(0).expand(s.batch1.shape[0], grad.shape[0], grad.shape[1]).bmm(
            s.batch2.mH), s.alpha),
    "batch2": lambda grad, s: _scaled(s.batch1.mH.bmm(
        grad.unsqueeze(0).expand(s.batch1.shape[0], grad.shape[0], grad.shape[1])), s.alpha)},
    saves_also=("beta", "self_sizes"))




def _combine(name, input, operands, product, out_shape, beta, alpha, input_layout=False):
    """``beta * input + alpha * product(arrays)`` with PyTorch's shape and dtype checks.
    ``input_layout``: the result is laid out like ``input`` (one TensorIterator led by it, as
    ``addr`` computes); else row-major (the GEMM-based ops)."""
    ts = (input,) + operands
    dt = operands[0]._dtype
    for t in ts:
        if t._dtype is not dt:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                               f"{dt.cpp_name} != {t._dtype.cpp_name}")
    if dt.category < D.FLOATING:
        beta, alpha = int(beta), int(alpha)     # integer results truncate the scalars
    if dt is D.bool and name in _NO_BOOL:
        not_implemented(_NO_BOOL[name], dt)
    dev = common_device(ts)
    xp = xp_of(input)
    arrays = [as_compute(t, dt, dev) for t in operands]
    prod = product(xp, *arrays)
    try:
        base = xp.broadcast_to(as_compute(input, dt, dev), out_shape)
    except ValueError:
        raise RuntimeError(f"The expanded size of the tensor ({out_shape[-1]}) must match the "
                           f"existing size ({input._data.shape[-1]}) at non-singleton dimension "
                           f"{input._data.ndim - 1}.  Target sizes: {list(out_shape)}.  Tensor "
                           f"sizes: {list(input._data.shape)}") from None
    res = prod if alpha == 1 else prod * alpha
    if beta != 0:
        res = res + (base if beta == 1 else base * beta)
    res = xp.asarray(res)
    if input_layout:
        res = iterator_layout(res, (base, prod))
    elif not res.flags.c_contiguous:
        res = row_major(res)
    return wrap(res.astype(dt.numpy_dtype), dt, dev)


_NO_BOOL = {"addmv": "addmv_impl_cpu", "baddbmm": "baddbmm", "addbmm": "addmm_impl_cpu_"}


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat @ vec)``."""
    check_tensor_arg(mat, "addmv", "mat", 2)
    check_tensor_arg(vec, "addmv", "vec", 3)
    if mat._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input._data.ndim}, "
                           f"{mat._data.ndim}, {vec._data.ndim}")
    if mat._data.shape[1] != vec._data.shape[0]:
        n = input._data.shape[0] if input._data.ndim else 1
        raise RuntimeError(f"size mismatch, got input ({n}), "
                           f"mat ({mat._data.shape[0]}x{mat._data.shape[1]}), vec "
                           f"({vec._data.shape[0]})")
    result = _combine("addmv", input, (mat, vec), lambda xp, m, v: m @ v,
                      (mat._data.shape[0],), beta, alpha)
    if needs_grad(input, mat, vec):
        record(AddmvNode, (input, mat, vec), (result,), mat=mat, vec=vec, alpha=alpha,
               beta=beta, self_sizes=input._data.shape)
    return write_out(out, result) if out is not None else result


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * outer(vec1, vec2)``."""
    check_tensor_arg(vec1, "addr", "vec1", 2)
    check_tensor_arg(vec2, "addr", "vec2", 3)
    if vec1._data.ndim != 1 or vec2._data.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1._data.ndim}-D"
                           if vec1._data.ndim != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2._data.ndim}-D")
    shape = (vec1._data.shape[0], vec2._data.shape[0])
    if vec1._dtype.category < D.FLOATING:
        for name, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be a "
                                   "floating point number.")
    result = _combine("addr", input, (vec1, vec2), lambda xp, a, b: xp.outer(a, b), shape,
                      beta, alpha, input_layout=True)
    if needs_grad(input, vec1, vec2):
        record(AddrNode, (input, vec1, vec2), (result,), vec1=vec1, vec2=vec2, alpha=alpha,
               beta=beta, self_sizes=input._data.shape)
    return write_out(out, result) if out is not None else result


def _check_batches(name, b1, b2):
    if b1._data.ndim != 3 or b2._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if b1._data.ndim != 3 else
                           "batch2 must be a 3D tensor")
    if b1._data.shape[0] != b2._data.shape[0] or b1._data.shape[2] != b2._data.shape[1]:
        s1, s2 = b1._data.shape, b2._data.shape
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{s1[0]}, {s1[2]}] but got: [{s2[0]}, {s2[1]}].")


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * bmm(batch1, batch2)``."""
    check_tensor_arg(batch1, "baddbmm", "batch1", 2)
    check_tensor_arg(batch2, "baddbmm", "batch2", 3)
    _check_batches("baddbmm", batch1, batch2)
    shape = batch1._data.shape[:2] + batch2._data.shape[2:]
    result = _combine("baddbmm", input, (batch1, batch2), lambda xp, a, b: xp.matmul(a, b),
                      shape, beta, alpha)
    if needs_grad(input, batch1, batch2):
        record(BaddbmmNode, (input, batch1, batch2), (result,), batch1=batch1, batch2=batch2,
               alpha=alpha, beta=beta, self_sizes=input._data.shape)
    return write_out(out, result) if out is not None else result


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    check_tensor_arg(batch1, "addbmm", "batch1", 2)
    check_tensor_arg(batch2, "addbmm", "batch2", 3)
    _check_batches("addbmm", batch1, batch2)
    shape = (batch1._data.shape[1], batch2._data.shape[2])

    def product(xp, a, b):
        # one GEMM: (n, b*k) @ (b*k, p)
        nb, n, k = a.shape
        p = b.shape[2]
        return xp.moveaxis(a, 0, 1).reshape(n, nb * k) @ b.reshape(nb * k, p)
    result = _combine("addbmm", input, (batch1, batch2), product, shape, beta, alpha)
    if needs_grad(input, batch1, batch2):
        record(AddbmmNode, (input, batch1, batch2), (result,), batch1=batch1, batch2=batch2,
               alpha=alpha, beta=beta, self_sizes=input._data.shape)
    return write_out(out, result) if out is not None else result


for _name, _fn, _node in (("addmv", addmv, AddmvNode), ("addr", addr, AddrNode),
                          ("baddbmm", baddbmm, BaddbmmNode), ("addbmm", addbmm, AddbmmNode)):
    register(_name, _fn, inplace=make_inplace(_fn, _name), family="blas", nodes=(_node,))


def chain_matmul(*matrices, out=None):
    """The product of 2-D matrices, left to right (deprecated: ``linalg.multi_dot``)."""
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                  "release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
                  "more tensors rather than multiple parameters.", UserWarning, stacklevel=2)
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m._data.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m._data.ndim}, expected 2 instead.")
    result = matrices[0] if len(matrices) > 1 else matrices[0].clone()
    for m in matrices[1:]:
        result = result.mm(m)
    return write_out(out, result) if out is not None else result


register("chain_matmul", chain_matmul, method=False, family="blas")

# ----------------------------------------------------------------------------------------------
# kron / block_diag
# ----------------------------------------------------------------------------------------------


def kron(input, other, *, out=None):
    """The Kronecker product: every element of ``input`` times the whole of ``other``."""
    check_tensor_arg(input, "kron", "input", 1)
    check_tensor_arg(other, "kron", "other", 2)
    nd = max(input._data.ndim, other._data.ndim)
    a = input.reshape((1,) * (nd - input._data.ndim) + tuple(input._data.shape))
    b = other.reshape((1,) * (nd - other._data.ndim) + tuple(other._data.shape))
    a_shape, b_shape = [], []
    for i in range(nd):
        a_shape += [a.shape[i], 1]
        b_shape += [1, b.shape[i]]
    prod = a.reshape(a_shape) * b.reshape(b_shape)
    shape = tuple(a.shape[i] * b.shape[i] for i in range(nd))
    result = wrap(prod._data.reshape(shape), prod._dtype, prod._device)
    if prod._requires_grad and needs_grad(prod):
        record(UnsafeViewNode, (prod,), (result,), self_sizes=prod._data.shape)
    return write_out(out, result) if out is not None else result


register("kron", kron, family="blas")

_BLOCK_NODES = {}


def _block_node(n):
    """BlockDiagBackward0 for ``n`` inputs: input i gets its block of the gradient."""
    if n not in _BLOCK_NODES:
        def formula(i):
            def f(grad, s):
                (r0, r1, c0, c1), shape = s.blocks[i], s.shapes[i]
                return grad[r0:r1, c0:c1].reshape(shape)
            return f
        _BLOCK_NODES[n] = node_class("BlockDiagBackward0", {f"t{i}": formula(i)
                                                            for i in range(n)},
                                     saves_also=("blocks", "shapes"))
    return _BLOCK_NODES[n]


def block_diag(*tensors):
    """A block-diagonal matrix from the inputs (0-d as 1x1, 1-d as one row)."""
    for i, t in enumerate(tensors):
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t._data.ndim} dimensions")
    if not tensors:
        from .creation import empty
        return empty((1, 0))
    dt = result_type(*tensors)
    dev = common_device(tensors)
    mats = [as_compute(t, dt, dev).reshape((1, -1) if t._data.ndim < 2 else t._data.shape)
            for t in tensors]
    rows = sum(m.shape[0] for m in mats)
    cols = sum(m.shape[1] for m in mats)
    xp = xp_of(tensors[0])
    res = xp.zeros((rows, cols), dt.numpy_dtype)
    blocks = []
    r = c = 0
    for m in mats:
        res[r:r + m.shape[0], c:c + m.shape[1]] = m
        blocks.append((r, r + m.shape[0], c, c + m.shape[1]))
        r, c = r + m.shape[0], c + m.shape[1]
    result = wrap(res, dt, dev)
    if needs_grad(*tensors):
        record(_block_node(len(tensors)), tensors, (result,), blocks=blocks,
               shapes=[t._data.shape for t in tensors])
    return result


register("block_diag", block_diag, method=False, family="blas")
