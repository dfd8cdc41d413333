"""``torch.lobpcg``: a few extreme eigenpairs of a large symmetric (generalized) eigenproblem
``A X = B X diag(E)`` by the Locally Optimal Block Preconditioned Conjugate Gradient method.

The method follows PyTorch's (torch/_lobpcg.py, after Knyazev 2001 and Duersch et al. 2018):
each step solves a Rayleigh-Ritz problem on the search space ``S = [X, P, W]`` (current
vectors, previous directions, preconditioned residuals). ``method='basic'`` reduces the
problem with a Cholesky-based transform; ``'ortho'`` (the default) keeps ``S`` B-orthonormal
with repeated SVQB orthogonalisation, which is more robust. The iteration runs on backend
arrays; the starting block is drawn from cinder's generator as PyTorch draws it
(``randn(m, n)``), so the same seed gives the same iterates.

The gradient is PyTorch's: for a symmetric ``A`` (``B`` must be None) the derivative of the
partial eigendecomposition, built from the characteristic polynomial of the found
eigenvalues (``_symeig_backward``), written in cinder ops.
"""

from .. import _dtype as D
from .._tensor import make_tensor
from ..autograd import grad_mode
from ..random import Generator
from ._prep import xp_of
from ._registry import OPS, needs_grad, node_class, record, register

_FEPS = {"float32": 1.2e-07, "float64": 2.23e-16}


def _op(name):
    return OPS[name].function


# ----------------------------------------------------------------------------------------------
# Small linear-algebra helpers on arrays (``None`` stands for the identity)
# ----------------------------------------------------------------------------------------------

def _mm(xp, a, b):
    return b if a is None else a @ b


def _qform(xp, a, s):
    """s^T a s"""
    return s.T @ _mm(xp, a, s)


def _symeig(xp, a, largest=False):
    """Eigenpairs of the symmetric ``a`` (upper triangle), ascending or (largest) descending."""
    e, z = xp.linalg.eigh(a, UPLO="U")
    if largest:
        e, z = e[::-1], z[:, ::-1]
    return e, z


def _basis(xp, a):
    return xp.linalg.qr(a)[0]


