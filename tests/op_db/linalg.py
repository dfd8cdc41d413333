"""Matrix products (cinder/ops/linalg.py): matmul for every rank combination (with broadcast
batch dims), mm, bmm, mv, dot, inner, addmm (alpha/beta), outer/ger.

Float32 products go through different BLAS kernels in the two libraries (different blocking
and FMA use), so float32 is compared at 1e-5; half types accumulate in float32 in both.
"""

from . import COMPLEX, FLOATS, GRAD_C, HALFS, INTS, ErrorSample, OpEntry, Sample, is_float

FAMILY = "linalg"
DTYPES = FLOATS + INTS + HALFS + ("bool",) + COMPLEX[:1]
TOL = {"float32": (1e-5, 1e-5), "float16": (1e-2, 1e-2), "bfloat16": (3e-2, 3e-2),
       "complex64": (1e-5, 1e-5)}


# ----------------------------------------------------------------------------------------------
# Samples
# ----------------------------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)),
    ((2, 2, 3), (3,)), ((3,), (2, 3, 2)), ((2, 2, 3), (3, 4)), ((2, 3), (2, 3, 4)),
    ((2, 2, 3), (2, 3, 4)), ((2, 1, 2, 3), (5, 3, 2)), ((2, 2, 3), (1, 3, 4)),
    ((0, 3), (3, 4)), ((2, 0), (0, 4)), ((2, 0, 3), (3,)),
]


def _matmul_samples(dtype, make):
    out = [Sample(make(a, low=-2, high=2), make(b, low=-2, high=2)) for a, b in MATMUL_SHAPES]
    out.append(Sample(make((4, 3), layout="transposed", low=-2, high=2),
                      make((3, 5), layout="strided", low=-2, high=2)))
    out.append(Sample(make((2, 4, 3), layout="transposed", low=-2, high=2),
                      make((3, 2), low=-2, high=2)))
    return out


def _matmul_errors(make):
    return [ErrorSample(Sample(make(()), make((3,))), match="both arguments to matmul need to be "
                                                           "at least 1D"),
            ErrorSample(Sample(make((2, 3)), make((4, 2))), match="cannot be multiplied"),
            ErrorSample(Sample(make((3,)), make((4,)))),
            ErrorSample(Sample(make((2, 2, 3)), make((3, 2, 4)))),
            ErrorSample(Sample(make((2, 3)), make((3, 2), "float64")),
                        match="expected m1 and m2 to have the same dtype"),
            ErrorSample(Sample(make((2, 3)), 2))]


def _mm_samples(dtype, make):
    return [Sample(make((2, 3), low=-2, high=2), make((3, 4), low=-2, high=2)),
            Sample(make((1, 1)), make((1, 5))), Sample(make((0, 3)), make((3, 2))),
            Sample(make((3, 0)), make((0, 2))),
            Sample(make((4, 3), layout="transposed"), make((3, 2), layout="strided"))]


def _mm_errors(make):
    return [ErrorSample(Sample(make((2, 3)), make((2, 3))), match="cannot be multiplied"),
            ErrorSample(Sample(make((3,)), make((3, 2))), match="must be a matrix"),
            ErrorSample(Sample(make((2, 3)), make((3,)))),
            ErrorSample(Sample(make((2, 3)), make((3, 2), "float64"))),
            ErrorSample(Sample(make((2, 3)), [1.0]))]


def _bmm_samples(dtype, make):
    return [Sample(make((2, 2, 3), low=-2, high=2), make((2, 3, 4), low=-2, high=2)),
            Sample(make((0, 2, 3)), make((0, 3, 4))), Sample(make((3, 1, 0)), make((3, 0, 2))),
            Sample(make((2, 4, 3), layout="transposed"), make((2, 3, 2), layout="strided"))]


def _bmm_errors(make):
    return [ErrorSample(Sample(make((2, 3)), make((2, 3, 4))), match="batch1 must be a 3D"),
            ErrorSample(Sample(make((2, 2, 3)), make((3, 3, 4)))),
            ErrorSample(Sample(make((2, 2, 3)), make((2, 4, 4)))),
            ErrorSample(Sample(make((2, 2, 3)), make((2, 3, 4), "float64")))]


def _mv_samples(dtype, make):
    return [Sample(make((2, 3), low=-2, high=2), make((3,), low=-2, high=2)),
            Sample(make((0, 3)), make((3,))), Sample(make((2, 0)), make((0,))),
            Sample(make((4, 3), layout="transposed"), make((3,), layout="strided"))]


