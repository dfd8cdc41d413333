"""One 2-D NumPy matrix goes to SciPy's LAPACK directly (gesv, gesdd, syevd/heevd); batches,
empty matrices and failures take the ``numpy.linalg`` path. Both paths give PyTorch's results
(values within float rounding, gradients, ``out=``, errors)."""

import numpy as np
import pytest
import torch

import cinder

from oracle import check

RNG = np.random.default_rng(46)
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def _matrix(shape, dtype):
    a = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def _both(arr):
    return cinder.from_numpy(arr.copy()), torch.from_numpy(arr.copy())


def _close(got, want, dtype):
    tol = 1e-4 if np.dtype(dtype).itemsize <= 8 and np.dtype(dtype).kind != "c" or \
        np.dtype(dtype) == np.complex64 else 1e-10
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", [(), (2,)])
def test_solve_one_matrix_and_batches(dtype, batch):
    n = 6
    a = _matrix(batch + (n, n), dtype) + 4 * np.eye(n, dtype=dtype)
    b = _matrix(batch + (n, 3), dtype)
    (ca, ta), (cb, tb) = _both(a), _both(b)
    for left in (True, False):
        rhs_c, rhs_t = (cb, tb) if left else (cb.mT, tb.mT)
        _close(cinder.linalg.solve(ca, rhs_c, left=left).numpy(),
               torch.linalg.solve(ta, rhs_t, left=left).resolve_conj().numpy(), dtype)
    _close(cinder.linalg.solve(ca, cb[..., 0]).numpy(), torch.linalg.solve(ta, tb[..., 0]).numpy(),
           dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 5), (6, 4), (4, 6), (2, 5, 3), "transposed"])
def test_svd_one_matrix_and_batches(dtype, shape):
    if shape == "transposed":           # a column-major matrix: LAPACK reads it as it is
        ca, ta = _both(_matrix((4, 6), dtype))
        ca, ta, shape = ca.mT, ta.mT, (6, 4)
    else:
        ca, ta = _both(_matrix(shape, dtype))
    for full in (True, False):
        got, want = cinder.linalg.svd(ca, full_matrices=full), torch.linalg.svd(ta, full)
        for g, w in zip(got, want):
            assert tuple(g.shape) == tuple(w.shape)
        _close(got.S.numpy(), want.S.numpy(), dtype)
        k = min(shape[-2:])
        # the factors agree up to a phase per singular pair: compare the reconstruction
        rebuilt = (got.U[..., :k] * got.S.to(got.U.dtype).unsqueeze(-2)) @ got.Vh[..., :k, :]
        _close(rebuilt.numpy(), ta.numpy(), dtype)
    _close(cinder.linalg.svdvals(ca).numpy(), torch.linalg.svdvals(ta).numpy(), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", [(), (3,), (1,)])
def test_eigh_reads_one_triangle(dtype, batch):
    # not Hermitian: each UPLO must read only its own triangle, on both paths
    ca, ta = _both(_matrix(batch + (5, 5), dtype))
    if batch == (1,):                   # a column-major matrix: LAPACK reads it as it is
        ca, ta = ca[0].mT, ta[0].mT
        batch = ()
    for uplo in ("L", "U"):
        got, want = cinder.linalg.eigh(ca, UPLO=uplo), torch.linalg.eigh(ta, UPLO=uplo)
        _close(got.eigenvalues.numpy(), want.eigenvalues.numpy(), dtype)
        _close(cinder.linalg.eigvalsh(ca, UPLO=uplo).numpy(),
               torch.linalg.eigvalsh(ta, UPLO=uplo).numpy(), dtype)
        # eigenvectors agree up to a phase per column
        inner = (got.eigenvectors.mH @ torch_to_cinder(want.eigenvectors)).abs()
        _close(inner.diagonal(0, -2, -1).numpy(), np.ones(batch + (5,), inner.numpy().dtype),
               dtype)


def torch_to_cinder(t):
    return cinder.from_numpy(t.numpy().copy())


def test_grads_and_out_on_the_direct_path():
    a = RNG.standard_normal((4, 4))
    sym = a + a.T
    for fn in ("lambda L, x: L.linalg.eigh(x).eigenvalues.sum() + "
               "L.linalg.eigh(x).eigenvectors.abs().sum()",
               "lambda L, x: L.linalg.svd(x).S.sum()",
               "lambda L, x: L.linalg.solve(x, L.ones(4, 2, dtype=x.dtype)).sum()"):
        grads = []
        for lib in (cinder, torch):
            x = lib.from_numpy(sym.copy()).requires_grad_()
            eval(fn)(lib, x).backward()
            grads.append(x.grad.numpy())
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-9, atol=1e-9)
    c = cinder.from_numpy(sym.copy())
    vals, vecs = cinder.empty(4, dtype=cinder.float64), cinder.empty(4, 4, dtype=cinder.float64)
    res = cinder.linalg.eigh(c, out=(vals, vecs))
    assert res.eigenvalues is vals and res.eigenvectors is vecs
    np.testing.assert_allclose(vals.numpy(), np.linalg.eigvalsh(sym), rtol=1e-12)
    x = cinder.empty(4, 2, dtype=cinder.float64)
    assert cinder.linalg.solve(c, cinder.ones(4, 2, dtype=cinder.float64), out=x) is x
    np.testing.assert_allclose(sym @ x.numpy(), np.ones((4, 2)), atol=1e-9)


def test_failures_keep_their_errors():
    env = {"s": np.array([[1.0, 2.0], [2.0, 4.0]]), "b": np.ones((2, 1)),
           "e": np.zeros((0, 0), np.float32)}
    messages = []
    for lib in (cinder, torch):
        with pytest.raises(lib.linalg.LinAlgError) as info:
            lib.linalg.solve(lib.from_numpy(env["s"]), lib.from_numpy(env["b"]))
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    check("L.linalg.solve_ex(L.from_numpy(s), L.from_numpy(b)).info", env)
    check("L.linalg.svd(L.from_numpy(e))", env)
    check("L.linalg.eigh(L.from_numpy(e)).eigenvalues", env)
    check("L.linalg.solve(L.from_numpy(s).float(), L.from_numpy(b))", env)
