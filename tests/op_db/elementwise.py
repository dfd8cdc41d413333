"""More pointwise math (cinder/ops/elementwise.py): inverse hyperbolics, special functions, float
manipulation, integer ops, addcmul/addcdiv, closeness tests and isin."""

from . import BASIC, FLOATS, HALFS, INTS, ErrorSample, OpEntry, Sample
from .pointwise import binary, not_a_tensor, unary

FAMILY = "elementwise"
_TOL = {"float32": (1e-5, 1e-5), "float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2)}
_FI = FLOATS + INTS + ("bool",)


def _u(name, **kw):
    e = unary(name, **kw)
    e.family = FAMILY
    return e


def _b(name, **kw):
    e = binary(name, **kw)
    e.family = FAMILY
    return e


UNARY = [
    _u("acosh", low=1.1, high=4, dtypes=FLOATS + HALFS + INTS, tol=_TOL),
    _u("arccosh", low=1.1, high=4, dtypes=FLOATS),
    _u("asinh", dtypes=FLOATS + HALFS + INTS, tol=_TOL),
    _u("arcsinh", dtypes=FLOATS),
    _u("atanh", low=-0.9, high=0.9, dtypes=FLOATS + HALFS, tol=_TOL),
    _u("arctanh", low=-0.9, high=0.9, dtypes=FLOATS),
    _u("erfc", dtypes=FLOATS + HALFS + INTS, tol=_TOL),
    _u("erfinv", low=-0.9, high=0.9, dtypes=FLOATS + INTS, tol=_TOL),
    _u("lgamma", low=0.1, high=5, dtypes=FLOATS + INTS, tol=_TOL),
    _u("digamma", low=0.1, high=5, dtypes=FLOATS + INTS, tol=_TOL),
    _u("i0", low=-3, high=3, dtypes=FLOATS + INTS, tol=_TOL),
    _u("sinc", dtypes=FLOATS + HALFS + INTS, tol=_TOL),
    _u("deg2rad", dtypes=FLOATS + HALFS, tol=_TOL),
    _u("rad2deg", dtypes=FLOATS + HALFS, tol=_TOL),
    _u("logit", low=0.05, high=0.95, dtypes=FLOATS + INTS, tol=_TOL),
    _u("nan_to_num", dtypes=BASIC + HALFS),
    _u("signbit", dtypes=BASIC + HALFS, grad=False, inplace=False),
    _u("angle", dtypes=FLOATS + INTS + ("complex64",), inplace=False, grad_dtypes=FLOATS),
    _u("positive", dtypes=BASIC, inplace=False, out=False),
    _u("isreal", dtypes=BASIC + ("complex64",), inplace=False, out=False, grad=False),
]


def _kw_samples(low, high, kwargs, dtypes_ok=True):
    def gen(dtype, make):
        x = make((3, 4), low=low, high=high)
        return [Sample(x)] + [Sample(make((2, 3), low=low, high=high), **kw) for kw in kwargs] \
            + [Sample(make((4,), low=low, high=high, layout="strided"), **kwargs[-1])]
    return gen


def _nan_samples(dtype, make):
    if dtype not in FLOATS + HALFS:
        return [Sample(make((2, 3))), Sample(make((4,)), 1.5)]
    t = make((6,), values=[float("nan"), float("inf"), -float("inf"), 1.0, -2.5, 0.0])
    return [Sample(t), Sample(t, 1.5), Sample(t, nan=2.0, posinf=9.0, neginf=-9.0)]


def _polygamma_samples(dtype, make):
    x = make((2, 3), low=0.5, high=4)
    return [Sample(0, x), Sample(1, x), Sample(2, make((4,), low=0.5, high=4)), Sample(3, x)]


def _mvlgamma_samples(dtype, make):
    return [Sample(make((2, 3), low=2, high=5), 1), Sample(make((4,), low=2, high=5), p=3)]


EXTRA = [
    OpEntry("logit", samples=_kw_samples(0.05, 0.95, [{"eps": 0.1}, {"eps": 0.3}]),
            dtypes=FLOATS, grad=True, inplace=True, out=True, family=FAMILY, tol=_TOL),
    OpEntry("nan_to_num", samples=_nan_samples, dtypes=FLOATS + HALFS, grad=True, inplace=True,
            out=True, family=FAMILY),
    OpEntry("polygamma", samples=_polygamma_samples, dtypes=FLOATS, grad=True, out=True,
            method=False, family=FAMILY, tol={"float32": (1e-4, 1e-4)},
            errors=lambda make: [ErrorSample(Sample(-1, make((2,))))]),
    OpEntry("mvlgamma", samples=_mvlgamma_samples, dtypes=FLOATS, grad=True, out=True,
            inplace=True, family=FAMILY, tol=_TOL,
            errors=lambda make: [ErrorSample(Sample(make((2,), low=2, high=3), 0))]),
    OpEntry("frexp", samples=lambda dtype, make: [Sample(make((2, 3))), Sample(make(())),
                                                  Sample(make((3, 4), layout="transposed"))],
            dtypes=FLOATS + HALFS + INTS, family=FAMILY, out=True),
]


def _positive_errors(make):
    return [ErrorSample(Sample(make((2,), "bool")), match="bool")]


EXTRA[-1].errors = not_a_tensor
UNARY[-2].errors = _positive_errors

_NO_SCALAR = {"scalars": False}
BINARY = [
    _b("hypot", dtypes=FLOATS + INTS, tol=_TOL, **_NO_SCALAR),
    _b("copysign", dtypes=FLOATS + INTS + ("bool",) + HALFS, tol=_TOL,
       grad_dtypes=FLOATS, nonzero=True),
    _b("heaviside", dtypes=FLOATS + INTS, grad=False, **_NO_SCALAR),
    _b("nextafter", dtypes=FLOATS + INTS + HALFS, grad=False, **_NO_SCALAR),
    _b("gcd", dtypes=INTS + ("uint8",) + FLOATS, grad=False, **_NO_SCALAR),
    _b("lcm", dtypes=INTS + FLOATS, grad=False, **_NO_SCALAR),
    _b("logaddexp", dtypes=FLOATS + INTS, tol=_TOL, inplace=False, **_NO_SCALAR),
    _b("logaddexp2", dtypes=FLOATS + INTS, tol=_TOL, inplace=False, **_NO_SCALAR),
    _b("xlogy", dtypes=FLOATS + INTS + ("bool",), tol=_TOL, low=0, high=3, other_low=0.1,
       other_high=3, scalars=False, extra_kwargs=()),
    OpEntry("xlogy", samples=lambda dtype, make: [Sample(make((2, 3), low=0, high=3), 1.5),
                                                  Sample(make((3,), low=0, high=3), 2)],
            dtypes=FLOATS, grad=True, family=FAMILY),
    _b("fmax", dtypes=FLOATS + INTS + HALFS, inplace=False, **_NO_SCALAR),
    _b("fmin", dtypes=FLOATS + INTS + HALFS, inplace=False, **_NO_SCALAR),
    _b("bitwise_left_shift", dtypes=INTS + ("uint8", "float32"), grad=False, low=0, high=40,
       other_low=0, other_high=8),
    _b("bitwise_right_shift", dtypes=INTS + ("uint8", "float32"), grad=False, low=-40, high=40,
       other_low=0, other_high=8),
    _b("igamma", dtypes=FLOATS + INTS, low=0.5, high=4, grad_dtypes=(), **_NO_SCALAR),
    _b("igammac", dtypes=FLOATS + INTS, low=0.5, high=4, grad_dtypes=(), **_NO_SCALAR),
    OpEntry("igamma", samples=lambda dtype, make: [Sample(make((2, 3), low=0.5, high=4,
                                                               grad=False),
                                                          make((2, 3), low=0.5, high=4))],
            dtypes=FLOATS, grad=True, family=FAMILY, tol=_TOL),
    OpEntry("igammac", samples=lambda dtype, make: [Sample(make((3,), low=0.5, high=4,
                                                                grad=False),
                                                           make((3,), low=0.5, high=4))],
            dtypes=FLOATS, grad=True, family=FAMILY, tol=_TOL),
    _b("ldexp", dtypes=FLOATS, low=-3, high=3, **_NO_SCALAR,
       skips={"grad": "ldexp's other is an exponent; grads compared through self only"}),
]


def _addc_samples(dtype, make):
    nz = {"nonzero": True}
    return [Sample(make((2, 3)), make((2, 3)), make((2, 3), **nz)),
            Sample(make((2, 3)), make((3,)), make((2, 1), **nz), value=0.5),
            Sample(make(()), make(()), make((), **nz), value=2),
            Sample(make((3, 4), layout="transposed"), make((3, 4)), make((4,), **nz))]


def _addc_errors(make):
    return [ErrorSample(Sample(make((2, 3)), make((4,)), make((2, 3)))),
            ErrorSample(Sample(make((2,), "bool"), make((2,), "bool"), make((2,), "bool")))]


def _addcdiv_errors(make):
    return _addc_errors(make) + [ErrorSample(Sample(
        make((2,), "int64"), make((2,), "int64"), make((2,), "int64", nonzero=True)))]


def _close_samples(dtype, make):
    a = make((3, 4), low=-2, high=2)
    b = make((3, 4), values=a.array * 1.000001 if dtype != "bool" else a.array)
    c = make((3, 4), low=-2, high=2)
    return [Sample(a, b), Sample(a, c), Sample(a, b, rtol=0, atol=0), Sample(a, c, 0.5, 1.0),
            Sample(make((2, 1)), make((3,))), Sample(a, b, equal_nan=True)]


def _equal_samples(dtype, make):
    a = make((3, 4))
    return [Sample(a, make((3, 4), values=a.array)), Sample(a, make((3, 4))),
            Sample(a, make((4,))), Sample(make((2,), "int64", values=[1, 2]),
                                          make((2,), "float32", values=[1, 2]))]


def _isin_samples(dtype, make):
    a = make((3, 4), low=-3, high=3)
    b = make((5,), low=-3, high=3)
    return [Sample(a, b), Sample(a, b, invert=True), Sample(a, 1 if dtype != "bool" else True),
            Sample(make((4,), low=-3, high=3), make((2, 2), low=-3, high=3))]


def _close_errors(make):
    return [ErrorSample(Sample(make((2,)), make((2,), "float64"))),
            ErrorSample(Sample(make((2,)), make((2,)), rtol=-1.0))]


TERNARY = [
    OpEntry("addcmul", samples=_addc_samples, dtypes=FLOATS + INTS + HALFS, grad=True,
            inplace=True, out=True, errors=_addc_errors, family=FAMILY, tol=_TOL),
    OpEntry("addcdiv", samples=_addc_samples, dtypes=FLOATS + HALFS, grad=True, inplace=True,
            out=True, errors=_addcdiv_errors, family=FAMILY, tol=_TOL),
    OpEntry("isclose", samples=_close_samples, dtypes=BASIC, errors=_close_errors,
            family=FAMILY),
    OpEntry("allclose", samples=_close_samples, dtypes=BASIC, errors=_close_errors,
            family=FAMILY),
    OpEntry("equal", samples=_equal_samples, dtypes=BASIC, family=FAMILY),
    OpEntry("isin", samples=_isin_samples, dtypes=FLOATS + INTS, method=False, family=FAMILY),
]

ENTRIES = UNARY + EXTRA + BINARY + TERNARY
