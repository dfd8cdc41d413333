"""The twelve dtypes, PyTorch's type-promotion rules and the default dtype.

A ``cinder.dtype`` is a small immutable object that knows its NumPy counterpart. Promotion follows
PyTorch, not NumPy: the two disagree (``int64 + float16`` is float16 in PyTorch, float64 in
NumPy; ``float16 + bfloat16`` is float32), so the table is built here once, at import.
"""

import ml_dtypes
import numpy as np

__all__ = [
    "dtype", "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
    "float32", "float64", "complex64", "complex128", "uint16", "uint32", "uint64",
    "promote_types", "get_default_dtype",
    "set_default_dtype", "can_cast", "finfo", "iinfo",
]

# Categories order the kinds: a higher category always wins a promotion.
BOOL, INTEGRAL, FLOATING, COMPLEX = 0, 1, 2, 3


class dtype:
    """A tensor element type, e.g. ``cinder.float32``. Compared by identity, like PyTorch's."""

    __slots__ = ("_aliases", "_storage_name", "_tensor_name", "category", "cpp_name",
                 "is_signed", "itemsize", "name", "numpy_dtype", "scalar_name")

    def __init__(self, name, numpy_dtype, category, is_signed, storage_name, tensor_name):
        self.name = name
        self.numpy_dtype = np.dtype(numpy_dtype)
        self.category = category
        self.itemsize = self.numpy_dtype.itemsize
        self.is_signed = is_signed
        self._storage_name = storage_name      # e.g. 'FloatStorage', used by storage() and save
        self._tensor_name = tensor_name        # e.g. 'FloatTensor', used by .type()
        # How PyTorch's messages name the dtype: its ScalarType ('Float', 'Long'), and the C++
        # type in messages from C++ code ('float', 'long int'); the latter is set below.
        self.scalar_name = tensor_name[:-len("Tensor")]
        self.cpp_name = None

    @property
    def is_floating_point(self):
        return self.category == FLOATING

    @property
    def is_complex(self):
        return self.category == COMPLEX

    def to_real(self):
        """complex64 -> float32, complex128 -> float64; real dtypes are returned unchanged."""
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self):
        """float32/float16/bfloat16 -> complex64, float64 -> complex128."""
        if self.category == COMPLEX:
            return self
        return complex128 if self is float64 else complex64

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        # Pickled by name so the object stays a singleton (and maps to torch.<name>).
        return self.name

    # identity equality and hashing: object's own (C) __hash__, so the dtype lookups that every
    # op makes (promotion tables, dtype sets) run no Python frame
    __hash__ = object.__hash__


bool = dtype("bool", np.bool_, BOOL, False, "BoolStorage", "BoolTensor")
uint8 = dtype("uint8", np.uint8, INTEGRAL, False, "ByteStorage", "ByteTensor")
int8 = dtype("int8", np.int8, INTEGRAL, True, "CharStorage", "CharTensor")
int16 = dtype("int16", np.int16, INTEGRAL, True, "ShortStorage", "ShortTensor")
int32 = dtype("int32", np.int32, INTEGRAL, True, "IntStorage", "IntTensor")
int64 = dtype("int64", np.int64, INTEGRAL, True, "LongStorage", "LongTensor")
float16 = dtype("float16", np.float16, FLOATING, True, "HalfStorage", "HalfTensor")
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, FLOATING, True, "BFloat16Storage",
                 "BFloat16Tensor")
float32 = dtype("float32", np.float32, FLOATING, True, "FloatStorage", "FloatTensor")
float64 = dtype("float64", np.float64, FLOATING, True, "DoubleStorage", "DoubleTensor")
complex64 = dtype("complex64", np.complex64, COMPLEX, True, "ComplexFloatStorage",
                  "ComplexFloatTensor")
complex128 = dtype("complex128", np.complex128, COMPLEX, True, "ComplexDoubleStorage",
                   "ComplexDoubleTensor")
