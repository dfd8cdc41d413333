"""``torch.linalg`` (cinder/ops/linalg_decomp.py, linalg_solve.py, linalg_func.py) through the
generic runners: values, dtypes, out=, gradients and float64 gradcheck, bad inputs.

Sample matrices are well conditioned (a random matrix plus a multiple of the identity), so
float32 results agree to ~1e-5 and finite differences are stable. Decompositions whose
factors are only defined up to a sign or phase per column are compared as PyTorch's own
OpInfos do, through invariant quantities: the call returns the eigen/singular values and the
magnitudes ``|U|``, ``|Q|`` (a loss of those is gauge invariant, so its gradient is defined);
general eigenvalues are sorted before comparing. Symmetric (Hermitian) and positive-definite
inputs are built inside the call from the raw sample (``a + a^H``, ``a a^H + n I``), so the
gradient flows to every entry of the sample as in PyTorch's OpInfos.
"""

import numpy as np

from . import FLOATS, GRAD_C, HALFS, ErrorSample, OpEntry, Sample

FAMILY = "linalg_module"
# (complex128 is run by the other-dtypes runner on the first two samples of each entry)
DTYPES = FLOATS + ("complex64",)
TOL = {"float32": (1e-4, 1e-4), "complex64": (1e-4, 1e-4), "float64": (1e-7, 1e-7),
       "complex128": (1e-7, 1e-7)}


def _square(make, shape, shift=3.0):
    """A random square (batch of) matrix plus ``shift`` * identity: far from singular."""
    t = make(shape, low=-1, high=1)
    n = shape[-1]
    t.array = (t.array + shift * np.eye(n)).astype(t.array.dtype)
    return t


def _mh(t):
    return t.transpose(-2, -1).conj()


def _spd(lib, a):
    """A Hermitian positive-definite matrix built from ``a`` (differentiably)."""
    n = a.shape[-1]
    return a @ _mh(a) + n * lib.eye(n, dtype=a.dtype)


def _herm(a):
    return a + _mh(a)


def _linalg(name):
    def call(lib, *args, **kwargs):
        return getattr(lib.linalg, name)(*args, **kwargs)
    return call


def _solve_samples(dtype, make):
    a, ab = _square(make, (3, 3)), _square(make, (2, 3, 3))
    return [Sample(a, make((3, 2))), Sample(a, make((3,))), Sample(ab, make((2, 3, 1))),
            Sample(ab, make((3, 2))), Sample(a, make((2, 3)), left=False)]


def _triangular_samples(dtype, make):
    a, ab = _square(make, (3, 3)), _square(make, (2, 3, 3))
    return [Sample(a, make((3, 2)), upper=True), Sample(a, make((3, 2)), upper=False),
            Sample(ab, make((2, 3, 4)), upper=False, unitriangular=True),
            Sample(a, make((2, 3)), upper=True, left=False)]


def _triangular(lib, a, b, **kwargs):
    # (only one triangle is read; take it explicitly so the gradient is the same in both)
    tri = a.triu() if kwargs.get("upper") else a.tril()
    return lib.linalg.solve_triangular(tri, b, **kwargs)


def _cholesky(lib, a, **kwargs):
    return lib.linalg.cholesky(_spd(lib, a), **kwargs)


def _cholesky_ex(lib, a, **kwargs):
    return lib.linalg.cholesky_ex(_spd(lib, a), **kwargs)


def _eigh(lib, a, **kwargs):
    vals, vecs = lib.linalg.eigh(_herm(a), **kwargs)
    return vals, vecs.abs()


def _eigvalsh(lib, a, **kwargs):
    return lib.linalg.eigvalsh(_herm(a), **kwargs)


def _sorted_eig(lib, vals, vecs=None):
    order = vals.real.argsort(dim=-1)
    vals = vals.gather(-1, order)
    if vecs is None:
        return vals
    return vals, vecs.abs().gather(-1, order.unsqueeze(-2).expand(vecs.shape))


def _eig(lib, a):
    return _sorted_eig(lib, *lib.linalg.eig(a))


def _eigvals(lib, a):
    return _sorted_eig(lib, lib.linalg.eigvals(a))


def _eig_samples(dtype, make):
    # a symmetric matrix plus a small skew part: real, well separated eigenvalues
    t = make((4, 4), low=-1, high=1)
    t.array = (np.diag([1.0, 2.5, 4.0, 6.0]) + 0.2 * t.array).astype(t.array.dtype)
    tb = make((2, 3, 3), low=-1, high=1)
    tb.array = (np.diag([1.0, 3.0, 5.0]) + 0.2 * tb.array).astype(tb.array.dtype)
    return [Sample(t), Sample(tb)]


