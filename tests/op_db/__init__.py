"""The op database: one ``OpEntry`` per op, in one file per family (mirroring ``cinder/ops``).

An entry says how to call an op (``call(lib, *args, **kwargs)`` runs it in either library),
which sample inputs to try for a dtype, which dtypes to try, the tolerances, which variants
exist (``Tensor`` method, in-place ``x.op_()``, ``out=``) and which inputs are bad (error
samples). The generic runners in ``tests/test_ops.py`` read every entry and compare cinder with
PyTorch. A sample holds NumPy arrays (``T``): each library gets its own copy of the same values,
so the two never share memory and in-place ops cannot leak from one to the other.

Where an entry lists a dtype that PyTorch refuses for that op, the forward runner checks that
cinder refuses it too (with the same exception type): dtype lists may include the "bad" dtypes.
"""

import math
import os
import zlib

import ml_dtypes
import numpy as np

# The device the generic runners build their tensors on, in both libraries: ``cpu`` unless the
# environment says otherwise (``CINDER_TEST_DEVICE=cuda`` runs the op table on a GPU against
# PyTorch's CUDA build).
TEST_DEVICE = os.environ.get("CINDER_TEST_DEVICE", "cpu")

# ----------------------------------------------------------------------------------------------
# dtypes
# ----------------------------------------------------------------------------------------------

ALL_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
              "float32", "float64", "complex64", "complex128")
FLOATS = ("float32", "float64")
HALFS = ("float16", "bfloat16")
INTS = ("int64", "int32")
COMPLEX = ("complex64", "complex128")
BASIC = ("float32", "float64", "int64", "int32", "bool")     # the usual set: see the brief
WITH_HALF = BASIC + HALFS
GRAD_C = FLOATS + ("complex64",)     # grad dtypes of ops whose complex gradients are compared

NUMPY_DTYPES = {
    "bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
    "int64": np.int64, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16,
    "float32": np.float32, "float64": np.float64, "complex64": np.complex64,
    "complex128": np.complex128,
}


def is_float(dtype):
    return dtype in ("float16", "bfloat16", "float32", "float64")


def is_complex(dtype):
    return dtype in COMPLEX


def is_int(dtype):
    return dtype in ("uint8", "int8", "int16", "int32", "int64")


# Default tolerances (rtol, atol) per dtype: float32 within a few ulps of PyTorch's; the half
# types are computed through float32 by both libraries but rounded at different steps.
TOLERANCES = {
    "float16": (1e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7),
}


