"""Linear solvers and determinants of torch.linalg: inv, solve, solve_triangular, det,
slogdet, cholesky, lu_factor/lu/lu_solve, matrix_exp (each batched, with its ``_ex`` form where
PyTorch has one, and its derivative as a formula in cinder ops so higher orders work).

Forwards run LAPACK through NumPy/SciPy on whole batches; singular or indefinite inputs raise
``LinAlgError`` with PyTorch's wording (which batch element, which diagonal element).
"""

import numpy as np

from .. import _dtype as D
from .. import return_types
from ._linalg_common import (LinAlgError, batch_prefix, check_float, check_same_dtype,
                             column_major_result,
                             check_square, host, lapack_2d, new, raise_singular, real_dtype,
                             singular_info)
from ._reduction_factory import out_type
from ._layouts import row_major
from ._prep import xp_of
from ._registry import needs_grad, node_class, record, register


def _sum_to(t, shape):
    return t if tuple(t.shape) == tuple(shape) else t.sum_to_size(shape)


# ----------------------------------------------------------------------------------------------
# inv
# ----------------------------------------------------------------------------------------------

InvNode = node_class("LinalgInvExBackward0", {
    "A": lambda grad, s: -(s.result.mH.matmul(grad).matmul(s.result.mH))})


def _inv_array(A, fname, check_errors=True):
    xp = xp_of(A)
    try:
        return xp.linalg.inv(A._data), 0
    except np.linalg.LinAlgError:
        if check_errors:
            raise_singular(A, fname)
        return xp.full(A._data.shape, np.nan, A._data.dtype), singular_info(A._data)


def linalg_inv(A, *, out=None):
    """Inverse of each square matrix of ``A``."""
    check_float(A, "linalg.inv")
    check_square(A, "linalg.inv")
    inv, _ = _inv_array(A, "linalg.inv")
    result = new(inv, A, column_major=True)
    if needs_grad(A):
        record(InvNode, (A,), (result,))
    return _out(out, result)


def linalg_inv_ex(A, *, check_errors=False, out=None):
    """``inv`` that reports a singular input in ``info`` instead of raising."""
    ret = return_types.linalg_inv_ex
    check_float(A, "linalg.inv")
    check_square(A, "linalg.inv")
    inv, bad = _inv_array(A, "linalg.inv", check_errors)
    result = new(inv, A, column_major=True)
    if needs_grad(A):
        record(InvNode, (A,), (result,))
    info = new(np.broadcast_to(np.asarray(bad, np.int32), A.shape[:-2]).copy(), A, D.int32)
    return _out(out, ret((result, info)))


def _out(out, result):
    """``out=`` for single results and tuples of results."""
    if out is None:
        return result
    from ._registry import write_out
    if isinstance(result, tuple):
        for o, r in zip(out, result):
            write_out(o, r)
        if hasattr(result, "_fields"):
            # a named result comes back as PyTorch's ``return_types.<name>_out``
            return out_type(type(result))(tuple(out))
        return out
    return write_out(out, result)


# ----------------------------------------------------------------------------------------------
# solve
# ----------------------------------------------------------------------------------------------

def _solve_grad_B(grad, s):
    g = grad.unsqueeze(-1) if s.vector else grad
    gB = linalg_solve(s.A.mH, g, left=s.left)
    gB = gB.squeeze(-1) if s.vector else gB
    return _sum_to(gB, s.B_shape)


def _solve_grad_A(grad, s):
    g = grad.unsqueeze(-1) if s.vector else grad
    X = s.result.unsqueeze(-1) if s.vector else s.result
    if s.left:
        gA = -(linalg_solve(s.A.mH, g).matmul(X.mH))
    else:       # X A = B:  gA = -X^H (g A^{-H})
        gA = -(X.mH.matmul(linalg_solve(s.A.mH, g, left=False)))
    return _sum_to(gA, s.A.shape)


SolveNode = node_class("LinalgSolveExBackward0", {"A": _solve_grad_A, "B": _solve_grad_B})


def _is_vector_rhs(A, B):
    # PyTorch treats B as a batch of vectors when it is 1-D or has exactly A's batch shape
    a, b = A._data.shape, B._data.shape
    return len(b) == 1 or (len(b) == len(a) - 1 and b == a[:-1])


