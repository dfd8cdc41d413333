"""Scans and statistics (cinder/ops/scan.py, cinder/ops/statistics.py): cumprod, cummax,
cummin, logcumsumexp, diff, gradient, trapezoid, cumulative_trapezoid, logsumexp, aminmax,
nanmean, dist, quantile/nanquantile, cov, corrcoef."""

from . import BASIC, FLOATS, HALFS, INTS, ErrorSample, OpEntry, Sample
from .sorting import distinct

FAMILY = "statistics"
_TOL = {"float32": (1e-5, 1e-5), "float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2)}
NAN = float("nan")


def _s(*fs):
    return lambda dtype, make: [f(make) for f in fs]


def _scan_samples(low=None, high=None):
    def gen(dtype, make):
        return [Sample(make((3, 4), low=low, high=high), 1), Sample(make((3, 4), low=low,
                                                                          high=high), 0),
                Sample(make((5,), low=low, high=high), -1), Sample(make((), low=low, high=high),
                                                                   0),
                Sample(make((2, 3, 4), low=low, high=high, layout="transposed"), 1)]
    return gen


def _cumprod_samples(dtype, make):
    """The usual scan samples plus lines with one, two and leading zeros (PyTorch's backward
    takes a separate path for those)."""
    zeros = [[2.0, 0.0, 3.0, 0.0, 1.5], [0.0, 1.5, 2.0, 0.5, 1.0], [1.0, 2.0, 0.5, 1.5, 0.0],
             [1.0, 2.5, 0.5, 1.5, 1.25]]
    out = _scan_samples(0.5, 2)(dtype, make)
    return out + [Sample(make((4, 5), values=zeros), 1), Sample(make((4, 5), values=zeros), 0)]


def _cumprod_gradgrad(make):
    zeros = [[2.0, 0.0, 3.0, 0.0], [0.0, 1.5, 2.0, 0.5], [1.0, 2.0, 0.5, 0.0]]
    return [Sample(make((3, 4), values=zeros), 1), Sample(make((3, 4), values=zeros), 0),
            Sample(make((3, 4), low=0.5, high=2), 1)]


def _cumext_samples(dtype, make):
    ties = make((3, 5), low=-2, high=2)
    if dtype in FLOATS:
        ties.array = ties.array.round()
    out = [Sample(distinct(make, (3, 4)), 1), Sample(distinct(make, (3, 4)), 0),
           Sample(ties, 1).skip("gradcheck", "ties"), Sample(make(()), 0)]
    if dtype in FLOATS:
        out.append(Sample(make((5,), values=[1.0, NAN, 3.0, NAN, 0.0]), 0).skip("gradcheck",
                                                                                 "NaN"))
    return out


def _diff_samples(dtype, make):
    x = make((3, 5))
    return [Sample(x), Sample(x, 2), Sample(x, 1, 0), Sample(x, prepend=make((3, 1))),
            Sample(x, 1, -1, make((3, 2)), make((3, 1))), Sample(make((4,)), 3)]


def _quantile_samples(dtype, make):
    x = distinct(make, (4, 5))
    qs = make((3,), values=[0.0, 0.25, 1.0], grad=False)
    out = [Sample(x, 0.3), Sample(x, 0.5, 1), Sample(x, qs, 0),
           Sample(x, 0.7, 1, True), Sample(distinct(make, (7,)), 0.5)]
    for interp in ("lower", "higher", "midpoint", "nearest"):
        out.append(Sample(x, 0.4, 1, interpolation=interp).skip("gradcheck", "piecewise"))
    if dtype in FLOATS:
        nan = make((2, 4), values=[1.0, NAN, 3.0, 2.0, NAN, NAN, NAN, NAN])
        out.append(Sample(nan, 0.5, 1).skip("gradcheck", "NaN").skip(
            "grad", "NaN rows: PyTorch's gradient through its sort differs"))
    return out


def _quantile_errors(make):
    return [ErrorSample(Sample(make((3,)), 1.5)), ErrorSample(Sample(make((3,), "int64"), 0.5)),
            ErrorSample(Sample(make((3,)), 0.5, interpolation="cubic"))]


def _cov_samples(dtype, make):
    x = make((3, 6))
    return [Sample(x), Sample(x, correction=0), Sample(make((5,))),
            Sample(x, fweights=make((6,), "int64", low=1, high=4)),
            Sample(x, aweights=make((6,), "float64" if dtype == "float64" else "float32",
                                    low=0.5, high=2)),
            Sample(x, correction=2, fweights=make((6,), "int64", low=1, high=3),
                   aweights=make((6,), dtype if dtype in FLOATS else "float32", low=0.5,
                                 high=2))]


ENTRIES = [
    OpEntry("cumprod", samples=_cumprod_samples, dtypes=BASIC + HALFS, grad=True,
            inplace=True, out=True, family=FAMILY, tol=_TOL, gradgrad_samples=_cumprod_gradgrad),
    OpEntry("cummax", samples=_cumext_samples, dtypes=FLOATS + INTS + ("bool",), grad=True,
            out=True, family=FAMILY),
    OpEntry("cummin", samples=_cumext_samples, dtypes=FLOATS + INTS + ("bool",), grad=True,
            out=True, family=FAMILY),
    OpEntry("logcumsumexp", samples=_scan_samples(), dtypes=FLOATS + HALFS, grad=True, out=True,
            family=FAMILY, tol=_TOL,
            skips={"forward": ("complex inputs: PyTorch's result may differ from cinder's by a "
                               "multiple of 2*pi*i (another branch of log)",
                               ("complex64", "complex128"))}),
    OpEntry("diff", samples=_diff_samples, dtypes=BASIC, grad=True, out=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make(()))),
                                 ErrorSample(Sample(make((3,)), -1))]),
    OpEntry("gradient", samples=_s(lambda m: Sample(m((5,))), lambda m: Sample(m((4, 5)), dim=1),
                                   lambda m: Sample(m((4, 5)), spacing=2.0),
                                   lambda m: Sample(m((4, 5)), spacing=[0.5, 2.0]),
                                   lambda m: Sample(m((5, 4)), edge_order=2, dim=0)),
            dtypes=FLOATS + INTS, grad=True, method=False, family=FAMILY, check_grad_fn=False,
            tol=_TOL, errors=lambda make: [ErrorSample(Sample(make((1,)))),
                                           ErrorSample(Sample(make((4,)), edge_order=3))]),
    OpEntry("trapezoid", samples=_s(lambda m: Sample(m((5,))), lambda m: Sample(m((3, 4)), dx=0.5),
                                    lambda m: Sample(m((3, 4)), m((4,)), dim=1),
                                    lambda m: Sample(m((3, 4)), dim=0)),
            dtypes=FLOATS, grad=True, method=False, family=FAMILY, check_grad_fn=False, tol=_TOL),
    OpEntry("trapz", samples=_s(lambda m: Sample(m((5,))), lambda m: Sample(m((3, 4)), dx=0.5)),
            dtypes=FLOATS, grad=True, method=False, family=FAMILY, check_grad_fn=False, tol=_TOL),
    OpEntry("cumulative_trapezoid", samples=_s(lambda m: Sample(m((5,))),
                                               lambda m: Sample(m((3, 4)), dx=0.5),
                                               lambda m: Sample(m((3, 4)), m((4,)))),
            dtypes=FLOATS, grad=True, method=False, family=FAMILY, check_grad_fn=False, tol=_TOL),
    OpEntry("logsumexp", samples=_s(lambda m: Sample(m((3, 4)), 1), lambda m: Sample(m((3, 4)), 0,
                                                                                    True),
                                    lambda m: Sample(m((2, 3, 4)), (0, 2)),
                                    lambda m: Sample(m(()), 0),
                                    lambda m: Sample(m((3, 4), low=50, high=90), 1)),
            dtypes=FLOATS + INTS + HALFS, grad=True, out=True, family=FAMILY, tol=_TOL),
    OpEntry("aminmax", samples=lambda dtype, make: [Sample(distinct(make, (3, 4))),
                                                    Sample(distinct(make, (3, 4)), dim=1),
                                                    Sample(distinct(make, (3, 4)), dim=0,
                                                           keepdim=True),
                                                    Sample(make(())), Sample(make(()), dim=0)],
            dtypes=BASIC, grad=True, out=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((0,))))]),
    OpEntry("nanmean", samples=lambda dtype, make: [
                Sample(make((3, 4), values=([NAN] if dtype in FLOATS else [1]) + [1.0] * 11)),
                Sample(make((3, 4)), 1), Sample(make((3, 4)), 0, True)],
            dtypes=FLOATS, grad=True, out=True, family=FAMILY,
            errors=lambda make: [ErrorSample(Sample(make((3,), "int64")))]),
    OpEntry("dist", samples=_s(lambda m: Sample(m((3, 4)), m((3, 4))),
                               lambda m: Sample(m((3, 4)), m((4,)), 1),
                               lambda m: Sample(m((3,)), m((3,)), 3),
                               lambda m: Sample(m((3,)), m((3,)), float("inf")),
                               lambda m: Sample(m((3,)), m((3,)), 0).skip(
                                   "grad", "PyTorch's p=0 backward fails")),
            dtypes=FLOATS, grad=True, family=FAMILY, tol=_TOL,
            errors=lambda make: [ErrorSample(Sample(make((3,)), make((4,))))]),
    OpEntry("quantile", samples=_quantile_samples, dtypes=FLOATS, grad=True, out=True,
            family=FAMILY, check_grad_fn=False, errors=_quantile_errors),
    OpEntry("nanquantile", samples=_quantile_samples, dtypes=FLOATS, grad=True, out=True,
            family=FAMILY, check_grad_fn=False, errors=_quantile_errors),
    OpEntry("renorm", samples=_s(lambda m: Sample(m((3, 4)), 2, 0, 3.0),
                                 lambda m: Sample(m((3, 4)), 1, 1, 5.0),
                                 lambda m: Sample(m((2, 3, 4)), 3, -1, 2.0),
                                 lambda m: Sample(m((3, 4)), 2, 0, 100.0)),
            dtypes=FLOATS, grad=True, inplace=True, out=True, family=FAMILY, tol=_TOL,
            errors=lambda make: [ErrorSample(Sample(make((3,)), 2, 0, 1.0)),
                                 ErrorSample(Sample(make((3, 3)), 0, 0, 1.0)),
                                 ErrorSample(Sample(make((3, 3)), 2, 0, -1.0))]),
    OpEntry("cov", samples=_cov_samples, dtypes=FLOATS, grad=True, family=FAMILY,
            check_grad_fn=False, tol=_TOL),
    OpEntry("corrcoef", samples=_s(lambda m: Sample(m((3, 6))), lambda m: Sample(m((5,)))),
            dtypes=FLOATS, grad=True, family=FAMILY, check_grad_fn=False, tol=_TOL),
]
