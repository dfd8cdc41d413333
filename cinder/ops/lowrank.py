"""Randomised low-rank factorisations (PyTorch's ``torch/_lowrank.py``): ``svd_lowrank`` and
``pca_lowrank`` (Halko, Martinsson and Tropp, 2009). They draw their Gaussian test matrix with
``randn`` from the default generator, as PyTorch does, so after the same ``manual_seed`` they
return the same factors. Composed of differentiable cinder ops."""

from .. import _dtype as D
from ._registry import FUNCTIONS, OPS, register


def _floating_dtype(A):
    return A._dtype if A._dtype.is_floating_point or A._dtype.is_complex else D.float32


def get_approximate_basis(A, q, niter=2, M=None):
    """An orthonormal (m, q) basis approximately spanning the range of ``A - M``, refined by
    ``niter`` subspace iterations."""
    niter = 2 if niter is None else niter
    R = FUNCTIONS["randn"](A.shape[-1], q, dtype=_floating_dtype(A), device=A.device)
    qr = OPS["linalg_qr"].impl

    def project(B, N, X):       # (B - N) @ X
        return B.matmul(X) if N is None else B.matmul(X) - N.matmul(X)
    Q = qr(project(A, M, R)).Q
    for _ in range(niter):
        Q = qr(project(A.mH, None if M is None else M.mH, Q)).Q
        Q = qr(project(A, M, Q)).Q
    return Q


def _svd_lowrank(A, q=6, niter=2, M=None):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    if m < n:
        A = A.mH
        M = None if M is None else M.mH
    Q = get_approximate_basis(A, q, niter=niter, M=M)
    B = Q.mH.matmul(A)
    if M is not None:
        B = B - Q.mH.matmul(M)
    U, S, Vh = OPS["linalg_svd"].impl(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if m < n:
        U, V = V, U
    return U, S, V


def svd_lowrank(A, q=6, niter=2, M=None):
    """``(U, S, V)`` with ``A - M ~ U diag(S) V^H`` of rank ``q`` (``M`` defaults to zero)."""
    return _svd_lowrank(A, q=q, niter=niter, M=M)


def pca_lowrank(A, q=None, center=True, niter=2):
    """``(U, S, V)``: a rank-``q`` SVD of ``A`` with its column means removed (``center``)."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter=niter)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter=niter)


register("svd_lowrank", svd_lowrank, method=False, family="linalg")
register("pca_lowrank", pca_lowrank, method=False, family="linalg")
