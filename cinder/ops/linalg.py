"""Matrix products: matmul / @, mm, bmm, mv, dot, inner, addmm, outer (BLAS through NumPy/CuPy).

``matmul`` computes every rank combination with one broadcasting ``xp.matmul`` call, and records
the graph node PyTorch's own decomposition ends in (``MmBackward0``, ``UnsafeViewBackward0``...),
so ``grad_fn`` names agree while the work stays a single BLAS call.
"""

import numpy as np

from .. import _dtype as D
from . import limited_uint
from ._prep import (broadcast_shape, check_tensor_arg, common_device, not_implemented, wrap,
                    xp_of)
from ._registry import alias, make_inplace, needs_grad, node_class, record, register, write_out

MmNode = node_class("MmBackward0", {
    "self": lambda grad, s: grad.mm(s.mat2.mH),
    "mat2": lambda grad, s: s.self.mH.mm(grad)})
MvNode = node_class("MvBackward0", {
    "self": lambda grad, s: grad.unsqueeze(1) * s.vec.conj().unsqueeze(0),
    "vec": lambda grad, s: s.self.mH.mv(grad)})
DotNode = node_class("DotBackward0", {
    "self": lambda grad, s: grad * s.tensor.conj(),
    "tensor": lambda grad, s: grad * s.self.conj()})
BmmNode = node_class("BmmBackward0", {
    "self": lambda grad, s: grad.matmul(s.mat2.mH),
    "mat2": lambda grad, s: s.self.mH.matmul(grad)})
AddmmNode = node_class("AddmmBackward0", {
    "self": lambda grad, s: grad if s.beta == 1 else grad * s.beta,
    "mat1": lambda grad, s: _scaled(grad.mm(s.mat2.mH), s.alpha),
    "mat2": lambda grad, s: _scaled(s.mat1.mH.mm(grad), s.alpha)})


def _scaled(t, alpha):
    return t if alpha == 1 else t * alpha


def _matmul_grad_self(grad, s):
    """d(a @ b)/da for any ranks (1-d operands promoted, broadcast batch dims summed). It
    reads ``a``'s shape only, so that ``a`` is saved only when ``b`` needs a gradient."""
    b, a_shape = s.other, s.self_shape
    g = _promoted_grad(grad, len(a_shape), b.dim())
    b2 = b.unsqueeze(-1) if b.dim() == 1 else b
    ga = g.matmul(b2.mH)
    return ga.sum_to_size((1,) + a_shape if len(a_shape) == 1 else a_shape).reshape(a_shape)


def _matmul_grad_other(grad, s):
    a, b_shape = s.self, s.other_shape
    g = _promoted_grad(grad, a.dim(), len(b_shape))
    a2 = a.unsqueeze(0) if a.dim() == 1 else a
    gb = a2.mH.matmul(g)
    return gb.sum_to_size(b_shape + (1,) if len(b_shape) == 1 else b_shape).reshape(b_shape)


def _promoted_grad(grad, a_dim, b_dim):
    if a_dim == 1:
        grad = grad.unsqueeze(-2)
    if b_dim == 1:
        grad = grad.unsqueeze(-1)
    return grad


def _matmul_node(name):
    return node_class(name, {"self": _matmul_grad_self, "other": _matmul_grad_other})


# PyTorch's matmul ends 1-d @ 2-d in squeeze_(0), folded and batched products in _unsafe_view,
# and 2-d @ (>=3)-d in .mT().contiguous(): these are the nodes a user sees as grad_fn.
SqueezeMatmulNode = _matmul_node("SqueezeBackward4")
UnsafeViewMatmulNode = _matmul_node("UnsafeViewBackward0")
CloneMatmulNode = _matmul_node("CloneBackward0")



# PyTorch's refusals of uint16/32/64 operands (limited_uint.py): these bodies test the
# operands' dtypes themselves, so the common call pays one set test instead of a wrapper
_REFUSE = {name: limited_uint.claim_check(name) for name in ("mm", "bmm", "matmul", "addmm")}
_LIMITED = limited_uint.LIMITED


def _same_dtype(a, b, what="m1 and m2"):
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected {what} to have the same dtype, but got: "
                           f"{a._dtype.cpp_name} != "
                           f"{b._dtype.cpp_name}")


