"""Creation ops (cinder/ops/creation.py): tensor (dtype inference), as_tensor / asarray /
from_numpy, zeros / ones / full / empty (+ _like and Tensor.new_*), arange / range / linspace /
logspace (float steps, dtype inference), eye, complex, polar, tril_indices / triu_indices.

Samples hold Python data and NumPy arrays; each entry's dtype is the ``dtype=`` argument it
passes ('default' entries pass none and test inference). Memory sharing (from_numpy,
as_tensor, asarray) is tested in tests/test_creation.py. ``empty`` results are compared by
dtype, shape and strides only (their values are undefined).
"""

import numpy as np

from . import ALL_DTYPES, FLOATS, INTS, Dtype, ErrorSample, OpEntry, Sample, is_int

FAMILY = "creation"
SOME_DTYPES = ("float32", "float64", "int64", "int32", "bool", "float16", "complex64")


def _dt(dtype):
    return {} if dtype == "default" else {"dtype": Dtype(dtype)}


# ----------------------------------------------------------------------------------------------
# tensor / as_tensor / asarray / from_numpy
# ----------------------------------------------------------------------------------------------

NAN = float("nan")


def _data_samples(dtype, make):
    """Python and NumPy data: every inference rule of torch.tensor."""
    kw = _dt(dtype)
    out = [
        Sample([1, 2, 3], **kw), Sample([1.0, 2.5], **kw), Sample([True, False], **kw),
        Sample([[1, 2], [3, 4]], **kw), Sample(3.5, **kw), Sample(7, **kw), Sample(True, **kw),
        Sample([1, 2.5], **kw), Sample([True, 2], **kw), Sample([], **kw),
        Sample((1, 2), **kw), Sample([[1.5], [2.0]], **kw),
        Sample(np.arange(6, dtype=np.int32).reshape(2, 3), **kw),
        Sample(np.linspace(0, 1, 4), **kw), Sample(np.array([1, 0], dtype=bool), **kw),
        Sample([np.float64(1.5), 2], **kw), Sample([np.int16(1), True], **kw),
        Sample(np.ones((3, 2), dtype=np.float32).T, **kw),
        Sample([make((), "float32"), make((), "float32")], **kw),
        Sample(make((2, 3), "int64"), **kw),
    ]
    if dtype in ("default", "complex64", "complex128"):
        out.append(Sample([1 + 2j, 3], **kw))
    if dtype == "default":
        # (with any dtype= argument, PyTorch 2.13 reads [[], []] as an index: TypeError)
        out.append(Sample([[], []]))
    if dtype in ("default", "float32", "float64"):
        # (PyTorch refuses a bare NumPy float scalar with an integer dtype= argument)
        out += [Sample([NAN, float("inf")], **kw), Sample(np.float32(1.5), **kw)]
    return out



def _data_errors(make):
    return [ErrorSample(Sample([[1, 2], [3]]), match="expected sequence of length 2 at dim 1"),
            ErrorSample(Sample("a"), match="invalid data type 'str'"),
            ErrorSample(Sample([1, "a"]), match="invalid data type 'str'"),
            ErrorSample(Sample(None), match="Could not infer dtype of NoneType"),
            ErrorSample(Sample([make((2,)), make((2,))])),
            ErrorSample(Sample(np.array(["a"])))]


def _from_numpy_samples(dtype, make):
    arrays = [np.arange(6, dtype=np.float32).reshape(2, 3), np.zeros((0, 3), np.float64),
              np.array(3, dtype=np.int64), np.ones((2, 2), np.int16).T, np.array([True]),
              np.arange(10, dtype=np.uint8)[::2], np.array([1 + 1j], np.complex64),
              np.ones(3, np.float16)]
    return [Sample(a) for a in arrays]


def _from_numpy_errors(make):
    return [ErrorSample(Sample([1, 2]), match="expected np.ndarray"),
            ErrorSample(Sample(np.arange(5)[::-1]), match="negative"),
            ErrorSample(Sample(np.ones(2, dtype=np.longdouble))),
            ErrorSample(Sample(np.array(["a"])))]


# ----------------------------------------------------------------------------------------------
# zeros / ones / empty / full and friends
# ----------------------------------------------------------------------------------------------

def _size_samples(dtype, make):
    kw = _dt(dtype)
    return [Sample(2, 3, **kw), Sample((2, 3), **kw), Sample([4], **kw), Sample(**kw),
            Sample((), **kw), Sample(0, **kw), Sample(2, 0, 3, **kw),
            Sample(np.int64(2), 2, **kw)]


def _size_errors(make):
    return [ErrorSample(Sample(2, -1), match="negative"),
            ErrorSample(Sample((2, 3.0))),
            ErrorSample(Sample(2, dtype="float32"))]


def _full_samples(dtype, make):
    kw = _dt(dtype)
    values = [1.5, 7, True, -2] + ([1 + 1j] if dtype in ("default", "complex64") else [])
    out = [Sample((2, 3), v, **kw) for v in values]
    out += [Sample([], 2.5, **kw), Sample((0, 2), 1, **kw), Sample(3, 4.0, **kw),
            Sample((2,), make((), "float64"), **kw)]
    return out


