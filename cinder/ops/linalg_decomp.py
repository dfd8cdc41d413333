"""Matrix decompositions of torch.linalg: qr, svd/svdvals, eigh/eigvalsh, eig/eigvals and the
LU family (lu_factor, lu, lu_solve, lu_unpack), batched, with PyTorch's derivatives written in
cinder ops. Where a decomposition is unique only up to a phase (singular and eigen vectors),
the backward checks that the loss does not depend on that phase, as PyTorch does.
"""

import numpy as np

from .. import _dtype as D
from .. import return_types
from ._linalg_common import (LinAlgError, check_float, check_matrix, check_square,
                             column_major_result, host, lapack_2d, new, real_dtype)
from ._layouts import row_major
from ._prep import xp_of
from ._registry import needs_grad, node_class, record, register
from .linalg_solve import _out, linalg_solve_triangular


def _is_complex(t):
    return t._dtype.category == D.COMPLEX


def _zero_grad(g, like):
    from .. import zeros_like
    return zeros_like(like) if g is None else g


# ----------------------------------------------------------------------------------------------
# qr
# ----------------------------------------------------------------------------------------------

def _qr_grad(grads, s):
    gQ, gR = grads
    Q, R = s.Q, s.R
    m, n = s.A_shape[-2], s.A_shape[-1]
    if s.mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                           "when mode='r'. Please use linalg.qr(A, mode='reduced') if you are "
                           "going to differentiate through linalg.qr.")
    if m < n or (s.mode == "complete" and m > n):
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                           "and nrows > ncols.")
    gQ, gR = _zero_grad(gQ, Q), _zero_grad(gR, R)
    # M = R gR^H - gQ^H Q; copy its lower triangle onto the upper one (Hermitian)
    M = R.matmul(gR.mH) - gQ.mH.matmul(Q)
    low = M.tril(-1)
    diag = M.diagonal(0, -2, -1)
    if _is_complex(Q):
        diag = diag.real.to(Q.dtype)
    sym = low + low.mH + diag.diag_embed()
    rhs = gQ + Q.matmul(sym)
    return linalg_solve_triangular(R.mH, rhs, upper=False, left=False)


QrNode = node_class("LinalgQrBackward0", {"A": _qr_grad}, num_outputs=2)


def linalg_qr(A, mode="reduced", *, out=None):
    """QR decomposition ``A = Q R`` (``mode`` 'reduced', 'complete' or 'r')."""
    ret = return_types.linalg_qr
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    check_float(A, "linalg.qr")
    check_matrix(A, "linalg.qr")
    xp = xp_of(A)
    a = A._data
    m, n = a.shape[-2:]
    if a.size:
        q, r = xp.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    else:
        k = m if mode == "complete" else min(m, n)
        q = xp.zeros(a.shape[:-2] + (m, k), a.dtype)
        q[..., range(min(m, k)), range(min(m, k))] = 1
        r = xp.zeros(a.shape[:-2] + (k, n), a.dtype)
    Q = new(q, A, column_major=True) if mode != "r" else new(xp.zeros(0, a.dtype), A)
    R = new(r, A, column_major=True)
    if needs_grad(A):
        record(QrNode, (A,), (Q, R), Q=Q, R=R, A_shape=tuple(A.shape), mode=mode)
    return _out(out, ret((Q, R)))


def qr(input, some=True, *, out=None):
    """Legacy ``torch.qr`` (``some=False`` gives the complete decomposition)."""
    ret = return_types.qr
    return ret(tuple(linalg_qr(input, "reduced" if some else "complete", out=out)))


# ----------------------------------------------------------------------------------------------
# svd
# ----------------------------------------------------------------------------------------------