# cuBLAS has no integer products: PyTorch's CUDA kernels for the CPU kernels named here
_CUDA_KERNELS = {"addmm_impl_cpu_": "addmm_cuda", "addmv_impl_cpu": "addmv_impl_cuda",
                 "dot": "dot", "bmm": "baddbmm_cuda"}


def _no_bool(dt, kernel, out_shape=None, k=1, device=None):
    """PyTorch has no bool matrix products, nor integer ones on CUDA (but returns empty
    results, and zeros for an empty inner dimension ``k``, before looking for a kernel)."""
    on_cuda = device is not None and device.type == "cuda" and dt.category < D.FLOATING
    if (dt is D.bool or on_cuda) and k and (out_shape is None or 0 not in out_shape):
        not_implemented(_CUDA_KERNELS.get(kernel, kernel) if on_cuda else kernel, dt)


def _product(xp, a, b, dt):
    """``a @ b`` in ``dt``; half types accumulate in float32 as PyTorch's CPU kernels do."""
    if dt in (D.float16, D.bfloat16):
        return xp.matmul(a.astype(np.float32), b.astype(np.float32)).astype(dt.numpy_dtype)
    return xp.matmul(a, b)


def mm(input, mat2, *, out=None):
    """Matrix product of two 2-D tensors."""
    check_tensor_arg(input, "mm", "input", 1)
    check_tensor_arg(mat2, "mm", "mat2", 2)
    if input._dtype in _LIMITED or mat2._dtype in _LIMITED:
        _REFUSE["mm"](mm, (input, mat2), {"out": out})
    if input.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    a, b = input._data, mat2._data
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]}"
                           f" and {b.shape[0]}x{b.shape[1]})")
    _same_dtype(input, mat2)
    _no_bool(input._dtype, "addmm_impl_cpu_", (a.shape[0], b.shape[1]), a.shape[1],
             input._device)
    dev = common_device((input, mat2))
    result = wrap(_product(xp_of(input), a, b, input._dtype), input._dtype, dev)
    if needs_grad(input, mat2):
        record(MmNode, (input, mat2), (result,), self=input, mat2=mat2)
    return write_out(out, result) if out is not None else result


register("mm", mm, family="linalg", nodes=(MmNode,))


def mv(input, vec, *, out=None):
    """Matrix (n x m) times vector (m)."""
    check_tensor_arg(vec, "mv", "vec", 2)
    if input.dim() != 2 or vec.dim() != 1 or input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.dim() else 0}), "
                           f"mat ({'x'.join(map(str, input.shape))}), vec "
                           f"({vec.shape[0] if vec.dim() else 0})")
    _same_dtype(input, vec, "mat and vec")
    _no_bool(input._dtype, "addmv_impl_cpu", input.shape[:1], vec.shape[0], input._device)
    result = wrap(_product(xp_of(input), input._data, vec._data, input._dtype), input._dtype,
                  common_device((input, vec)))
    if needs_grad(input, vec):
        record(MvNode, (input, vec), (result,), self=input, vec=vec)
    return write_out(out, result) if out is not None else result


register("mv", mv, family="linalg", nodes=(MvNode,))


def dot(input, tensor, *, out=None):
    """Inner product of two 1-D tensors with the same number of elements."""
    check_tensor_arg(tensor, "dot", "tensor", 2)
    if input.dim() != 1 or tensor.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {tensor.dim()}D "
                           "tensors")
    if input.shape[0] != tensor.shape[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src "
            f"[{tensor.shape[0]}] to have the same number of elements, but got "
            f"{input.shape[0]} and {tensor.shape[0]} elements respectively")
    if input._dtype is not tensor._dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{input._dtype.scalar_name} and {tensor._dtype.scalar_name}")
    _no_bool(input._dtype, "dot", device=input._device)
    xp = xp_of(input)
    res = xp.asarray(_product(xp, input._data, tensor._data, input._dtype))
    result = wrap(res.astype(input._dtype.numpy_dtype, copy=False), input._dtype,
                  common_device((input, tensor)))
    if needs_grad(input, tensor):
        record(DotNode, (input, tensor), (result,), self=input, tensor=tensor)
    return write_out(out, result) if out is not None else result


