"""Sorting, selection, searching and counting (cinder/ops/sorting.py). Samples for ops whose
index choice among equal values is unspecified use distinct values."""

import numpy as np

from . import BASIC, FLOATS, HALFS, INTS, ErrorSample, OpEntry, Sample

FAMILY = "sorting"
_NUM = FLOATS + INTS


def distinct(make, shape, dtype=None, layout="contiguous"):
    """A tensor argument whose values are all different (a shuffled range, centred on 0)."""
    n = int(np.prod(shape))
    vals = make.rng.permutation(n) - n // 2
    if (dtype or make.dtype) in FLOATS + HALFS:
        vals = vals * 0.5
    if (dtype or make.dtype) == "bool":
        vals = vals > 0
    return make(shape, dtype, values=vals, layout=layout)


def _sort_samples(dtype, make):
    x = distinct(make, (3, 5))
    extra = _nan_sort_samples(dtype, make) if dtype in FLOATS else []
    ties = make((4, 6), low=-2, high=2)      # ties: the stable order decides the indices
    if dtype in FLOATS:
        ties.array = ties.array.round()
    ties_ok = "ties: the numerical Jacobian is not defined"
    return [Sample(x), Sample(x, 0), Sample(x, descending=True),
            Sample(ties, stable=True).skip("gradcheck", ties_ok),
Sample(distinct(make, (2, 3, 4)), -2),
            Sample(distinct(make, ())), Sample(make((0, 3))),
            Sample(distinct(make, (4, 3), layout="transposed"), 0, descending=True),
            Sample(ties, stable=True, dim=1, descending=True).skip("gradcheck", ties_ok),
            Sample(x, 1, False)] + extra


def _nan_sort_samples(dtype, make):
    x = make((2, 4), values=[3.0, float("nan"), 1.0, 2.0, float("nan"), 0.0, -1.0, 5.0])
    return [Sample(x).skip("gradcheck", "NaN"), Sample(x, descending=True).skip("gradcheck", "NaN"),
            Sample(x, 0).skip("gradcheck", "NaN")]


def _topk_samples(dtype, make):
    x = distinct(make, (3, 6))
    return [Sample(x, 2), Sample(x, 3, 0), Sample(x, 2, largest=False), Sample(x, 6),
            Sample(x, 0), Sample(x, 4, sorted=True), Sample(distinct(make, (7,)), 1),
            Sample(distinct(make, (2, 3, 4)), 2, 1, False)]


def _kth_samples(dtype, make):
    x = distinct(make, (3, 6))
    return [Sample(x, 2), Sample(x, 1, 0), Sample(x, 6, keepdim=True),
            Sample(distinct(make, (2, 3, 4)), 2, 1, True), Sample(distinct(make, (5,)), 3)]


def _median_samples(dtype, make):
    x = distinct(make, (3, 5))
    extra = _nan_median_samples(dtype, make) if dtype in FLOATS else []
    return extra + [Sample(x), Sample(x, 1), Sample(x, 0, True), Sample(distinct(make, (4, 4)), 1),
            Sample(distinct(make, (2, 3, 4)), -1), Sample(distinct(make, (6,)))]


def _nan_median_samples(dtype, make):
    nan = float("nan")
    x = make((3, 4), values=[3.0, nan, 1.0, 2.0, nan, nan, 7.0, nan, -1.0, 4.0, 2.5, 0.0])
    return [s.skip("gradcheck", "NaN inputs") for s in (Sample(x), Sample(x, 1),
                                                          Sample(x, 0, True))]


def _mode_samples(dtype, make):
    x = make((3, 7), low=0, high=3)
    if dtype in FLOATS:
        x.array = x.array.round()
    return [Sample(x), Sample(x, 0), Sample(x, 1, True), Sample(make((5,), low=0, high=2))]


def _search_samples(dtype, make):
    seq = make((6,), values=np.sort(make.rng.integers(-5, 5, 6)))
    rows = make((2, 5), values=np.sort(make.rng.integers(-5, 5, (2, 5)), axis=1))
    v = make((3, 4), low=-6, high=6)
    if dtype in FLOATS:
        v.array = v.array.round()
    return [Sample(seq, v), Sample(seq, v, right=True), Sample(seq, v, side="right"),
            Sample(seq, v, out_int32=True), Sample(rows, make((2, 3), low=-6, high=6)),
            Sample(seq, 2), Sample(rows, make((2, 3), low=-6, high=6), right=True)]


def _bucketize_samples(dtype, make):
    bounds = make((5,), values=np.sort(make.rng.integers(-5, 5, 5)))
    v = make((3, 4), low=-6, high=6)
    return [Sample(v, bounds), Sample(v, bounds, right=True), Sample(v, bounds, out_int32=True)]


def _unique_samples(dtype, make):
    x = make((3, 6), low=-3, high=3)
    if dtype in FLOATS:
        x.array = x.array.round()
    m = make((4, 3), values=np.array([[1, 2, 3], [0, 1, 1], [1, 2, 3], [0, 0, 1]]))
    return [Sample(x), Sample(x, return_inverse=True), Sample(x, return_counts=True),
            Sample(x, return_inverse=True, return_counts=True), Sample(m, dim=0),
            Sample(m, return_inverse=True, return_counts=True, dim=0), Sample(m, dim=1)]