def _svd_grad(grads, s):
    gU, gS, gVh = grads
    U, S, Vh = s.U, s.S, s.Vh
    if gU is None and gVh is None:
        if gS is None:
            return None
        return (U * gS.unsqueeze(-2).to(U.dtype)).matmul(Vh)
    k = S.shape[-1]
    m, n = U.shape[-2], Vh.shape[-1]
    if s.full_matrices and (U.shape[-1] != k or Vh.shape[-2] != k):
        raise RuntimeError("svd_backward: Setting full_matrices=True in backward is not "
                           "supported. Please use full_matrices=False in the forward.")
    V = Vh.mH
    gV = None if gVh is None else gVh.mH
    Sc = S.to(U.dtype)
    UhgU = None if gU is None else U.mH.matmul(gU)
    VhgV = None if gV is None else V.mH.matmul(gV)
    if _is_complex(U):
        imdiag = 0
        if UhgU is not None:
            imdiag = imdiag + UhgU.diagonal(0, -2, -1).imag
        if VhgV is not None:
            imdiag = imdiag + VhgV.diagonal(0, -2, -1).imag
        if float(abs(imdiag).max()) > 1e-4 * max(1.0, float(abs(S).max())):
            raise RuntimeError("svd_backward: The singular vectors in the complex case are "
                               "specified up to multiplication by e^{i phi}. The specified "
                               "loss function depends on this phase term, making it "
                               "ill-defined.")
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1)
    E = E + (E == 0).to(E.dtype) * 1   # the diagonal is not used: avoid 0/0
    from .. import zeros_like
    inner = zeros_like(UhgU if UhgU is not None else VhgV)
    if UhgU is not None:
        skew_u = UhgU - UhgU.mH
        inner = inner + skew_u * Sc.unsqueeze(-2)
    if VhgV is not None:
        skew_v = VhgV - VhgV.mH
        inner = inner + Sc.unsqueeze(-1) * skew_v
    inner = inner / E.to(U.dtype)
    inner = inner - inner.diagonal(0, -2, -1).diag_embed()
    if gS is not None:
        inner = inner + gS.to(U.dtype).diag_embed()
    if _is_complex(U) and UhgU is not None:
        inner = inner + (UhgU.diagonal(0, -2, -1).imag.to(U.dtype) * 1j / Sc).diag_embed()
    if m > k and gU is not None:
        gUS = gU / Sc.unsqueeze(-2)
        inner_full = U.matmul(inner) + gUS - U.matmul(U.mH.matmul(gUS))
        return inner_full.matmul(Vh)
    if n > k and gV is not None:
        gVS = gV / Sc.unsqueeze(-2)
        right = inner.matmul(Vh) + (gVS - V.matmul(V.mH.matmul(gVS))).mH
        return U.matmul(right)
    return U.matmul(inner).matmul(Vh)


SvdNode = node_class("LinalgSvdBackward0", {"A": _svd_grad}, num_outputs=3)


def _svd(A, full_matrices, fname):
    check_float(A, fname)
    check_matrix(A, fname)
    xp = xp_of(A)
    a = A._data
    m, n = a.shape[-2:]
    k = min(m, n)
    if a.size:
        u, s, vh = _svd_arrays(xp, a, full_matrices)
    else:
        mu, nv = (m, n) if full_matrices else (k, k)
        u = xp.zeros(a.shape[:-2] + (m, mu), a.dtype)
        vh = xp.zeros(a.shape[:-2] + (nv, n), a.dtype)
        u[..., range(min(m, mu)), range(min(m, mu))] = 1
        vh[..., range(min(nv, n)), range(min(nv, n))] = 1
        s = xp.zeros(a.shape[:-2] + (k,), real_dtype(A._dtype).numpy_dtype)
    U = new(u, A, column_major=True)
    S = new(s, A, real_dtype(A._dtype))
    Vh = new(vh, A, column_major=True)
    if needs_grad(A):
        record(SvdNode, (A,), (U, S, Vh), U=U, S=S, Vh=Vh, full_matrices=full_matrices)
    return U, S, Vh


def _svd_arrays(xp, a, full_matrices):
    """(U, S, Vh) of ``a`` by the divide-and-conquer driver (gesdd, PyTorch's default)."""
    gesdd = lapack_2d("gesdd", a)
    if gesdd is not None:
        # LAPACK reads column-major arrays: a C-ordered ``a`` is the column-major ``a.T``
        # (no copy), and ``a.T = U' S Vh'`` gives ``a = Vh'.T S U'.T``, whose factors come
        # back C-ordered
        flip = a.flags.c_contiguous
        u, s, vh, info = gesdd(a.T if flip else a, compute_uv=1,
                               full_matrices=int(full_matrices))
        if info == 0:
            return (vh.T, s, u.T) if flip else (u, s, vh)
    return xp.linalg.svd(a, full_matrices=full_matrices)


