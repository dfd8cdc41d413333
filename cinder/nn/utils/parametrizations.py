"""Ready-made parametrizations: ``weight_norm`` and ``spectral_norm``
(``register_parametrization`` based; state_dict keys ``parametrizations.weight.original0/1``
and ``parametrizations.weight.original`` + ``_u``/``_v`` as in PyTorch)."""

from ... import _dtype as D
from ...ops._registry import OPS
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from ..._tensor import Tensor
from ...ops import FUNCTIONS
from ...ops.creation import tensor

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _norm_except_dim(v, dim):
    """The 2-norm of ``v`` over every dim except ``dim`` (kept as size-1 dims); over all dims
    when ``dim == -1``."""
    if dim == -1:
        return (v * v).sum().sqrt()
    dims = tuple(d for d in range(v.dim()) if d != dim % v.dim())
    return (v * v).sum(dims, keepdim=True).sqrt()


def _weight_norm(v, g, dim):
    return v * (g / _norm_except_dim(v, dim))


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (norm over all dims but ``dim``)."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _load_pre_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                       unexpected_keys, error_msgs):
        # checkpoints saved with the legacy weight_norm use weight_g / weight_v
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_load_pre_hook)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, "
                             f"{ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = self._reshape_weight_to_matrix(weight)
            h, w = mat.size()
            u = mat.new_empty(h).normal_(0, 1)
            v = mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, mat, n_iterations):
        # u and v are updated in place (their identity is kept, as buffers)
        with no_grad():
            for _ in range(n_iterations):
                self._u.copy_(F.normalize(mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(mat.t().mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.dim() == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(mat.detach(), self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = (u * mat.mv(v)).sum()
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its largest singular value, estimated by power iteration
    (one step per training-mode access)."""
    weight = getattr(module, name, None)
    if weight is None or not hasattr(weight, "dim"):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


# ----------------------------------------------------------------------------------------------
# orthogonal
# ----------------------------------------------------------------------------------------------

def _eye(n, like):
    return FUNCTIONS["eye"](n, dtype=like.dtype, device=like.device)


def _make_orthogonal(a):
    """Q of ``a = QR`` (per matrix of a batch) with diag(R) made non-negative (no gradient)."""
    q, r = OPS["linalg_qr"].function(a.detach())
    return q * r.diagonal(dim1=-2, dim2=-1).sign().unsqueeze(-2)


def _is_orthogonal(q):
    """Whether every matrix of ``q`` has orthonormal columns, to PyTorch's tolerance."""
    n, k = q.size(-2), q.size(-1)
    eps = 10.0 * n * D.finfo(q.dtype).eps
    return FUNCTIONS["allclose"](q.mT.matmul(q), _eye(k, q), atol=eps)


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, x):
        n, k = x.size(-2), x.size(-1)
        transposed = n < k
        if transposed:
            x = x.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            x = x.tril()
            if n != k:
                zeros = x.new_zeros(n, n - k).expand(*x.shape[:-2], -1, -1)
                x = FUNCTIONS["cat"]([x, zeros], -1)
            a = x - x.mT
            if self.orthogonal_map == "matrix_exp":
                q = OPS["linalg_matrix_exp"].function(a)
            else:
                eye = _eye(n, a)
                q = OPS["linalg_solve"].function(eye - a * 0.5, eye + a * 0.5)
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(-1)
            tau = 2.0 / (1.0 + (a * a).sum(-2))
            q = OPS["linalg_householder_product"].function(a, tau)
            q = q * x.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            q = self.base.matmul(q)
        return q.mT if transposed else q

    def right_inverse(self, q):
        if q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {q.shape}.")
        with no_grad():
            return self._right_inverse(q)

    def _right_inverse(self, q):
        q_init = q
        n, k = q.size(-2), q.size(-1)
        transpose = n < k
        if transpose:
            q = q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in ("matrix_exp", "cayley"):
                raise NotImplementedError("It is not possible to assign to the matrix "
                                          "exponential or the Cayley parametrizations when "
                                          "use_trivialization=False.")
            a = _geqrf_signed(q)
            return a.mT if transpose else a
        if n == k:
            q = q.clone() if _is_orthogonal(q) else _make_orthogonal(q)
        else:
            filler = FUNCTIONS["randn"](*(tuple(q.shape[:-2]) + (n, n - k)), dtype=q.dtype)
            q = _make_orthogonal(FUNCTIONS["cat"]([q, filler], -1))
        self.base = q
        neg_id = q_init.new_zeros(q_init.shape)
        neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_id


def _geqrf_signed(q):
    """LAPACK's compact QR of each matrix of ``q`` (``torch.geqrf``: Householder vectors below
    the diagonal) with the diagonal replaced by the signs the Householder parametrization
    reads (PyTorch's right_inverse without trivialization). cinder has no ``geqrf`` op yet,
    so the factorisation runs in NumPy, one matrix at a time (initialisation only)."""
    import numpy as np
    arr = q.detach().numpy().astype(np.float64)
    flat = arr.reshape((-1,) + arr.shape[-2:])
    out = np.empty(flat.shape)
    for i, mat in enumerate(flat):
        h, tau = np.linalg.qr(mat, mode="raw")
        a = h.T.copy()
        d = np.sign(np.diagonal(a)).copy()
        d[tau == 0.0] *= -1
        np.fill_diagonal(a, d)
        out[i] = a
    return tensor(out.reshape(arr.shape), dtype=q.dtype)


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrain the matrix ``module.<name>`` to be orthogonal (orthonormal columns, or rows
    when wide) through ``matrix_exp`` (square default), ``cayley`` or ``householder``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.dim() < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.dim()} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) else "householder"
    if orthogonal_map not in ("matrix_exp", "cayley", "householder"):
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