def _svd(lib, a, **kwargs):
    u, s, vh = lib.linalg.svd(a, **kwargs)
    return u.abs(), s, vh.abs()


def _svd_samples(dtype, make):
    # distinct singular values: a diagonal spread plus a small perturbation
    def spread(shape):
        t = make(shape, low=-1, high=1)
        m, n = shape[-2:]
        d = np.zeros((m, n))
        d[np.arange(min(m, n)), np.arange(min(m, n))] = np.arange(1, min(m, n) + 1) * 1.5
        t.array = (d + 0.2 * t.array).astype(t.array.dtype)
        return t
    return [Sample(spread((4, 3)), full_matrices=False), Sample(spread((3, 4)),
                                                                  full_matrices=False),
            Sample(spread((2, 3, 3)), full_matrices=False)]


def _qr(lib, a, **kwargs):
    q, r = lib.linalg.qr(a, **kwargs)
    return q, r


def _qr_samples(dtype, make):
    return [Sample(_square(make, (3, 3))), Sample(make((4, 3), low=-1, high=1)),
            Sample(make((4, 3), low=-1, high=1), mode="complete").skip(
                "grad", "PyTorch: the QR decomposition is not differentiable when "
                        "mode='complete' and nrows > ncols").skip("gradcheck", "as for grad"),
            Sample(make((3, 4), low=-1, high=1), mode="r").skip(
                "grad", "mode='r' has no gradient in PyTorch").skip("gradcheck", "as for grad"),
            Sample(_square(make, (2, 3, 3)))]


def _lu_solve(lib, a, b, **kwargs):
    lu, piv = lib.linalg.lu_factor(a)
    return lib.linalg.lu_solve(lu, piv, b, **kwargs)


def _lu_solve_samples(dtype, make):
    a = _square(make, (3, 3))
    return [Sample(a, make((3, 2))), Sample(a, make((2, 3)), left=False),
            Sample(a, make((3, 2)), adjoint=True), Sample(_square(make, (2, 3, 3)),
                                                          make((2, 3, 1)))]


def _ldl_solve(lib, a, b, **kwargs):
    ld, piv = lib.linalg.ldl_factor(_herm(a))
    return lib.linalg.ldl_solve(ld, piv, b, **kwargs)


def _householder(lib, a, tau):
    return lib.linalg.householder_product(a, tau)


def _norm_samples(dtype, make):
    a = make((3, 4), low=-2, high=2)
    return [Sample(a), Sample(a, "fro"), Sample(a, "nuc"), Sample(a, 1), Sample(a, -1),
            Sample(a, float("inf")), Sample(a, 2), Sample(a, -2),
            Sample(make((2, 3, 3), low=-2, high=2), "fro", (-2, -1), keepdim=True)]


def _cond_samples(dtype, make):
    a = _square(make, (3, 3))
    torch_fails = "PyTorch's own backward fails here (its linalg_inv_ex output is modified " \
        "in place)"
    return [Sample(a), Sample(a, "fro").skip("grad", torch_fails),
            Sample(a, 1).skip("grad", torch_fails),
            Sample(a, float("inf")).skip("grad", torch_fails),
            Sample(a, -2).skip("grad", "singular-value ratio: compared in forward only")
            .skip("gradcheck", "as for grad")]


def _multi_dot_samples(dtype, make):
    return [Sample([make((2, 3)), make((3, 4)), make((4, 2))]),
            Sample([make((3,)), make((3, 4)), make((4,))])]


def _householder_samples(dtype, make):
    a = make((4, 3), low=-1, high=1)
    tau = make((2,), low=0.2, high=1.2)
    return [Sample(a, tau), Sample(make((2, 3, 3), low=-1, high=1), make((2, 2), low=0.2,
                                                                        high=1.2))]


def _tensorinv_samples(dtype, make):
    t = _square(make, (6, 6))
    t.array = t.array.reshape(6, 2, 3)
    return [Sample(t, ind=1)]


def _tensorsolve_samples(dtype, make):
    t = _square(make, (6, 6))
    t.array = t.array.reshape(2, 3, 6)
    return [Sample(t, make((2, 3)))]


def _errors_square(make):
    return [ErrorSample(Sample(make((2, 3)))), ErrorSample(Sample(make((3,))))]


# cinder composes these from other ops where PyTorch has one node (or the reverse), so the
# last node's name differs; their gradient values are still compared
_COMPOSED = {"matrix_norm", "norm", "cond", "lu_factor", "lu_factor_ex", "lu", "lu_solve",
             "multi_dot", "householder_product", "tensorinv", "tensorsolve", "vander", "cross",
             "lstsq", "pinv", "diagonal", "vecdot"}


