"""Pointwise ops (cinder/ops/pointwise.py): arithmetic, comparisons, logic, unary math, clamp,
where. Binary samples cover equal shapes, broadcasting, 0-d operands, empty tensors,
non-contiguous inputs and Python scalars; unary samples cover 0-d, 1-d, 2-d, empty and
non-contiguous inputs."""

from . import (
    BASIC,
    COMPLEX,
    FLOATS,
    GRAD_C,
    HALFS,
    INTS,
    is_complex,
    WITH_HALF,
    ErrorSample,
    OpEntry,
    Sample,
    is_float,
    scalar_kind,
)

FAMILY = "pointwise"

# ----------------------------------------------------------------------------------------------
# Sample generators
# ----------------------------------------------------------------------------------------------


def binary_samples(low=None, high=None, other_low=None, other_high=None, nonzero=False,
                   scalars=True, scalar_kinds=None, extra_kwargs=None):
    """Samples for ``op(a, b)`` with b drawn from [other_low, other_high) (nonzero if asked)."""
    def gen(dtype, make):
        def a(shape, **kw):
            return make(shape, low=low, high=high, **kw)

        def b(shape, **kw):
            return make(shape, low=other_low if other_low is not None else low,
                        high=other_high if other_high is not None else high, nonzero=nonzero,
                        **kw)
        out = [
            Sample(a((2, 3)), b((2, 3))),
            Sample(a((3, 1)), b((1, 4))),
            Sample(a((2, 3)), b((3,))),
            Sample(a(()), b(())),
            Sample(a((4,)), b(())),
            Sample(a(()), b((2, 2))),
            Sample(a((0, 3)), b((3,))),
            Sample(a((3, 4), layout="transposed"), b((3, 4))),
            Sample(a((2, 5), layout="strided"), b((2, 5), layout="transposed")),
        ]
        if scalars:
            for kind in scalar_kinds or (scalar_kind(dtype),):
                value = make.scalar(kind, low=1 if nonzero else -3, high=4)
                if nonzero and value == 0:
                    value = 2
                out.append(Sample(a((2, 3)), value))
        for kw in (extra_kwargs(dtype) if callable(extra_kwargs) else extra_kwargs or ()):
            out.append(Sample(a((2, 3)), b((2, 3)), **kw))
        return out
    return gen


def unary_samples(low=None, high=None):
    def gen(dtype, make):
        def a(shape, **kw):
            return make(shape, low=low, high=high, **kw)
        return [Sample(a(())), Sample(a((5,))), Sample(a((2, 3))), Sample(a((0,))),
                Sample(a((3, 4), layout="transposed")), Sample(a((2, 6), layout="strided"))]
    return gen


def binary(name, *, samples=None, dtypes=WITH_HALF, grad=True, inplace=True, out=True,
           method=True, errors=None, tol=None, skips=None, call=None, grad_dtypes=FLOATS,
           **sample_kw):
    return OpEntry(name, call=call, samples=samples or binary_samples(**sample_kw),
                   dtypes=dtypes, grad=grad, inplace=inplace, out=out, method=method,
                   errors=errors or shape_mismatch, tol=tol, skips=skips,
                   grad_dtypes=grad_dtypes, family=FAMILY)


def unary(name, *, low=None, high=None, dtypes=WITH_HALF, grad=True, inplace=True, out=True,
          method=True, errors=None, tol=None, skips=None, samples=None, grad_dtypes=FLOATS):
    return OpEntry(name, samples=samples or unary_samples(low, high), dtypes=dtypes, grad=grad,
                   inplace=inplace, out=out, method=method, errors=errors or not_a_tensor,
                   tol=tol, skips=skips, grad_dtypes=grad_dtypes, family=FAMILY)


def shape_mismatch(make):
    return [ErrorSample(Sample(make((2, 3)), make((4,))), match="must match the size"),
            ErrorSample(Sample(make((2, 3)), "x"))]


def not_a_tensor(make):
    return [ErrorSample(Sample([1.0, 2.0]))]


# ----------------------------------------------------------------------------------------------
# Arithmetic
# ----------------------------------------------------------------------------------------------

def _add_errors(make):
    return shape_mismatch(make) + [
        ErrorSample(Sample(make((2,), "int64"), make((2,), "int64"), alpha=0.5),
                    match="alpha must not be a floating point"),
    ]


