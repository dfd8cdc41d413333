"""torch.linalg functions built from other ops (their gradients come from those ops):
matrix_norm/norm/cond, pinv/lstsq/matrix_rank, matrix_power, multi_dot, cross, vecdot, vander,
tensorinv/tensorsolve, householder_product, diagonal.
"""

import math

import numpy as np

from .. import _dtype as D
from .. import backend
from .. import return_types
from . import contractions
from ._linalg_common import (batched_column_major, check_float, check_matrix, check_square,
                             column_major_result, new)
from ..autograd.grad_mode import no_grad
from ._registry import OPS, needs_grad, node_class, record, register
from .linalg_decomp import _svd, linalg_eigh, linalg_svdvals
from .linalg_solve import _out, linalg_inv, linalg_solve


def _vector_norm(*args, **kwargs):
    return OPS["vector_norm"].impl(*args, **kwargs)


def _dims2(dim, A, fname):
    if len(dim) != 2:
        raise RuntimeError(f"{fname}: dim must be a 2-tuple. Got "
                           f"{' '.join(str(d) for d in dim)}")
    d0, d1 = (d % A.dim() if A.dim() else d for d in dim)
    if d0 == d1:
        raise RuntimeError(f"{fname}: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def linalg_matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Matrix norm over the two dims ``dim``: 'fro', 'nuc', ±1, ±2, ±inf."""
    half = A._dtype in (D.float16, D.bfloat16)
    if not half:        # (PyTorch computes the sum/max norms of half matrices too)
        check_float(A, "linalg.matrix_norm")
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if dtype is not None:
        A = A.to(dtype)
    d0, d1 = _dims2(tuple(dim), A, "linalg.matrix_norm")
    if ord == "fro":
        return _out(out, _vector_norm(A, 2, (d0, d1), keepdim))
    if isinstance(ord, str) and ord != "nuc":
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if ord == "nuc" or abs(ord) == 2:
        if half:
            check_float(A, "linalg.matrix_norm")
        moved = A.movedim((d0, d1), (-2, -1))
        s = _svd(moved, False, "linalg.matrix_norm")[1] if moved.requires_grad else \
            linalg_svdvals(moved)
        r = s.sum(-1) if ord == "nuc" else (s.amax(-1) if ord > 0 else s.amin(-1))
        if keepdim:
            r = r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
        return _out(out, r)
    if ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    # 1-norm: largest column sum (sum over rows); inf-norm: largest row sum
    sum_dim, red_dim = (d0, d1) if abs(ord) == 1 else (d1, d0)
    sums = A.abs().sum(sum_dim, keepdim=True)
    r = sums.amax(red_dim, keepdim=True) if ord > 0 else sums.amin(red_dim, keepdim=True)
    if not keepdim:
        r = r.squeeze((d0, d1))
    return _out(out, r)


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):
    """Vector or matrix norm, chosen from ``ord`` and ``dim`` as PyTorch does."""
    if dim is not None and not isinstance(dim, int):
        dim = tuple(dim)
    if isinstance(ord, str) or (isinstance(dim, tuple) and len(dim) == 2) or \
            (dim is None and ord is not None and A.dim() == 2):
        if dim is None:
            if A.dim() != 2:
                raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input "
                                   f"must be 1D or 2D. Got {A.dim()}D.")
            dim = (-2, -1)
        return linalg_matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype,
                                  out=out)
    if dim is None and ord is not None and A.dim() != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {A.dim()}D.")
    return _vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype, out=out)


def linalg_cond(A, p=None, *, out=None):
    """Condition number of ``A`` in the norm ``p`` (2-norm ratio of singular values)."""
    if p is None or p in (2, -2) or A._dtype not in (D.float16, D.bfloat16):
        # (half inputs with other norms reach linalg.inv, whose refusal PyTorch reports)
        check_float(A, "linalg.cond")
    check_matrix(A, "linalg.cond")
    if p is None or p in (2, -2):
        s = linalg_svdvals(A) if not A.requires_grad else _svd(A, False, "linalg.cond")[1]
        r = s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
        return _out(out, r)
    check_square(A, "linalg.cond")
    return _out(out, linalg_matrix_norm(A, p) * linalg_matrix_norm(linalg_inv(A), p))


