"""Which ops refuse PyTorch's limited unsigned dtypes (uint16, uint32, uint64), as data.

PyTorch 2.13 builds only some CPU kernels for these "barebones" dtypes: ``a * a``, ``a & a``,
``a / a``, ``a.sum()``, ``cumsum``, ``sort``, ``unique``, ``==``, ``cat``, indexing and the
float functions (``sqrt``, ``exp``...) work, while ``a + a`` raises
``NotImplementedError: "add_stub" not implemented for 'UInt64'``. NumPy computes everything, so
the op table records, per op, the kernel PyTorch names in that error and which arguments are
the op's data operands. ``register`` wraps exactly these ops' implementations with the check
(``guarded``); every other op runs unwrapped.

The check computes the dtype the kernel would run in from the data operands (tensors and
Python scalars, with PyTorch's promotion): mixing a limited unsigned type with another integer
type raises PyTorch's promotion error, a floating operand (``a + 2.5``) makes the kernel a
float one, which exists; only a limited unsigned compute dtype is refused.
"""

import functools

from .. import _dtype as D
from .._tensor import Tensor
from ._prep import not_implemented

__all__ = ["LIMITED", "REFUSED", "claim", "claim_check", "guarded"]

LIMITED = _LIMITED = frozenset(D.LIMITED_UINTS)

# Data operands: (position, keyword) pairs of the arguments whose dtypes make the kernel's.
SELF = ((0, "input"),)
BINARY = ((0, "input"), (1, "other"))
POW = ((0, "input"), (1, "exponent"))
MAT2 = ((0, "input"), (1, "mat2"))
BATCHES = ((0, "input"), (1, "batch1"), (2, "batch2"))


def _arg(args, kwargs, pos, key, default=None):
    return args[pos] if pos < len(args) else kwargs.get(key, default)


# Ops whose kernel depends on the other arguments: f(args, kwargs) -> kernel name, or None for
# a call PyTorch computes.


def _clamp_kernel(args, kwargs):
    lo, hi = _arg(args, kwargs, 1, "min"), _arg(args, kwargs, 2, "max")
    if isinstance(lo, Tensor) or isinstance(hi, Tensor):
        if lo is not None and hi is not None:
            return "clamp_cpu"
        return "maximum_cpu" if lo is not None else "minimum_cpu"
    if lo is not None and hi is not None:
        return "clamp_scalar_cpu"
    return "clamp_min_scalar_cpu" if lo is not None else "clamp_max_scalar_cpu"


def _bound_kernel(scalar_kernel, tensor_kernel):
    def kernel(args, kwargs):
        bound = _arg(args, kwargs, 1, "min" if "min" in scalar_kernel else "max")
        return tensor_kernel if isinstance(bound, Tensor) else scalar_kernel

    return kernel


def _extreme_kernel(which):
    """max/min: of everything (``max_all``), along a dim (``max_cpu``) or of two tensors."""

    def kernel(args, kwargs):
        second = _arg(args, kwargs, 1, "dim")
        if second is None:
            second = kwargs.get("other")
        if isinstance(second, Tensor):
            return f"{which}imum_cpu"
        return f"{which}_all" if second is None else f"{which}_cpu"

    return kernel


def _median_kernel(args, kwargs):
    return "median_cpu" if _arg(args, kwargs, 1, "dim") is None else "median_out"


def _div_kernel(args, kwargs):
    mode = kwargs.get("rounding_mode")
    return None if mode is None else f"div_{mode}_cpu"


def _sum_kernel(args, kwargs):
    dtype = kwargs.get("dtype")
    return "sum_cpu" if dtype in _LIMITED else None


def _matmul_kernel(args, kwargs):
    a, b = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "other")
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        return None
    da, db = a.dim(), b.dim()
    if da == 1 and db == 1:
        return "dot"
    if db == 1:
        return "addmv_impl_cpu"
    if da >= 3 and db >= 3:
        return "bmm"
    return "addmm_impl_cpu_"


def _inner_kernel(args, kwargs):
    a = _arg(args, kwargs, 0, "input")
    return "dot" if isinstance(a, Tensor) and a.dim() <= 1 else "addmm_impl_cpu_"


def _lerp_kernel(args, kwargs):
    weight = _arg(args, kwargs, 2, "weight")
    return "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"


def _flip_kernel(flipped_dims):
    """flip moves whole rows with a dtype-free copy unless a flipped dim is the innermost one
    in memory (stride 1), which needs the typed ``flip_cpu`` kernel."""

    def kernel(args, kwargs):
        x = _arg(args, kwargs, 0, "input")
        strides = x.stride()
        nd = max(x.dim(), 1)
        dims = [d % nd for d in flipped_dims(args, kwargs)]
        return "flip_cpu" if any(strides[d] == 1 for d in dims if d < len(strides)) else None

    return kernel