# uint16, uint32 and uint64 are PyTorch's "limited support" unsigned types: tensors of them can
# be made, printed, compared, copied and converted (``hash_tensor`` returns uint64), but they
# take part in no type promotion and many CPU kernels refuse them (the op table says which:
# ``ops/limited_uint.py``). They are not among ALL_DTYPES.
uint16 = dtype("uint16", np.uint16, INTEGRAL, False, "UInt16Storage", "UInt16Tensor")
uint32 = dtype("uint32", np.uint32, INTEGRAL, False, "UInt32Storage", "UInt32Tensor")
uint64 = dtype("uint64", np.uint64, INTEGRAL, False, "UInt64Storage", "UInt64Tensor")
LIMITED_UINTS = (uint16, uint32, uint64)

for _d, _cpp in ((bool, "bool"), (uint8, "unsigned char"), (int8, "signed char"),
                 (int16, "short int"), (int32, "int"), (int64, "long int"),
                 (float16, "c10::Half"), (bfloat16, "c10::BFloat16"), (float32, "float"),
                 (float64, "double"), (complex64, "c10::complex<float>"),
                 (complex128, "c10::complex<double>"), (uint16, "unsigned short"),
                 (uint32, "unsigned int"), (uint64, "unsigned long")):
    _d.cpp_name = _cpp

ALL_DTYPES = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
              complex64, complex128)

# PyTorch's aliases: torch.float is float32, torch.long is int64, ...
ALIASES = {
    "float": float32, "double": float64, "half": float16, "long": int64, "int": int32,
    "short": int16, "cfloat": complex64, "cdouble": complex128, "chalf": None,
}
ALIASES = {k: v for k, v in ALIASES.items() if v is not None}

_FROM_NUMPY = {d.numpy_dtype: d for d in ALL_DTYPES + LIMITED_UINTS}
_BY_NAME = {d.name: d for d in ALL_DTYPES + LIMITED_UINTS}
_BY_NAME.update(ALIASES)


def from_numpy_dtype(np_dtype):
    """The cinder dtype of a NumPy dtype; TypeError for kinds PyTorch has no dtype for."""
    try:
        return _FROM_NUMPY[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype)}. The only supported "
            "types are: float64, float32, float16, complex64, complex128, int64, int32, int16, "
            "int8, uint8, and bool.") from None


_F64 = np.dtype(np.float64)


def cast_array(arr, dtype):
    """``arr`` converted to ``dtype`` as PyTorch converts: float64 reaches float16 through
    float32 (C++ has no double-to-half conversion, so PyTorch rounds twice; NumPy's direct
    conversion differs where the float32 rounding lands on a float16 midpoint)."""
    if dtype is float16 and arr.dtype == _F64:
        arr = arr.astype(np.float32)
    return arr.astype(dtype.numpy_dtype)


def by_name(name):
    return _BY_NAME[name]


# ----------------------------------------------------------------------------------------------
# Promotion
# ----------------------------------------------------------------------------------------------

def _promote_pair(a, b):
    """PyTorch's promote_types for two dtypes (the rule the table below is built from)."""
    if a is b:
        return a
    if a.category != b.category:
        hi, lo = (a, b) if a.category > b.category else (b, a)
        if hi.category == COMPLEX and lo.category == FLOATING and lo is float64:
            return complex128        # complex keeps at least the float's precision
        return hi
    if a.category == FLOATING:
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a.itemsize > b.itemsize else b
    if a.category == COMPLEX:
        return a if a.itemsize > b.itemsize else b
    # Integral: unsigned uint8 meets a signed type of the same or smaller width.
    if a is uint8 or b is uint8:
        other = b if a is uint8 else a
        return int16 if other is int8 else other
    return a if a.itemsize > b.itemsize else b


class _PromotionTable(dict):
    """``(a, b) -> promoted dtype``; a pair it lacks involves a limited unsigned type, which
    PyTorch promotes only with itself and with the floating types."""

    def __missing__(self, key):
        a, b = key
        raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {a.scalar_name} and {b.scalar_name}")