register("dot", dot, family="linalg", nodes=(DotNode,))


def inner(input, other, *, out=None):
    """Sum of products over the last dims (``tensordot`` on the last axis of each)."""
    check_tensor_arg(other, "inner", "other", 2)
    if input.dim() == 0 or other.dim() == 0:
        from .pointwise import mul
        return mul(input, other, out=out)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    if input._dtype is not other._dtype:
        raise RuntimeError("both inputs should have same dtype")
    _no_bool(input._dtype, "dot", device=input._device)
    k = input.shape[-1]
    out_shape = tuple(input.shape[:-1]) + tuple(other.shape[:-1])
    result = mm(input.reshape(-1, k), other.reshape(-1, k).t()).reshape(out_shape)
    return write_out(out, result) if out is not None else result


register("inner", inner, family="linalg")


def bmm(input, mat2, *, out=None):
    """Batched matrix product of two 3-D tensors with equal batch sizes."""
    check_tensor_arg(mat2, "bmm", "mat2", 2)
    if input._dtype in _LIMITED:
        _REFUSE["bmm"](bmm, (input, mat2), {"out": out})
    if input.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, n, m = input.shape
    if mat2.shape[0] != b or mat2.shape[1] != m:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b}, {m}] but got: [{mat2.shape[0]}, {mat2.shape[1]}].")
    _same_dtype(input, mat2, "batch1 and batch2")
    _no_bool(input._dtype, "bmm", (b, n, mat2.shape[2]), m, input._device)
    result = wrap(_product(xp_of(input), input._data, mat2._data, input._dtype), input._dtype,
                  common_device((input, mat2)))
    if needs_grad(input, mat2):
        record(BmmNode, (input, mat2), (result,), self=input, mat2=mat2)
    return write_out(out, result) if out is not None else result


register("bmm", bmm, family="linalg", nodes=(BmmNode,))


def matmul(input, other, *, out=None):
    """Matrix product with NumPy-style broadcasting of batch dims (1-D operands promoted)."""
    check_tensor_arg(input, "matmul", "input", 1)
    check_tensor_arg(other, "matmul", "other", 2)
    if input._dtype in _LIMITED or other._dtype in _LIMITED:
        _REFUSE["matmul"](matmul, (input, other), {"out": out})
    da, db = input.dim(), other.dim()
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    if da == 1 and db == 1:
        result = dot(input, other)
    elif da == 2 and db == 2:
        result = mm(input, other)
    elif da == 2 and db == 1:
        result = mv(input, other)
    else:
        result = _general_matmul(input, other, da, db)
    return write_out(out, result) if out is not None else result


def _general_matmul(a, b, da, db):
    """1-d @ 2-d and every product with a batch dim, as one broadcasting matmul."""
    k_a = a.shape[-1]
    k_b = b.shape[0] if db == 1 else b.shape[-2]
    if k_a != k_b:
        if db <= 2 and da <= 2:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                               f"({a.shape[0] if da == 2 else 1}x{k_a} and {k_b}x{b.shape[-1]})")
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{int(np.prod(b.shape[:-2]))}, {k_a}] but got: "
            f"[{int(np.prod(b.shape[:-2]))}, {k_b}].")
    _same_dtype(a, b)
    xp = xp_of(a)
    a_arr = a._data if da > 1 else a._data[None, :]
    b_arr = b._data if db > 1 else b._data[:, None]
    # CUDA sends every product with a batch dim to its batched kernel; the CPU only 3-d @ 3-d
    batched = (da >= 3 and db >= 3) or (a._device.type == "cuda" and max(da, db) >= 3)
    _no_bool(a._dtype, "bmm" if batched else "addmm_impl_cpu_",
             broadcast_shape(a_arr.shape[:-2], b_arr.shape[:-2]) +
             (a_arr.shape[-2], b_arr.shape[-1]), k_a, a._device)
    res = _product(xp, a_arr, b_arr, a._dtype)
    if db == 1:
        res = res[..., 0]
    if da == 1:
        res = res[..., 0, :] if db > 1 else res[..., 0]
    result = wrap(xp.ascontiguousarray(res), a._dtype, common_device((a, b)))
    if needs_grad(a, b):
        if da == 1 and db == 2:
            node = SqueezeMatmulNode
        elif da == 2 and db >= 3:
            node = CloneMatmulNode
        else:
            node = UnsafeViewMatmulNode
        record(node, (a, b), (result,), self=a, other=b, self_shape=tuple(a._data.shape),
               other_shape=tuple(b._data.shape))
    return result