def _mv_errors(make):
    return [ErrorSample(Sample(make((2, 3)), make((4,)))),
            ErrorSample(Sample(make((3,)), make((3,)))),
            ErrorSample(Sample(make((2, 3)), make((3, 1)))),
            ErrorSample(Sample(make((2, 3)), make((3,), "float64")))]


def _dot_samples(dtype, make):
    return [Sample(make((5,), low=-2, high=2), make((5,), low=-2, high=2)),
            Sample(make((0,)), make((0,))),
            Sample(make((4,), layout="strided"), make((4,)))]


def _dot_errors(make):
    return [ErrorSample(Sample(make((3,)), make((4,))), match="inconsistent tensor size"),
            ErrorSample(Sample(make((2, 3)), make((3,))), match="1D tensors expected"),
            ErrorSample(Sample(make((3,)), make((3,), "float64")),
                        match="expected both vectors to have same dtype")]


def _inner_samples(dtype, make):
    return [Sample(make((5,)), make((5,))), Sample(make((2, 3)), make((4, 3))),
            Sample(make(()), make((2, 3))), Sample(make((2, 3)), make(())),
            Sample(make((2, 2, 3)), make((3,)))]


def _outer_samples(dtype, make):
    return [Sample(make((3,)), make((4,))), Sample(make((0,)), make((2,))),
            Sample(make((3,), layout="strided"), make((1,)))]


def _outer_errors(make):
    return [ErrorSample(Sample(make((2, 3)), make((3,))))]


def _inner_errors(make):
    return [ErrorSample(Sample(make((2, 3)), make((4,))), match="the last dimension must match"),
            ErrorSample(Sample(make((3,)), make((3,), "float64")),
                        match="both inputs should have same dtype")]


def _addmm_samples(dtype, make):
    def m(shape, **kw):
        return make(shape, low=-2, high=2, **kw)
    kind_float = is_float(dtype) or dtype in COMPLEX
    out = [
        Sample(m((2, 4)), m((2, 3)), m((3, 4))),
        Sample(m((4,)), m((2, 3)), m((3, 4))),
        Sample(m((1, 4)), m((2, 3)), m((3, 4))),
        Sample(m(()), m((2, 3)), m((3, 4))),
        Sample(m((2, 4)), m((2, 3)), m((3, 4)), beta=2, alpha=3),
        Sample(m((2, 1)), m((2, 3)), m((3, 4)), alpha=0),
        Sample(m((2, 4)), m((2, 0)), m((0, 4))),
        Sample(m((4,)), m((3, 2), layout="transposed"), m((3, 4))),
    ]
    if kind_float:
        out.append(Sample(m((2, 4)), m((2, 3)), m((3, 4)), beta=0.5, alpha=-1.5))
        out.append(Sample(make((2, 4), values=[float("nan")] * 8), m((2, 3)), m((3, 4)),
                          beta=0))
    return out


def _addmm_errors(make):
    return [ErrorSample(Sample(make((2, 4)), make((2, 3)), make((4, 4))),
                        match="cannot be multiplied"),
            ErrorSample(Sample(make((3,)), make((2, 3)), make((3, 4)))),
            ErrorSample(Sample(make((2, 4)), make((3,)), make((3, 4)))),
            ErrorSample(Sample(make((2, 4)), make((2, 3)), make((3, 4), "float64")),
                        match="must have the same dtype")]


def _entry(name, samples, errors, *, inplace=False, method=True, out=True, dtypes=DTYPES):
    return OpEntry(name, samples=samples, errors=errors, dtypes=dtypes, grad=True,
                   inplace=inplace, method=method, out=out, tol=TOL, grad_dtypes=GRAD_C,
                   family=FAMILY)


ENTRIES = [
    _entry("matmul", _matmul_samples, _matmul_errors),
    _entry("mm", _mm_samples, _mm_errors),
    _entry("bmm", _bmm_samples, _bmm_errors),
    _entry("mv", _mv_samples, _mv_errors),
    _entry("dot", _dot_samples, _dot_errors),
    _entry("inner", _inner_samples, _inner_errors),
    _entry("outer", _outer_samples, _outer_errors),
    _entry("ger", _outer_samples, _outer_errors),
    _entry("addmm", _addmm_samples, _addmm_errors, inplace=True),
]