class _Worker:
    """The state of one LOBPCG run on one matrix: ``X`` (m, n) approximate eigenvectors,
    ``E`` (n,) eigenvalues, ``R`` residuals, ``S`` the search space, and the counters
    ``ivars`` (istep, converged_count, converged_end, ...) a tracker may read."""

    def __init__(self, xp, A, B, X, iK, iparams, fparams, bparams, method, tracker):
        self.xp, self.A, self.B, self.iK = xp, A, B, iK
        self.iparams, self.fparams, self.bparams = iparams, fparams, bparams
        self.method, self.tracker = method, tracker
        m, n = iparams["m"], iparams["n"]
        self.X = X
        self.E = xp.zeros((n,), dtype=X.dtype)
        self.R = xp.zeros((m, n), dtype=X.dtype)
        self.S = xp.zeros((m, 3 * n), dtype=X.dtype)
        self.tvars, self.ivars, self.fvars, self.bvars = {}, {"istep": 0}, {"_": 0.0}, {}

    def run(self):
        self.update()
        if self.tracker is not None:
            self.tracker(self)
        while not self.stop_iteration():
            self.update()
            if self.tracker is not None:
                self.tracker(self)

    def stop_iteration(self):
        return (self.bvars.get("force_stop", False) or self.ivars["iterations_left"] == 0
                or self.ivars["converged_count"] >= self.iparams["k"])

    def update(self):
        xp = self.xp
        if self.ivars["istep"] == 0:
            x_norm = float(xp.linalg.norm(self.X))
            self.fvars["X_norm"] = x_norm
            self.fvars["A_norm"] = float(xp.linalg.norm(_mm(xp, self.A, self.X))) / x_norm
            self.fvars["B_norm"] = float(xp.linalg.norm(_mm(xp, self.B, self.X))) / x_norm
            self.ivars.update(iterations_left=self.iparams["niter"], converged_count=0,
                              converged_end=0)
        if self.method == "ortho":
            self._update_ortho()
        else:
            self._update_basic()
        self.ivars["iterations_left"] -= 1
        self.ivars["istep"] += 1

    def update_residual(self):
        xp = self.xp
        self.R = _mm(xp, self.A, self.X) - _mm(xp, self.B, self.X) * self.E

    def update_converged_count(self):
        """How many leading eigenpairs meet the backward-stable residual test (Duersch et
        al. 2018, sec. 4.3); the count never decreases."""
        xp = self.xp
        prev = self.ivars["converged_count"]
        E, X, R = self.E, self.X, self.R
        rerr = xp.linalg.norm(R, axis=0) / (xp.linalg.norm(X, axis=0) * (
            self.fvars["A_norm"] + xp.abs(E[:X.shape[-1]]) * self.fvars["B_norm"]))
        ok = rerr < self.fparams["tol"]
        count = int(xp.argmin(ok)) if not bool(ok.all()) else int(ok.size)
        if count < prev:
            raise AssertionError(f"the number of converged eigenpairs (was {prev}, got "
                                 f"{count}) cannot decrease")
        self.ivars["converged_count"] = count
        self.tvars["rerr"] = rerr
        return count

    def _update_basic(self):
        xp = self.xp
        ns, nc = self.ivars["converged_end"], self.ivars["converged_count"]
        n, largest = self.iparams["n"], self.bparams["largest"]
        if self.ivars["istep"] == 0:
            Ri = self._rayleigh_ritz_transform(self.X)
            E, Z = _symeig(xp, _qform(xp, _qform(xp, self.A, self.X), Ri), largest)
            self.X[:] = self.X @ (Ri @ Z)
            self.E[:] = E
            np_ = 0
        else:
            S_ = self.S[:, nc:ns]
            Ri = self._rayleigh_ritz_transform(S_)
            E_, Z = _symeig(xp, _qform(xp, _qform(xp, self.A, S_), Ri), largest)
            self.X[:, nc:] = S_ @ (Ri @ Z[:, :n - nc])
            self.E[nc:] = E_[:n - nc]
            P = S_ @ (Ri @ Z[:, n:2 * n - nc])
            np_ = P.shape[-1]
        self.update_residual()
        nc = self.update_converged_count()
        self.S[:, :n] = self.X
        if np_:
            self.S[:, n:n + np_] = P
        W = _mm(xp, self.iK, self.R[:, nc:] if self.ivars["istep"] else self.R)
        ns = self.ivars["converged_end"] = n + np_ + W.shape[-1]
        self.S[:, n + np_:ns] = W

    def _update_ortho(self):
        xp = self.xp
        ns, nc = self.ivars["converged_end"], self.ivars["converged_count"]
        n, largest = self.iparams["n"], self.bparams["largest"]
        if self.ivars["istep"] == 0:
            Ri = self._rayleigh_ritz_transform(self.X)
            _, Z = _symeig(xp, _qform(xp, _qform(xp, self.A, self.X), Ri), largest)
            # (as in PyTorch, E stays zero until the first iteration: R is then A X)
            self.X = self.X @ (Ri @ Z)
            self.update_residual()
            np_ = 0
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            W = self._ortho(self.R, self.X)
        else:
            S_ = self.S[:, nc:ns]
            E_, Z = _symeig(xp, _qform(xp, self.A, S_), largest)
            self.X[:, nc:] = S_ @ Z[:, :n - nc]
            self.E[nc:] = E_[:n - nc]
            P = S_ @ (Z[:, n - nc:] @ _basis(xp, Z[:n - nc, n - nc:].T))
            np_ = P.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            self.S[:, n:n + np_] = P
            W = self._ortho(self.R[:, nc:], self.S[:, :n + np_])
        ns = self.ivars["converged_end"] = n + np_ + W.shape[-1]
        self.S[:, n + np_:ns] = W

    def _rayleigh_ritz_transform(self, S):
        """Upper-triangular Ri with Ri^T (S^T B S) Ri = I, from the Cholesky factor of the
        diagonally scaled S^T B S (the scaling keeps the factorisation well conditioned)."""
        xp = self.xp
        SBS = _qform(xp, self.B, S)
        d = xp.diagonal(SBS) ** -0.5
        R = xp.linalg.cholesky(SBS * d * d[:, None]).T       # upper factor
        # Ri = diag(d) R^-1, i.e. Ri R = diag(d)
        return xp.linalg.solve(R.T, xp.diag(d)).T

    def _svqb(self, U, drop, tau):
        """B-orthonormal columns spanning U (Duersch's Algorithm 4); with ``drop`` the
        columns that add little to the span are dropped instead of lifted to ``tau``."""
        xp = self.xp
        if U.size == 0:
            return U
        UBU = _qform(xp, self.B, U)
        d = xp.diagonal(UBU)
        nz = xp.flatnonzero(xp.abs(d) != 0)
        if nz.size < d.size:
            U = U[:, nz]
            if U.size == 0:
                return U
            UBU = _qform(xp, self.B, U)
            d = xp.diagonal(UBU)
        d_col = (d ** -0.5)[:, None]
        E, Z = _symeig(xp, UBU * d_col * d_col.T)
        t = tau * float(xp.abs(E).max())
        if drop:
            keep = xp.flatnonzero(E > t)
            E, Z, d_col = E[keep], Z[:, keep], d_col[keep]
        else:
            E = xp.where(E < t, t, E)
        return (U * d_col.T) @ (Z * E ** -0.5)

    def _ortho(self, U, V):
        """B-orthonormal columns spanning U that are B-orthogonal to V (Duersch's Algorithms
        3 and, with ``ortho_use_drop``, 6)."""
        xp = self.xp
        tau_ortho = self.fparams["ortho_tol"]
        tau_drop = self.fparams["ortho_tol_drop"]
        tau_replace = self.fparams["ortho_tol_replace"]
        use_drop = self.bparams["ortho_use_drop"]
        BV_norm = float(xp.linalg.norm(_mm(xp, self.B, V)))
        VBU = V.T @ _mm(xp, self.B, U)
        for i in range(self.iparams["ortho_i_max"]):
            U = U - V @ VBU
            drop, tau_svqb = False, tau_drop
            for j in range(self.iparams["ortho_j_max"]):
                if use_drop:
                    U = self._svqb(U, drop, tau_svqb)
                    drop, tau_svqb = True, tau_replace
                else:
                    U = self._svqb(U, False, tau_replace)
                if U.size == 0:
                    return U
                BU = _mm(xp, self.B, U)
                R = U.T @ BU - xp.eye(U.shape[-1], dtype=U.dtype)
                rerr = float(xp.linalg.norm(R)) / float(xp.linalg.norm(BU) *
                                                        xp.linalg.norm(U))
                self.fvars[f"ortho_UBUmI_rerr[{i}, {j}]"] = rerr
                if rerr < tau_ortho:
                    break
            VBU = V.T @ BU
            rerr = float(xp.linalg.norm(VBU)) / (BV_norm * float(xp.linalg.norm(U)))
            self.fvars[f"ortho_VBU_rerr[{i}]"] = rerr
            if rerr < tau_ortho:
                break
            if self.iparams["m"] < U.shape[-1] + V.shape[-1]:
                raise ValueError(f"Overdetermined shape of U: #B-cols(={self.iparams['m']}) >= "
                                 f"#U-cols(={U.shape[-1]}) + #V-cols(={V.shape[-1]}) must hold")
        return U


