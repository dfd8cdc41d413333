"""The fast kernels behind bench/bench_ops.py give PyTorch's results exactly: float32 scans
accumulated as PyTorch does, the stable sort's tie order on long inputs, unique's NaNs,
repeat_interleave's no-graph path, einsum's routing, cdist's GEMM formula and the one-pass
bounds checks of gather/scatter/index_add."""

import numpy as np
import pytest
import torch

import cinder

from oracle import check

RNG = np.random.default_rng(6)


def both(arr):
    return cinder.from_numpy(arr.copy()), torch.from_numpy(arr.copy())


def same(c, t):
    """Equal bit for bit (NaN == NaN, signs of zero included), same dtype and shape."""
    a, b = c.numpy(), t.numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a, b, equal_nan=True)
    if a.dtype.kind == "f":
        assert np.array_equal(np.signbit(a), np.signbit(b))


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.complex64, np.int32])
def test_scans_bit_exact(op, dtype):
    # factors near 1 keep long products finite; float32 accumulated in float32 would differ
    # from PyTorch's double accumulator in most of these 20000 elements
    x = RNG.uniform(0.999, 1.001, (4, 5000))
    if dtype is np.complex64:
        x = x + 1j * RNG.uniform(-1e-3, 1e-3, x.shape)
    elif dtype is np.int32:
        x = RNG.integers(-3, 4, x.shape)
    c, t = both(x.astype(dtype))
    for dim in (0, 1, -1):
        got, want = getattr(cinder, op)(c, dim), getattr(torch, op)(t, dim)
        if dtype is np.complex64 and op == "cumprod":
            # (complex<double> products round differently in rare last bits: a small
            # imaginary part after cancellation)
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=0, atol=1e-7)
            assert got.dtype == cinder.complex64
        else:
            same(got, want)


def test_scan_dtype_argument_and_zero_dim():
    c, t = both(RNG.standard_normal(3000).astype(np.float32))
    same(cinder.cumsum(c, 0, dtype=cinder.float64), torch.cumsum(t, 0, dtype=torch.float64))
    c, t = both(np.array(2.5, np.float32))
    same(cinder.cumprod(c, 0), torch.cumprod(t, 0))


def _sort_inputs():
    x = RNG.standard_normal(20000)
    x[::7], x[::11], x[::13] = np.nan, 0.0, -0.0
    return [RNG.standard_normal(30000).astype(np.float32),
            np.round(RNG.standard_normal(30000), 2).astype(np.float32),   # many ties
            RNG.integers(0, 30000, 30000), RNG.integers(0, 5, 9000).astype(np.int32), x]


@pytest.mark.parametrize("case", range(5))
@pytest.mark.parametrize("descending", [False, True])
def test_long_stable_sort_matches(case, descending):
    c, t = both(_sort_inputs()[case])
    got = cinder.sort(c, stable=True, descending=descending)
    want = torch.sort(t, stable=True, descending=descending)
    same(got.values, want.values)
    same(got.indices, want.indices)
    same(cinder.argsort(c, descending=descending, stable=True),
         torch.argsort(t, descending=descending, stable=True))


def test_topk_matches():
    c, t = both(RNG.standard_normal((3, 4000)).astype(np.float32))
    for kwargs in ({}, {"largest": False}, {"dim": 0}, {"sorted": True, "largest": False}):
        got, want = cinder.topk(c, 3, **kwargs), torch.topk(t, 3, **kwargs)
        same(got.values, want.values)
        same(got.indices, want.indices)


@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("counts", [False, True])
def test_unique_keeps_nans_apart(inverse, counts):
    x = np.array([np.nan, 1.0, np.nan, 3.0, 1.0, -0.0, 0.0], np.float32)
    for arr in (x, x.reshape(7, 1), RNG.integers(0, 50, 3000), np.array([], np.float32)):
        c, t = both(arr)
        got = cinder.unique(c, return_inverse=inverse, return_counts=counts)
        want = torch.unique(t, return_inverse=inverse, return_counts=counts)
        for g, w in zip(*((got, want) if isinstance(got, tuple) else ((got,), (want,)))):
            assert np.array_equal(g.numpy(), w.numpy(), equal_nan=True)
            assert g.dtype.__repr__().split(".")[-1] == repr(w.dtype).split(".")[-1]