def _full_errors(make):
    return [ErrorSample(Sample((2, -1), 1.0)), ErrorSample(Sample((2, 3)))]


def _like_samples(dtype, make):
    kw = _dt(dtype)
    out = []
    for src in ("float32", "int64", "bool"):
        out += [Sample(make((2, 3), src), **kw), Sample(make((), src), **kw),
                Sample(make((3, 4), src, layout="transposed"), **kw),
                Sample(make((2, 3), src, layout="strided"), **kw)]
    out.append(Sample(make((0, 2)), **kw))
    return out


def _full_like_samples(dtype, make):
    kw = _dt(dtype)
    return [Sample(make((2, 3), "float32"), 2.5, **kw), Sample(make((2, 3), "int64"), 2.5, **kw),
            Sample(make((2, 3), "int64"), 3, **kw), Sample(make((), "bool"), True, **kw),
            Sample(make((3, 4), "float64", layout="transposed"), -1, **kw)]


def _like_errors(make):
    return [ErrorSample(Sample([1, 2]))]


def _new_call(name):
    def call(lib, x, *args, **kwargs):
        return getattr(x, name)(*args, **kwargs)
    return call


def _new_size_samples(dtype, make):
    kw = _dt(dtype)
    out = []
    for src in ("float64", "int32"):
        x = make((2,), src)
        out += [Sample(x, 2, 3, **kw), Sample(x, (3,), **kw), Sample(x, [], **kw),
                Sample(x, 0, **kw)]
    return out


def _new_full_samples(dtype, make):
    kw = _dt(dtype)
    return [Sample(make((2,), "float64"), (2, 3), 1.5, **kw),
            Sample(make((2,), "int32"), (3,), 7, **kw),
            Sample(make((2,), "int32"), [2], 2.5, **kw)]


def _new_tensor_samples(dtype, make):
    kw = _dt(dtype)
    return [Sample(make((2,), "float64"), [1, 2], **kw),
            Sample(make((2,), "int32"), [1.5, 2], **kw),
            Sample(make((2,), "bool"), [[1, 0]], **kw),
            Sample(make((2,), "float16"), 3, **kw),
            Sample(make((2,), "float32"), make((3,), "int64"), **kw)]


# ----------------------------------------------------------------------------------------------
# ranges
# ----------------------------------------------------------------------------------------------

def _arange_samples(dtype, make):
    kw = _dt(dtype)
    out = [Sample(5, **kw), Sample(1, 5, **kw), Sample(1, 10, 3, **kw), Sample(10, 0, -3, **kw),
           Sample(0, **kw), Sample(5, 5, **kw)]
    if dtype not in ("bool",) and not is_int(dtype):
        out += [Sample(0, 1, 0.1, **kw), Sample(5.0, **kw), Sample(-3, 3, 0.7, **kw),
                Sample(1, 2.5, 0.5, **kw), Sample(0.5, 3, **kw), Sample(2, -1, -0.25, **kw)]
    else:
        out += [Sample(-1.5, 2, **kw), Sample(0.5, 7.9, 2.5, **kw)]
    out.append(Sample(make((), "int64", values=3), **kw))
    return out


def _arange_errors(make):
    return [ErrorSample(Sample(0, 10, 0), match="step must be nonzero"),
            ErrorSample(Sample(0, 10, -1), match="upper bound and lower bound inconsistent"),
            ErrorSample(Sample(5, dtype=Dtype("bool")))]


def _range_samples(dtype, make):
    kw = _dt(dtype)
    return [Sample(1, 4, **kw), Sample(0, 1, 0.25, **kw), Sample(0, 1, 0.3, **kw),
            Sample(4, 1, -1, **kw), Sample(-2.5, 2.5, **kw)]


def _linspace_samples(dtype, make):
    kw = _dt(dtype)
    return [Sample(0, 1, 5, **kw), Sample(-1, 1, 1, **kw), Sample(0, 10, 0, **kw),
            Sample(0, 10, 4, **kw), Sample(-1, 10, 4, **kw), Sample(1, 2, 7, **kw),
            Sample(3, -3, 6, **kw), Sample(0, 1, 101, **kw), Sample(0.5, 2, 2, **kw),
            Sample(make((), "float64", values=1.0), 5, 3, **kw)]


def _linspace_errors(make):
    return [ErrorSample(Sample(0, 1, -1), match="number of steps must be non-negative")]


def _logspace_samples(dtype, make):
    kw = _dt(dtype)
    return [Sample(0, 3, 4, **kw), Sample(0, 3, 4, base=2, **kw), Sample(-2, 2, 5, **kw),
            Sample(0, 1, 1, **kw), Sample(1, 0, 3, base=3.0, **kw), Sample(0, 2, 0, **kw)]


def _eye_samples(dtype, make):
    kw = _dt(dtype)
    return [Sample(3, **kw), Sample(2, 4, **kw), Sample(4, 2, **kw), Sample(0, **kw),
            Sample(1, 0, **kw), Sample(n=2, m=3, **kw)]