# ----------------------------------------------------------------------------------------------
# The gradient (PyTorch's _symeig_backward), in cinder ops
# ----------------------------------------------------------------------------------------------

def _complete_backward(gD, gU, D, U):
    """The eigendecomposition gradient when U spans the whole space."""
    F = D.unsqueeze(-2) - D.unsqueeze(-1)
    F = F.diagonal_scatter(F.diagonal(0, -2, -1) * 0 + float("inf"), 0, -2, -1).reciprocal()
    Ut = U.mT
    return U @ ((_op("diag_embed")(gD) + (Ut @ gU) * F) @ Ut)


def _poly_coefficients(roots):
    """(a_0, ..., a_k = 1) with prod (x - r_i) = sum a_j x^j, for each batch of roots."""
    k = roots.shape[-1]
    xp = xp_of(roots)
    r = roots._data
    coeffs = xp.zeros(r.shape[:-1] + (k + 2,), dtype=r.dtype)
    coeffs[..., 0] = coeffs[..., -1] = 1
    for i in range(1, k + 1):
        coeffs[..., k - i:k + 1] -= r[..., i - 1:i] * coeffs[..., k - i + 1:k + 2]
    return make_tensor(coeffs[..., 1:k + 2], roots._dtype, roots._device)


def _poly_at_vector(poly, x):
    res = x * 0 + 1
    for j in range(poly.shape[-1] - 2, -1, -1):
        res = poly[..., j:j + 1] + x * res
    return res