def _sub_errors(make):
    return _add_errors(make) + [
        ErrorSample(Sample(make((2,), "bool"), make((2,), "bool")), match="Subtraction"),
    ]


def _alpha_kwargs():
    return [{"alpha": 2}, {"alpha": -1}]


def _alpha_kwargs_complex(dtype):
    """With a complex alpha for complex dtypes: its gradient uses conj(alpha)."""
    return _alpha_kwargs() + ([{"alpha": 2 - 1.5j}] if is_complex(dtype) else [])


def _div_errors(make):
    return shape_mismatch(make) + [
        ErrorSample(Sample(make((2,)), make((2,)), rounding_mode="bad"),
                    match="rounding_mode"),
        ErrorSample(Sample(make((2,), "int64", values=[1, 2]), make((2,), "int64", values=[1, 0]),
                           rounding_mode="floor"), match="ZeroDivisionError"),
        ErrorSample(Sample(make((2,), "int64", values=[1, 2]), make((2,), "int64", values=[1, 0]),
                           rounding_mode="trunc"), match="ZeroDivisionError"),
    ]


def _int_zero_div(make):
    return shape_mismatch(make) + [
        ErrorSample(Sample(make((2,), "int64", values=[1, 2]), make((2,), "int64", values=[1, 0])),
                    match="ZeroDivisionError"),
        ErrorSample(Sample(make((2,), "int32", values=[1, 2]), 0), match="ZeroDivisionError"),
    ]


def _pow_samples(dtype, make):
    out = binary_samples(low=0.5, high=2.5, other_low=-2, other_high=3)(dtype, make)
    if dtype == "bool":
        return out[:6]
    if dtype in ("int64", "int32", "uint8"):
        # integer powers with non-negative exponents only (negative ones are an error)
        base = [make((2, 3), low=-3, high=4), make((3,), low=0, high=4)]
        out = [Sample(base[0], base[1]), Sample(base[0], 2), Sample(base[0], 0),
               Sample(make(()), make((3,), low=0, high=3)), Sample(base[0], 1.5)]
    else:
        base = make((2, 3), low=0.5, high=2.5)
        out += [Sample(base, 2), Sample(base, 0.5), Sample(base, -1), Sample(base, 3),
                Sample(base, 0), Sample(make((2, 3), low=-2, high=2), 2)]
    out.append(Sample(2, make((2, 3), low=-2, high=2)))       # scalar base
    out.append(Sample(1.5, make((4,), low=-2, high=2)))
    return out


def _pow_errors(make):
    return [
        ErrorSample(Sample(make((2,), "int64", values=[2, 3]), -1),
                    match="Integers to negative integer powers are not allowed"),
        ErrorSample(Sample(make((2, 3)), make((4,)))),
    ]


def _float_power_samples(dtype, make):
    base = make((2, 3), low=0.5, high=2.5)
    return [Sample(base, make((2, 3), low=-2, high=2)), Sample(base, 2), Sample(base, 0.5),
            Sample(2, make((3,), low=-2, high=2)), Sample(make(()), make((2, 2), low=0, high=2))]


def _no_scalar_other(make):
    return shape_mismatch(make) + [ErrorSample(Sample(make((2, 3)), 2.0))]


