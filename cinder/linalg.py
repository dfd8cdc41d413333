"""``torch.linalg``: linear algebra on batches of matrices (the ops live in
``cinder/ops/linalg_*.py``; this module publishes them under PyTorch's names)."""
# ruff: noqa: F822  (the names in __all__ are bound from the op table by the loop below)

from .ops._linalg_common import LinAlgError
from .ops._registry import OPS

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig",
           "eigh", "eigvals", "eigvalsh", "householder_product", "inv", "inv_ex", "ldl_factor",
           "ldl_factor_ex", "ldl_solve", "lstsq", "lu",
           "lu_factor", "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm",
           "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve",
           "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve",
           "vander", "vecdot", "vector_norm"]


def _op(name, public_name):
    fn = OPS[name].function
    fn.__name__ = fn.__qualname__ = "linalg_" + public_name
    fn.__module__ = "torch._C._linalg"
    return fn


for _n in __all__:
    if _n in ("LinAlgError", "matmul", "vector_norm"):
        continue
    globals()[_n] = _op("linalg_" + _n, _n)
matmul = OPS["matmul"].function
vector_norm = _op("vector_norm", "vector_norm")