class Dtype:
    """A dtype argument (``dtype=Dtype('float64')``): becomes ``lib.float64`` in each library."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


class T:
    """A tensor argument: values as a NumPy array, plus how to lay it out and whether it is a
    gradient leaf (float/complex inputs only). ``layout`` is 'contiguous', 'strided' (every
    other element of the last dim) or 'transposed' (Fortran order)."""

    def __init__(self, array, dtype, layout="contiguous", grad=True):
        self.array = array
        self.dtype = dtype
        self.layout = layout
        self.grad = grad and (is_float(dtype) or is_complex(dtype))

    @property
    def shape(self):
        return self.array.shape

    def __repr__(self):
        lay = {"contiguous": "", "strided": "s", "transposed": "T"}[self.layout]
        return f"{list(self.shape)}{lay}".replace(" ", "")


class Sample:
    """One call: positional and keyword arguments, T where a tensor goes."""

    def __init__(self, *args, desc=None, **kwargs):
        self.args = args
        self.kwargs = kwargs
        self.desc = desc
        self.skips = {}

    def skip(self, runner, reason):
        """Skip this sample in one runner ('grad', 'gradcheck', ...) for ``reason``."""
        self.skips[runner] = reason
        return self

    def __repr__(self):
        if self.desc:
            return self.desc
        parts = [_short(a) for a in self.args]
        parts += [f"{k}={_short(v)}" for k, v in self.kwargs.items()]
        return ",".join(parts)


def _short(v):
    if isinstance(v, (list, tuple)):
        inner = ",".join(_short(x) for x in v)
        return f"[{inner}]" if isinstance(v, list) else f"({inner})"
    if isinstance(v, float):
        return f"{v:g}"
    return repr(v).replace(" ", "")


class ErrorSample:
    """A call PyTorch refuses: cinder must raise the same exception type. ``match`` (a regex)
    is checked against both messages when given."""

    def __init__(self, sample, match=None):
        self.sample = sample
        self.match = match

    def __repr__(self):
        return repr(self.sample)


class OpEntry:
    """One op's test description (PyTorch's OpInfo, reduced to what cinder needs).

    ``call(lib, *args, **kwargs)`` runs the op; by default ``getattr(lib, name)``. ``samples``
    is ``f(dtype, make) -> [Sample]`` where ``make`` builds T arguments for that dtype.
    ``method``/``inplace`` are the Tensor method names (True: ``name`` / ``name + '_'``).
    ``skips`` maps a runner ('forward', 'grad', 'gradcheck', 'inplace', 'out', 'method') to a
    reason, or to ``(reason, dtypes)`` to skip only some dtypes. ``values=False`` compares only
    dtype, shape (and strides) of results whose values are undefined (``empty``).
    """

    def __init__(self, name, *, call=None, samples=None, dtypes=BASIC, method=True,
                 inplace=False, out=False, grad=False, grad_dtypes=FLOATS, tol=None,
                 grad_tol=None, errors=None, skips=None, check_strides=False, check_grad_fn=True,
                 values=True, family="", gradgrad_samples=None):
        self.name = name
        # samples (a function of a Maker) whose second derivatives, via create_graph=True,
        # are compared with PyTorch's in float64
        self.gradgrad_samples = gradgrad_samples
        self.call = call or _call_by_name(name)
        self.samples = samples or (lambda dtype, make: [])
        self.dtypes = tuple(dtypes)
        self.method = name if method is True else method
        self.inplace = (name + "_") if inplace is True else inplace
        self.out = out
        self.grad = grad
        self.grad_dtypes = tuple(d for d in grad_dtypes if d in self.dtypes) if grad else ()
        self.tol = dict(TOLERANCES, **(tol or {}))
        self.grad_tol = dict(self.tol, **(grad_tol or {}))
        self.errors = errors or (lambda make: [])
        self.skips = skips or {}
        self.check_strides = check_strides
        self.check_grad_fn = check_grad_fn
        self.values = values
        self.family = family

    def __repr__(self):
        return f"OpEntry({self.name!r})"

    def skip_reason(self, runner, dtype=None, sample=None):
        if sample is not None and runner in sample.skips:
            return sample.skips[runner]
        s = self.skips.get(runner)
        if s is None:
            return None
        if isinstance(s, tuple):
            reason, dtypes = s
            return reason if dtype in dtypes else None
        return s

    def sample_list(self, dtype):
        """The samples for ``dtype`` (deterministic: seeded by the entry name and dtype)."""
        return self.samples(dtype, Maker(dtype, seed_of(self.name, dtype)))

    def error_list(self):
        return self.errors(Maker("float32", seed_of(self.name, "errors")))


def _call_by_name(name):
    def call(lib, *args, **kwargs):
        return getattr(lib, name)(*args, **kwargs)
    return call


def seed_of(*parts):
    return zlib.crc32("/".join(parts).encode())


# ----------------------------------------------------------------------------------------------
# Making sample arrays
# ----------------------------------------------------------------------------------------------

class Maker:
    """Builds T arguments of one dtype from a seeded generator: ``make((2, 3))``."""

    def __init__(self, dtype, seed):
        # 'default' is the creation entries' "no dtype= argument"; their arrays are float32
        self.dtype = "float32" if dtype == "default" else dtype
        self.rng = np.random.default_rng(seed)

    def __call__(self, shape, dtype=None, *, low=None, high=None, layout="contiguous",
                 grad=True, nonzero=False, values=None):
        dtype = dtype or self.dtype
        if values is not None:
            arr = np.asarray(values, dtype=_storage_dtype(dtype)).reshape(shape)
        else:
            arr = self.array(shape, dtype, low, high, nonzero)
        return T(arr, dtype, layout, grad)

    def array(self, shape, dtype, low=None, high=None, nonzero=False):
        rng = self.rng
        shape = tuple(shape)
        if dtype == "bool":
            return rng.random(shape) < 0.5
        if is_int(dtype):
            lo = (0 if dtype == "uint8" else -9) if low is None else math.floor(low)
            hi = 10 if high is None else max(math.ceil(high), lo + 2)
            if dtype == "uint8":
                lo, hi = max(lo, 0), max(hi, 2)
            arr = rng.integers(lo, hi, size=shape).astype(NUMPY_DTYPES[dtype])
            if nonzero:
                arr[arr == 0] = 1
            return arr
        lo = -5.0 if low is None else low
        hi = 5.0 if high is None else high
        arr = rng.uniform(lo, hi, size=shape)
        if is_complex(dtype):
            arr = arr + 1j * rng.uniform(lo, hi, size=shape)
        if nonzero:
            small = np.abs(arr) < 0.1
            arr = np.where(small, 0.5, arr)
        if dtype == "bfloat16":
            # Values exactly representable in bfloat16, stored as float32 (see to_lib).
            return arr.astype(ml_dtypes.bfloat16).astype(np.float32)
        return arr.astype(NUMPY_DTYPES[dtype])

    def scalar(self, kind, low=-3, high=3):
        """A Python scalar of ``kind`` ('int', 'float', 'bool', 'complex')."""
        if kind == "int":
            return int(self.rng.integers(low, high))
        if kind == "float":
            return float(np.round(self.rng.uniform(low, high), 3))
        if kind == "bool":
            return bool(self.rng.random() < 0.5)
        return complex(np.round(self.rng.uniform(low, high), 2),
                       np.round(self.rng.uniform(low, high), 2))


def _storage_dtype(dtype):
    return np.float32 if dtype == "bfloat16" else NUMPY_DTYPES[dtype]


def scalar_kind(dtype):
    """The Python scalar kind matching a tensor dtype."""
    if dtype == "bool":
        return "bool"
    if is_int(dtype):
        return "int"
    if is_complex(dtype):
        return "complex"
    return "float"


# ----------------------------------------------------------------------------------------------
# Building library arguments and comparing results
# ----------------------------------------------------------------------------------------------

def _laid_out(arr, layout):
    """A fresh copy of ``arr`` (never shared between the libraries) in the requested layout."""
    if layout == "contiguous" or arr.ndim == 0:
        return np.array(arr, copy=True, order="C")
    if layout == "transposed":
        return np.array(arr, copy=True, order="F")
    buf = np.zeros(arr.shape[:-1] + (2 * arr.shape[-1],), dtype=arr.dtype)
    view = buf[..., ::2]
    view[...] = arr
    return view


def to_lib(lib, value, requires_grad=False, leaves=None):
    """``value`` (a sample argument, possibly nested) with each T made a ``lib`` tensor."""
    if isinstance(value, T):
        arr = _laid_out(value.array, value.layout)
        if arr.size == 0:
            # torch.from_numpy keeps NumPy's all-zero strides for an empty array (cinder reports
            # dense ones): empty inputs are made by the library itself
            t = lib.zeros(arr.shape, dtype=getattr(lib, value.dtype), device=TEST_DEVICE)
        elif lib.__name__ == "torch":
            if value.dtype == "bfloat16":
                # torch.from_numpy has no bfloat16: the same bits, through int16, keep the layout
                bits = _laid_out(value.array.astype(ml_dtypes.bfloat16), value.layout)
                t = lib.from_numpy(bits.view(np.int16)).view(lib.bfloat16)
            else:
                t = lib.from_numpy(arr)
        else:
            if value.dtype == "bfloat16":
                arr = _laid_out(value.array.astype(ml_dtypes.bfloat16), value.layout)
            t = lib.from_numpy(arr)
        if TEST_DEVICE != "cpu":
            t = t.to(TEST_DEVICE)
        if requires_grad and value.grad:
            t.requires_grad_(True)
            if leaves is not None:
                leaves.append(t)
        return t
    if isinstance(value, Dtype):
        return getattr(lib, value.name)
    if isinstance(value, list):
        return [to_lib(lib, v, requires_grad, leaves) for v in value]
    if isinstance(value, tuple):
        return tuple(to_lib(lib, v, requires_grad, leaves) for v in value)
    if isinstance(value, dict):
        return {k: to_lib(lib, v, requires_grad, leaves) for k, v in value.items()}
    return value


def build(lib, sample, requires_grad=False):
    """(args, kwargs, leaves) for ``lib``: leaves are the tensors that require grad."""
    leaves = []
    args = to_lib(lib, sample.args, requires_grad, leaves)
    kwargs = to_lib(lib, sample.kwargs, requires_grad, leaves)
    return args, kwargs, leaves


def numpy_of(t):
    """The values of a torch or cinder tensor as NumPy (bfloat16 widened to float32)."""
    t = t.detach()
    is_torch = type(t).__module__.startswith("torch")
    if str(t.dtype) == "torch.bfloat16":
        if is_torch:
            return t.float().numpy(force=True)
        return np.asarray(t.cpu().numpy()).astype(np.float32)
    if is_torch:
        return t.numpy(force=True)      # force: resolves lazy conj/neg and zero tensors
    return np.asarray(t.cpu().numpy())


def dtype_name(dt):
    return str(dt).replace("torch.", "")


def assert_same(c, t, tol=TOLERANCES, *, check_strides=False, values=True, where="result"):
    """Assert cinder's result ``c`` equals PyTorch's ``t``: type, dtype, shape, requires_grad
    and values (recursively through tuples and lists)."""
    import torch

    import cinder
    if isinstance(t, torch.Tensor):
        assert isinstance(c, cinder.Tensor), f"{where}: expected a Tensor, got {type(c).__name__}"
        assert dtype_name(c.dtype) == dtype_name(t.dtype), \
            f"{where}: dtype {c.dtype} != torch's {t.dtype}"
        # the array behind the tensor must hold the dtype the tensor reports (a float32 array
        # labelled bfloat16 would print and compute at the wrong precision)
        assert c._data.dtype == c.dtype.numpy_dtype, \
            f"{where}: a {c.dtype} tensor holds a {c._data.dtype} array"
        assert tuple(c.shape) == tuple(t.shape), \
            f"{where}: shape {tuple(c.shape)} != torch's {tuple(t.shape)}"
        assert c.requires_grad == t.requires_grad, \
            f"{where}: requires_grad {c.requires_grad} != torch's {t.requires_grad}"
        if check_strides:
            assert tuple(c.stride()) == tuple(t.stride()), \
                f"{where}: strides {c.stride()} != torch's {t.stride()}"
        if values:
            assert_values(numpy_of(c), numpy_of(t), tol, dtype_name(t.dtype), where)
    elif isinstance(t, (tuple, list)):
        assert isinstance(c, (tuple, list)), f"{where}: expected a sequence, got {type(c)}"
        assert type(c).__name__ == type(t).__name__, \
            f"{where}: type {type(c).__name__} != torch's {type(t).__name__}"
        assert len(c) == len(t), f"{where}: length {len(c)} != torch's {len(t)}"
        for i, (ci, ti) in enumerate(zip(c, t)):
            assert_same(ci, ti, tol, check_strides=check_strides, values=values,
                        where=f"{where}[{i}]")
    elif isinstance(t, torch.dtype):
        assert dtype_name(c) == dtype_name(t), f"{where}: {c} != torch's {t}"
    elif isinstance(t, float):
        assert type(c) is float, f"{where}: {type(c).__name__} != float"
        np.testing.assert_allclose(c, t, rtol=1e-6, atol=1e-6, err_msg=where)
    else:
        assert type(c) is type(t), f"{where}: {type(c).__name__} != {type(t).__name__}"
        assert c == t, f"{where}: {c!r} != torch's {t!r}"


def assert_values(c, t, tol, dtype, where="result"):
    if dtype in TOLERANCES:
        rtol, atol = tol.get(dtype, TOLERANCES[dtype])
        np.testing.assert_allclose(c, t, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(c, t, err_msg=where)