_PROMOTE = _PromotionTable(
    ((a, b), _promote_pair(a, b)) for a in ALL_DTYPES for b in ALL_DTYPES)
for _u in LIMITED_UINTS:
    _PROMOTE[_u, _u] = _u
    for _f in (float16, bfloat16, float32, float64):
        _PROMOTE[_u, _f] = _PROMOTE[_f, _u] = _f


def promote_types(type1, type2):
    """The smallest dtype to which both ``type1`` and ``type2`` can be safely cast."""
    return _PROMOTE[type1, type2]


def can_cast(from_, to):
    """Whether PyTorch's casting rules allow ``from_`` -> ``to`` (no lower category)."""
    if from_.category > to.category:
        return False
    return True


_default_dtype = float32


def get_default_dtype():
    """The default floating point dtype (float32 unless set_default_dtype changed it)."""
    return _default_dtype


def default_complex_dtype():
    return complex128 if _default_dtype is float64 else complex64


def set_default_dtype(d):
    """Set the default floating point dtype (float32, float64, float16 or bfloat16)."""
    global _default_dtype
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the "
                        "default type")
    if d.category != FLOATING:
        raise TypeError("only floating-point types are supported as the default type")
    _default_dtype = d


class finfo:
    """Machine limits of a floating dtype (``torch.finfo``); defaults to the default dtype."""

    def __init__(self, type=None):
        d = _default_dtype if type is None else type
        if not isinstance(d, dtype) or d.category not in (FLOATING, COMPLEX):
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        d = d.to_real()
        info = ml_dtypes.finfo(d.numpy_dtype) if d is bfloat16 else np.finfo(d.numpy_dtype)
        self.bits = d.itemsize * 8
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)    # a power of ten, as PyTorch's
        self.dtype = d.name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype (``torch.iinfo``)."""

    def __init__(self, type):
        if not isinstance(type, dtype) or type.category > INTEGRAL:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        info = np.iinfo(np.uint8 if type is bool else type.numpy_dtype)
        self.bits = type.itemsize * 8
        self.min, self.max = (0, 1) if type is bool else (int(info.min), int(info.max))
        self.dtype = type.name

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


def scalar_dtype(value):
    """The dtype a Python scalar takes on its own (torch.tensor(value).dtype)."""
    if isinstance(value, builtin_bool) or isinstance(value, np.bool_):
        return bool
    if isinstance(value, (int, np.integer)):
        return int64
    if isinstance(value, (float, np.floating)):
        return _default_dtype
    if isinstance(value, (complex, np.complexfloating)):
        return default_complex_dtype()
    raise TypeError(f"unsupported scalar type {type(value).__name__}")


def _combine_categories(higher, lower):
    """Merge the result of a higher-priority tier with a lower one (PyTorch's rule).

    Tensors with dimensions outrank 0-d tensors, which outrank Python scalars: a lower tier only
    matters when its category is higher (an int tensor times 2.5 becomes float).
    """
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.category == COMPLEX:
        return higher
    if lower.category == COMPLEX:
        return higher.to_complex() if higher.category == FLOATING else lower
    if higher.category == FLOATING:
        return higher
    if higher is bool or lower.category == FLOATING:
        return _PROMOTE[higher, lower]
    return higher


def result_type_of(dim_dtypes, zero_dim_dtypes, scalar_values):
    """Result dtype from the three tiers (dtypes of n-d tensors, of 0-d tensors, Python scalars)."""
    dim = zero = wrapped = None
    for d in dim_dtypes:
        dim = d if dim is None else _PROMOTE[dim, d]
    for d in zero_dim_dtypes:
        zero = d if zero is None else _PROMOTE[zero, d]
    for v in scalar_values:
        d = scalar_dtype(v)
        wrapped = d if wrapped is None else _PROMOTE[wrapped, d]
    return _combine_categories(dim, _combine_categories(zero, wrapped))


builtin_bool = __builtins__["bool"] if isinstance(__builtins__, dict) else __builtins__.bool