def _unique_consecutive_samples(dtype, make):
    x = make((12,), values=np.array([1, 1, 2, 2, 2, 0, 1, 1, 3, 3, 0, 0]))
    m = make((4, 3), values=np.array([[1, 2, 3], [1, 2, 3], [0, 1, 1], [1, 2, 3]]))
    return [Sample(x), Sample(x, return_inverse=True), Sample(x, return_counts=True),
            Sample(x, True, True), Sample(m, dim=0), Sample(m, True, True, dim=0),
            Sample(make((2, 3), low=0, high=2))]


def _bincount_samples(dtype, make):
    x = make((10,), "int64", low=0, high=6)
    return [Sample(x), Sample(x, minlength=9), Sample(x, make((10,), "float64")),
            Sample(x, make((10,), "float32")), Sample(make((0,), "int64"))]


def _histc_samples(dtype, make):
    x = make((20,), low=-3, high=3)
    return [Sample(x), Sample(x, bins=5), Sample(x, 4, -1, 1), Sample(make((3, 4)), 6, 0, 0)]


def _histogram_samples(dtype, make):
    x = make((20,), low=-3, high=3)
    ranged = [Sample(x, 4, range=(-1.0, 1.0))] if dtype in FLOATS else []
    return ranged + [Sample(x, 5), Sample(x, 3, density=True),
            Sample(x, make((4,), values=[-3.0, -1.0, 0.5, 3.0] if dtype in FLOATS
                           else [0, 1, 2, 3])),
            Sample(x, 4, weight=make((20,), low=0, high=1))]


def _count_samples(dtype, make):
    x = make((3, 4), low=-1, high=2)
    if dtype in FLOATS:
        x.array = x.array.round()
    return [Sample(x), Sample(x, 0), Sample(x, (0, 1)), Sample(make(()), 0),
            Sample(make((2, 3, 4), low=-1, high=2), -1)]


def _dim_errors(make):
    return [ErrorSample(Sample(make((2, 3)), 2)), ErrorSample(Sample([1, 2]))]


ENTRIES = [
    OpEntry("sort", samples=_sort_samples, dtypes=BASIC + HALFS, grad=True, out=True,
            family=FAMILY, errors=lambda make: [ErrorSample(Sample(make((2, 3)), 2)),
                                                ErrorSample(Sample(make((2,), "complex64")))]),
    OpEntry("argsort", samples=_sort_samples, dtypes=BASIC, family=FAMILY, errors=_dim_errors),
    OpEntry("msort", samples=lambda dtype, make: [Sample(distinct(make, (4, 3))),
                                                  Sample(distinct(make, (5,)))],
            dtypes=BASIC, grad=True, out=True, family=FAMILY),
    OpEntry("topk", samples=_topk_samples, dtypes=_NUM + HALFS, grad=True, out=True,
            family=FAMILY, errors=lambda make: [ErrorSample(Sample(make((2, 3)), 4)),
                                                ErrorSample(Sample(make((2, 3)), 1, 2))]),
    OpEntry("kthvalue", samples=_kth_samples, dtypes=_NUM, grad=True, out=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((2, 3)), 4)),
                                 ErrorSample(Sample(make((2, 3)), 0))]),
    OpEntry("median", samples=_median_samples, dtypes=_NUM, grad=True, family=FAMILY,
            errors=_dim_errors),
    OpEntry("nanmedian", samples=_median_samples, dtypes=_NUM, grad=True, family=FAMILY,
            errors=_dim_errors),
    OpEntry("mode", samples=_mode_samples, dtypes=_NUM, grad=True, out=True, family=FAMILY,
            errors=_dim_errors, skips={"gradcheck": "the mode is a tie by definition"}),
    OpEntry("searchsorted", samples=_search_samples, dtypes=_NUM, method=False, out=True,
            family=FAMILY, errors=lambda make: [
                ErrorSample(Sample(make((2, 5)), make((3, 2)))),
                ErrorSample(Sample(make((5,)), make((2,)), side="middle"))]),
    OpEntry("bucketize", samples=_bucketize_samples, dtypes=_NUM, method=False, out=True,
            family=FAMILY, errors=lambda make: [ErrorSample(Sample(make((2,)), make((2, 2))))]),
    OpEntry("unique", samples=_unique_samples, dtypes=BASIC, family=FAMILY),
    OpEntry("unique_consecutive", samples=_unique_consecutive_samples, dtypes=BASIC,
            family=FAMILY),
    OpEntry("bincount", samples=_bincount_samples, dtypes=("int64",), family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((3,), "int64", values=[1, -1, 2]))),
                                 ErrorSample(Sample(make((2, 2), "int64", low=0, high=3))),
                                 ErrorSample(Sample(make((3,))))]),
    OpEntry("histc", samples=_histc_samples, dtypes=FLOATS, out=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((3,)), 0)),
                                 ErrorSample(Sample(make((3,)), 4, 2, 1))]),
    OpEntry("histogram", samples=_histogram_samples, dtypes=FLOATS, out=True, family=FAMILY),
    OpEntry("count_nonzero", samples=_count_samples, dtypes=BASIC, family=FAMILY,
            errors=_dim_errors),
]