ARITHMETIC = [
    binary("add", dtypes=WITH_HALF + COMPLEX + ("uint8", "int8", "int16"), errors=_add_errors,
           extra_kwargs=_alpha_kwargs_complex, grad_dtypes=GRAD_C),
    binary("sub", dtypes=WITH_HALF + COMPLEX, errors=_sub_errors,
           extra_kwargs=_alpha_kwargs_complex, grad_dtypes=GRAD_C),
    binary("subtract", dtypes=FLOATS + INTS, errors=_sub_errors, extra_kwargs=_alpha_kwargs()),
    binary("mul", dtypes=WITH_HALF + COMPLEX + ("uint8",)),
    binary("multiply", dtypes=FLOATS + INTS),
    binary("div", dtypes=WITH_HALF + COMPLEX, nonzero=True, errors=_div_errors,
           extra_kwargs=[{"rounding_mode": "trunc"}, {"rounding_mode": "floor"},
                         {"rounding_mode": None}],
           grad_dtypes=GRAD_C),
    binary("divide", dtypes=FLOATS + INTS, nonzero=True, errors=_div_errors,
           extra_kwargs=[{"rounding_mode": "trunc"}, {"rounding_mode": "floor"}]),
    binary("true_divide", dtypes=WITH_HALF, nonzero=True),
    binary("floor_divide", dtypes=WITH_HALF, nonzero=True, errors=_int_zero_div, grad=False),
    binary("remainder", dtypes=WITH_HALF, nonzero=True, errors=_int_zero_div,
           tol={"float32": (1e-5, 1e-5), "float16": (1e-2, 1e-2)}),
    binary("fmod", dtypes=WITH_HALF, nonzero=True, errors=_int_zero_div,
           tol={"float16": (1e-2, 1e-2)}),
    OpEntry("rsub", samples=binary_samples(extra_kwargs=_alpha_kwargs()), dtypes=BASIC + HALFS,
            method=False, grad=True, errors=shape_mismatch, family=FAMILY),
    binary("pow", samples=_pow_samples, dtypes=WITH_HALF + ("uint8",), errors=_pow_errors,
           tol={"float32": (1e-5, 1e-5)}),
    binary("float_power", samples=_float_power_samples, dtypes=FLOATS + INTS + ("float16",),
           errors=lambda make: [ErrorSample(Sample(make((2, 3)), make((4,))))]),
    binary("atan2", dtypes=WITH_HALF),
    binary("arctan2", dtypes=FLOATS + INTS),
    binary("maximum", dtypes=WITH_HALF, scalars=False, inplace=False, errors=_no_scalar_other),
    binary("minimum", dtypes=WITH_HALF, scalars=False, inplace=False, errors=_no_scalar_other),
    OpEntry("lerp", samples=lambda dtype, make: [
        Sample(make((2, 3)), make((2, 3)), 0.3), Sample(make((2, 3)), make((3,)), make((2, 3))),
        Sample(make(()), make(()), make(())), Sample(make((4,)), make((4,)), 2)],
        dtypes=FLOATS + HALFS, grad=True, inplace=True, out=True, family=FAMILY,
        errors=lambda make: [ErrorSample(Sample(make((2,), "int64"), make((2,), "int64"), 0.5))]),
]

# ----------------------------------------------------------------------------------------------
# Comparisons and logic
# ----------------------------------------------------------------------------------------------


def _compare_samples(dtype, make):
    # Small integer-valued data so that equal pairs actually occur.
    out = binary_samples(low=-2, high=2)(dtype, make)
    for sample in out:
        for a in sample.args:
            if hasattr(a, "array") and is_float(a.dtype):
                a.array = a.array.round()
    return out + [Sample(make((2, 3)), make((2, 3), "int64", low=-2, high=2)),
                  Sample(make((2, 3)), 1.5)]


def _compare(name):
    return binary(name, samples=_compare_samples, dtypes=WITH_HALF + COMPLEX[:1], grad=False)


def _bool_args_samples(dtype, make):
    return binary_samples(low=-1, high=2)(dtype, make)


COMPARISONS = [_compare(n) for n in ("eq", "ne", "lt", "le", "gt", "ge")] + [
    binary(n, samples=_compare_samples, dtypes=FLOATS + INTS, grad=False)
    for n in ("greater", "greater_equal", "less", "less_equal", "not_equal")
] + [
    binary(n, samples=_bool_args_samples, dtypes=WITH_HALF, grad=False)
    for n in ("logical_and", "logical_or", "logical_xor")
] + [
    binary(n, dtypes=("bool", "int64", "int32", "uint8", "float32"), grad=False)
    for n in ("bitwise_and", "bitwise_or", "bitwise_xor")
] + [
    unary("logical_not", dtypes=WITH_HALF, grad=False, low=-1, high=2),
    unary("bitwise_not", dtypes=("bool", "int64", "int32", "uint8", "float32"), grad=False),
]

# ----------------------------------------------------------------------------------------------
# Unary math
# ----------------------------------------------------------------------------------------------

_POS = {"low": 0.1, "high": 5.0}