def _svdvals_array(xp, a):
    gesdd = lapack_2d("gesdd", a)
    if gesdd is not None:
        s, info = gesdd(a, compute_uv=0)[1::2]
        if info == 0:
            return s
    return xp.linalg.svd(a, compute_uv=False)


def linalg_svd(A, full_matrices=True, *, driver=None, out=None):
    """Singular value decomposition ``A = U diag(S) Vh`` (descending ``S``)."""
    ret = return_types.linalg_svd
    return _out(out, ret(_svd(A, full_matrices, "linalg.svd")))


def linalg_svdvals(A, *, driver=None, out=None):
    """Singular values of ``A`` in descending order."""
    if needs_grad(A):
        return _out(out, _svd(A, False, "linalg.svdvals")[1])
    check_float(A, "linalg.svdvals")
    check_matrix(A, "linalg.svdvals")
    a = A._data
    xp = xp_of(A)
    s = _svdvals_array(xp, a) if a.size else \
        xp.zeros(a.shape[:-2] + (min(a.shape[-2:]),), a.real.dtype)
    return _out(out, new(s, A, real_dtype(A._dtype)))


def svd(input, some=True, compute_uv=True, *, out=None):
    """Legacy ``torch.svd``: returns ``V`` (not ``Vh``); ``some=False`` for full ``U``/``V``."""
    from .. import zeros
    ret = return_types.svd
    U, S, Vh = _svd(input, not some, "svd")
    if not compute_uv:
        dt = input.dtype
        U = zeros(tuple(U.shape), dtype=dt, device=input.device)
        V = zeros(tuple(Vh.shape), dtype=dt, device=input.device)
        return ret((U, S, V))
    result = ret((U, S, Vh.mH))
    if out is not None:
        return _out(out, result)
    return result


# ----------------------------------------------------------------------------------------------
# eigh
# ----------------------------------------------------------------------------------------------

def _eigh_grad(grads, s):
    gL, gV = grads
    L, V = s.L, s.V
    if gV is None:
        if gL is None:
            return None
        return (V * gL.to(V.dtype).unsqueeze(-2)).matmul(V.mH)
    VhgV = V.mH.matmul(gV)
    if _is_complex(V):
        imdiag = VhgV.diagonal(0, -2, -1).imag
        if float(abs(imdiag).max()) > 1e-4 * max(1.0, float(abs(L).max())):
            raise RuntimeError("linalg_eigh_backward: The eigenvectors in the complex case are "
                               "specified up to multiplication by e^{i phi}. The specified loss "
                               "function depends on this phase term, making it ill-defined.")
    E = L.unsqueeze(-2) - L.unsqueeze(-1)
    E = E + (E == 0).to(E.dtype)
    inner = 0.5 * (VhgV - VhgV.mH) / E.to(V.dtype)
    inner = inner - inner.diagonal(0, -2, -1).diag_embed()
    if gL is not None:
        inner = inner + gL.to(V.dtype).diag_embed()
    return V.matmul(inner).matmul(V.mH)


EighNode = node_class("LinalgEighBackward0", {"A": _eigh_grad}, num_outputs=2)


def _eigh(A, UPLO, fname):
    check_float(A, fname)
    check_square(A, fname)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    xp = xp_of(A)
    a = A._data
    if a.size:
        w, v = _eigh_arrays(xp, a, UPLO, True)
    else:
        w = xp.zeros(a.shape[:-1], a.real.dtype)
        v = a.copy()
    L = new(w, A, real_dtype(A._dtype))
    V = new(v, A, column_major=True)
    if needs_grad(A):
        record(EighNode, (A,), (L, V), L=L, V=V)
    return L, V


def _eigh_arrays(xp, a, UPLO, vectors):
    """Eigenvalues (and eigenvectors when ``vectors``) of the Hermitian ``a`` read from its
    ``UPLO`` triangle, by the divide-and-conquer driver (syevd/heevd, as PyTorch)."""
    evd = lapack_2d("heevd" if a.dtype.kind == "c" else "syevd", a)
    if evd is not None:
        lower = UPLO == "L"
        if a.dtype.kind == "f" and a.flags.c_contiguous:
            # (a real symmetric matrix read from ``a``'s lower triangle is the one read from
            # the column-major ``a.T``'s upper triangle: LAPACK then needs no transposed copy)
            a, lower = a.T, not lower
        w, v, info = evd(a, compute_v=int(vectors), lower=int(lower))
        if info == 0:
            return (w, v) if vectors else w
    return xp.linalg.eigh(a, UPLO=UPLO) if vectors else xp.linalg.eigvalsh(a, UPLO=UPLO)