def _flip_dims(args, kwargs):
    dims = _arg(args, kwargs, 1, "dims")
    if isinstance(dims, int):
        return (dims,) + tuple(args[2:])
    return tuple(dims)


def _rot90_dims(args, kwargs):
    k = _arg(args, kwargs, 1, "k", 1) % 4
    dims = tuple(_arg(args, kwargs, 2, "dims", (0, 1)))
    return {0: (), 1: dims[1:], 2: dims, 3: dims[:1]}[k]


def _index_select_kernel(args, kwargs):
    # an input of two or more dims is copied row by row without a typed kernel
    x, index = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 2, "index")
    if x.dim() > 1 or (isinstance(index, Tensor) and index._data.size == 0):
        return None
    return "index_select"


def _tensordot_kernel(args, kwargs):
    # contracting every dim leaves a dot product; otherwise the product is an mm
    a, b = _arg(args, kwargs, 0, "a"), _arg(args, kwargs, 1, "b")
    dims = _arg(args, kwargs, 2, "dims", 2)
    n = dims if isinstance(dims, int) else len(dims[0]) if len(dims) else 0
    full = isinstance(a, Tensor) and isinstance(b, Tensor) and a.dim() + b.dim() == 2 * n
    return "dot" if full else "addmm_impl_cpu_"


def _histogram_kernel(args, kwargs):
    # tensor bins go to the histogram kernel; a bin count, to the edges' linspace when a range
    # is given, else to histogramdd (which first looks for the range itself)
    if isinstance(_arg(args, kwargs, 1, "bins"), Tensor):
        return "histogram_cpu"
    return "linspace_cpu" if kwargs.get("range") is not None else "histogramdd"


def _count_nonzero_kernel(args, kwargs):
    return "nonzero_count_cpu" if _arg(args, kwargs, 1, "dim") is None else None


def _decides(fn):
    """Mark ``fn(args, kwargs) -> (kernel, dtype) or None`` as deciding alone (no operands)."""
    fn.decides = True
    return fn


def _by_dtype_argument(kernel):
    """Factories with ``dtype=``: the kernel that fills the values refuses the types."""

    @_decides
    def decide(args, kwargs):
        dt = kwargs.get("dtype")
        return (kernel, dt) if dt in _LIMITED else None

    return decide


@_decides
def _repeat_interleave_decides(args, kwargs):
    # the typed kernel is the one expanding ``repeats``; the input's own type does not matter
    repeats = _arg(args, kwargs, 1, "repeats")
    if repeats is None and len(args) == 1:
        repeats = args[0]
    if isinstance(repeats, Tensor) and repeats._dtype in _LIMITED:
        return "repeat_interleave_cpu", repeats._dtype
    return None


@_decides
def _einsum_decides(args, kwargs):
    # the operands follow the equation, as a list or one by one; einsum contracts through bmm
    first = None
    for t in _tensors_in(args[1:]):
        if t._dtype not in _LIMITED:
            return None                   # (the common case: decided by the first operand)
        if first is None:
            first = t
    return None if first is None else ("bmm", first._dtype)


