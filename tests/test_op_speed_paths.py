"""The faster kernels of bench/bench_ops.py's fourth pass give PyTorch's results on the layouts
and dtypes they take and on the ones they leave to the general path: einsum's one-operand sums
as a product with ones, logsumexp, cdist."""

import numpy as np
import pytest
import torch

import cinder

RNG = np.random.default_rng(64)


def _both(arr):
    return cinder.from_numpy(arr.copy()), torch.from_numpy(arr.copy())


def _same_values(got, want, tol):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# (sums of arrays from 2**14 elements take the gemv; the small shapes the reduction)
@pytest.mark.parametrize("eq,shape", [("ij->j", (7, 5)), ("ij->i", (7, 5)), ("ijk->k", (3, 4, 5)),
                                      ("ij->j", (200, 90)), ("ij->i", (90, 200)),
                                      ("ijk->k", (30, 40, 15)), ("ijk->jk", (30, 40, 15)),
                                      ("ijk->i", (30, 40, 15)), ("ijk->ik", (30, 40, 15)),
                                      ("ijk->", (30, 40, 15)), ("ji->j", (200, 90))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.float16, np.complex64])
def test_einsum_sums(eq, shape, dtype):
    if dtype is np.float16 and np.prod(shape) > 100:
        pytest.skip("long float16 sums round differently in each library's reduction order")
    arr = (RNG.standard_normal(shape) * 4).astype(dtype)
    c, t = _both(arr)
    tol = 1e-2 if dtype is np.float16 else 1e-4
    _same_values(cinder.einsum(eq, c).numpy(), torch.einsum(eq, t).numpy(), tol)
    # a transposed (not C-contiguous) operand takes the general path
    _same_values(cinder.einsum(eq, c.mT if c.dim() == 2 else c.transpose(0, 2)).numpy(),
                 torch.einsum(eq, t.mT if t.dim() == 2 else t.transpose(0, 2)).numpy(), tol)


def test_einsum_sum_grad_and_empty():
    arr = RNG.standard_normal((4, 3))
    grads = []
    for lib in (cinder, torch):
        x = lib.from_numpy(arr.copy()).requires_grad_()
        (lib.einsum("ij->j", x) * lib.arange(3.0, dtype=lib.float64)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
    c, t = _both(np.zeros((0, 3), np.float32))
    _same_values(cinder.einsum("ij->j", c).numpy(), torch.einsum("ij->j", t).numpy(), 0)


@pytest.mark.parametrize("dim", [1, 0, (1, 2), (0, 1), 2, (0, 2), -1])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_logsumexp_dims(dim, keepdim, dtype):
    arr = (RNG.standard_normal((30, 40, 15)) * 3).astype(dtype)    # (gemv sums from 2**14)
    arr[0, 1, 2] = -np.inf
    c, t = _both(arr)
    tol = 2e-2 if dtype is np.float16 else 1e-5
    _same_values(cinder.logsumexp(c, dim, keepdim).numpy(),
                 torch.logsumexp(t, dim, keepdim).numpy(), tol)
    # a permuted (not C-contiguous) input takes the reduction path
    _same_values(cinder.logsumexp(c.permute(2, 0, 1), dim, keepdim).numpy(),
                 torch.logsumexp(t.permute(2, 0, 1), dim, keepdim).numpy(), tol)


@pytest.mark.parametrize("scale", [1.0, 1e-20, 3e18])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [30, 150])
def test_cdist_gemm_clamp(scale, dtype, rows):
    # near-duplicate points make small negative squared distances that must clamp to 0;
    # 150 x 120 distances take the (d2 + |d2|) / 2 clamp, 30 x 10 NumPy's maximum, and so do
    # float32 coordinates near 3e18 (doubling their squared distances could overflow)
    a = (RNG.standard_normal((rows, 3)) * scale).astype(dtype)
    b = np.concatenate([a[:10], (RNG.standard_normal((rows - 30, 3)) * scale).astype(dtype)])
    (ca, ta), (cb, tb) = _both(a), _both(b)
    got = cinder.cdist(ca, cb).numpy()
    want = torch.cdist(ta, tb).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    # (a near-duplicate pair's distance is the square root of the GEMM's rounding residue,
    # about sqrt(eps) * |a|, in either library)
    near = 2e-3 if dtype is np.float32 else 1e-7
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=near * scale)
    assert (got[np.isfinite(got)] >= 0).all()