def _round_samples(dtype, make):
    out = unary_samples()(dtype, make)
    if is_float(dtype):
        # exact halves (ties to even); no gradcheck there: round jumps at these points
        halves = make((6,), values=[0.5, 1.5, 2.5, -0.5, -1.5, 3.7], grad=False)
        out += [Sample(halves), Sample(make((2, 3)), decimals=2), Sample(make((4,)), decimals=-1)]
    return out


def _neg_errors(make):
    return not_a_tensor(make) + [ErrorSample(Sample(make((2,), "bool")), match="Negation")]


UNARY = [
    unary("neg", dtypes=WITH_HALF + COMPLEX, errors=_neg_errors,
          grad_dtypes=GRAD_C),
    unary("negative", dtypes=FLOATS + INTS, errors=_neg_errors),
    unary("abs", dtypes=WITH_HALF + COMPLEX + ("uint8", "int8"),
          grad_dtypes=GRAD_C),
    unary("absolute", dtypes=FLOATS + INTS),
    unary("sign", dtypes=WITH_HALF),
    unary("sgn", dtypes=WITH_HALF + COMPLEX,
          grad_dtypes=GRAD_C),
    unary("reciprocal", dtypes=WITH_HALF),
    unary("sqrt", dtypes=WITH_HALF + COMPLEX, **_POS,
          grad_dtypes=GRAD_C),
    unary("rsqrt", dtypes=WITH_HALF, **_POS),
    unary("exp", dtypes=WITH_HALF + COMPLEX, low=-3, high=3,
          grad_dtypes=GRAD_C),
    unary("exp2", dtypes=WITH_HALF, low=-3, high=3),
    unary("expm1", dtypes=WITH_HALF, low=-3, high=3),
    unary("log", dtypes=WITH_HALF, **_POS),
    unary("log2", dtypes=WITH_HALF, **_POS),
    unary("log10", dtypes=WITH_HALF, **_POS),
    unary("log1p", dtypes=WITH_HALF, low=-0.9, high=5.0),
    unary("sin", dtypes=WITH_HALF),
    unary("cos", dtypes=WITH_HALF),
    unary("tan", dtypes=WITH_HALF, low=-1.2, high=1.2),
    unary("asin", dtypes=WITH_HALF, low=-0.95, high=0.95),
    unary("acos", dtypes=WITH_HALF, low=-0.95, high=0.95),
    unary("atan", dtypes=WITH_HALF),
    unary("arcsin", dtypes=FLOATS + INTS, low=-0.95, high=0.95),
    unary("arccos", dtypes=FLOATS + INTS, low=-0.95, high=0.95),
    unary("arctan", dtypes=FLOATS + INTS),
    unary("sinh", dtypes=WITH_HALF, low=-3, high=3),
    unary("cosh", dtypes=WITH_HALF, low=-3, high=3),
    unary("tanh", dtypes=WITH_HALF),
    unary("sigmoid", dtypes=WITH_HALF),
    unary("relu", dtypes=WITH_HALF, out=False),
    unary("square", dtypes=WITH_HALF),
    unary("floor", dtypes=WITH_HALF),
    unary("ceil", dtypes=WITH_HALF),
    unary("trunc", dtypes=WITH_HALF),
    unary("fix", dtypes=FLOATS + INTS),
    unary("frac", dtypes=WITH_HALF),
    unary("round", dtypes=WITH_HALF, samples=_round_samples),
    unary("erf", dtypes=WITH_HALF, low=-2.5, high=2.5),
    unary("conj", dtypes=FLOATS + COMPLEX, inplace=False, out=False, grad=False),
    unary("conj_physical", dtypes=FLOATS + COMPLEX, grad=False),
    unary("resolve_conj", dtypes=FLOATS + COMPLEX, inplace=False, out=False, grad=False),
    unary("resolve_neg", dtypes=FLOATS + COMPLEX, inplace=False, out=False, grad=False),
]

# ----------------------------------------------------------------------------------------------
# clamp and where
# ----------------------------------------------------------------------------------------------


