"""Matrix products: matmul / @, mm, bmm, mv, dot, addmm, outer (BLAS through NumPy/CuPy)."""

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ._prep import common_device, wrap, xp_of
from ._registry import node_class, needs_grad, record, register, write_out, _type_name

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


_C_NAMES = {D.float32: "float", D.float64: "double", D.float16: "c10::Half",
            D.bfloat16: "c10::BFloat16", D.int64: "long int", D.int32: "int",
            D.complex64: "c10::complex<float>", D.complex128: "c10::complex<double>"}


def _same_dtype(a, b, what="m1 and m2"):
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected {what} to have the same dtype, but got: "
                           f"{_C_NAMES.get(a._dtype, a._dtype.name)} != "
                           f"{_C_NAMES.get(b._dtype, b._dtype.name)}")


def _check_tensor(x, name, pos, fname):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


def mm(input, mat2, *, out=None):
    """Matrix product of two 2-D tensors."""
    _check_tensor(mat2, "mat2", 2, "mm")
    if input.dim() != 2:
        raise RuntimeError(f"self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError(f"mat2 must be a matrix")
    a, b = input._data, mat2._data
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]}"
                           f" and {b.shape[0]}x{b.shape[1]})")
    _same_dtype(input, mat2)
    dev = common_device((input, mat2))
    result = wrap(xp_of(input).matmul(a, b), input._dtype, dev)
    if needs_grad(input, mat2):
        record(MmNode, (input, mat2), (result,), self=input, mat2=mat2)
    return write_out(out, result) if out is not None else result


register("mm", mm, family="linalg", nodes=(MmNode,))


def mv(input, vec, *, out=None):
    """Matrix (n x m) times vector (m)."""
    if input.dim() != 2 or vec.dim() != 1 or input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.dim() else 0}), "
                           f"mat ({'x'.join(map(str, input.shape))}), vec ({vec.shape[0] if vec.dim() else 0})")
    _same_dtype(input, vec, "mat and vec")
    result = wrap(xp_of(input).matmul(input._data, vec._data), input._dtype,
                  common_device((input, vec)))
    if needs_grad(input, vec):
        record(MvNode, (input, vec), (result,), self=input, vec=vec)
    return write_out(out, result) if out is not None else result


register("mv", mv, family="linalg", nodes=(MvNode,))


def dot(input, tensor, *, out=None):
    """Inner product of two 1-D tensors with the same number of elements."""
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
                           f"{_type_name(input._dtype)} and {_type_name(tensor._dtype)}")
    xp = xp_of(input)
    result = wrap(xp.asarray(xp.dot(input._data, tensor._data)), input._dtype,
                  common_device((input, tensor)))
    if needs_grad(input, tensor):
        record(DotNode, (input, tensor), (result,), self=input, tensor=tensor)
    return write_out(out, result) if out is not None else result


register("dot", dot, family="linalg", nodes=(DotNode,))
register("inner", lambda input, other: (input * other).sum(-1) if input.dim() and other.dim()
         else input * other, family="linalg")


def bmm(input, mat2, *, out=None):
    """Batched matrix product of two 3-D tensors with equal batch sizes."""
    if input.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, n, m = input.shape
    if mat2.shape[0] != b or mat2.shape[1] != m:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b}, {m}] but got: [{mat2.shape[0]}, {mat2.shape[1]}].")
    _same_dtype(input, mat2, "batch1 and batch2")
    result = wrap(xp_of(input).matmul(input._data, mat2._data), input._dtype,
                  common_device((input, mat2)))
    if needs_grad(input, mat2):
        record(BmmNode, (input, mat2), (result,), self=input, mat2=mat2)
    return write_out(out, result) if out is not None else result


register("bmm", bmm, family="linalg", nodes=(BmmNode,))


def matmul(input, other, *, out=None):
    """Matrix product with NumPy-style broadcasting of batch dims (1-D operands promoted)."""
    _check_tensor(other, "other", 2, "matmul")
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
    elif da == 1 and db == 2:
        result = mm(input.unsqueeze(0), other).squeeze(0)
    else:
        result = _batched_matmul(input, other)
    return write_out(out, result) if out is not None else result


def _batched_matmul(a, b):
    squeeze_first = a.dim() == 1
    squeeze_last = b.dim() == 1
    if squeeze_first:
        a = a.unsqueeze(0)
    if squeeze_last:
        b = b.unsqueeze(-1)
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{int(np.prod(b.shape[:-2]))}, {a.shape[-1]}] but got: "
            f"[{int(np.prod(b.shape[:-2]))}, {b.shape[-2]}].")
    _same_dtype(a, b)
    try:
        res = xp_of(a).matmul(a._data, b._data)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({a.shape[-3] if a.dim() > 2 else 1}) must "
                           f"match the size of tensor b ({b.shape[-3] if b.dim() > 2 else 1}) at "
                           "non-singleton dimension 0") from None
    result = wrap(res, a._dtype, common_device((a, b)))
    if needs_grad(a, b):
        record(BmmNode, (a, b), (result,), self=a, mat2=b)
    if squeeze_last:
        result = result.squeeze(-1)
    if squeeze_first:
        result = result.squeeze(-2)
    return result


register("matmul", matmul, family="linalg")


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat1 @ mat2)`` (what nn.Linear computes)."""
    if mat1.dim() != 2 or mat2.dim() != 2:
        raise RuntimeError("mat1 must be a matrix, got " f"{mat1.dim()}-D tensor" if
                           mat1.dim() != 2 else f"mat2 must be a matrix, got {mat2.dim()}-D tensor")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x{mat1.shape[1]} and "
            f"{mat2.shape[0]}x{mat2.shape[1]})")
    _same_dtype(mat1, mat2)
    xp = xp_of(mat1)
    prod = xp.matmul(mat1._data, mat2._data)
    if alpha != 1:
        prod *= alpha
    bias = input._data if beta == 1 else input._data * beta
    try:
        res = prod + bias if beta != 0 else prod
    except ValueError:
        raise RuntimeError(f"The expanded size of the tensor ({prod.shape[-1]}) must match the "
                           f"existing size ({input.shape[-1]}) at non-singleton dimension 1.  "
                           f"Target sizes: {list(prod.shape)}.  Tensor sizes: "
                           f"{list(input.shape)}") from None
    result = wrap(res.astype(mat1._dtype.numpy_dtype, copy=False), mat1._dtype,
                  common_device((input, mat1, mat2)))
    if needs_grad(input, mat1, mat2):
        record(AddmmNode, (input, mat1, mat2), (result,), mat1=mat1, mat2=mat2, alpha=alpha,
               beta=beta)
    return write_out(out, result) if out is not None else result


register("addmm", addmm, inplace=True, family="linalg", nodes=(AddmmNode,))


def outer(input, vec2, *, out=None):
    """Outer product of two 1-D tensors (``ger``)."""
    if input.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.dim()}-D")
    result = input.reshape(-1, 1) * vec2
    return write_out(out, result) if out is not None else result


register("outer", outer, family="linalg")
register("ger", outer, family="alias")