def linalg_eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and orthonormal eigenvectors of Hermitian matrices."""
    ret = return_types.linalg_eigh
    return _out(out, ret(_eigh(A, UPLO, "linalg.eigh")))


def linalg_eigvalsh(A, UPLO="L", *, out=None):
    """Eigenvalues of Hermitian matrices, ascending."""
    if needs_grad(A):
        return _out(out, _eigh(A, UPLO, "linalg.eigvalsh")[0])
    check_float(A, "linalg.eigvalsh")
    check_square(A, "linalg.eigvalsh")
    xp = xp_of(A)
    w = _eigh_arrays(xp, A._data, UPLO, False) if A._data.size else \
        xp.zeros(A.shape[:-1], A._data.real.dtype)
    return _out(out, new(w, A, real_dtype(A._dtype)))


# ----------------------------------------------------------------------------------------------
# eig (general matrices: complex results)
# ----------------------------------------------------------------------------------------------

def _eig_grad(grads, s):
    gL, gV = grads
    L, V = s.L, s.V
    from .linalg_solve import linalg_solve as solve
    Vh = V.mH
    if gV is None:
        inner = gL.diag_embed()
    else:
        VhgV = Vh.matmul(gV)
        diag_re = VhgV.real.diagonal(0, -2, -1).to(V.dtype)
        inner = VhgV - Vh.matmul(V * diag_re.unsqueeze(-2))
        E = L.conj().unsqueeze(-2) - L.conj().unsqueeze(-1)
        E = E + (E == 0).to(E.dtype)
        inner = inner / E
        inner = inner - inner.diagonal(0, -2, -1).diag_embed()
        if gL is not None:
            inner = inner + gL.diag_embed()
    return solve(Vh, inner.matmul(Vh))


EigNode = node_class("LinalgEigBackward0", {"self": _eig_grad}, num_outputs=2)


def linalg_eig(A, *, out=None):
    """Eigenvalues and eigenvectors of general square matrices (always complex)."""
    ret = return_types.linalg_eig
    check_float(A, "linalg.eig")
    check_square(A, "linalg.eig")
    a = host(A)
    cdt = A._dtype if _is_complex(A) else A._dtype.to_complex()
    if a.size:
        w, v = np.linalg.eig(a)
    else:
        w, v = np.zeros(a.shape[:-1]), a.copy()
    L = new(w.astype(cdt.numpy_dtype), A, cdt)
    V = new(v.astype(cdt.numpy_dtype), A, cdt, column_major=True)
    if needs_grad(A):
        record(EigNode, (A,), (L, V), L=L, V=V)
    return _out(out, ret((L, V)))


def linalg_eigvals(A, *, out=None):
    """Eigenvalues of general square matrices (complex)."""
    if needs_grad(A):
        return _out(out, linalg_eig(A)[0])
    check_float(A, "linalg.eigvals")
    check_square(A, "linalg.eigvals")
    cdt = A._dtype if _is_complex(A) else A._dtype.to_complex()
    a = host(A)
    w = np.linalg.eigvals(a) if a.size else np.zeros(a.shape[:-1])
    return _out(out, new(w.astype(cdt.numpy_dtype), A, cdt))


# ----------------------------------------------------------------------------------------------
# LU family
# ----------------------------------------------------------------------------------------------

def _lu_arrays(A, fname):
    import scipy.linalg as sl
    check_float(A, fname)
    check_matrix(A, fname)
    a = host(A)
    m, n = a.shape[-2:]
    k = min(m, n)
    if not a.size:
        return a.copy(), np.ones(a.shape[:-2] + (k,), np.int32), np.zeros(a.shape[:-2], np.int32)
    if m == n:
        with np.errstate(all="ignore"):
            lu, piv = sl.lu_factor(a, check_finite=False)
    else:       # rectangular: LAPACK getrf one matrix at a time
        flat = a.reshape((-1, m, n))
        getrf = sl.lapack.get_lapack_funcs("getrf", (flat,))
        lu = np.empty_like(flat)
        piv = np.empty((len(flat), k), np.int32)
        for i, mat in enumerate(flat):
            lu[i], piv[i], _ = getrf(mat)
        lu, piv = lu.reshape(a.shape), piv.reshape(a.shape[:-2] + (k,))
    info = _lu_info(lu, k)
    return np.ascontiguousarray(lu), (piv + 1).astype(np.int32), info


def _lu_info(lu, k):
    diag = np.diagonal(lu, 0, -2, -1)[..., :k]
    zero = diag == 0
    first = np.argmax(zero, -1) + 1
    return np.where(zero.any(-1), first, 0).astype(np.int32)


def _pivots_to_perm(piv, m):
    """Row permutation (as indices) from 1-based LAPACK pivots, vectorised over the batch."""
    batch = piv.shape[:-1]
    perm = np.broadcast_to(np.arange(m), batch + (m,)).copy()
    flat = perm.reshape(-1, m)
    pv = piv.reshape(-1, piv.shape[-1]) - 1
    rows = np.arange(flat.shape[0])
    for i in range(pv.shape[1]):
        j = pv[:, i]
        a, b = flat[rows, i].copy(), flat[rows, j].copy()
        flat[rows, i], flat[rows, j] = b, a
    return flat.reshape(batch + (m,))


def linalg_lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """Compact LU factorisation with partial pivoting and an ``info`` tensor."""
    ret = return_types.linalg_lu_factor_ex
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu, piv, info = _lu_arrays(A, "linalg.lu_factor")
    if check_errors and info.any():
        raise LinAlgError(f"torch.linalg.lu_factor_ex: U[{int(info.max())},{int(info.max())}] "
                          "is zero and using it on lu_solve would result in a division by zero. "
                          "If you still want to perform the factorization, consider calling "
                          "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    LU = new(lu, A, column_major=True)
    if needs_grad(A):
        P, L, U = linalg_lu(A)
        LU = _combine_lu(L, U)
    return _out(out, ret((LU, new(piv, A, D.int32), new(info, A, D.int32))))


def _combine_lu(L, U):
    """L (unit lower) and U packed in one matrix, differentiably."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    from .. import zeros
    base = zeros(L.shape[:-2] + (m, n), dtype=L.dtype, device=L.device)
    lower = L.tril(-1)
    base = base + (lower if k == n else _pad_cols(lower, n))
    upper = U if k == m else _pad_rows(U, m)
    return base + upper


