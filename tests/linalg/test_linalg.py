"""torch.linalg against PyTorch: values, dtypes and shapes of results (or of invariant
quantities where a decomposition is unique only up to signs/phases), gradients of the same
loss in both libraries, float64 gradcheck, and the exception types of bad inputs."""
# ruff: noqa: B023  (each lambda in a loop is called within its own iteration)

import numpy as np
import pytest
import torch

import cinder

RNG = np.random.default_rng(0)


def rand(*shape, dtype="float64"):
    a = RNG.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def spd(*shape, dtype="float64"):
    a = rand(*shape, dtype=dtype)
    return a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])


def herm(*shape, dtype="float64"):
    a = rand(*shape, dtype=dtype)
    return a + np.conj(np.swapaxes(a, -1, -2))


def _tensors(lib, arrays, grad):
    out = []
    for a in arrays:
        t = lib.tensor(np.array(a)) if isinstance(a, np.ndarray) else a
        if grad and isinstance(a, np.ndarray) and a.dtype.kind in "fc":
            t.requires_grad_(True)
        out.append(t)
    return out


def _flat(r):
    if isinstance(r, (tuple, list)):
        return [x for item in r for x in _flat(item)]
    return [r]


def _np(t):
    return np.asarray(t.detach().resolve_conj().numpy()) if hasattr(t, "detach") else \
        np.asarray(t)


def check(fn, arrays, *, post=None, grad=True, rtol=1e-6, atol=1e-6, type_name=True):
    """Run ``fn(lib, *tensors)`` in both libraries; compare (post-processed) results and
    the gradients of a fixed weighted sum of them."""
    results = {}
    for lib in (torch, cinder):
        ts = _tensors(lib, arrays, grad)
        r = fn(lib, *ts)
        if type_name and isinstance(r, tuple):
            results.setdefault("type", []).append(type(r).__name__)
        vals = _flat(post(lib, r) if post else r)
        grads = None
        if grad:
            w = np.random.default_rng(1)
            loss = 0
            for v in vals:
                if hasattr(v, "requires_grad") and v.requires_grad:
                    weights = lib.tensor(w.standard_normal(tuple(v.shape)))
                    term = v * weights.to(v.dtype)
                    loss = loss + (term.real if v.is_complex() else term).sum()
            if not isinstance(loss, int):
                leaves = [t for t in ts if hasattr(t, "requires_grad") and t.requires_grad]
                grads = lib.autograd.grad(loss, leaves, allow_unused=True)
        results[lib.__name__] = (vals, grads)
    if "type" in results:
        assert results["type"][0] == results["type"][1]
    (tv, tg), (cv, cg) = results["torch"], results["cinder"]
    assert len(tv) == len(cv)
    for t, c in zip(tv, cv):
        if hasattr(t, "dtype"):
            assert str(c.dtype) == str(t.dtype), (c.dtype, t.dtype)
            assert tuple(c.shape) == tuple(t.shape)
        np.testing.assert_allclose(_np(c), _np(t), rtol=rtol, atol=atol)
    if tg is not None or cg is not None:
        for t, c in zip(tg, cg):
            if t is None:
                assert c is None or not np.any(_np(c))
                continue
            np.testing.assert_allclose(_np(c), _np(t), rtol=1e-5, atol=1e-6)


def gradcheck(fn, arrays):
    ts = _tensors(cinder, arrays, True)
    assert cinder.autograd.gradcheck(lambda *a: fn(cinder, *a), ts)


# ----------------------------------------------------------------------------------------------

DT = ["float64", "complex128"]


@pytest.mark.parametrize("dtype", DT)
def test_inv_solve_det(dtype):
    A = rand(2, 3, 3, dtype=dtype)
    check(lambda L, a: L.linalg.inv(a), [A])
    check(lambda L, a: L.inverse(a), [A])
    check(lambda L, a: L.linalg.inv_ex(a), [A])
    check(lambda L, a: L.linalg.det(a), [A])
    check(lambda L, a: a.det(), [A])
    check(lambda L, a: L.linalg.slogdet(a), [A])
    check(lambda L, a, b: L.linalg.solve(a, b), [A, rand(2, 3, 2, dtype=dtype)])
    check(lambda L, a, b: L.linalg.solve(a, b), [A, rand(2, 3, dtype=dtype)])
    check(lambda L, a, b: L.linalg.solve(a, b), [A, rand(3, dtype=dtype)])
    check(lambda L, a, b: L.linalg.solve(a, b, left=False), [A, rand(2, 4, 3, dtype=dtype)])
    check(lambda L, a, b: L.linalg.solve_ex(a, b), [A[0], rand(3, 1, dtype=dtype)])