def _clamp_samples(dtype, make):
    k = scalar_kind(dtype)
    lo, hi = (-1.5, 2.0) if k == "float" else (-1, 2)
    x = make((3, 4))
    return [
        Sample(x, lo, hi), Sample(x, lo), Sample(x, None, hi), Sample(x, min=lo),
        Sample(x, max=hi), Sample(make(()), lo, hi), Sample(make((0, 2)), lo, hi),
        Sample(make((3, 4), layout="transposed"), lo, hi),
        Sample(x, hi, lo),                                        # min > max: all become max
        Sample(x, make((3, 4), low=-3, high=0), make((4,), low=0, high=3)),
        Sample(x, make((4,), low=-3, high=0)), Sample(x, None, make((3, 1), low=0, high=3)),
        Sample(x, make((), low=-1, high=0), 1),
    ] + ([Sample(make((3, 4), "int64"), 0.5, 2.5)] if k == "float" else [])


def _clamp_errors(make):
    return [ErrorSample(Sample(make((2, 2))), match="At least one of 'min' or 'max'"),
            ErrorSample(Sample(make((2, 2)), None, None)),
            ErrorSample(Sample(make((3,), "uint8"), 3, 300), match="without overflow")]


def _clamp_bound_samples(which):
    def gen(dtype, make):
        k = scalar_kind(dtype)
        v = 0.5 if k == "float" else 1
        return [Sample(make((3, 4)), v), Sample(make(()), v), Sample(make((3, 4)), make((4,))),
                Sample(make((2, 3), layout="transposed"), v)]
    return gen


def _where_samples(dtype, make):
    cond = make((3, 4), "bool")
    return [
        Sample(cond, make((3, 4)), make((3, 4))),
        Sample(make((3, 1), "bool"), make((1, 4)), make((3, 4))),
        Sample(cond, make((3, 4)), make(())),
        Sample(make((), "bool"), make(()), make(())),
        Sample(cond, make((3, 4)), 0.5 if scalar_kind(dtype) == "float" else 1),
        Sample(cond, 1, make((3, 4))),
        Sample(cond, make((3, 4), layout="transposed"), make((4,))),
        Sample(make((0, 4), "bool"), make((0, 4)), make((4,))),
        Sample(cond, make((3, 4)), make((3, 4), "float64")),
    ]


def _where_errors(make):
    return [ErrorSample(Sample(make((3,), "float32"), make((3,)), make((3,))),
                        match="where expected condition to be a boolean tensor"),
            ErrorSample(Sample(make((3,), "bool"), make((3,)), make((4,))))]


def _where_call(lib, cond, x=None, y=None, **kw):
    return lib.where(cond, x, y, **kw)


def _where_method(lib, cond, x, y):
    """``x.where(cond, y)``: the method form puts the tensor first."""
    if not isinstance(x, lib.Tensor):
        return NotImplemented
    return x.where(cond, y)


CLAMP_WHERE = [
    OpEntry("clamp", samples=_clamp_samples, dtypes=WITH_HALF, grad=True,
            inplace=True, out=True, errors=_clamp_errors, family=FAMILY),
    OpEntry("clip", samples=_clamp_samples, dtypes=FLOATS + INTS, grad=True, inplace=True,
            out=True, errors=_clamp_errors, family=FAMILY),
    OpEntry("clamp_min", samples=_clamp_bound_samples("min"), dtypes=FLOATS + INTS, grad=True,
            inplace=True, out=True, family=FAMILY),
    OpEntry("clamp_max", samples=_clamp_bound_samples("max"), dtypes=FLOATS + INTS, grad=True,
            inplace=True, out=True, family=FAMILY),
    OpEntry("where", call=_where_call, samples=_where_samples, dtypes=WITH_HALF, grad=True,
            out=True, method=_where_method, errors=_where_errors, family=FAMILY),
]

# ----------------------------------------------------------------------------------------------
# isnan / isinf / isfinite / isposinf / isneginf
# ----------------------------------------------------------------------------------------------

_NAN, _INF = float("nan"), float("inf")


def _special_samples(dtype, make):
    out = unary_samples()(dtype, make)
    if is_float(dtype) or dtype in COMPLEX:
        out.append(Sample(make((2, 3), values=[1.0, _NAN, _INF, -_INF, 0.0, -2.5])))
    return out


CLASSIFY = [
    unary(n, samples=_special_samples, dtypes=WITH_HALF + COMPLEX, grad=False, inplace=False,
          out=n in ("isposinf", "isneginf"))
    for n in ("isnan", "isinf", "isfinite", "isposinf", "isneginf")
]

ENTRIES = ARITHMETIC + COMPARISONS + UNARY + CLAMP_WHERE + CLASSIFY