def _entry(name, samples, *, call=None, grad=True, grad_dtypes=FLOATS, out=False, dtypes=DTYPES,
           errors=None, **kw):
    return OpEntry("linalg_" + name, call=call or _linalg(name), samples=samples, dtypes=dtypes,
                   method=False, grad=grad, grad_dtypes=grad_dtypes, out=out, tol=TOL,
                   grad_tol=TOL, family=FAMILY, errors=errors,
                   check_grad_fn=name not in _COMPOSED, **kw)


_PLAIN = lambda dtype, make: [Sample(_square(make, (3, 3))),  # noqa: E731
                              Sample(_square(make, (2, 4, 4)))]

ENTRIES = [
    _entry("det", _PLAIN, grad_dtypes=GRAD_C, out=True, errors=_errors_square),
    _entry("slogdet", _PLAIN, grad_dtypes=GRAD_C, out=True, errors=_errors_square),
    _entry("inv", _PLAIN, grad_dtypes=GRAD_C, out=True, errors=_errors_square),
    _entry("inv_ex", _PLAIN, grad_dtypes=GRAD_C, out=True),
    _entry("matrix_exp", lambda dtype, make: [Sample(make((3, 3), low=-1, high=1)),
                                              Sample(make((2, 2, 2), low=-1, high=1))],
           grad_dtypes=GRAD_C,
           skips={"forward": ("PyTorch's float16/bfloat16 matrix_exp overflows to inf in its "
                              "intermediate steps; cinder computes half inputs in float32",
                              HALFS)}),
    _entry("matrix_power", lambda dtype, make: [Sample(_square(make, (3, 3)), 3),
                                                Sample(_square(make, (3, 3)), 0),
                                                Sample(_square(make, (2, 3, 3)), -2)],
           grad_dtypes=GRAD_C, out=True),
    _entry("solve", _solve_samples, grad_dtypes=GRAD_C, out=True,
           errors=lambda make: [ErrorSample(Sample(make((3, 3)), make((4, 2))))]),
    _entry("solve_ex", _solve_samples, grad_dtypes=GRAD_C,
           out=True),
    _entry("solve_triangular", _triangular_samples, call=_triangular, grad_dtypes=GRAD_C),
    _entry("cholesky", lambda dtype, make: [Sample(make((3, 3), low=-1, high=1)),
                                            Sample(make((2, 3, 3), low=-1, high=1), upper=True)],
           call=_cholesky),
    _entry("cholesky_ex", lambda dtype, make: [Sample(make((3, 3), low=-1, high=1))],
           call=_cholesky_ex),
    _entry("eigh", lambda dtype, make: [Sample(make((3, 3), low=-1, high=1)),
                                        Sample(make((2, 4, 4), low=-1, high=1), UPLO="U")],
           call=_eigh),
    _entry("eigvalsh", lambda dtype, make: [Sample(make((3, 3), low=-1, high=1)),
                                            Sample(make((2, 4, 4), low=-1, high=1), UPLO="U")],
           call=_eigvalsh),
    _entry("eig", _eig_samples, call=_eig, dtypes=FLOATS),
    _entry("eigvals", _eig_samples, call=_eigvals, dtypes=FLOATS),
    _entry("svd", _svd_samples, call=_svd),
    _entry("svdvals", _svd_samples, call=lambda lib, a, full_matrices=None:
           lib.linalg.svdvals(a)),
    _entry("qr", _qr_samples, call=_qr),
    _entry("pinv", lambda dtype, make: [Sample(_square(make, (3, 3))),
                                        Sample(make((4, 3), low=-1, high=1)),
                                        Sample(_square(make, (3, 3)), hermitian=False)]),
    _entry("matrix_rank", lambda dtype, make: [Sample(_square(make, (3, 3))),
                                               Sample(make((4, 3), low=-1, high=1)),
                                               Sample(make((4, 3), low=-1, high=1), atol=10.0)],
           grad=False),
    _entry("lstsq", lambda dtype, make: [Sample(_square(make, (3, 3)), make((3, 2))),
                                         Sample(make((4, 3), low=-1, high=1), make((4, 2)))]),
    _entry("lu_factor", _PLAIN),
    _entry("lu_factor_ex", _PLAIN),
    _entry("lu", _PLAIN),
    _entry("lu_solve", _lu_solve_samples, call=_lu_solve),
    _entry("ldl_factor", lambda dtype, make: [Sample(_square(make, (3, 3)))],
           call=lambda lib, a: lib.linalg.ldl_factor(_herm(a)), grad=False),
    _entry("ldl_factor_ex", lambda dtype, make: [Sample(_square(make, (3, 3)))],
           call=lambda lib, a: lib.linalg.ldl_factor_ex(_herm(a)), grad=False),
    _entry("ldl_solve", lambda dtype, make: [Sample(_square(make, (3, 3)), make((3, 2)))],
           call=_ldl_solve, grad=False),
    _entry("householder_product", _householder_samples, call=_householder),
    _entry("matrix_norm", lambda dtype, make: [s for s in _norm_samples(dtype, make)
                                               if s.args[1:]],
           grad_dtypes=GRAD_C, out=True),
    _entry("norm", _norm_samples, grad_dtypes=GRAD_C, out=True),
    _entry("cond", _cond_samples),
    _entry("multi_dot", _multi_dot_samples, grad_dtypes=GRAD_C, out=True),
    _entry("tensorinv", _tensorinv_samples),
    _entry("tensorsolve", _tensorsolve_samples),
    _entry("vander", lambda dtype, make: [Sample(make((4,), low=-1, high=1)),
                                          Sample(make((2, 3), low=-1, high=1), N=4)],
           grad_dtypes=GRAD_C),
    _entry("vecdot", lambda dtype, make: [Sample(make((3, 4)), make((3, 4))),
                                          Sample(make((2, 3)), make((3,)), dim=-1)],
           grad_dtypes=GRAD_C, out=True),
    _entry("cross", lambda dtype, make: [Sample(make((4, 3)), make((4, 3))),
                                         Sample(make((3, 2)), make((3, 2)), dim=0)],
           grad_dtypes=GRAD_C, out=True,
           errors=lambda make: [ErrorSample(Sample(make((4, 2)), make((4, 2))))]),
    _entry("diagonal", lambda dtype, make: [Sample(make((3, 4))),
                                            Sample(make((2, 3, 3)), offset=1),
                                            Sample(make((3, 4, 2)), dim1=0, dim2=2)],
           grad_dtypes=GRAD_C),
]