def test_float32_and_logdet():
    A = rand(3, 3, dtype="float32")
    check(lambda L, a: L.linalg.inv(a), [A], rtol=1e-4, atol=1e-5)
    check(lambda L, a: L.linalg.svdvals(a), [A], rtol=1e-4, atol=1e-5)
    P = spd(3, 3)
    check(lambda L, a: L.logdet(a), [P])
    check(lambda L, a: L.logdet(a), [-np.eye(3)], grad=False)


@pytest.mark.parametrize("dtype", DT)
def test_cholesky_family(dtype):
    P = spd(2, 3, 3, dtype=dtype)
    check(lambda L, a: L.linalg.cholesky(a), [P])
    check(lambda L, a: L.linalg.cholesky(a, upper=True), [P])
    check(lambda L, a: L.linalg.cholesky_ex(a), [P])
    check(lambda L, a: L.cholesky(a), [P])
    B = rand(2, 3, 2, dtype=dtype)
    check(lambda L, a, b: L.cholesky_solve(b, L.linalg.cholesky(a)), [P, B])
    check(lambda L, a: L.cholesky_inverse(L.linalg.cholesky(a)), [P])


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("upper,left,unit", [(True, True, False), (False, False, False),
                                             (False, True, True)])
def test_solve_triangular(dtype, upper, left, unit):
    A = rand(2, 3, 3, dtype=dtype) + 3 * np.eye(3)
    B = rand(2, 3, 4, dtype=dtype) if left else rand(2, 4, 3, dtype=dtype)
    check(lambda L, a, b: L.linalg.solve_triangular(a, b, upper=upper, left=left,
                                                    unitriangular=unit), [A, B])


@pytest.mark.parametrize("upper,transpose,unit", [(True, False, False), (False, True, False),
                                                  (True, True, True)])
def test_triangular_solve(upper, transpose, unit):
    A = rand(2, 3, 3) + 3 * np.eye(3)
    check(lambda L, b, a: L.triangular_solve(b, a, upper, transpose, unit), [rand(2, 3, 2), A])
    check(lambda L, b, a: b.triangular_solve(a, upper=upper), [rand(3, 4), A[0]])


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 3, 3)])
def test_qr(dtype, shape):
    A = rand(*shape, dtype=dtype)
    # Q and R from the same LAPACK routine agree; compare them and their gradients
    check(lambda L, a: L.linalg.qr(a), [A])
    check(lambda L, a: L.linalg.qr(a, mode="complete").R, [A], grad=shape[0] == shape[1])
    check(lambda L, a: L.qr(a), [A])


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
def test_svd(dtype, shape):
    A = rand(*shape, dtype=dtype)
    check(lambda L, a: L.linalg.svdvals(a), [A])
    check(lambda L, a: L.linalg.svd(a, full_matrices=False)[1], [A])

    def invariant(L, r):    # U diag(S) Vh-products that do not depend on the phases
        U, S, Vh = r
        return [S, (U * S.to(U.dtype).unsqueeze(-2)) @ Vh, (U @ Vh).abs(),
                (U.abs() ** 2), (Vh.abs() ** 2)]
    check(lambda L, a: L.linalg.svd(a, full_matrices=False), [A], post=invariant)
    check(lambda L, a: L.svd(a).S, [A])


@pytest.mark.parametrize("dtype", DT)
def test_eigh(dtype):
    H = herm(2, 4, 4, dtype=dtype)
    check(lambda L, a: L.linalg.eigvalsh(a), [H])
    check(lambda L, a: L.linalg.eigh(a),
          [H], post=lambda L, r: [r[0], r[1].abs() ** 2, r[1] @ r[1].mH * 2])
    check(lambda L, a: L.linalg.eigh(a, UPLO="U").eigenvalues, [H])


def test_eig():
    A = rand(3, 3)
    check(lambda L, a: L.linalg.eigvals(a), [A],
          post=lambda L, r: [r.abs().sort().values], grad=True)
    check(lambda L, a: L.linalg.eig(a), [A],
          post=lambda L, r: [r[1].abs(), r[0]])


def test_complex_phase_dependent_loss_raises():
    H = cinder.tensor(herm(3, 3, dtype="complex128"), requires_grad=True)
    V = cinder.linalg.eigh(H).eigenvectors
    with pytest.raises(RuntimeError, match="e\\^\\{i phi\\}"):
        V.real.sum().backward()
    A = cinder.tensor(rand(3, 3, dtype="complex128"), requires_grad=True)
    U = cinder.linalg.svd(A).U
    with pytest.raises(RuntimeError, match="e\\^\\{i phi\\}"):
        U.real.sum().backward()