# op name -> (kernel name or f(args, kwargs), data operands); as measured on PyTorch 2.13's CPU
# build (tests/test_limited_uint.py sweeps the op database and the operators against it).
REFUSED = {
    # arithmetic and comparison (binary, with promotion)
    "add": ("add_stub", BINARY),
    "sub": ("add_stub", BINARY),
    "rsub": ("add_stub", ((1, "other"), (0, "input"))),
    "floor_divide": ("div_floor_cpu", BINARY),
    "remainder": ("remainder_cpu", BINARY),
    "fmod": ("fmod_cpu", BINARY),
    "div": (_div_kernel, BINARY),
    "pow": ("pow", POW),
    "maximum": ("maximum_cpu", BINARY),
    "minimum": ("minimum_cpu", BINARY),
    "fmax": ("maximum_cpu", BINARY),
    "fmin": ("minimum_cpu", BINARY),
    "lt": ("lt_cpu", BINARY),
    "le": ("le_cpu", BINARY),
    "gt": ("gt_cpu", BINARY),
    "ge": ("ge_cpu", BINARY),
    "logical_and": ("logical_and_cpu", BINARY),
    "logical_or": ("logical_or_cpu", BINARY),
    "logical_xor": ("logical_xor_cpu", BINARY),
    "bitwise_left_shift": ("lshift_cpu", BINARY),
    "bitwise_right_shift": ("rshift_cpu", BINARY),
    "hypot": ("hypot_cpu", BINARY),
    "heaviside": ("heaviside_cpu", ((0, "input"), (1, "values"))),
    "nextafter": ("nextafter_cpu", BINARY),
    "gcd": ("gcd_cpu", BINARY),
    "lcm": ("lcm_cpu", BINARY),
    "logaddexp": ("logaddexp_cpu", BINARY),
    "logaddexp2": ("logaddexp2_cpu", BINARY),
    "igamma": ("igamma_cpu", BINARY),
    "igammac": ("igammac_cpu", BINARY),
    "addcmul": ("addcmul_cpu_out", ((0, "input"), (1, "tensor1"), (2, "tensor2"))),
    "lerp": (_lerp_kernel, SELF),
    # unary
    "neg": ("neg_cpu", SELF),
    "abs": ("abs_cpu", SELF),
    "sign": ("sign_cpu", SELF),
    "sgn": ("sign_cpu", SELF),
    "bitwise_not": ("bitwise_not_cpu", SELF),
    "logical_not": ("logical_not_cpu", SELF),
    "relu": ("clamp_min_scalar_cpu", SELF),
    "square": ("pow", SELF),
    "frac": ("frac_cpu", SELF),
    "clamp": (_clamp_kernel, SELF),
    "clamp_min": (_bound_kernel("clamp_min_scalar_cpu", "maximum_cpu"), SELF),
    "clamp_max": (_bound_kernel("clamp_max_scalar_cpu", "minimum_cpu"), SELF),
    # reductions, scans, selection
    "max": (_extreme_kernel("max"), SELF),
    "min": (_extreme_kernel("min"), SELF),
    "argmax": ("argmax_cpu", SELF),
    "argmin": ("argmin_cpu", SELF),
    "amax": ("max_values_cpu", SELF),
    "amin": ("min_values_cpu", SELF),
    "aminmax": ("aminmax_cpu", SELF),
    "median": (_median_kernel, SELF),
    "nanmedian": (_median_kernel, SELF),
    "mode": ("mode_cpu", SELF),
    "kthvalue": ("kthvalue_cpu", SELF),
    "topk": ("topk_cpu", SELF),
    "cummax": ("cummax_cpu", SELF),
    "cummin": ("cummin_cpu", SELF),
    "logcumsumexp": ("logcumsumexp_out_cpu", SELF),
    "trace": ("trace", SELF),
    "count_nonzero": (_count_nonzero_kernel, SELF),
    "nonzero": ("nonzero_count_cpu", SELF),
    "argwhere": ("nonzero_count_cpu", SELF),
    "sum": (_sum_kernel, SELF),
    "bincount": ("bincount_cpu", SELF),
    "histc": ("aminmax_cpu", SELF),
    "isin": ("isin_default_cpu", ((0, "elements"), (1, "test_elements"))),
    "searchsorted": ("searchsorted_out_cpu", ((0, "sorted_sequence"), (1, "input"))),
    "bucketize": ("searchsorted_out_cpu", ((1, "boundaries"), (0, "input"))),
    # products
    "matmul": (_matmul_kernel, BINARY),
    "inner": (_inner_kernel, BINARY),
    "mm": ("addmm_impl_cpu_", MAT2),
    "bmm": ("bmm", SELF),
    "mv": ("addmv_impl_cpu", ((0, "input"), (1, "vec"))),
    "dot": ("dot", ((0, "input"), (1, "tensor"))),
    "vdot": ("dot", BINARY),
    "addmm": ("addmm_impl_cpu_", ((0, "input"), (1, "mat1"), (2, "mat2"))),
    "addmv": ("addmv_impl_cpu", ((0, "input"), (1, "mat"), (2, "vec"))),
    "addr": ("addr_cpu", ((0, "input"), (1, "vec1"), (2, "vec2"))),
    "baddbmm": ("baddbmm", BATCHES),
    "addbmm": ("addmm_impl_cpu_", BATCHES),
    "tensordot": (_tensordot_kernel, ((0, "a"), (1, "b"))),
    "einsum": (_einsum_decides, ()),
    "cross": ("cross", SELF),
    # shape and indexing kernels
    "flip": (_flip_kernel(_flip_dims), SELF),
    "fliplr": (_flip_kernel(lambda args, kwargs: (1,)), SELF),
    "flipud": (_flip_kernel(lambda args, kwargs: (0,)), SELF),
    "rot90": (_flip_kernel(_rot90_dims), SELF),
    "tril": ("tril", SELF),
    "triu": ("triu", SELF),
    "repeat_interleave": (_repeat_interleave_decides, ()),
    "masked_fill": ("masked_fill", SELF),
    "masked_scatter": ("masked_scatter", ((0, "input"), (2, "source"))),
    "masked_select": ("masked_select", SELF),
    "combinations": ("masked_select", SELF),
    "index_fill": ("index_fill_cpu", SELF),
    "index_add": ("index_add_", ((0, "input"), (3, "source"))),
    "index_copy": ("index_copy_cpu", ((0, "input"), (3, "source"))),
    "index_put": ("index_put", SELF),
    "index_select": (_index_select_kernel, SELF),
    "take": ("take_cpu", SELF),
    "put": ("take_put_cpu", ((0, "input"), (2, "source"))),
    "gather": ("scatter_gather_tensor_cpu", SELF),
    "scatter": ("scatter_gather_tensor_cpu", SELF),
    "scatter_add": ("scatter_gather_tensor_cpu", SELF),
    "take_along_dim": ("scatter_gather_tensor_cpu", SELF),
    "gradient": ("add_stub", SELF),
    "dist": ("add_stub", BINARY),
    "linalg_cross": ("cross", SELF),
    "histogram": (_histogram_kernel, SELF),
    "hash_tensor": ("xor_sum_cpu", SELF),
    # factories given one of the types as ``dtype=``
    "arange": (_by_dtype_argument("arange_cpu"), ()),
    "range": (_by_dtype_argument("range_cpu"), ()),
    "linspace": (_by_dtype_argument("linspace_cpu"), ()),
    "logspace": (_by_dtype_argument("logspace_cpu"), ()),
    "eye": (_by_dtype_argument("eye"), ()),
    "randperm": (_by_dtype_argument("randperm"), ()),
}

