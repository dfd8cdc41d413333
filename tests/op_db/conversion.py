"""Copies and conversions (cinder/ops/conversion.py): to / type / float() ... / type_as, clone,
contiguous, copy_ (broadcasting, across dtypes), fill_ / fill, zero_.

Strides are compared for clone/contiguous/to (PyTorch's preserve_format rules).
"""

from . import ALL_DTYPES, COMPLEX, FLOATS, GRAD_C, WITH_HALF, Dtype, ErrorSample, OpEntry, Sample

FAMILY = "conversion"
DTYPES = WITH_HALF + COMPLEX[:1] + ("uint8",)
CAST_METHODS = ("float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte",
                "bool", "cfloat", "cdouble")


def _layouts(make):
    return [make((2, 3)), make(()), make((0, 2)), make((3, 4), layout="transposed"),
            make((2, 6), layout="strided")]


def _method(name):
    def call(lib, x, *args, **kwargs):
        return getattr(x, name)(*args, **kwargs)
    return call


def _clone_samples(dtype, make):
    return [Sample(x) for x in _layouts(make)] + [
        Sample(make((3, 4), layout="transposed"), memory_format="contiguous_format")]


def _clone_call(lib, x, memory_format=None):
    if memory_format is None:
        return lib.clone(x)
    return lib.clone(x, memory_format=getattr(lib, memory_format))


def _to_samples(dtype, make):
    x = make((2, 3))
    out = [Sample(x, Dtype(d)) for d in ("float32", "float64", "int64", "int32", "bool",
                                        "float16", "complex64")]
    out += [Sample(x, Dtype(dtype)), Sample(x, dtype=Dtype("float64")), Sample(x, "cpu"),
            Sample(x, "cpu", Dtype("int32")), Sample(x, Dtype(dtype), copy=True),
            Sample(x, make((1,), "float64")), Sample(make((3, 4), layout="transposed"),
                                                    Dtype("float64")),
            Sample(make((2, 6), layout="strided"), Dtype("float64")),
            Sample(make(()), Dtype("int64")), Sample(x, device="cpu", dtype=Dtype("float16"))]
    return out


def _to_errors(make):
    return [ErrorSample(Sample(make((2,)), "float64")), ErrorSample(Sample(make((2,)), [1]))]


def _type_samples(dtype, make):
    x = make((2, 3))
    return [Sample(x), Sample(x, Dtype("float64")), Sample(x, "torch.IntTensor"),
            Sample(x, "torch.DoubleTensor"), Sample(x, Dtype(dtype)),
            Sample(make((3, 4), layout="transposed"), Dtype("int64"))]


def _type_errors(make):
    return [ErrorSample(Sample(make((2,)), "torch.NoSuchTensor"), match="invalid type")]


def _cast_samples(dtype, make):
    return [Sample(x) for x in _layouts(make)]


def _type_as_samples(dtype, make):
    return [Sample(make((2, 3)), make((1,), d)) for d in ("float64", "int32", "bool", dtype)]


def _copy_samples(dtype, make):
    def dst(shape=(2, 3), **kw):
        return make(shape, **kw)
    return [
        Sample(dst(), make((2, 3))), Sample(dst(), make((3,))), Sample(dst(), make(())),
        Sample(dst(), make((2, 3), "float64")), Sample(dst(), make((1, 3), "int64")),
        Sample(dst(), make((2, 3), "bool")), Sample(dst(layout="transposed"), make((2, 3))),
        Sample(dst((3, 4)), make((3, 4), layout="strided")),
        Sample(dst(), make((2, 3), "complex64")), Sample(dst((0, 3)), make((3,))),
    ]


def _copy_errors(make):
    return [ErrorSample(Sample(make((2, 3)), make((4,))), match="must match the size"),
            ErrorSample(Sample(make((2, 3)), make((2, 2, 3))),
                        match="doesn't match the broadcast shape"),
            ErrorSample(Sample(make((2, 3)), "a"))]


def _fill_samples(dtype, make):
    kind = [1.5, 2, True, -1] + ([1 + 2j] if dtype in COMPLEX else [])
    out = [Sample(make((2, 3)), v) for v in kind]
    value_dtype = "complex128" if dtype in COMPLEX else "float64"
    out += [Sample(make((2, 3)), make((), value_dtype)), Sample(make(()), 3),
            Sample(make((3, 4), layout="transposed"), 0.5), Sample(make((0, 2)), 1)]
    return out


def _fill_errors(make):
    return [ErrorSample(Sample(make((2, 3)), make((2,))), match="only supports 0-dimension value")]


def _zero_samples(dtype, make):
    return [Sample(x) for x in _layouts(make)]


def _contiguous_samples(dtype, make):
    return [Sample(x) for x in _layouts(make)] + [Sample(make((3, 1), layout="transposed"))]


# Casting down to float32/half makes finite differences too coarse for gradcheck; these
# gradients are compared with PyTorch's in test_grad instead.
LOSSY = {"gradcheck": "a cast to lower precision: finite differences are too coarse"}


NO_GRADIENT = {"gradcheck": "an integer or bool result has no gradient (test_grad checks that "
                            "it does not require grad)"}


def _entry(name, samples, errors=None, **kw):
    kw.setdefault("dtypes", DTYPES)
    kw.setdefault("grad_dtypes", GRAD_C)
    return OpEntry(name, samples=samples, errors=errors, family=FAMILY, **kw)


ENTRIES = [
    _entry("clone", _clone_samples, call=_clone_call, grad=True, check_strides=True,
           method=False),
    _entry("contiguous", _contiguous_samples, call=_method("contiguous"), grad=True,
           method=False, check_strides=True),
    _entry("to", _to_samples, _to_errors, call=_method("to"), grad=True, method=False,
           check_strides=True, dtypes=WITH_HALF + COMPLEX[:1], skips=LOSSY),
    _entry("type", _type_samples, _type_errors, call=_method("type"), method=False,
           grad=True, skips=LOSSY),
    _entry("type_as", _type_as_samples, call=_method("type_as"), method=False, grad=True),
    _entry("copy_", _copy_samples, _copy_errors, call=_method("copy_"), method=False,
           inplace="copy_", grad=True),
    _entry("fill_", _fill_samples, _fill_errors, call=_method("fill_"), method=False,
           inplace="fill_", grad=True, grad_dtypes=FLOATS),
    _entry("fill", _fill_samples, _fill_errors, method=False, grad=True),
    _entry("zero_", _zero_samples, call=_method("zero_"), method=False, inplace="zero_",
           grad=True),
] + [
    _entry(name, _cast_samples, call=_method(name), method=False, grad=True,
           check_strides=True, dtypes=ALL_DTYPES,
           skips=LOSSY if name in ("float", "half", "bfloat16", "cfloat") else
           NO_GRADIENT if name not in ("double", "cdouble") else {})
    for name in CAST_METHODS
]