def _poly_at_matrix(poly, x):
    eye = _op("eye")(x.shape[-1], dtype=x.dtype, device=x.device)
    res = eye.expand(x.shape)
    for j in range(poly.shape[-1] - 2, -1, -1):
        res = x @ res + poly[..., j, None, None] * eye
    return res


def _partial_backward(gD, gU, A, D, U, largest):
    """The gradient of k < m eigenpairs (Sec. 3 of PyTorch's derivation): the complete-space
    formula plus a correction on the orthogonal complement of U, found from the
    characteristic polynomial of the eigenvalues evaluated at A."""
    m, k = A.shape[-1], D.shape[-1]
    proj = _op("eye")(m, dtype=A.dtype, device=A.device) - U @ U.mT
    gen = Generator(A.device)        # a fresh generator, default seed, as in PyTorch
    noise = _op("randn")(tuple(A.shape[:-1]) + (m - k,), dtype=A.dtype, device=A.device,
                         generator=gen)
    U_ortho = proj @ noise
    chr_poly = _poly_coefficients(D)
    series = gU * 0
    projected = gU
    for j in range(1, k + 1):
        series = series + projected * _poly_at_vector(chr_poly[..., j:], D).unsqueeze(-2)
        projected = A @ projected
    on_ortho = U_ortho.mT @ (_poly_at_matrix(chr_poly, A) @ U_ortho)
    sign = -1 if (largest and k % 2 == 1) else 1
    L = _op("linalg_cholesky")(sign * on_ortho)
    correction = U_ortho @ (sign * _op("cholesky_solve")(U_ortho.mT @ series, L))
    return _complete_backward(gD, gU, D, U) - correction @ U.mT


def _lobpcg_grad(grads, s):
    if s.B is not None:
        raise ValueError("lobpcg.backward does not support backward with B != I yet.")
    gD, gU = grads
    D, U = s.E, s.U
    gD = D * 0 if gD is None else gD
    gU = U * 0 if gU is None else gU
    if U.shape[-1] == U.shape[-2]:
        return _complete_backward(gD, gU, D, U)
    return _partial_backward(gD, gU, s.A, D, U, s.largest)


LobpcgNode = node_class("LOBPCGAutogradFunctionBackward", {"A": _lobpcg_grad, "B": None},
                        saves_also=("A", "B", "E", "U", "largest"), num_outputs=2)


# ----------------------------------------------------------------------------------------------
# Parameters, batches and the public function
# ----------------------------------------------------------------------------------------------

def _params(m, n, k, niter, tol, largest, method, ortho_iparams, ortho_fparams,
            ortho_bparams):
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fparams = {"tol": tol}
    bparams = {"largest": True if largest is None else largest}
    if method == "ortho":
        iparams.update(ortho_iparams or {})
        fparams.update(ortho_fparams or {})
        bparams.update(ortho_bparams or {})
        iparams.setdefault("ortho_i_max", 3)
        iparams.setdefault("ortho_j_max", 3)
        for key in ("ortho_tol", "ortho_tol_drop", "ortho_tol_replace"):
            fparams.setdefault(key, tol)
        bparams.setdefault("ortho_use_drop", False)
    return iparams, fparams, bparams