def _pad_cols(t, n):
    from .. import cat, zeros
    return cat([t, zeros(t.shape[:-1] + (n - t.shape[-1],), dtype=t.dtype)], -1)


def _pad_rows(t, m):
    from .. import cat, zeros
    return cat([t, zeros(t.shape[:-2] + (m - t.shape[-2], t.shape[-1]), dtype=t.dtype)], -2)


def linalg_lu_factor(A, *, pivot=True, out=None):
    """Compact LU factorisation (``LU``, 1-based ``pivots``); raises on a singular input."""
    ret = return_types.linalg_lu_factor
    LU, piv, info = linalg_lu_factor_ex(A, pivot=pivot)
    if bool((info._data > 0).any()) and A.shape[-1] == A.shape[-2]:
        i = int(host(info).max())
        raise LinAlgError(f"torch.linalg.lu_factor: U[{i},{i}] is zero and using it on "
                          "lu_solve would result in a division by zero. If you still want to "
                          "perform the factorization, consider calling linalg.lu(A, pivot) or "
                          "linalg.lu_factor_ex(A, pivot)")
    return _out(out, ret((LU, piv)))


def _lu_grad(grads, s):
    gP, gL, gU = grads
    L, U = s.L, s.U
    m, n = L.shape[-2], U.shape[-1]
    if m != n:
        raise NotImplementedError("linalg.lu backward is implemented for square matrices only")
    gL, gU = _zero_grad(gL, L), _zero_grad(gU, U)
    # A = P L U:  gA = P L^{-H} (tril(L^H gL, -1) + triu(gU U^H)) U^{-H}
    phi = L.mH.matmul(gL).tril(-1) + gU.matmul(U.mH).triu()
    x = linalg_solve_triangular(L.mH, phi, upper=True, unitriangular=True)
    x = linalg_solve_triangular(U.mH, x, upper=False, left=False)
    return s.P.matmul(x)