def test_lu_family():
    A = rand(2, 4, 4)
    check(lambda L, a: L.linalg.lu_factor(a), [A])
    check(lambda L, a: L.linalg.lu(a), [A])
    check(lambda L, a: L.linalg.lu(a), [rand(4, 3)], grad=False)
    check(lambda L, a: L.linalg.lu(a), [rand(2, 5)], grad=False)
    check(lambda L, a: L.linalg.lu_factor_ex(a), [rand(3, 5)], grad=False)
    check(lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a)), [A])
    B = rand(2, 4, 2)
    for kw in ({}, {"adjoint": True}, {"left": False}):
        b = B if "left" not in kw else rand(2, 3, 4)
        check(lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, **kw), [A, b])
    check(lambda L, a, b: L.lu_solve(b, *L.linalg.lu_factor(a)), [A, B])


@pytest.mark.parametrize("dtype,hermitian", [("float64", False), ("complex128", True),
                                             ("complex128", False)])
def test_ldl(dtype, hermitian):
    a = rand(2, 4, 4, dtype=dtype)
    a = a + (np.conj(np.swapaxes(a, -1, -2)) if hermitian else np.swapaxes(a, -1, -2))
    check(lambda L, x: L.linalg.ldl_factor(x, hermitian=hermitian), [a], grad=False)
    check(lambda L, x: L.linalg.ldl_factor_ex(x, hermitian=hermitian), [a], grad=False)
    b = rand(2, 4, 3, dtype=dtype)
    check(lambda L, x, y: L.linalg.ldl_solve(*L.linalg.ldl_factor(x, hermitian=hermitian), y,
                                             hermitian=hermitian), [a, b], grad=False)


def test_matrix_functions():
    A = rand(2, 3, 3) / 2
    check(lambda L, a: L.linalg.matrix_exp(a), [A])
    check(lambda L, a: L.matrix_exp(a), [rand(3, 3, dtype="complex128")])
    for n in (0, 1, 3, -2):
        check(lambda L, a: L.linalg.matrix_power(a, n), [A])
    check(lambda L, a, b, c: L.linalg.multi_dot([a, b, c]), [rand(3), rand(3, 5), rand(5, 2)])
    check(lambda L, a, b: L.linalg.cross(a, b), [rand(4, 3), rand(4, 3)])
    check(lambda L, a, b: L.linalg.cross(a, b, dim=1), [rand(3, 3, 2), rand(3, 3, 2)])
    check(lambda L, a, b: L.linalg.vecdot(a, b), [rand(2, 4, dtype="complex128"),
                                                   rand(2, 4, dtype="complex128")])
    check(lambda L, a: L.linalg.vander(a), [rand(4)])
    check(lambda L, a: L.linalg.vander(a, N=2), [rand(2, 3)])
    check(lambda L, a: L.linalg.tensorinv(a, ind=2), [rand(4, 2, 2, 4)])
    check(lambda L, a, b: L.linalg.tensorsolve(a, b), [rand(6, 2, 3), rand(6)])
    check(lambda L, a: L.linalg.diagonal(a, offset=1), [rand(2, 3, 3)])
    q = rand(5, 3)
    check(lambda L, a, t: L.linalg.householder_product(a, t), [q, rand(2)])


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, float("inf"), -float("inf")])
def test_matrix_norms(ord):
    A = rand(2, 3, 4)
    check(lambda L, a: L.linalg.matrix_norm(a, ord if ord is not None else "fro"), [A])
    check(lambda L, a: L.linalg.matrix_norm(a, ord or "fro", dim=(0, 2), keepdim=True), [A])
    check(lambda L, a: L.linalg.norm(a[0], ord), [A])
    if ord not in ("fro", "nuc"):
        # (PyTorch's own backward of cond fails for the 1/inf orders: compare values only)
        check(lambda L, a: L.linalg.cond(a[..., :3], ord), [A], grad=ord in (None, 2, -2))


def test_vector_norm_names():
    check(lambda L, a: L.linalg.vector_norm(a, 3, dim=1), [rand(3, 4)])
    check(lambda L, a: L.linalg.norm(a, 1, dim=1), [rand(3, 4)])
    check(lambda L, a: L.linalg.norm(a), [rand(3, 4, 2)])