def _solve(A, B, left, fname, check_errors=True):
    check_float(A, fname)
    check_same_dtype(A, B, fname)
    check_square(A, fname)
    vector = _is_vector_rhs(A, B)
    b = B._data[..., None] if vector else B._data
    xp = xp_of(A)
    a = A._data
    if not left:
        a, b = xp.swapaxes(a, -1, -2), xp.swapaxes(b, -1, -2)
    if b.shape[-2] != a.shape[-1]:
        rows, cols = (b.shape[-2], b.shape[-1]) if left else (b.shape[-1], b.shape[-2])
        raise RuntimeError(f"{fname}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({a.shape[-2]}x{a.shape[-1]} "
                           f"and {rows}x{cols})")
    batch = a.shape[:-2]
    if batch or b.ndim > 2:             # (one matrix each: nothing to broadcast)
        batch = np.broadcast_shapes(batch, b.shape[:-2])
        a = xp.broadcast_to(a, batch + a.shape[-2:])
        b = xp.broadcast_to(b, batch + b.shape[-2:])
    bad = 0
    try:
        x = _solve_arrays(xp, a, b)
    except np.linalg.LinAlgError:
        if check_errors:
            raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix "
                              "is singular.") from None
        x, bad = xp.full(b.shape, np.nan, b.dtype), singular_info(a)
    if not left:
        x = xp.swapaxes(x, -1, -2)
    x = x[..., 0] if vector else x
    # LAPACK's column-major solution; X A = B is solved transposed, so X comes out row-major
    result = new(x, A, column_major=left) if left else new(row_major(x), A)
    if needs_grad(A, B):
        record(SolveNode, (A, B), (result,), A=A, B_shape=tuple(B.shape), vector=vector,
               left=left)
    info = np.zeros(batch, np.int32) if isinstance(bad, int) else \
        np.broadcast_to(np.asarray(bad, np.int32), batch).copy()
    return result, new(info, A, D.int32)


def _solve_arrays(xp, a, b):
    """``a x = b`` by LU with partial pivoting (gesv; one matrix: SciPy's LAPACK directly)."""
    gesv = lapack_2d("gesv", a, b)
    if gesv is not None:
        x, info = gesv(a, b)[2:]
        if info == 0:
            return x
    return xp.linalg.solve(a, b)


def linalg_solve(A, B, *, left=True, out=None):
    """Solve ``A X = B`` (or ``X A = B`` with ``left=False``) for square ``A``."""
    return _out(out, _solve(A, B, left, "linalg.solve")[0])


def linalg_solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """``solve`` that reports a singular ``A`` in ``info``."""
    ret = return_types.linalg_solve_ex
    return _out(out, ret(_solve(A, B, left, "linalg.solve", check_errors)))


# ----------------------------------------------------------------------------------------------
# solve_triangular
# ----------------------------------------------------------------------------------------------

def _tri_mask(t, upper, unitriangular):
    t = t.triu() if upper else t.tril()
    if unitriangular:
        t = t - t.diagonal(0, -2, -1).diag_embed()
    return t


def _tri_grad_B(grad, s):
    A = s.A
    if s.left:
        gB = linalg_solve_triangular(A.mH, grad, upper=not s.upper, left=True,
                                     unitriangular=s.unitriangular)
    else:
        gB = linalg_solve_triangular(A.mH, grad, upper=not s.upper, left=False,
                                     unitriangular=s.unitriangular)
    return _sum_to(gB, s.B_shape)


def _tri_grad_A(grad, s):
    gB = _tri_grad_B(grad, s) if s.B_shape == tuple(grad.shape) else None
    if gB is None:
        gB = linalg_solve_triangular(s.A.mH, grad, upper=not s.upper, left=s.left,
                                     unitriangular=s.unitriangular)
    gA = -(gB.matmul(s.result.mH)) if s.left else -(s.result.mH.matmul(gB))
    return _sum_to(_tri_mask(gA, s.upper, s.unitriangular), s.A.shape)


TriNode = node_class("LinalgSolveTriangularBackward0", {"self": _tri_grad_A, "B": _tri_grad_B})


def _solve_triangular_batched(xp, a, b, lower, unitriangular):
    """Batched triangular solve for CuPy, whose ``solve_triangular`` takes one matrix: the
    selected triangle (its diagonal set to 1 when ``unitriangular``) through the batched
    general solver."""
    t = xp.tril(a) if lower else xp.triu(a)
    if unitriangular:
        t = xp.where(xp.eye(a.shape[-1], dtype=bool), xp.ones((), a.dtype), t)
    return xp.linalg.solve(t, b)