LuNode = node_class("LinalgLuBackward0", {"A": _lu_grad}, num_outputs=3)


def linalg_lu(A, *, pivot=True, out=None):
    """LU decomposition ``A = P L U`` with explicit permutation matrix ``P``."""
    import scipy.linalg as sl
    ret = return_types.linalg_lu
    check_float(A, "linalg.lu")
    check_matrix(A, "linalg.lu")
    a = host(A)
    m, n = a.shape[-2:]
    k = min(m, n)
    if a.size:
        p, l, u = sl.lu(a, check_finite=False)
    else:
        p = np.broadcast_to(np.eye(m, dtype=a.dtype), a.shape[:-2] + (m, m)).copy()
        l = np.zeros(a.shape[:-2] + (m, k), a.dtype)
        u = np.zeros(a.shape[:-2] + (k, n), a.dtype)
    P, L, U = new(row_major(p), A), new(l, A), new(u, A)
    if needs_grad(A):
        record(LuNode, (A,), (P, L, U), P=P, L=L, U=U)
        P._requires_grad = False
        P._grad_fn = None
    return _out(out, ret((P, L, U)))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """Expand a compact LU factorisation into ``P``, ``L`` and ``U``."""
    from .. import eye
    ret = return_types.lu_unpack
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    L = U = P = None
    if unpack_data:
        ident = eye(m, k, dtype=LU_data.dtype, device=LU_data.device)
        L = LU_data[..., :, :k].tril(-1) + ident
        U = LU_data[..., :k, :].triu()
    if unpack_pivots:
        perm = _pivots_to_perm(host(LU_pivots).astype(np.int64), m)
        eye_m = np.eye(m, dtype=LU_data._dtype.numpy_dtype)
        # P[..., perm[i], i] = 1:  A = P L U
        p = np.swapaxes(eye_m[perm], -1, -2)
        P = new(row_major(p), LU_data)
    empty = new(np.zeros(0, LU_data._dtype.numpy_dtype), LU_data)
    result = ret((P if P is not None else empty, L if L is not None else empty,
                  U if U is not None else empty))
    return _out(out, result)


def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """Solve ``A X = B`` from ``A``'s compact LU factorisation."""
    check_float(LU, "linalg.lu_solve")
    P, L, U = lu_unpack(LU, pivots)
    if left and not adjoint:       # A = P L U
        y = P.mT.to(B.dtype).matmul(B)
        y = linalg_solve_triangular(L, y, upper=False, unitriangular=True)
        x = linalg_solve_triangular(U, y, upper=True)
    elif left:                     # A^H X = B:  U^H L^H P^T X = B
        y = linalg_solve_triangular(U.mH, B, upper=False)
        y = linalg_solve_triangular(L.mH, y, upper=True, unitriangular=True)
        x = column_major_result(P.to(B.dtype).matmul(y))      # (as LAPACK's getrs writes it)
    else:                          # X A = B  <=>  A^H X^H = B^H
        x = linalg_lu_solve(LU, pivots, B.mH, left=True, adjoint=not adjoint).mH
    return _out(out, x)


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """Legacy ``torch.lu_solve(b, LU, pivots)``."""
    return _out(out, linalg_lu_solve(LU_data, LU_pivots, b))


def lu(A, pivot=True, get_infos=False, out=None):
    """Legacy ``torch.lu``: ``(LU, pivots)`` or ``(LU, pivots, infos)``."""
    LU, piv, info = linalg_lu_factor_ex(A, pivot=pivot)
    return (LU, piv, info) if get_infos else (LU, piv)