# Ops whose kernel is not reached when a data operand is empty (the result is made without it;
# argument checks such as max()'s "non-zero size" still run in the op itself).
EMPTY_OK = frozenset(
    (
        "matmul",
        "mm",
        "bmm",
        "mv",
        "addmm",
        "addmv",
        "addbmm",
        "baddbmm",
        "inner",
        "tensordot",
        "tril",
        "triu",
        "max",
        "min",
        "argmax",
        "argmin",
        "amax",
        "amin",
        "aminmax",
        "gather",
        "scatter",
        "scatter_add",
        "take_along_dim",
        "index_select",
        "flip",
        "fliplr",
        "flipud",
        "rot90",
    )
)

# Ops that require their tensor operands to share one dtype and say so before the kernel runs:
# with mixed dtypes the op's own check answers.
SAME_DTYPE = frozenset(
    (
        "mm",
        "mv",
        "dot",
        "vdot",
        "inner",
        "matmul",
        "addmm",
        "addmv",
        "baddbmm",
        "addbmm",
        "tensordot",
        "addcmul",
        "index_add",
        "index_copy",
        "put",
        "masked_scatter",
    )
)

# Ops that check their index argument's dtype before the kernel's: a limited unsigned index
# gets that check's error (position, keyword of the index argument).
INDEX_ARGUMENT = {
    "index_add": (2, "index"),
    "index_copy": (2, "index"),
    "index_fill": (2, "index"),
    "index_select": (2, "index"),
    "take": (1, "index"),
    "put": (1, "index"),
    "gather": (2, "index"),
    "scatter": (2, "index"),
    "scatter_add": (2, "index"),
    "take_along_dim": (1, "indices"),
}


def _compute_dtype(args, kwargs, operands):
    """The dtype PyTorch's kernel runs in for these data operands (promotion errors raised)."""
    dims, zeros, scalars = [], [], []
    for pos, key in operands:
        x = _arg(args, kwargs, pos, key)
        if isinstance(x, Tensor):
            (dims if x._data.ndim else zeros).append(x._dtype)
        elif isinstance(x, (bool, int, float, complex)):
            scalars.append(x)
    return D.result_type_of(dims, zeros, scalars)


def _tensors_in(args):
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from _tensors_in(a)
        elif isinstance(a, Tensor):
            yield a