def test_repeat_interleave_forms():
    c, t = both(RNG.standard_normal((3, 4)).astype(np.float32))
    for args in ((2,), (3, 0), (2, 1), (0, -1)):
        same(c.repeat_interleave(*args), t.repeat_interleave(*args))
    same(cinder.repeat_interleave(cinder.tensor(5.0), 3), torch.repeat_interleave(
        torch.tensor(5.0), 3))
    c.requires_grad_()
    t.requires_grad_()
    rc, rt = c.repeat_interleave(2, 1), t.repeat_interleave(2, 1)
    assert type(rc.grad_fn).__name__ == type(rt.grad_fn).__name__
    w = RNG.standard_normal(rt.shape).astype(np.float32)
    (rc * cinder.from_numpy(w)).sum().backward()
    (rt * torch.from_numpy(w)).sum().backward()
    same(c.grad, t.grad)


@pytest.mark.parametrize("eq", ["bi,bi->b", "ij,jk->ik", "ij,j->i", "ij->j", "i,j->ij",
                                "bij,bjk->bik", "ij,jk,kl->il", "ii->i", "ji,kj->ik",
                                "bij,jk->kib", "ijk,jl->lki", "ij,ij->", "ij,jk", "ij->ji",
                                "ij->ij", "bij->jb", "ijk->", "ij"])
def test_einsum_routes_agree(eq):
    shapes = {"b": 3, "i": 5, "j": 5, "k": 4, "l": 2}
    arrays = [RNG.standard_normal([shapes[ch] for ch in term]).astype(np.float32)
              for term in eq.split("->")[0].split(",")]
    got = cinder.einsum(eq, *[cinder.from_numpy(a) for a in arrays])
    want = torch.einsum(eq, *[torch.from_numpy(a) for a in arrays])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    assert got.shape == want.shape


def test_einsum_matmul_route_errors_and_grads():
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((5, 2))
    check("L.einsum('ij,jk->ik', L.from_numpy(a), L.from_numpy(b))", {"a": a, "b": b})
    ca = cinder.from_numpy(a.copy()).requires_grad_()
    ta = torch.from_numpy(a.copy()).requires_grad_()
    w = RNG.standard_normal((4, 6))
    cinder.einsum("ij,jk->ki", ca, cinder.from_numpy(w)).square().sum().backward()
    torch.einsum("ij,jk->ki", ta, torch.from_numpy(w)).square().sum().backward()
    np.testing.assert_allclose(ca.grad.numpy(), ta.grad.numpy(), rtol=1e-12)
    # integer and bool sums keep einsum's dtypes; a permutation is a view of the operand, as
    # PyTorch's (writing into it writes into the operand)
    for arr in (RNG.integers(-9, 9, (3, 4)).astype(np.int32), RNG.integers(0, 2, (3, 4)) > 0):
        for eq in ("ij->j", "ij->ji"):
            check(f"L.einsum('{eq}', L.from_numpy(arr))", {"arr": arr})
    sums = []
    for lib in (cinder, torch):
        c = lib.ones(2, 3)
        c2 = lib.einsum("ij->ij", c)
        c2 += 1
        sums.append(c.sum().item())
    assert sums[0] == sums[1] == 12


def test_cdist_gemm_rule():
    a = RNG.standard_normal((60, 3)).astype(np.float32)
    b = RNG.standard_normal((40, 3)).astype(np.float32)
    for mode in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                 "donot_use_mm_for_euclid_dist"):
        got = cinder.cdist(cinder.from_numpy(a), cinder.from_numpy(b), compute_mode=mode)
        want = torch.cdist(torch.from_numpy(a), torch.from_numpy(b), compute_mode=mode)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("bad", [-1, 10, -11])
@pytest.mark.parametrize("expr", [
    "L.gather(L.zeros(10), 0, I)", "L.zeros(10).scatter_add(0, I, S)",
    "L.zeros(10).index_add(0, I, S)", "L.zeros(10, 3).index_add(0, I, L.ones(4, 3))",
    "L.zeros(10).index_add(0, I.int(), S)", "L.zeros(10).index_copy(0, I, S)",
    "L.zeros(10).index_fill(0, I, 2.0)", "L.zeros(10).index_reduce(0, I, S, 'prod')"])
def test_index_bounds_checked(bad, expr):
    # negative positions: only index_fill counts them from the end
    expr = expr.replace("I", "L.from_numpy(index)").replace("S", "L.from_numpy(src)")
    check(expr, {"src": np.ones(4, np.float32), "index": np.array([0, 3, bad, 1])})
