"""Long cumsum/cumprod runs (cinder/backend/scan.py): the blocked float64 scans agree with
PyTorch's sequential float64 scan within float64 rounding (float32 results within one float32
step), and every input where the orders could disagree by more (NaN, inf, zeros, overflow,
underflow) takes the exact sequential path and matches bit for bit."""

import numpy as np
import pytest
import torch

import cinder
from cinder.backend import scan as blocked
from oracle import check

RNG = np.random.default_rng(11)
LONG = 3 * blocked.MIN_LENGTH["multiply"] + 5          # a few blocks and a ragged tail


def both(arr):
    return cinder.from_numpy(arr.copy()), torch.from_numpy(arr.copy())


def close_scan(got, want, bound):
    """Same dtype and shape; each value within one step of the result's dtype plus
    ``bound`` (the float64 rounding a different summation order may add)."""
    a, b = got.detach().numpy(), want.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b))
    with np.errstate(invalid="ignore"):
        ok = np.isnan(b) | (a == b) | (np.abs(a - b) <= np.spacing(np.abs(b)) + bound)
    assert ok.all(), np.flatnonzero(~ok)[:5]


def exact(got, want):
    a, b = got.detach().numpy(), want.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a, b, equal_nan=True)


def sum_bound(x, dim):
    """Error bound of a float64 sum in any order: a few ulps of the running sum of |x|."""
    return 8 * np.finfo(np.float64).eps * np.cumsum(np.abs(x.astype(np.float64)), axis=dim)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [LONG, 1_000_003])
def test_long_cumsum(dtype, n):
    x = RNG.standard_normal(n).astype(dtype)
    c, t = both(x)
    close_scan(cinder.cumsum(c, 0), torch.cumsum(t, 0), sum_bound(x, 0))
    if dtype is np.float32:
        got = cinder.cumsum(c, 0).numpy()
        want = torch.cumsum(t, 0).numpy()
        assert (got != want).sum() <= n // 10000      # float32: nearly every value bit for bit