def _refused(name, kernel, operands, args, kwargs):
    """(kernel, dtype) PyTorch would refuse this call with, or None: called only when a data
    operand has a limited unsigned type."""
    if name in EMPTY_OK and any(
        isinstance(x, Tensor) and x._data.size == 0
        for x in (_arg(args, kwargs, p, k) for p, k in operands)
    ):
        return None
    index = INDEX_ARGUMENT.get(name)
    if index is not None:
        idx = _arg(args, kwargs, *index)
        if isinstance(idx, Tensor) and idx._dtype in _LIMITED:
            return None  # the op's own index check answers first
    if (
        name in SAME_DTYPE
        and len(
            {
                x._dtype
                for x in (_arg(args, kwargs, p, k) for p, k in operands)
                if isinstance(x, Tensor)
            }
        )
        > 1
    ):
        return None
    dt = _compute_dtype(args, kwargs, operands)
    if dt not in _LIMITED:
        return None
    kernel = kernel(args, kwargs) if callable(kernel) else kernel
    return None if kernel is None else (kernel, dt)


# The dtype standing in for the unsigned tensors while an op's argument checks run (int64,
# unless the op refuses integers with an error of its own)
STAND_IN = {"dist": D.float64}


def _stand_in(v, dtype):
    if isinstance(v, Tensor) and v._dtype in _LIMITED:
        return v.to(dtype)
    if isinstance(v, (list, tuple)):
        return type(v)(_stand_in(x, dtype) for x in v)
    return v


def _argument_errors_first(name, fn, args, kwargs):
    """PyTorch parses the arguments and checks the shapes before it looks for a kernel: run
    the op on int64 copies of the unsigned tensors (no ``out=``) so that a bad call raises its
    own error first. Only on the way to a refusal; a kernel missing for int64 too is no
    argument error and is ignored."""
    dt = STAND_IN.get(name, D.int64)
    try:
        fn(*_stand_in(args, dt), **{k: _stand_in(v, dt) for k, v in kwargs.items() if k != "out"})
    except NotImplementedError:
        pass


_CLAIMED = set()


def claim(name, operands=BINARY):
    """For a family factory that knows the compute dtype itself (``binary``, ``comparison``,
    ``unary``): the kernel name its op refuses the limited types with, or None when the table
    has no plain entry for it with these operands. A claimed op is not wrapped by ``guarded``
    (the factory's own dtype test costs nothing extra on the common path)."""
    spec = REFUSED.get(name)
    if (
        spec is None
        or callable(spec[0])
        or spec[1] != operands
        or name in EMPTY_OK
        or name in SAME_DTYPE
        or name in INDEX_ARGUMENT
    ):
        return None
    _CLAIMED.add(name)
    return spec[0]


def _refusal(name, kernel, operands):
    """``refuse(fn, args, kwargs)``: raise PyTorch's refusal of this call to ``name`` if it
    has one (after the op's own argument errors, found by running ``fn`` on stand-ins)."""
    if getattr(kernel, "decides", False):

        def refuse(fn, args, kwargs):
            found = kernel(args, kwargs)
            if found is not None:
                not_implemented(*found)
    else:

        def refuse(fn, args, kwargs):
            found = _refused(name, kernel, operands, args, kwargs)
            if found is not None:
                _argument_errors_first(name, fn, args, kwargs)
                not_implemented(*found)
    return refuse


def claim_check(name):
    """For an op that tests its data operands against ``LIMITED`` itself, where it examines
    their dtypes anyway (the reduction factory, the matrix products): the ``refuse(fn, args,
    kwargs)`` to call when one of them has a limited type, with ``fn`` the op and ``args`` /
    ``kwargs`` its call as PyTorch's signature binds them; None for an op the table does not
    list. A claimed op is not wrapped by ``guarded``, so the common path costs one set test."""
    spec = REFUSED.get(name)
    if spec is None:
        return None
    _CLAIMED.add(name)
    return _refusal(name, *spec)


def guarded(name, fn):
    """``fn`` itself for an op that computes every dtype; for one listed in ``REFUSED``, ``fn``
    behind the check (one dtype test per data operand on the common path)."""
    spec = REFUSED.get(name)
    if (
        spec is None
        or fn is None
        or name in _CLAIMED
        or getattr(fn, "_limited_uint_checked", False)
    ):
        return fn
    kernel, operands = spec
    refuse = _refusal(name, kernel, operands)
    if getattr(kernel, "decides", False):

        def checked(*args, **kwargs):
            found = kernel(args, kwargs)
            if found is not None:
                not_implemented(*found)
            return fn(*args, **kwargs)
    else:

        def checked(*args, **kwargs):
            n = len(args)
            for pos, key in operands:
                x = args[pos] if pos < n else kwargs.get(key)
                if isinstance(x, Tensor) and x._dtype in _LIMITED:
                    refuse(fn, args, kwargs)
                    break
            return fn(*args, **kwargs)

    functools.update_wrapper(checked, fn)
    checked._limited_uint_checked = True
    return checked