def _default_rtol(A, atol):
    eps = float(np.finfo(A._dtype.to_real().numpy_dtype).eps)
    return eps * max(A.shape[-2:]) if atol is None or _is_zero(atol) else 0.0


def _is_zero(v):
    return float(v) == 0 if not hasattr(v, "shape") else False


def _tolerance(S, atol, rtol, A):
    """max(atol, rtol * largest singular value), per matrix (broadcast over the batch)."""
    if rtol is None:
        rtol = _default_rtol(A, atol)
    smax = S.amax(-1, keepdim=True) if S.shape[-1] else S.sum(-1, keepdim=True)
    tol = smax * rtol
    if atol is not None:
        atol_t = atol.unsqueeze(-1) if hasattr(atol, "unsqueeze") else atol
        tol = tol.clamp_min(atol_t) if not hasattr(atol_t, "shape") else tol.maximum(atol_t)
    return tol


def _pinv_grad(grad, s):
    """Derivative of the pseudo-inverse of a (locally) constant-rank matrix, arranged so the
    intermediate products have the smaller of the two dimensions."""
    A, P = s.A, s.result
    Ph, gh = P.mH, grad.mH
    if A.shape[-2] <= A.shape[-1]:
        K = gh.matmul(P)
        KPh = K.matmul(Ph)
        return (-(P.matmul(K)).mH + KPh - A.matmul(P).matmul(KPh)
                + Ph.matmul(P).matmul(gh - K.matmul(A)))
    K = P.matmul(gh)
    PhK = Ph.matmul(K)
    return (-(K.matmul(P)).mH + (gh - A.matmul(K)).matmul(P).matmul(Ph) + PhK
            - PhK.matmul(P).matmul(A))


PinvNode = node_class("LinalgPinvBackward0", {"A": _pinv_grad})


def linalg_pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """Moore-Penrose pseudo-inverse (singular values under the tolerance count as zero)."""
    check_float(A, "linalg.pinv")
    check_matrix(A, "linalg.pinv")
    with no_grad():
        if hermitian:
            L, V = linalg_eigh(A)
            tol = _tolerance(L.abs(), atol, rtol, A)
            inv = (1 / L).where(L.abs() > tol, L.new_zeros(()))
            result = (V * inv.to(V.dtype).unsqueeze(-2)).matmul(V.mH)
        else:
            U, S, Vh = _svd(A, False, "linalg.pinv")
            tol = _tolerance(S, atol, rtol, A)
            inv = (1 / S).where(S > tol, S.new_zeros(()))
            result = (Vh.mH * inv.to(A.dtype).unsqueeze(-2)).matmul(U.mH)
    if needs_grad(A):
        record(PinvNode, (A,), (result,), A=A)
    return _out(out, result)


def pinverse(input, rcond=1e-15):
    """Legacy ``torch.pinverse`` (``rcond`` is a relative tolerance)."""
    return linalg_pinv(input, rtol=rcond)


def linalg_matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None, tol=None):
    """Number of singular values above the tolerance, per matrix (int64)."""
    check_float(A, "linalg.matrix_rank")
    check_matrix(A, "linalg.matrix_rank")
    if tol is not None:
        atol, rtol = tol, 0.0
    with no_grad():
        S = linalg_eigh(A)[0].abs() if hermitian else linalg_svdvals(A)
        t = _tolerance(S, atol, rtol, A)
        return _out(out, (S > t).sum(-1))


def linalg_lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solution of ``A X = B`` (PyTorch's CPU default driver 'gelsy')."""
    ret = return_types.linalg_lstsq
    check_float(A, "linalg.lstsq")
    if A._dtype is not B._dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same "
                           f"dtype, but got input's dtype {A._dtype.cpp_name} and other's "
                           f"dtype {B._dtype.cpp_name}")
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of "
                           "(gels, gelsy, gelsd, gelss)")
    vector = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.shape[-2] != A.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    m, n = A.shape[-2], A.shape[-1]
    rtol = rcond if rcond is not None and rcond >= 0 else \
        float(np.finfo(A._dtype.to_real().numpy_dtype).eps) * max(m, n)
    X = linalg_pinv(A, rtol=rtol).matmul(Bm)
    X._data = _lapack_solution(X._data, max(m, n))
    rank = linalg_matrix_rank(A, rtol=rtol, atol=0.0) if driver != "gels" else \
        new(np.zeros(0, np.int64), A, D.int64)
    # (empty residuals still belong to the graph, as PyTorch's do: requires_grad follows X)
    res = X.abs().reshape(-1)[:0]
    if m > n and driver != "gelsy" and bool((rank._data == n).all()):
        res = (A.matmul(X) - Bm).abs().pow(2).sum(-2)
    sv = linalg_svdvals(A.detach()) if driver in ("gelsd", "gelss") else \
        new(np.zeros(0, A._dtype.to_real().numpy_dtype), A, A._dtype.to_real())
    if driver == "gels":
        rank = new(np.zeros(0, np.int64), A, D.int64)
    return ret((X.squeeze(-1) if vector else X, res, rank, sv))