def _solve(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho):
    """The eigenpairs (E, X) as tensors of A's floating dtype (float32 for other dtypes)."""
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    dtype = A._dtype if A._dtype in (D.float16, D.float32, D.float64) else D.float32
    if tol is None:
        tol = _FEPS[dtype.name] ** 0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m}) "
                         f"is smaller than 3 x the number of requested eigenpairs (={n})")
    method = "ortho" if method is None else method
    iparams, fparams, bparams = _params(m, n, k, niter, tol, largest, method, *ortho)
    xp = xp_of(A)
    npdt = dtype.numpy_dtype
    batch = tuple(A.shape[:-2])
    count = 1
    for s in batch:
        count *= s
    bA = A._data.reshape((count, m, m)).astype(npdt)
    bB = None if B is None else B._data.reshape((count, m, m)).astype(npdt)
    bX = None if X is None else X._data.reshape((count,) + tuple(X.shape[-2:]))
    iK_arr = None if iK is None else iK._data.astype(npdt)
    E_out = xp.empty((count, k), dtype=npdt)
    X_out = xp.empty((count, m, k), dtype=npdt)
    for i in range(count):
        # the start block is drawn per matrix, as PyTorch draws it
        X_i = _op("randn")((m, n), dtype=dtype, device=A.device)._data if bX is None \
            else bX[i]
        if X_i.shape != (m, n):
            raise AssertionError(f"X shape mismatch: got {tuple(X_i.shape)}, expected {(m, n)}")
        if batch:
            iparams["batch_index"] = i
        worker = _Worker(xp, bA[i], None if bB is None else bB[i], X_i.astype(npdt, copy=True),
                         iK_arr, iparams, fparams, bparams, method, tracker)
        worker.run()
        E_out[i] = worker.E[:k]
        X_out[i] = worker.X[:, :k]
    E = make_tensor(E_out.reshape(batch + (k,)), dtype, A._device)
    V = make_tensor(X_out.reshape(batch + (m, k)), dtype, A._device)
    return E, V


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
           ortho_bparams=None):
    """The ``k`` largest (or, with ``largest=False``, smallest) eigenpairs of the symmetric
    positive definite generalized problem ``A X = B X diag(E)`` (B the identity when None),
    by LOBPCG: returns ``(E, X)``, ``E`` of shape (*, k) and ``X`` (*, m, k).

    ``X`` (m, n) is the starting block (random when None; ``n`` columns, default ``k``, and
    ``m >= 3 n``); ``iK`` a preconditioner; ``niter`` the iteration limit (default 1000;
    -1 runs to convergence); ``tol`` the residual tolerance (default sqrt of the dtype's
    eps); ``method`` 'ortho' (default) or 'basic'. ``tracker(worker)`` is called after each
    iteration with the worker, whose ``X``, ``E``, ``R`` are backend arrays and whose
    ``ivars``/``fvars``/``tvars`` hold the counters. Gradients reach ``A`` (the symmetrized
    ``(A + A^T) / 2``) when ``B`` is None.
    """
    ortho = (ortho_iparams, ortho_fparams, ortho_bparams)
    if not needs_grad(A, B):
        return _solve(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho)
    A_sym = (A + A.mT) / 2
    B_sym = None if B is None else (B + B.mT) / 2
    with grad_mode.no_grad():
        E, V = _solve(A_sym.detach(), k, None if B_sym is None else B_sym.detach(), X, n, iK,
                      niter, tol, largest, method, tracker, ortho)
    record(LobpcgNode, (A_sym, B_sym), (E, V), A=A_sym.detach(), B=B_sym, E=E.detach(),
           U=V.detach(), largest=True if largest is None else largest)
    return E, V


register("lobpcg", lobpcg, method=False, family="linalg")