def linalg_solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """Solve a triangular system; only the triangle ``upper`` selects is read."""
    import scipy.linalg as sl
    check_float(A, "linalg.solve_triangular")
    check_same_dtype(A, B, "linalg.solve_triangular")
    check_square(A, "linalg.solve_triangular")
    if B.dim() < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 "
                           "dimensions.")
    a, b = A._data, B._data
    lower = not upper
    if not left:        # X A = B  <=>  A^T X^T = B^T
        a, b, lower = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), upper
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError("linalg.solve_triangular: Incompatible shapes of A and B for the "
                           f"equation {'AX = B' if left else 'XA = B'} "
                           f"({A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    xp = xp_of(A)
    with np.errstate(all="ignore"):
        if not (a.size and b.size):
            x = xp.zeros(b.shape, b.dtype)
        elif xp is np:
            x = sl.solve_triangular(a, b, lower=lower, unit_diagonal=unitriangular,
                                    check_finite=False)
        else:
            x = _solve_triangular_batched(xp, a, b, lower, unitriangular)
    if not left:
        x = xp.swapaxes(x, -1, -2)
    result = new(x, A, column_major=True)
    if needs_grad(A, B):
        record(TriNode, (A, B), (result,), A=A, B_shape=tuple(B.shape), upper=upper, left=left,
               unitriangular=unitriangular)
    return _out(out, result)


# ----------------------------------------------------------------------------------------------
# det, slogdet, logdet
# ----------------------------------------------------------------------------------------------

def _det_grad(grad, s):
    # d det(A) = det(A) tr(A^{-1} dA)  ->  gA = conj(g det) A^{-H}
    scale = (grad * s.result.conj()).unsqueeze(-1).unsqueeze(-1)
    return scale * linalg_inv(s.A).mH


DetNode = node_class("LinalgDetBackward0", {"A": _det_grad})


def linalg_det(A, *, out=None):
    """Determinant of each square matrix of ``A``."""
    check_float(A, "linalg.det")
    check_square(A, "linalg.det")
    result = new(xp_of(A).linalg.det(A._data), A)
    if needs_grad(A):
        record(DetNode, (A,), (result,), A=A)
    return _out(out, result)


def _slogdet_grad(grads, s):
    g_sign, g_abs = grads
    complex_ = s.A._dtype.category == D.COMPLEX
    if g_abs is None and (g_sign is None or not complex_):
        return None
    # With t = tr(A^{-1} dA): d log|det| = Re t and d sign = sign * i Im t, so
    # gA = c A^{-H} with c = g_abs - i Im(conj(g_sign) sign) (real inputs: the sign is constant)
    c = g_abs
    if complex_:
        c = (g_abs if g_abs is not None else 0) + 0j
        if g_sign is not None:
            c = c - 1j * (g_sign.conj() * s.result).imag
    return c.to(s.A.dtype).unsqueeze(-1).unsqueeze(-1) * linalg_inv(s.A).mH


SlogdetNode = node_class("LinalgSlogdetBackward0", {"A": _slogdet_grad}, num_outputs=2)


def linalg_slogdet(A, *, out=None):
    """Sign (or phase) and log of the absolute value of the determinant."""
    ret = return_types.linalg_slogdet
    check_float(A, "linalg.slogdet")
    check_square(A, "linalg.slogdet")
    sign, logabs = xp_of(A).linalg.slogdet(A._data)
    sign_t = new(sign, A)
    logabs_t = new(logabs, A, real_dtype(A._dtype))
    if needs_grad(A):
        record(SlogdetNode, (A,), (sign_t, logabs_t), A=A)
    return _out(out, ret((sign_t, logabs_t)))


def slogdet(input, *, out=None):
    """Legacy name of ``linalg.slogdet`` (returns ``torch.return_types.slogdet``)."""
    ret = return_types.slogdet
    if out is not None:
        ret = out_type(ret)
    return ret(tuple(linalg_slogdet(input, out=out)))


def logdet(input):
    """Log-determinant: NaN for a negative determinant, -inf for a singular matrix."""
    check_float(input, "linalg.slogdet")
    sign, logabs = linalg_slogdet(input)
    if input._dtype.category == D.COMPLEX:
        return sign.log() + logabs
    nan = new(np.asarray(np.nan), logabs)
    return logabs.where(sign >= 0, nan)


# ----------------------------------------------------------------------------------------------
# cholesky
# ----------------------------------------------------------------------------------------------

def _cholesky_grad(grad, s):
    L, g = (s.result.mH, grad.mH) if s.upper else (s.result, grad)
    phi = L.mH.matmul(g).tril()
    phi = phi - 0.5 * phi.diagonal(0, -2, -1).diag_embed()
    # gA = L^{-H} phi L^{-1}, made Hermitian; the imaginary part of phi's diagonal (complex
    # inputs) is carried through unsymmetrised, as PyTorch's formula does
    gA = _sandwich(L, phi)
    gA = 0.5 * (gA + gA.mH)
    if L._dtype.category == D.COMPLEX:
        gA = gA + _sandwich(L, (phi.diagonal(0, -2, -1).imag * 1j).to(L.dtype).diag_embed())
    return gA


def _sandwich(L, X):
    """L^{-H} X L^{-1} for lower-triangular L."""
    tmp = linalg_solve_triangular(L.mH, X, upper=True)
    return linalg_solve_triangular(L, tmp, upper=False, left=False)


CholeskyNode = node_class("LinalgCholeskyExBackward0", {"self": _cholesky_grad})


def _cholesky(A, upper, fname, check_errors):
    check_float(A, fname)
    check_square(A, fname)
    xp = xp_of(A)
    a = A._data
    info = np.zeros(A.shape[:-2], np.int32)
    try:
        L = xp.linalg.cholesky(a) if a.size else a.copy()
    except np.linalg.LinAlgError:
        L, info = _cholesky_failure(a, xp)
        if check_errors:
            b = int(np.argmax(info.reshape(-1) > 0))
            raise LinAlgError(f"{fname}: {batch_prefix(b, A.dim() > 2)}The factorization could "
                              "not be completed because the input is not positive-definite "
                              f"(the leading minor of order {info.reshape(-1)[b]} is not "
                              "positive-definite).") from None
    if upper:
        L = xp.ascontiguousarray(xp.swapaxes(L.conj(), -1, -2))
    result = new(L, A, column_major=True)
    if needs_grad(A):
        record(CholeskyNode, (A,), (result,), upper=upper)
    return result, new(info, A, D.int32)


def _cholesky_failure(a, xp):
    """Per-matrix factorisation to find each failing leading minor (error path only)."""
    import scipy.linalg as sl
    flat = np.asarray(a).reshape((-1,) + a.shape[-2:])
    out = np.zeros_like(flat)
    info = np.zeros(len(flat), np.int32)
    for i, m in enumerate(flat):
        c, inf = sl.lapack.get_lapack_funcs("potrf", (m,))(m, lower=1, clean=1)
        out[i], info[i] = np.tril(c), inf
    return xp.asarray(out.reshape(a.shape)), info.reshape(a.shape[:-2])


def linalg_cholesky(A, *, upper=False, out=None):
    """Cholesky factor ``L`` (``A = L L^H``) of Hermitian positive-definite matrices."""
    return _out(out, _cholesky(A, upper, "linalg.cholesky", True)[0])


def linalg_cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """``cholesky`` that reports failure in ``info`` (the order of the failing minor)."""
    ret = return_types.linalg_cholesky_ex
    return _out(out, ret(_cholesky(A, upper, "linalg.cholesky", check_errors)))


def cholesky(input, upper=False, *, out=None):
    """Legacy ``torch.cholesky`` (lower factor unless ``upper``)."""
    return _out(out, _cholesky(input, upper, "cholesky", True)[0])


def cholesky_solve(B, L, upper=False, *, out=None):
    """Solve ``A X = B`` given the Cholesky factor of ``A`` (``L L^H``, or ``U^H U`` with
    ``upper``)."""
    b, f = B.detach(), L.detach()
    if upper:
        y = linalg_solve_triangular(f.mH, b, upper=False)
        result = linalg_solve_triangular(f, y, upper=True)
    else:
        y = linalg_solve_triangular(f, b, upper=False)
        result = linalg_solve_triangular(f.mH, y, upper=True)
    if needs_grad(B, L):
        # its own node (as PyTorch's): the gradient of the factor is the full matrix, not
        # only the triangle the two triangular solves read
        record(CholeskySolveNode, (B, L), (result,), L=L, upper=upper,
               B_shape=tuple(B.shape), L_shape=tuple(L.shape))
    return _out(out, result)


def _cholesky_solve_factor_grad(grad, s):
    common = cholesky_solve(grad, s.L, s.upper) @ s.result.mH
    common = common + common.mH
    return _sum_to(-(s.L @ common) if s.upper else -(common @ s.L), s.L_shape)


CholeskySolveNode = node_class("CholeskySolveBackward0", {
    "self": lambda grad, s: _sum_to(cholesky_solve(grad, s.L, s.upper), s.B_shape),
    "input2": _cholesky_solve_factor_grad})


def cholesky_inverse(L, upper=False, *, out=None):
    """Inverse of ``A`` from its Cholesky factor."""
    from .. import eye
    ident = eye(L.shape[-1], dtype=L.dtype, device=L.device).expand(L.shape)
    return _out(out, cholesky_solve(ident, L, upper))


# ----------------------------------------------------------------------------------------------
# matrix_exp
# ----------------------------------------------------------------------------------------------

def _matrix_exp_grad(grad, s):
    # The Fréchet derivative's adjoint: the upper-right block of exp([[A^H, G], [0, A^H]])
    from .. import cat, zeros_like
    AH = s.self.mH
    top = cat([AH, grad], -1)
    bottom = cat([zeros_like(AH), AH], -1)
    n = AH.shape[-1]
    return linalg_matrix_exp(cat([top, bottom], -2))[..., :n, n:]


MatrixExpNode = node_class("LinalgMatrixExpBackward0", {"self": _matrix_exp_grad})


def linalg_matrix_exp(A):
    """Matrix exponential of each square matrix (scaling and squaring, SciPy's expm)."""
    import scipy.linalg as sl
    if A._dtype in (D.float16, D.bfloat16):
        # (PyTorch accepts half matrices: computed in float32 here, rounded back)
        return linalg_matrix_exp(A.float()).to(A._dtype)
    check_float(A, "linalg.matrix_exp")
    check_square(A, "linalg.matrix_exp")
    a = host(A)
    out = sl.expm(a) if a.size else a.copy()
    result = new(row_major(out), A)
    if needs_grad(A):
        record(MatrixExpNode, (A,), (result,), self=A)
    return result


register("linalg_inv", linalg_inv, method=False, function_too=False, family="linalg",
         nodes=(InvNode,))
register("inverse", linalg_inv, family="linalg", nodes=(InvNode,))
register("linalg_inv_ex", linalg_inv_ex, method=False, function_too=False, family="linalg")
register("linalg_solve", linalg_solve, method=False, function_too=False, family="linalg",
         nodes=(SolveNode,))
register("linalg_solve_ex", linalg_solve_ex, method=False, function_too=False, family="linalg")
register("linalg_solve_triangular", linalg_solve_triangular, method=False, function_too=False,
         family="linalg", nodes=(TriNode,))
register("linalg_det", linalg_det, method=False, function_too=False, family="linalg",
         nodes=(DetNode,))
register("det", linalg_det, family="linalg", nodes=(DetNode,))
register("linalg_slogdet", linalg_slogdet, method=False, function_too=False, family="linalg",
         nodes=(SlogdetNode,))
register("slogdet", slogdet, family="linalg")
register("logdet", logdet, family="linalg")
register("linalg_cholesky", linalg_cholesky, method=False, function_too=False, family="linalg",
         nodes=(CholeskyNode,))
register("linalg_cholesky_ex", linalg_cholesky_ex, method=False, function_too=False,
         family="linalg")
register("cholesky", cholesky, family="linalg")
register("cholesky_solve", cholesky_solve, family="linalg")
register("cholesky_inverse", cholesky_inverse, family="linalg")
register("linalg_matrix_exp", linalg_matrix_exp, method=False, function_too=False,
         family="linalg", nodes=(MatrixExpNode,))
register("matrix_exp", linalg_matrix_exp, family="linalg", nodes=(MatrixExpNode,))


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """Legacy ``torch.triangular_solve(b, A)``: solves ``A X = b`` (or ``A^T X = b``);
    returns ``(solution, cloned_coefficient)``."""
    ret = return_types.triangular_solve
    if input.dim() < 2 or A.dim() < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, "
                           f"but it has {input.dim()} dimensions instead" if input.dim() < 2 else
                           f"torch.triangular_solve: Expected A to have at least 2 dimensions, "
                           f"but it has {A.dim()} dimensions instead")
    coeff = A.mT if transpose else A
    x = linalg_solve_triangular(coeff, input, upper=upper != transpose,
                                unitriangular=unitriangular)
    return _out(out, ret((x, column_major_result(A.clone()))))   # (PyTorch's LAPACK copy)


register("triangular_solve", triangular_solve, family="linalg")