def _lapack_solution(x, rows):
    """The solution ``x`` (n x k matrices) laid out as LAPACK's least-squares drivers leave it:
    the top n rows of a column-major (rows x k) buffer (``x`` is a fresh result, so its array
    may be replaced)."""
    n = x.shape[-2]
    if rows == n:
        return batched_column_major(x)
    buf = batched_column_major(backend.array_module_of(x).zeros(
        x.shape[:-2] + (rows, x.shape[-1]), x.dtype))
    buf[..., :n, :] = x
    return buf[..., :n, :]


ZeroPowerNode = node_class("CopyBackwards", {"self": lambda grad, s: grad * 0})


def linalg_matrix_power(A, n, *, out=None):
    """``A`` to the integer power ``n`` (negative powers invert first), by repeated squaring."""
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they "
                           f"are {A.shape[-2] if A.dim() > 1 else 1} by "
                           f"{A.shape[-1] if A.dim() else 1} matrices")
    if not isinstance(n, int):
        raise TypeError(f"matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    from .. import eye
    if n == 0:
        result = eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(A.shape).clone()
        if needs_grad(A):
            record(ZeroPowerNode, (A,), (result,))
        return _out(out, result)
    base = linalg_inv(A) if n < 0 else A
    n = abs(n)
    result = None
    while n:
        if n & 1:
            result = base if result is None else result.matmul(base)
        n >>= 1
        if n:
            base = base.matmul(base)
    return _out(out, result if result is not A else A.clone())


def linalg_multi_dot(tensors, *, out=None):
    """Product of a chain of matrices (first/last may be vectors), cheapest order first."""
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    mats = list(tensors)
    first_vec, last_vec = mats[0].dim() == 1, mats[-1].dim() == 1
    if first_vec:
        mats[0] = mats[0].unsqueeze(0)
    if last_vec:
        mats[-1] = mats[-1].unsqueeze(-1)
    for i, t in enumerate(mats):
        if t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    order = _chain_order([m.shape[0] for m in mats] + [mats[-1].shape[1]])
    result = _chain_product(mats, order, 0, len(mats) - 1)
    if first_vec:
        result = result.squeeze(0)
    if last_vec:
        result = result.squeeze(-1)
    return _out(out, result)


def _chain_order(dims):
    """Classic matrix-chain dynamic programme: split points minimising multiplications."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain_product(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return _chain_product(mats, split, i, k).mm(_chain_product(mats, split, k + 1, j))


def linalg_cross(input, other, *, dim=-1, out=None):
    """Cross product of 3-vectors along ``dim`` (inputs broadcast)."""
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[dim]} and {other.shape[dim]}")
    if input._dtype is D.bool:
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    # torch.cross's kernel: one LinalgCrossBackward0 node and PyTorch's row-major result
    return contractions.cross(input, other, dim=dim, out=out)


def cross(input, other, dim=None, *, out=None):
    """Legacy ``torch.cross``: the first dim of length 3 when ``dim`` is None."""
    if dim is None:
        dim = next((i for i, s in enumerate(input.shape) if s == 3), -1)
    return linalg_cross(input, other, dim=dim, out=out)


def linalg_vecdot(x, y, *, dim=-1, out=None):
    """Dot product of vectors along ``dim`` (conjugating ``x``)."""
    if x._dtype is not y._dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found "
                           f"x of type {x._dtype.cpp_name} and y of type {y._dtype.cpp_name} "
                           "instead")
    if x._dtype.category < D.FLOATING:
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as "
                           f"input. Got {x._dtype.scalar_name}")
    return _out(out, (x.conj() * y).sum(dim))


def linalg_vander(x, *, N=None):
    """Vandermonde matrix: columns ``x**0, x**1, ..., x**(N-1)``."""
    if x.dim() < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension")
    if x._dtype in (D.bool, D.float16, D.bfloat16):
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer "
                           f"tensors, but got {x._dtype.scalar_name}")
    N = x.shape[-1] if N is None else N
    if N <= 1:
        raise RuntimeError("N must be greater than 1.")
    from .creation import ones
    from .shape import cat
    # integers (the limited unsigned ones too) compute in int64; float and complex as they are
    dt = D.int64 if x._dtype.category == D.INTEGRAL else x._dtype
    base = x.to(dt).unsqueeze(-1)
    first = ones(tuple(x.shape) + (1,), dtype=dt, device=x.device)
    # running products (as PyTorch): exact integer powers, any dtype, zeros handled by
    # cumprod's backward
    return cat([first, base.expand(*x.shape, N - 1).cumprod(-1)], -1)


def linalg_tensorinv(A, ind=2, *, out=None):
    """Inverse of ``A`` seen as a linear map from its last dims to its first ``ind`` dims."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    n = math.prod(rows)
    if n != math.prod(cols):
        raise RuntimeError("Expected self to satisfy the requirement "
                           "prod(self.shape[ind:]) == prod(self.shape[:ind]), but got "
                           f"{math.prod(cols)} != {n}")
    return _out(out, linalg_inv(A.reshape(n, n)).reshape(cols + rows))


def linalg_tensorsolve(A, B, dims=None, *, out=None):
    """Solve ``tensordot(A, X, X.ndim) = B`` for ``X``."""
    if dims is not None:
        nd = A.dim()
        dims = [d % nd for d in dims]
        rest = [d for d in range(nd) if d not in dims]
        A = A.permute(rest + dims)
    xshape = tuple(A.shape[B.dim():])
    n = B.numel()
    X = linalg_solve(A.reshape(n, -1), B.reshape(n))
    return _out(out, X.reshape(xshape))


def linalg_householder_product(A, tau, *, out=None):
    """Product of Householder reflectors ``H_i = I - tau_i v_i v_i^H`` (first n columns)."""
    m, n = A.shape[-2], A.shape[-1]
    check_float(A, "torch.linalg.householder_product")
    if m < n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater "
                           "than or equal to input.shape[-1]")
    if tau.shape[-1] > n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater "
                           "than or equal to tau.shape[-1]")
    from .. import eye
    ident = eye(m, dtype=A.dtype, device=A.device)
    Q = ident.expand(A.shape[:-2] + (m, m))
    unit = ident[:, :n]
    V = A.tril(-1) + unit              # reflector vectors, unit first entry
    for i in range(tau.shape[-1]):
        v = V[..., :, i:i + 1]
        t = tau[..., i:i + 1].unsqueeze(-1)
        Q = Q - (Q.matmul(v) * t).matmul(v.mH)
    return _out(out, column_major_result(Q[..., :, :n]))    # (LAPACK's orgqr layout)


def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """``torch.diagonal`` with the matrix dims last by default."""
    return A.diagonal(offset, dim1, dim2)


for _name, _fn in [
        ("linalg_matrix_norm", linalg_matrix_norm), ("linalg_norm", linalg_norm),
        ("linalg_cond", linalg_cond), ("linalg_pinv", linalg_pinv),
        ("linalg_matrix_rank", linalg_matrix_rank), ("linalg_lstsq", linalg_lstsq),
        ("linalg_matrix_power", linalg_matrix_power), ("linalg_multi_dot", linalg_multi_dot),
        ("linalg_cross", linalg_cross), ("linalg_vecdot", linalg_vecdot),
        ("linalg_vander", linalg_vander), ("linalg_tensorinv", linalg_tensorinv),
        ("linalg_tensorsolve", linalg_tensorsolve),
        ("linalg_householder_product", linalg_householder_product),
        ("linalg_diagonal", linalg_diagonal)]:
    register(_name, _fn, method=False, function_too=False, family="linalg")
register("pinverse", pinverse, family="linalg")
register("matrix_power", linalg_matrix_power, family="linalg")
register("orgqr", linalg_householder_product, family="linalg")
