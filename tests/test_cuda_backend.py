"""The array algorithms cinder's backend uses on CUDA where CuPy lacks a NumPy routine
(``ufunc.accumulate`` / ``ufunc.reduceat``), checked on the CPU by running them on NumPy
against NumPy's own routines, so they are tested on every machine."""

import numpy as np
import pytest

from cinder import backend

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("name", ["maximum", "minimum", "logaddexp", "add"])
@pytest.mark.parametrize("shape,axis", [((7,), 0), ((3, 10), 1), ((9, 4), 0), ((2, 1, 5), 2),
                                        ((0, 3), 1), ((4, 0), 1)])
def test_log_step_scan_matches_accumulate(name, shape, axis):
    a = RNG.standard_normal(shape)
    ufunc = getattr(np, name)
    got = backend.log_step_scan(np, ufunc, a, axis)
    np.testing.assert_allclose(got, ufunc.accumulate(a, axis=axis), rtol=1e-12)


def test_log_step_scan_integers_and_nan():
    a = RNG.integers(-50, 50, (4, 33))
    np.testing.assert_array_equal(backend.log_step_scan(np, np.maximum, a, 1),
                                  np.maximum.accumulate(a, axis=1))
    f = np.array([1.0, np.nan, 0.5, 3.0])
    np.testing.assert_array_equal(backend.log_step_scan(np, np.maximum, f, 0),
                                  np.maximum.accumulate(f))


@pytest.mark.parametrize("name", ["multiply", "maximum", "minimum", "add"])
@pytest.mark.parametrize("n,cols", [(1, None), (17, None), (40, 3)])
def test_segmented_reduce_matches_reduceat(name, n, cols):
    vals = RNG.standard_normal((n,) if cols is None else (n, cols))
    cuts = np.sort(RNG.choice(np.arange(1, n), size=min(n - 1, 5), replace=False)) \
        if n > 1 else np.array([], np.int64)
    starts = np.concatenate([[0], cuts]).astype(np.int64)
    ufunc = getattr(np, name)
    got = backend.segmented_reduce(np, ufunc, vals, starts)
    np.testing.assert_allclose(got, ufunc.reduceat(vals, starts, axis=0), rtol=1e-12)


@pytest.mark.parametrize("lower,unit", [(True, False), (False, True)])
def test_batched_triangular_solve_matches_scipy(lower, unit):
    """The CuPy path of linalg.solve_triangular (triangle through the batched general
    solver), run on NumPy, against SciPy's triangular solver."""
    import scipy.linalg as sl

    from cinder.ops.linalg_solve import _solve_triangular_batched
    a = RNG.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    b = RNG.standard_normal((2, 4, 3))
    got = _solve_triangular_batched(np, a, b, lower, unit)
    for i in range(2):
        want = sl.solve_triangular(a[i], b[i], lower=lower, unit_diagonal=unit)
        np.testing.assert_allclose(got[i], want, rtol=1e-10, atol=1e-12)