def prod_bound(y, n_factors):
    """Relative float64 error bound of a product of ``n_factors`` factors in any order."""
    return 4 * n_factors * np.finfo(np.float64).eps * np.abs(y.detach().numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_long_cumprod_with_signs(dtype):
    x = RNG.uniform(0.999, 1.001, LONG) * RNG.choice([-1.0, 1.0], LONG)
    c, t = both(x.astype(dtype))
    want = torch.cumprod(t, 0)
    close_scan(cinder.cumprod(c, 0), want, prod_bound(want, np.arange(1, LONG + 1)))


@pytest.mark.parametrize("special", [np.nan, np.inf, -np.inf, 0.0])
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_special_values_take_the_exact_path(special, op):
    x = RNG.uniform(0.999, 1.001, LONG).astype(np.float32)
    x[LONG // 2] = special
    x[LONG // 2 + 9] = -np.inf if special == np.inf else x[LONG // 2 + 9]
    c, t = both(x)
    exact(getattr(cinder, op)(c, 0), getattr(torch, op)(t, 0))


@pytest.mark.parametrize("values", [
    np.tile([1e308, 1e308, -1e308, -1e308], LONG // 4),    # an overflow inside a block
    np.tile([-1e308, 1e308, 1e308, -1e308], LONG // 4),
    np.tile([1.5e308, -1.5e308], LONG // 2)])
def test_float64_sum_overflow_matches(values):
    c, t = both(values)
    exact(cinder.cumsum(c, 0), torch.cumsum(t, 0))


@pytest.mark.parametrize("x", [
    RNG.standard_normal(LONG),                          # underflows to zero
    np.r_[np.full(LONG // 2, 1e150), np.full(LONG // 2, 1e-150)],
    np.tile([1e10, 1e-10, 3.0], LONG // 3)])
def test_cumprod_out_of_range_matches(x):
    for dtype in (np.float32, np.float64):
        c, t = both(x.astype(dtype))
        got, want = cinder.cumprod(c, 0), torch.cumprod(t, 0)
        close_scan(got, want, prod_bound(want, np.arange(1, x.size + 1)))


@pytest.mark.parametrize("shape, dim", [((3, LONG), 1), ((3, LONG), -1), ((LONG, 3), 0),
                                        ((2, LONG, 2), 1), ((40, 20000), 1)])
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_dims_of_nd_inputs(shape, dim, op):
    x = RNG.uniform(0.999, 1.001, shape).astype(np.float32)
    c, t = both(x)
    got, want = getattr(cinder, op)(c, dim), getattr(torch, op)(t, dim)
    bound = sum_bound(x, dim) if op == "cumsum" else prod_bound(want, shape[dim])
    close_scan(got, want, bound)
    assert got.is_contiguous() and got.stride() == want.stride()


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_non_contiguous_inputs(op):
    x = RNG.uniform(0.999, 1.001, (2 * LONG, 3)).astype(np.float32)
    c, t = both(x)
    for view in (lambda a: a[::2, 1], lambda a: a.t()[2], lambda a: a.flip(0)[:, 0]):
        got, want = getattr(cinder, op)(view(c), 0), getattr(torch, op)(view(t), 0)
        n = want.shape[0]
        bound = sum_bound(view(t).numpy(), 0) if op == "cumsum" else prod_bound(want, n)
        close_scan(got, want, bound)


def test_dtype_and_out():
    x = RNG.standard_normal(LONG).astype(np.float32)
    c, t = both(x)
    close_scan(cinder.cumsum(c, 0, dtype=cinder.float64),
               torch.cumsum(t, 0, dtype=torch.float64), sum_bound(x, 0))
    # (a narrower result: PyTorch rounds the input first; the exact path does the same)
    c64, t64 = both(x.astype(np.float64) * 1.1)
    exact(cinder.cumsum(c64, 0, dtype=cinder.float32), torch.cumsum(t64, 0, dtype=torch.float32))
    out_c, out_t = cinder.empty(0), torch.empty(0)
    r = cinder.cumsum(c, 0, out=out_c)
    torch.cumsum(t, 0, out=out_t)
    assert r is out_c
    close_scan(out_c, out_t, sum_bound(x, 0))
    p = RNG.uniform(0.999, 1.001, LONG).astype(np.float32)
    cp, tp = both(p)
    out_c, out_t = cinder.empty(0, dtype=cinder.float64), torch.empty(0, dtype=torch.float64)
    cinder.cumprod(cp, 0, dtype=cinder.float64, out=out_c)
    torch.cumprod(tp, 0, dtype=torch.float64, out=out_t)
    close_scan(out_c, out_t, prod_bound(out_t, np.arange(1, LONG + 1)))


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_gradients_of_long_runs(op):
    x = RNG.uniform(0.999, 1.001, LONG).astype(np.float32)
    g = RNG.standard_normal(LONG).astype(np.float32)
    c, t = both(x)
    c.requires_grad_(True)
    t.requires_grad_(True)
    getattr(cinder, op)(c, 0).backward(cinder.from_numpy(g))
    getattr(torch, op)(t, 0).backward(torch.from_numpy(g))
    np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_helpers_refuse_what_they_cannot_do_exactly():
    out = np.empty(LONG, np.float32)
    x = np.ones(LONG, np.float32)
    x[100] = np.nan
    assert blocked.running_scan("add", x[None], out[None]) is False
    x[100] = 0.0
    assert blocked.running_scan("multiply", x[None], out[None]) is False
    x[100] = 1.0
    assert blocked.running_scan("add", x[None], out[None]) is True
    np.testing.assert_array_equal(out, np.arange(1, LONG + 1, dtype=np.float32))


@pytest.mark.parametrize("shape, dim", [((300, 1000), 0), ((4, 300, 100), 1), ((16, 4096), 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.complex64])
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_wide_steps_along_leading_dims_are_exact(shape, dim, dtype, op):
    # (one vectorised step per position along ``dim``, in the sequential order)
    x = RNG.uniform(0.99, 1.01, shape)
    if dtype is np.int64:
        x = RNG.integers(-2, 3, shape)
    elif dtype is np.complex64:
        x = x + 1j * RNG.uniform(-1e-3, 1e-3, shape)
    c, t = both(x.astype(dtype))
    got, want = getattr(cinder, op)(c, dim), getattr(torch, op)(t, dim)
    if dtype is np.complex64 and op == "cumprod":
        # (complex<double> products round differently in rare last bits, as on the 1-d path)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    else:
        exact(got, want)


@pytest.mark.parametrize("shape", [(2000, 100), (500, 37), (3, 6000)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_many_lines_along_the_last_dim(shape, dtype, op):
    x = (RNG.uniform(0.999, 1.001, shape) * RNG.choice([-1.0, 1.0], shape)).astype(dtype)
    c, t = both(x)
    got, want = getattr(cinder, op)(c, -1), getattr(torch, op)(t, -1)
    bound = sum_bound(x, -1) if op == "cumsum" else prod_bound(want, shape[-1])
    close_scan(got, want, bound)


def test_leading_negative_zeros_of_a_long_sum():
    # PyTorch adds every element to a running 0.0, so -0.0 comes out as 0.0
    x = np.zeros(LONG, np.float32)
    x[: LONG // 2] = -0.0
    x[LONG // 2:] = RNG.standard_normal(LONG - LONG // 2)
    c, t = both(x)
    got, want = cinder.cumsum(c, 0), torch.cumsum(t, 0)
    assert not np.signbit(got.numpy()[: LONG // 2]).any()
    close_scan(got, want, sum_bound(x, 0))


def test_leading_negative_zeros_along_a_leading_dim():
    x = np.full((40, 300), -0.0, np.float32)
    x[20:] = 1.5
    c, t = both(x)
    got, want = cinder.cumsum(c, 0), torch.cumsum(t, 0)
    exact(got, want)
    assert np.array_equal(np.signbit(got.numpy()), np.signbit(want.numpy()))


@pytest.mark.parametrize("shape, dim", [((0, 300), 0), ((2, 0, 300), 1), ((300, 0), 1)])
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_empty_scans(shape, dim, op):
    c, t = both(np.ones(shape, np.float32))
    exact(getattr(cinder, op)(c, dim), getattr(torch, op)(t, dim))


@pytest.mark.parametrize("expr", ["L.cumsum([1.0, 2.0], 0)", "L.cumprod((1, 2), 0)",
                                  "L.cumsum(L.ones(3), 1)", "L.cumprod(L.ones(3), 'a')",
                                  "L.ones(2, dtype=L.bool).cumsum_(0)",
                                  "L.ones(2).cumprod_(0, dtype=L.float64)",
                                  "L.cumsum(L.ones(3), True)", "L.cumsum(L.ones(3), 1.0)",
                                  "L.cumprod(L.ones(3), L.tensor(0))"])
def test_scans_refuse_bad_arguments(expr):
    """cumsum and cumprod share one function factory: both refuse a non-Tensor input with the
    argument parser's TypeError, a bad dim, and the in-place forms' dtype errors, as PyTorch."""
    check(expr)