@pytest.mark.parametrize("hermitian", [False, True])
def test_pinv_rank_lstsq(hermitian):
    A = herm(2, 4, 4) if hermitian else rand(2, 5, 3)
    check(lambda L, a: L.linalg.pinv(a, hermitian=hermitian), [A])
    check(lambda L, a: L.linalg.matrix_rank(a, hermitian=hermitian), [A], grad=False)
    low = rand(4, 2) @ rand(2, 4)
    check(lambda L, a: L.linalg.matrix_rank(a), [low], grad=False)
    check(lambda L, a: L.linalg.pinv(a), [low], grad=False)
    check(lambda L, a: L.pinverse(a), [rand(3, 5)])
    check(lambda L, a, b: L.linalg.lstsq(a, b), [rand(2, 5, 3), rand(2, 5, 2)])
    check(lambda L, a, b: L.linalg.lstsq(a, b, driver="gelsd"), [rand(5, 3), rand(5, 2)])


def test_gradcheck_float64():
    A = rand(3, 3)
    gradcheck(lambda L, a: L.linalg.inv(a), [A])
    gradcheck(lambda L, a: L.linalg.det(a), [A])
    gradcheck(lambda L, a, b: L.linalg.solve(a, b), [A, rand(3, 2)])
    gradcheck(lambda L, a: L.linalg.cholesky(a @ a.mT + 3 * L.eye(3, dtype=a.dtype)), [A])
    gradcheck(lambda L, a: L.linalg.qr(a), [rand(4, 3)])
    gradcheck(lambda L, a: L.linalg.eigh(a + a.mT)[0], [A])
    gradcheck(lambda L, a: L.linalg.svdvals(a), [rand(4, 3)])
    gradcheck(lambda L, a: L.linalg.matrix_exp(a), [A / 2])
    gradcheck(lambda L, a: L.linalg.lu(a)[1:], [A])


def test_second_order():
    check(lambda L, a: L.autograd.grad(L.linalg.inv(a).sum(), a, create_graph=True)[0],
          [rand(3, 3)])
    check(lambda L, a: L.autograd.grad(L.linalg.det(a), a, create_graph=True)[0], [rand(3, 3)])


def _raises_like(fn, *arrays):
    kinds = []
    for lib in (torch, cinder):
        ts = [lib.tensor(a) for a in arrays]
        with pytest.raises(Exception) as info:
            fn(lib, *ts)
        kinds.append(info)
    t, c = kinds
    assert isinstance(c.value, RuntimeError)
    assert str(c.value).splitlines()[0] == str(t.value).splitlines()[0], (c.value, t.value)
    assert (type(t.value).__name__ == "_LinAlgError") == isinstance(c.value,
                                                                    cinder.linalg.LinAlgError)


def test_errors():
    sing = np.ones((2, 2))
    _raises_like(lambda L, a: L.linalg.inv(a), sing)
    _raises_like(lambda L, a: L.linalg.inv(a), np.stack([np.eye(2), sing]))
    _raises_like(lambda L, a: L.linalg.inv(a), np.ones((2, 3)))
    _raises_like(lambda L, a: L.linalg.inv(a), np.ones((2, 2), np.int64))
    _raises_like(lambda L, a, b: L.linalg.solve(a, b), sing, np.ones(2))
    _raises_like(lambda L, a, b: L.linalg.solve(a, b), np.eye(2), np.ones(3))
    _raises_like(lambda L, a, b: L.linalg.solve(a, b), np.eye(2), np.ones(2, np.float32))
    _raises_like(lambda L, a: L.linalg.cholesky(a), -np.eye(2))
    _raises_like(lambda L, a: L.linalg.cholesky(a), np.stack([np.eye(2), -np.eye(2)]))
    _raises_like(lambda L, a: L.linalg.svd(a), np.ones(3))
    _raises_like(lambda L, a: L.linalg.eigh(a), np.ones(3))
    _raises_like(lambda L, a: L.linalg.det(a), np.ones((2, 3)))
    _raises_like(lambda L, a: L.linalg.qr(a, mode="x"), np.ones((3, 2)))
    _raises_like(lambda L, a, b: L.linalg.cross(a, b), np.ones((2, 2)), np.ones((2, 2)))
    _raises_like(lambda L, a: L.linalg.matrix_exp(a), np.ones((2, 3)))
    assert issubclass(cinder.linalg.LinAlgError, RuntimeError)


def test_out_and_infos():
    A = rand(3, 3)
    for lib in (torch, cinder):
        out = lib.empty(0, dtype=lib.float64)
        r = lib.linalg.inv(lib.tensor(A), out=out)
        assert r is out
        np.testing.assert_allclose(_np(out), np.linalg.inv(A), rtol=1e-10)
        inv, info = lib.linalg.inv_ex(lib.tensor(np.ones((2, 2))))
        assert int(info) == 2 and str(info.dtype) == "torch.int32"
        L, info = lib.linalg.cholesky_ex(lib.tensor(-np.eye(2)))
        assert int(info) == 1