# The legacy torch.* names of the same functions (functions and Tensor methods).
# cholesky_inverse and triangular_solve are composed over solve_triangular in cinder (PyTorch
# has a node of their own), so their node names are not compared; gradients are.


def _legacy(name, samples, *, grad_dtypes=GRAD_C, method=True, call=None, dtypes=DTYPES, **kw):
    return OpEntry(name, samples=samples, dtypes=dtypes, method=method, grad=True,
                   grad_dtypes=grad_dtypes, tol=TOL, grad_tol=TOL, family=FAMILY, call=call,
                   **kw)


def _cholesky_solve(lib, b, a, upper=False):
    factor = lib.linalg.cholesky(_spd(lib, a), upper=upper)
    return lib.cholesky_solve(b, factor, upper=upper)


def _cholesky_inverse(lib, a, upper=False):
    return lib.cholesky_inverse(lib.linalg.cholesky(_spd(lib, a), upper=upper), upper=upper)


def _triangular_legacy(lib, b, a, upper=True, **kwargs):
    tri = a.triu() if upper else a.tril()
    return lib.triangular_solve(b, tri, upper=upper, **kwargs)


ENTRIES += [
    _legacy("det", _PLAIN),
    _legacy("logdet", lambda dtype, make: [Sample(_square(make, (3, 3)))],
            grad_dtypes=FLOATS, dtypes=FLOATS),
    _legacy("slogdet", _PLAIN),
    _legacy("inverse", _PLAIN, out=True),
    _legacy("matrix_exp", lambda dtype, make: [Sample(make((3, 3), low=-1, high=1))],
            skips={"forward": ("PyTorch's half matrix_exp overflows to inf (see linalg_"
                               "matrix_exp)", HALFS)}),
    _legacy("matrix_power", lambda dtype, make: [Sample(_square(make, (3, 3)), 3),
                                                 Sample(_square(make, (2, 3, 3)), -2)]),
    _legacy("pinverse", lambda dtype, make: [Sample(make((4, 3), low=-1, high=1))],
            grad_dtypes=FLOATS),
    _legacy("cholesky_solve", lambda dtype, make: [
        Sample(make((3, 2)), make((3, 3), low=-1, high=1)),
        Sample(make((3, 2)), make((3, 3), low=-1, high=1), upper=True)],
        call=_cholesky_solve, method=False, grad_dtypes=FLOATS, check_grad_fn=False),
    _legacy("cholesky_inverse", lambda dtype, make: [
        Sample(make((3, 3), low=-1, high=1)), Sample(make((3, 3), low=-1, high=1), upper=True)],
        call=_cholesky_inverse, method=False, grad_dtypes=FLOATS, check_grad_fn=False),
    _legacy("triangular_solve", lambda dtype, make: [
        Sample(make((3, 2)), _square(make, (3, 3))),
        Sample(make((3, 2)), _square(make, (3, 3)), upper=False, transpose=True)],
        call=_triangular_legacy, method=False, check_grad_fn=False),
]