for _name, _fn, _nodes in [
        ("linalg_qr", linalg_qr, (QrNode,)), ("linalg_svd", linalg_svd, (SvdNode,)),
        ("linalg_svdvals", linalg_svdvals, ()), ("linalg_eigh", linalg_eigh, (EighNode,)),
        ("linalg_eigvalsh", linalg_eigvalsh, ()), ("linalg_eig", linalg_eig, (EigNode,)),
        ("linalg_eigvals", linalg_eigvals, ()), ("linalg_lu", linalg_lu, (LuNode,)),
        ("linalg_lu_factor", linalg_lu_factor, ()),
        ("linalg_lu_factor_ex", linalg_lu_factor_ex, ()),
        ("linalg_lu_solve", linalg_lu_solve, ())]:
    register(_name, _fn, method=False, function_too=False, family="linalg", nodes=_nodes)
register("qr", qr, family="linalg")
register("svd", svd, family="linalg")
register("lu_unpack", lu_unpack, method=False, family="linalg")
register("lu_solve", lu_solve, family="linalg")
register("lu", lu, family="linalg")


# ----------------------------------------------------------------------------------------------
# LDL (Bunch-Kaufman) factorisation of symmetric / Hermitian matrices: LAPACK sytrf/hetrf
# ----------------------------------------------------------------------------------------------

def _lapack_each(name, arrays, fn):
    """Run a LAPACK routine matrix by matrix over a batch (LAPACK has no batched form)."""
    import scipy.linalg as sl
    routine = sl.lapack.get_lapack_funcs(name, arrays)
    return [fn(routine, *mats) for mats in zip(*[a.reshape((-1,) + a.shape[-2:])
                                                 if a.ndim >= 2 else a.reshape(-1, a.shape[-1])
                                                 for a in arrays])]


def linalg_ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """Compact LDL^T (or LDL^H) factorisation with Bunch-Kaufman pivots and ``info``."""
    ret = return_types.linalg_ldl_factor_ex
    check_float(A, "torch.linalg.ldl_factor_ex")
    check_square(A, "torch.linalg.ldl_factor_ex")
    a = host(A)
    name = "hetrf" if hermitian and _is_complex(A) else "sytrf"
    res = _lapack_each(name, [a], lambda f, m: f(m, lower=1)) if a.size else []
    ld = np.stack([np.tril(r[0]) for r in res]).reshape(a.shape) if res else a.copy()
    piv = np.stack([r[1] for r in res]).reshape(a.shape[:-1]) if res else \
        np.zeros(a.shape[:-1], np.int32)
    info = np.array([r[2] for r in res], np.int32).reshape(a.shape[:-2]) if res else \
        np.zeros(a.shape[:-2], np.int32)
    if check_errors and (info > 0).any():
        raise LinAlgError("torch.linalg.ldl_factor_ex: The factorization could not be "
                          "completed because the input is singular.")
    return _out(out, ret((new(ld, A, column_major=True), new(piv.astype(np.int32), A, D.int32),
                          new(info, A, D.int32))))


def linalg_ldl_factor(A, *, hermitian=False, out=None):
    """``ldl_factor_ex`` without ``info`` (raises on a singular block)."""
    ret = return_types.linalg_ldl_factor
    LD, piv, _ = linalg_ldl_factor_ex(A, hermitian=hermitian, check_errors=True)
    return _out(out, ret((LD, piv)))


def linalg_ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """Solve ``A X = B`` from ``ldl_factor``'s output."""
    check_float(LD, "torch.linalg.ldl_solve")
    ld, b = host(LD), host(B)
    piv = host(pivots)
    batch = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    ld = np.broadcast_to(ld, batch + ld.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    piv = np.broadcast_to(piv, batch + piv.shape[-1:])
    name = "hetrs" if hermitian and _is_complex(LD) else "sytrs"
    flat = [x.reshape((-1,) + x.shape[len(batch):]) for x in (ld, piv, b)]
    import scipy.linalg as sl
    routine = sl.lapack.get_lapack_funcs(name, (flat[0],))
    xs = [routine(m, p, r, lower=1)[0] for m, p, r in zip(*flat)]
    x = np.stack(xs).reshape(b.shape) if xs else b.copy()
    return _out(out, new(x, LD, column_major=True))


for _name, _fn in [("linalg_ldl_factor_ex", linalg_ldl_factor_ex),
                   ("linalg_ldl_factor", linalg_ldl_factor),
                   ("linalg_ldl_solve", linalg_ldl_solve)]:
    register(_name, _fn, method=False, function_too=False, family="linalg")