# The op-table rows behind each public name (the coverage test reads this file for them).
OP_ROWS = {
    "linalg_cholesky": "cholesky", "linalg_cholesky_ex": "cholesky_ex", "linalg_cond": "cond",
    "linalg_cross": "cross", "linalg_det": "det", "linalg_diagonal": "diagonal",
    "linalg_eig": "eig", "linalg_eigh": "eigh", "linalg_eigvals": "eigvals",
    "linalg_eigvalsh": "eigvalsh", "linalg_householder_product": "householder_product",
    "linalg_ldl_factor": "ldl_factor", "linalg_ldl_factor_ex": "ldl_factor_ex",
    "linalg_ldl_solve": "ldl_solve",
    "linalg_inv": "inv", "linalg_inv_ex": "inv_ex", "linalg_lstsq": "lstsq", "linalg_lu": "lu",
    "linalg_lu_factor": "lu_factor", "linalg_lu_factor_ex": "lu_factor_ex",
    "linalg_lu_solve": "lu_solve", "linalg_matrix_exp": "matrix_exp",
    "linalg_matrix_norm": "matrix_norm", "linalg_matrix_power": "matrix_power",
    "linalg_matrix_rank": "matrix_rank", "linalg_multi_dot": "multi_dot", "linalg_norm": "norm",
    "linalg_pinv": "pinv", "linalg_qr": "qr", "linalg_slogdet": "slogdet", "linalg_solve": "solve",
    "linalg_solve_ex": "solve_ex", "linalg_solve_triangular": "solve_triangular",
    "linalg_svd": "svd", "linalg_svdvals": "svdvals", "linalg_tensorinv": "tensorinv",
    "linalg_tensorsolve": "tensorsolve", "linalg_vander": "vander", "linalg_vecdot": "vecdot",
}
LEGACY = ("cholesky", "cholesky_inverse", "cholesky_solve", "det", "inverse", "logdet",
          "lu", "lu_solve", "lu_unpack", "matrix_exp", "matrix_power", "orgqr", "pinverse", "qr",
          "slogdet", "svd", "triangular_solve")


def test_namespace_matches_op_table():
    """Every torch.linalg name is published from its op-table row, and every public name of
    torch.linalg exists in cinder.linalg; legacy names exist where PyTorch has them."""
    from cinder.ops import OPS
    for row, public in OP_ROWS.items():
        assert getattr(cinder.linalg, public) is OPS[row].function
    missing = [n for n in dir(torch.linalg) if not n.startswith("_") and
               not hasattr(cinder.linalg, n) and n != "common_notes"]
    assert missing == []
    for name in LEGACY:
        assert hasattr(cinder, name) == hasattr(torch, name), name
        if hasattr(torch.Tensor, name) and name != "lu_unpack":
            assert hasattr(cinder.Tensor, name), name


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_factor_gradient_is_the_full_matrix(upper):
    """PyTorch's cholesky_solve differentiates the factor as a full matrix (its formula does
    not mask the triangle the solves read); batched factor, broadcast right-hand side."""
    rng = np.random.RandomState(2)
    tri = np.tril(rng.rand(2, 3, 3)) + 2 * np.eye(3)
    factor = tri.transpose(0, 2, 1).copy() if upper else tri
    rhs = rng.rand(3, 2)
    grads = []
    for lib in (cinder, torch):
        f = lib.tensor(factor, requires_grad=True)
        b = lib.tensor(rhs, requires_grad=True)
        x = lib.cholesky_solve(b, f, upper)
        (x * x.detach().cos()).sum().backward()
        grads.append((type(x.grad_fn).__name__, x.detach().numpy(), f.grad.numpy(),
                      b.grad.numpy()))
    assert grads[0][0] == grads[1][0]
    for mine, theirs in zip(grads[0][1:], grads[1][1:]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["int64", "bool", "float16", "bfloat16"])
def test_geqrf_householder_product_refuse_non_float_like_pytorch(dtype):
    """Both reach a LAPACK kernel with no such version: PyTorch's NotImplementedError."""
    for fname, call in (("geqrf", lambda L, a: L.geqrf(a)),
                        ("orgqr", lambda L, a: L.linalg.householder_product(a, a[:, 0]))):
        errors = []
        for L in (torch, cinder):
            with pytest.raises(NotImplementedError) as info:
                call(L, L.ones(3, 3, dtype=getattr(L, dtype)))
            errors.append(str(info.value))
        assert errors[0] == errors[1] and f"{fname}_cpu" in errors[0]