register("matmul", matmul, family="linalg",
         nodes=(SqueezeMatmulNode, UnsafeViewMatmulNode, CloneMatmulNode))


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat1 @ mat2)`` (what nn.Linear computes)."""
    check_tensor_arg(mat1, "addmm", "mat1", 2)
    check_tensor_arg(mat2, "addmm", "mat2", 3)
    if input._dtype in _LIMITED or mat1._dtype in _LIMITED or mat2._dtype in _LIMITED:
        _REFUSE["addmm"](addmm, (input, mat1, mat2), {"beta": beta, "alpha": alpha, "out": out})
    if mat1.dim() != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1.dim()}-D tensor")
    if mat2.dim() != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2.dim()}-D tensor")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x{mat1.shape[1]} and "
            f"{mat2.shape[0]}x{mat2.shape[1]})")
    if input._dtype is not mat2._dtype or mat1._dtype is not mat2._dtype:
        first, second = (input, mat2) if input._dtype is not mat2._dtype else (mat1, mat2)
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{first._dtype.scalar_name} and {second._dtype.scalar_name}")
    dt = mat1._dtype
    if dt is D.bool and mat1.shape[1] == 0 and mat1._device.type == "cpu":
        raise RuntimeError("result type Long can't be cast to the desired output type Bool")
    _no_bool(dt, "addmm_impl_cpu_", (mat1.shape[0], mat2.shape[1]), mat1.shape[1],
             mat1._device)
    xp = xp_of(mat1)
    prod = _product(xp, mat1._data, mat2._data, dt)
    if dt.category < D.FLOATING:   # PyTorch casts alpha and beta to the integer dtype
        alpha, beta = int(alpha), int(beta)
    if alpha != 1:
        prod = prod * alpha
    target = prod.shape
    if broadcast_shape(input._data.shape, target) != target:
        raise RuntimeError(f"The expanded size of the tensor ({target[-1]}) must match the "
                           f"existing size ({input.shape[-1]}) at non-singleton dimension 1.  "
                           f"Target sizes: {list(target)}.  Tensor sizes: {list(input.shape)}")
    if beta != 0:
        res = prod + (input._data if beta == 1 else input._data * beta)
    else:
        res = prod     # beta=0: input is ignored, NaN included
    result = wrap(xp.broadcast_to(res, target).astype(dt.numpy_dtype), dt,
                  common_device((input, mat1, mat2)))
    if needs_grad(input, mat1, mat2):
        record(AddmmNode, (input, mat1, mat2), (result,), mat1=mat1, mat2=mat2, alpha=alpha,
               beta=beta)
    return write_out(out, result) if out is not None else result


def _addmm_shape_check(self, mat1, mat2, **_):
    """In-place ``addmm``: ``self`` must already have the result's shape."""
    check_tensor_arg(mat1, "addmm_", "mat1", 1)
    check_tensor_arg(mat2, "addmm_", "mat2", 2)
    if mat1.dim() == 2 and mat2.dim() == 2 and \
            tuple(self.shape) != (mat1.shape[0], mat2.shape[1]):
        raise RuntimeError(f"Bad in-place call: input tensor size {list(self.shape)} and output "
                           f"tensor size {[mat1.shape[0], mat2.shape[1]]} should match")


register("addmm", addmm, inplace=make_inplace(addmm, "addmm", precheck=_addmm_shape_check),
         family="linalg", nodes=(AddmmNode,))


def outer(input, vec2, *, out=None):
    """Outer product of two 1-D tensors (``ger``)."""
    check_tensor_arg(vec2, "outer", "vec2", 2)
    if input.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.dim()}-D")
    result = input.reshape(-1, 1) * vec2
    return write_out(out, result) if out is not None else result


register("outer", outer, family="linalg")
alias("ger", "outer")