def _eye_errors(make):
    return [ErrorSample(Sample(-1), match="n must be greater or equal to 0"),
            ErrorSample(Sample(2, -1))]


def _tri_errors(make):
    return [ErrorSample(Sample(3, 3, dtype=Dtype("float32")), match="not implemented for"),
            ErrorSample(Sample(-1, 3))]


def _tri_samples(dtype, make):
    kw = _dt(dtype)
    return [Sample(3, 3, **kw), Sample(4, 3, 1, **kw), Sample(3, 4, -1, **kw),
            Sample(0, 0, **kw), Sample(3, 5, 10, **kw), Sample(2, 3, offset=-5, **kw)]


# ----------------------------------------------------------------------------------------------
# complex / polar
# ----------------------------------------------------------------------------------------------

def _complex_samples(dtype, make):
    return [Sample(make((2, 3)), make((2, 3))), Sample(make(()), make(())),
            Sample(make((3, 1)), make((4,))), Sample(make((0,)), make((0,))),
            Sample(make((3, 4), layout="transposed"), make((3, 4)))]


def _complex_errors(make):
    return [ErrorSample(Sample(make((2,), "float32"), make((2,), "float64"))),
            ErrorSample(Sample(make((2,), "int64"), make((2,), "int64")),
                        match="Expected both inputs to be Half, Float or Double tensors")]


# complex/polar of float16 parts give complex32 (ComplexHalf) in PyTorch: cinder has no such
# dtype and refuses (NotImplementedError). Gradients of complex outputs are not compared.
NO_COMPLEX32 = {"forward": ("complex32 (ComplexHalf) is not a cinder dtype", ("float16",)),
                "grad": "complex outputs: gradients are not compared (see test_ops)"}


def _entry(name, samples, errors=None, dtypes=("default",) + SOME_DTYPES, **kw):
    kw.setdefault("method", False)
    return OpEntry(name, samples=samples, errors=errors, dtypes=dtypes, family=FAMILY, **kw)


RANGE_CRASH = "torch.range with an integer dtype and a fractional step crashes PyTorch 2.13"
_RANGE_DTYPES = ("default", "float32", "float64", "int64", "int32", "float16", "bfloat16")

ENTRIES = [
    _entry("tensor", _data_samples, _data_errors, dtypes=("default",) + ALL_DTYPES),
    _entry("as_tensor", _data_samples, _data_errors),
    _entry("asarray", _data_samples, lambda make: _data_errors(make)[:4]),
    _entry("from_numpy", _from_numpy_samples, _from_numpy_errors, dtypes=("default",)),
    _entry("zeros", _size_samples, _size_errors, out=True, dtypes=("default",) + ALL_DTYPES),
    _entry("ones", _size_samples, _size_errors, out=True),
    _entry("empty", _size_samples, _size_errors, out=True, values=False, check_strides=True),
    _entry("full", _full_samples, _full_errors, out=True),
    _entry("zeros_like", _like_samples, _like_errors, check_strides=True),
    _entry("ones_like", _like_samples, _like_errors, check_strides=True),
    _entry("empty_like", _like_samples, _like_errors, check_strides=True, values=False),
    _entry("full_like", _full_like_samples, _like_errors, check_strides=True),
    _entry("new_zeros", _new_size_samples, call=_new_call("new_zeros")),
    _entry("new_ones", _new_size_samples, call=_new_call("new_ones")),
    _entry("new_empty", _new_size_samples, call=_new_call("new_empty"), values=False),
    _entry("new_full", _new_full_samples, call=_new_call("new_full")),
    _entry("new_tensor", _new_tensor_samples, call=_new_call("new_tensor")),
    _entry("arange", _arange_samples, _arange_errors, out=True,
           dtypes=_RANGE_DTYPES + ("bool",)),
    # (no integer dtypes: torch.range(0, 1, 0.25, dtype=torch.int64) kills PyTorch 2.13 with a
    # floating point exception, the step truncating to 0)
    _entry("range", _range_samples, out=True,
           dtypes=("default", "float32", "float64", "float16", "bfloat16"),
           skips={"forward": (RANGE_CRASH, ALL_DTYPES[:6])}),
    _entry("linspace", _linspace_samples, _linspace_errors, out=True,
           dtypes=_RANGE_DTYPES + ("complex64",)),
    _entry("logspace", _logspace_samples, out=True, dtypes=_RANGE_DTYPES),
    _entry("eye", _eye_samples, _eye_errors, out=True, dtypes=("default",) + SOME_DTYPES),
    _entry("tril_indices", _tri_samples, _tri_errors, dtypes=("default", "int64", "int32")),
    _entry("triu_indices", _tri_samples, _tri_errors, dtypes=("default", "int64", "int32")),
    _entry("complex", _complex_samples, _complex_errors, out=True, grad=True,
           dtypes=FLOATS + INTS, grad_dtypes=FLOATS, skips=NO_COMPLEX32),
    _entry("polar", _complex_samples, _complex_errors, out=True, grad=True,
           dtypes=FLOATS + INTS, skips=NO_COMPLEX32),
]
