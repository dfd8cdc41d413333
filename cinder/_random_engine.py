"""PyTorch's CPU random streams, reproduced bit for bit in NumPy.

PyTorch's default CPU generator (``at::CPUGeneratorImpl``) is a plain MT19937 engine plus a
one-value cache of normal samples. Every CPU sampling kernel turns raw 32-bit engine outputs
into values with a fixed recipe. This module re-implements the engine, the state layout
returned by ``torch.get_rng_state()`` and those recipes, so that ``cinder`` produces exactly the
numbers PyTorch 2.13 produces on the same CPU (x86-64 with AVX2 or AVX-512) for the same seed.

Design notes
------------
* The engine never runs in a Python loop. NumPy's ``MT19937`` bit generator uses the same
  recurrence and tempering as PyTorch's ``at::mt19937``; we load PyTorch's 624-word state into
  it and pull raw 32-bit outputs in bulk (``Generator.integers`` over the full uint32 range).
* Most recipes are elementwise, so a whole tensor's draws are pulled at once and transformed
  with array arithmetic. Where PyTorch's C++ relies on a fused multiply-add (FMA), we emulate
  the FMA exactly (see ``_fma32`` and ``_fma64``).
* PyTorch's float32 ``randn`` for 16 or more elements uses the Cephes-style AVX routines
  ``log256_ps`` and ``sincos256_ps`` from ``avx_mathfun.h``. The compiler contracts some
  multiply/add pairs into FMAs, and we reproduce that pattern (``_avx_log``, ``_avx_sincos``).
* Float64 transcendental functions must match glibc's scalar ``log``/``sin``/... . Python's
  ``math`` module calls those same functions; NumPy's vectorised versions differ in the last
  bit now and then, so we map ``math`` functions over the values (``_libm``).

Every sampling method returns a new 1-D array of ``n`` elements in the order PyTorch fills a
contiguous tensor (``normal_tensor`` and ``multinomial`` return shaped arrays); ``uniform`` and
``normal`` can fill a given ``out`` array instead. Large fills are drawn and transformed chunk by
chunk: tensor-sized temporaries cost more in page faults than the arithmetic itself.
"""

import math
import os
import warnings

import ml_dtypes
import numpy as np

from ._multinomial_kernel import cumulative_rows, lockstep_search
from ._random_stream import _MTStream
from ._randperm import forward_swaps, inside_out_swaps

__all__ = ["DEFAULT_SEED", "STATE_SIZE", "CPUGeneratorImpl"]

# Seed of a freshly constructed ``torch.Generator()``.
DEFAULT_SEED = 67280421310721

# ---------------------------------------------------------------------------------------------
# Byte layout of ``torch.get_rng_state()`` (struct CPUGeneratorImplState, little endian).
# ---------------------------------------------------------------------------------------------
_MT_N = 624
_OFF_SEED = 0  # u64 initial seed
_OFF_LEFT = 8  # i32 outputs left before the next block regeneration, plus one
_OFF_SEEDED = 12  # i32 always 1
_OFF_NEXT = 16  # u64 index of the next word of the state to temper
_OFF_STATE = 24  # u64[624], each holding one uint32 word
_OFF_NORMAL_X = 5016  # f64 unused, always 0
_OFF_NORMAL_Y = 5024  # f64 cached double normal sample
_OFF_NORMAL_RHO = 5032  # f64 unused, always 0
_OFF_NORMAL_VALID = 5040  # i32 whether normal_y holds a cached sample
_OFF_FLOAT_NORMAL = 5048  # f32 cached float normal sample (no CPU kernel sets it)
_OFF_FLOAT_VALID = 5052  # bool
STATE_SIZE = 5056

_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
_FLOAT_DTYPES = (np.dtype(np.float16), _BFLOAT16, np.dtype(np.float32), np.dtype(np.float64))
_REDUCED_FLOATS = (np.dtype(np.float16), _BFLOAT16)

# Number of significand bits (std::numeric_limits<T>::digits) per floating dtype.
_DIGITS = {
    np.dtype(np.float16): 11,
    _BFLOAT16: 8,
    np.dtype(np.float32): 24,
    np.dtype(np.float64): 53,
}

_TWO_PI = 2.0 * math.pi


# =============================================================================================
# Exact fused multiply-add emulation
# =============================================================================================
def _two_sum(a, b):
    """Knuth's TwoSum: ``s = fl(a + b)`` and the exact rounding error ``e`` (a + b = s + e)."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def _add_round_to_odd(a, b):
    """float64 ``a + b`` rounded to odd: truncate, and set the last bit if anything was lost.

    Rounding to odd at 53 bits and then to nearest at 24 bits equals one rounding to nearest
    at 24 bits (Boldo and Melquiond, 2008), which is what makes ``_fma32`` exact. It is also
    the inner step of their emulated FMA used by ``_fma64``.
    """
    s, e = _two_sum(a, b)
    bits = s.view(np.int64)
    inexact_even = (e != 0) & ((bits & 1) == 0)
    if np.any(inexact_even):
        # s is the even one of the two doubles around the exact sum; the odd one is one
        # ulp away in the direction of the error e.
        away_from_zero = (e > 0) == (s > 0)
        step = np.where(away_from_zero, 1, -1).astype(np.int64)
        s = np.where(inexact_even, bits + step, bits).view(np.float64)
    return s


# A float64 holding a value in float32's normal range has 29 more fraction bits than the
# float32. The value lies exactly halfway between two float32 values when those 29 bits are
# 1 followed by zeros.
_F32_EXTRA_BITS_MASK = np.int64((1 << 29) - 1)
_F32_MIDPOINT_BITS = np.int64(1 << 28)
_F32_TINY = float(np.finfo(np.float32).tiny)


def _fma32(a, b, c):
    """float32 ``fma(a, b, c)``: ``a * b + c`` with a single rounding.

    The float64 product of two float32 values is exact (48 significant bits). The float64
    sum ``s`` may be rounded, and rounding again to float32 then gives the correctly rounded
    result unless ``s`` landed exactly halfway between two float32 values (a double-rounding
    tie). Only those rare elements (and float32-subnormal results, whose last bit sits
    elsewhere) are recomputed with the sum rounded to odd, which makes the final rounding
    exact.
    """
    # Convert to float64 first: NumPy's mixed float32/float64 loops are much slower.
    # Callers may pass float64 copies of float32 values they reuse, to skip conversions.
    a64 = np.asarray(a, dtype=np.float64)
    b64 = np.asarray(b, dtype=np.float64)
    c64 = np.asarray(c, dtype=np.float64)
    total = np.asarray(a64 * b64)  # an array even for scalar inputs
    if c64.shape == total.shape or np.broadcast_shapes(total.shape, c64.shape) == total.shape:
        total += c64  # in place: no new temporary
    else:
        total = total + c64
    result = total.astype(np.float32)
    # Ties show in the float64 bits; subnormal results are found (with a few harmless
    # false positives at exactly TINY) on the cheaper float32 result.
    suspicious = np.bitwise_and(total.view(np.int64), _F32_EXTRA_BITS_MASK) == _F32_MIDPOINT_BITS
    # (an exact zero is the fused result too, signed as IEEE's sums sign it: not suspicious)
    suspicious |= (np.abs(result) <= _F32_TINY) & (total != 0)
    if suspicious.any():
        shape = total.shape

        def at_suspicious(x):        # (broadcast_to costs more than the work on short rows)
            return (x if x.shape == shape else np.broadcast_to(x, shape))[suspicious]
        exact_product = at_suspicious(a64) * at_suspicious(b64)
        result[suspicious] = _add_round_to_odd(exact_product, at_suspicious(c64)).astype(
            np.float32)
    return result


def _fma32_tie_free(a, b, c):
    """float32 ``fma(a, b, c)`` for operands known never to hit a double-rounding tie.

    The float64 ``a * b + c`` is rounded at most once (the product is exact), so rounding it
    to float32 is the fused result unless the float64 sum sits exactly halfway between two
    float32 values. For the inputs of ``normal_fill`` this never happens: its uniforms take
    only 2**24 values each, and ``bench/verify_normal_fill_domain.py`` checks every one of
    them against the tie-checked ``_fma32``.
    """
    total = np.multiply(np.asarray(a, dtype=np.float64), b)
    total += c
    return total.astype(np.float32)


_SPLITTER = float(2**27 + 1)  # Veltkamp splitting constant for 53-bit doubles


def _two_product(a, b):
    """Dekker's TwoProduct: ``p = fl(a * b)`` and the exact error ``e`` (a * b = p + e)."""
    p = a * b
    ta = _SPLITTER * a
    a_hi = ta - (ta - a)
    a_lo = a - a_hi
    tb = _SPLITTER * b
    b_hi = tb - (tb - b)
    b_lo = b - b_hi
    e = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    return p, e


def _fma64(a, b, c):
    """float64 ``fma(a, b, c)`` with a single rounding (Boldo-Melquiond emulated FMA).

    Exact for the magnitudes met here (no overflow, no results near the subnormal range).
    """
    a, b, c = np.broadcast_arrays(
        np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64),
        np.asarray(c, dtype=np.float64))
    u_hi, u_lo = _two_product(a, b)
    t_hi, t_lo = _two_sum(c, u_hi)
    v = _add_round_to_odd(t_lo, u_lo)
    return t_hi + v


# =============================================================================================
# glibc-equivalent float64 math and the AVX float32 math of avx_mathfun.h
# =============================================================================================
def _libm(func, values):
    """Apply a ``math`` function (glibc's scalar routine) to every element of a float64 array."""
    flat = np.asarray(values, dtype=np.float64).ravel()
    return np.fromiter(map(func, flat.tolist()), dtype=np.float64, count=flat.size)


def _f32(value):
    """A float32 constant as avx_mathfun.h makes it: a double literal converted to float."""
    return np.float32(value)


# Cephes constants from avx_mathfun.h.
_SQRTHF = _f32(0.707106781186547524)
_LOG_P = [_f32(v) for v in (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
    -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1)]
_LOG_Q1 = _f32(-2.12194440e-4)
_LOG_Q2 = _f32(0.693359375)
_MINUS_DP = [_f32(-0.78515625), _f32(-2.4187564849853515625e-4),
             _f32(-3.77489497744594108e-8)]
_SINCOF = [_f32(-1.9515295891e-4), _f32(8.3321608736e-3), _f32(-1.6666654611e-1)]
_COSCOF = [_f32(2.443315711809948e-005), _f32(-1.388731625493765e-003),
           _f32(4.166664568298827e-002)]
_FOPI = _f32(1.27323954473516)  # 4 / pi
_ONE = np.float32(1.0)
_HALF = np.float32(0.5)
_SIGN_BIT = np.uint32(0x80000000)


def _avx_log(x, fma=_fma32):
    """Natural log of positive float32 values, as ``log256_ps`` computes it with FMAs.

    The polynomial steps ``y = y * x + p`` are fused, and so is ``y * z + e * q1`` (with
    ``e * q1`` rounded first). The remaining additions add exact products, so fusing them or
    not gives the same result. ``fma`` may be ``_fma32_tie_free`` for inputs checked to need no
    tie correction.
    """
    x = np.asarray(x, dtype=np.float32)
    invalid = x <= 0
    x = np.maximum(x, np.float32(np.finfo(np.float32).tiny))  # cut off subnormals
    bits = x.view(np.uint32)
    exponent = (bits >> np.uint32(23)).astype(np.int32) - 127
    # Keep the mantissa and give it the exponent of 0.5, so x lies in [0.5, 1).
    x = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(np.float32)
    e = exponent.astype(np.float32) + _ONE
    # If x < sqrt(1/2): e -= 1 and x = 2x - 1, else x = x - 1 (Cephes' range reduction).
    below = x < _SQRTHF
    tmp = np.where(below, x, np.float32(0.0))
    x = x - _ONE
    e = e - np.where(below, _ONE, np.float32(0.0))
    x = x + tmp
    z = x * x
    x64 = x.astype(np.float64)  # reused by every polynomial step
    y = fma(_LOG_P[0], x64, _LOG_P[1])
    for coeff in _LOG_P[2:]:
        y = fma(y, x64, coeff)
    y = y * x
    y = fma(y, z, e * _LOG_Q1)
    y = y - z * _HALF
    x = x + y
    x = x + e * _LOG_Q2
    # The original ORs an all-ones mask in, giving NaN for x <= 0.
    x = np.where(invalid, np.float32(np.nan), x)
    return x


def _avx_sincos(x, fma=_fma32):
    """Sine and cosine of float32 values, as ``sincos256_ps`` computes them with FMAs.

    Fused: the three range-reduction steps ``x += y * -DPi``, the polynomial steps, the cosine
    step ``y * z - z * 0.5`` (with ``z * 0.5`` rounded first) and the sine step ``y * x + x``.
    ``fma`` may be ``_fma32_tie_free`` for inputs checked to need no tie correction.
    """
    x = np.asarray(x, dtype=np.float32)
    sign_sin = x.view(np.uint32) & _SIGN_BIT
    x = np.abs(x)
    # j = (int(x * 4/pi) + 1) & ~1 picks the octant; y is j as a float.
    j = (x * _FOPI).astype(np.int32)  # truncation, like _mm256_cvttps_epi32
    j = (j + 1) & ~1
    y = j.astype(np.float32)
    swap_sign_sin = ((j & 4) << 29).astype(np.uint32)
    use_sin_poly = (j & 2) == 0  # poly_mask: 0 <= x <= pi/4 after reduction
    for minus_dp in _MINUS_DP:  # extended-precision x - y * pi/4
        x = fma(y, minus_dp, x)
    sign_cos = ((~(j - 2) & 4) << 29).astype(np.uint32)
    sign_sin = sign_sin ^ swap_sign_sin
    z = x * x
    z64 = z.astype(np.float64)  # reused by the polynomial steps
    # Cosine polynomial.
    yc = fma(_COSCOF[0], z64, _COSCOF[1])
    yc = fma(yc, z64, _COSCOF[2])
    yc = yc * z
    yc = fma(yc, z64, -(z * _HALF))
    yc = yc + _ONE
    # Sine polynomial.
    ys = fma(_SINCOF[0], z64, _SINCOF[1])
    ys = fma(ys, z64, _SINCOF[2])
    ys = ys * z
    ys = fma(ys, x, x)
    # Select with bit masks exactly as the original does (masked-out lanes are +0.0).
    zero = np.float32(0.0)
    ysin2 = np.where(use_sin_poly, ys, zero)
    ysin1 = np.where(use_sin_poly, zero, yc)
    ys = ys - ysin2
    yc = yc - ysin1
    sin = (ysin1 + ysin2).view(np.uint32) ^ sign_sin
    cos = (yc + ys).view(np.uint32) ^ sign_cos
    return sin.view(np.float32), cos.view(np.float32)


# =============================================================================================
# Small helpers
# =============================================================================================
def _as_dtype(dtype):
    """Normalise a dtype argument (NumPy dtype, type or string) to ``np.dtype``."""
    return np.dtype(dtype)


def _cast(values, dtype):
    """Cast like C++ ``static_cast<scalar_t>``.

    c10::Half and c10::BFloat16 are only constructible from float, so doubles and integers
    become float32 first and are then rounded again, to half or bfloat16.
    """
    dtype = _as_dtype(dtype)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow to inf is what C++ does too
        if dtype in _REDUCED_FLOATS and values.dtype != np.float32:
            values = values.astype(np.float32)
        return values.astype(dtype, copy=False)  # callers pass fresh arrays


# Elements per chunk of the streaming samplers: their float64 temporaries then stay in the CPU
# cache instead of growing with the tensor. A multiple of 16 (normal_fill's block).
_CHUNK = 1 << 15


def _uniform01_float(raw32):
    """``uniform_real_distribution<float>(0, 1)``: the low 24 bits times 2**-24, in float32.

    Works in place: ``raw32`` (a fresh array of draws) is overwritten and its memory is
    returned as float32. Writing into memory already touched is far cheaper than filling a
    new tensor-sized array.
    """
    return _scale_low_bits_in_place(raw32, 0xFFFFFF, np.float32(2.0**-24), np.float32)


def _uniform01_double(raw64):
    """``uniform_real_distribution<double>(0, 1)``: the low 53 bits times 2**-53 (in place)."""
    return _scale_low_bits_in_place(raw64, 2**53 - 1, 2.0**-53, np.float64)


def _scale_low_bits_in_place(raw, mask, scale, dtype):
    """Keep the low bits of the unsigned ``raw`` and multiply them by ``scale`` in ``dtype``.

    The kept bits fit the dtype's significand, so the integer-to-float conversion is exact.
    Chunks keep NumPy's internal copy (input and output share memory) small.
    """
    raw &= raw.dtype.type(mask)
    values = raw.view(dtype)
    for start in range(0, raw.size, _CHUNK):
        part = slice(start, start + _CHUNK)
        np.multiply(raw[part], scale, out=values[part], dtype=dtype, casting="unsafe")
    return values


def _uniform_sum_is_exact(span, low):
    """Whether float64 computes ``u * span + low`` exactly for every float32 uniform ``u``.

    ``u`` is a multiple of 2**-24, so ``u * span`` is a multiple of 2**-24 * ulp(span) and
    ``low`` one of ulp(low); both are powers of two, so the sum is a multiple of the smaller.
    A sum below 2**53 such units fits a double's significand: float64 then adds without
    rounding, and the single rounding to float32 is exactly the fused result (no ties, and
    subnormal results are rounded correctly too).
    """
    span, low = np.float32(span), np.float32(low)
    if not (np.isfinite(span) and np.isfinite(low)):
        return False
    units = [float(np.spacing(abs(span))) * 2.0**-24]
    if low != 0:
        units.append(float(np.spacing(abs(low))))
    return abs(float(low)) + abs(float(span)) < min(units) * 2.0**53


def _require_float_dtype(dtype, what):
    dtype = _as_dtype(dtype)
    if dtype not in _FLOAT_DTYPES:
        raise TypeError(f"{what} expects a floating point dtype, got {dtype}")
    return dtype


def _int_limits(dtype):
    """(lowest, max) of an integer or bool dtype as Python ints."""
    if dtype == np.bool_:
        return 0, 1
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _cast_int_to_float_and_back(value, dtype):
    """``static_cast<int64_t>(static_cast<scalar_t>(value))`` for a floating ``dtype``."""
    with np.errstate(over="ignore"):
        as_float = float(_cast(np.array([value], dtype=np.int64), dtype).astype(np.float64)[0])
    if not -(2.0**63) <= as_float < 2.0**63:
        # x86's float-to-int64 conversion returns INT64_MIN for inf and out-of-range values.
        return -(2**63)
    return int(as_float)


def _update_from(value, dtype):
    """PyTorch's ``update_from``: move ``from`` right until it survives a cast to ``dtype``."""
    from_plus_1 = _cast_int_to_float_and_back(value + 1, dtype)
    if from_plus_1 < value:
        n = abs(value + 1).bit_length() - 1
        value = from_plus_1 + (1 << (n - _DIGITS[dtype] + 1))
    return value


def _update_to(value, dtype):
    """PyTorch's ``update_to``: move ``to`` left until ``to - 1`` survives a cast to ``dtype``."""
    to_minus_1 = _cast_int_to_float_and_back(value - 1, dtype)
    if to_minus_1 >= value:
        n = abs(value - 1).bit_length() - 1
        value = to_minus_1 - (1 << (n - _DIGITS[dtype] + 1))
    return value


def _check_from_to_in_range(low, to_inc, dtype):
    """PyTorch's ``check_from_to_in_range``: errors for bounds the dtype cannot hold, and a
    warning for floating bounds beyond 2**digits, where not every integer is representable.
    """
    if dtype in _FLOAT_DTYPES:
        finfo = ml_dtypes.finfo(dtype) if dtype == _BFLOAT16 else np.finfo(dtype)
        lowest, highest = float(finfo.min), float(finfo.max)
    elif dtype == np.uint64:
        lowest, highest = 0, 2**63 - 1
    else:
        lowest, highest = _int_limits(dtype)
    if not lowest <= low <= highest:
        raise RuntimeError(f"from is out of bounds for {dtype}")
    if not lowest <= to_inc <= highest:
        raise RuntimeError(f"to - 1 is out of bounds for {dtype}")
    if dtype in _FLOAT_DTYPES:
        digits = _DIGITS[dtype]
        for value, name in ((low, "from"), (to_inc, "to - 1")):
            if abs(value) > 2**digits:
                warnings.warn(
                    f"{name} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                    f"limitations {dtype} can support discrete uniform distribution only within "
                    "this range.", UserWarning, stacklevel=4)


def _wrap_int64(values):
    """Reinterpret uint64 arithmetic results as int64, like ``static_cast<int64_t>``."""
    return values.astype(np.uint64).view(np.int64)


# =============================================================================================
# The generator
# =============================================================================================
class CPUGeneratorImpl:
    """A NumPy twin of PyTorch's ``at::CPUGeneratorImpl`` (the default CPU generator).

    Sampling methods take an element count ``n`` and a NumPy dtype (``np.float16``,
    ``ml_dtypes.bfloat16``, ``np.float32``, ``np.float64`` or an integer/bool type where
    PyTorch allows one) and return a new 1-D array, advancing the stream exactly as the
    matching PyTorch call would.
    """

    def __init__(self, seed=DEFAULT_SEED):
        self._stream = _MTStream()
        self._seed = 0
        self._next_double_normal = None  # PyTorch's next_double_normal_sample_ cache
        self._next_float_normal = None  # kept only so that states round-trip
        self.manual_seed(seed)

    # -- seeding and state ---------------------------------------------------------------------
    def manual_seed(self, seed):
        """Seed like ``torch.manual_seed``: keep ``seed mod 2**64``, seed MT with its low 32 bits.

        Also clears both normal caches.
        """
        seed = int(seed) % 2**64
        self._seed = seed
        self._stream.seed(seed & 0xFFFFFFFF)
        self._next_double_normal = None
        self._next_float_normal = None
        return self

    def seed(self):
        """Seed from 64 random bits of the OS, as PyTorch does on Linux; return the seed."""
        value = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(value)
        return value

    def initial_seed(self):
        """The seed last set (``torch.initial_seed()``), in ``[0, 2**64)``."""
        return self._seed

    def get_state(self):
        """Return the state as the 5056 bytes of ``torch.get_rng_state()``."""
        key, left, next_ = self._stream.torch_state()
        buf = bytearray(STATE_SIZE)
        header = np.array([self._seed], dtype="<u8").tobytes()
        buf[_OFF_SEED:_OFF_SEED + 8] = header
        buf[_OFF_LEFT:_OFF_LEFT + 4] = int(left).to_bytes(4, "little", signed=True)
        buf[_OFF_SEEDED:_OFF_SEEDED + 4] = (1).to_bytes(4, "little", signed=True)
        buf[_OFF_NEXT:_OFF_NEXT + 8] = int(next_).to_bytes(8, "little")
        buf[_OFF_STATE:_OFF_NORMAL_X] = key.astype("<u8").tobytes()
        if self._next_double_normal is not None:
            buf[_OFF_NORMAL_Y:_OFF_NORMAL_Y + 8] = np.float64(self._next_double_normal).tobytes()
            buf[_OFF_NORMAL_VALID:_OFF_NORMAL_VALID + 4] = (1).to_bytes(4, "little")
        if self._next_float_normal is not None:
            buf[_OFF_FLOAT_NORMAL:_OFF_FLOAT_NORMAL + 4] = np.float32(
                self._next_float_normal).tobytes()
            buf[_OFF_FLOAT_VALID] = 1
        return bytes(buf)

    def set_state(self, state):
        """Load a state in ``torch.get_rng_state()`` format (bytes, bytearray or uint8 array)."""
        if isinstance(state, np.ndarray):
            if state.dtype != np.uint8:
                raise TypeError("RNG state must be a torch.ByteTensor")
            raw = state.tobytes()
        else:
            raw = bytes(state)
        if len(raw) != STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found the input "
                f"RNG state size to be {len(raw)}")
        seed = int.from_bytes(raw[_OFF_SEED:_OFF_SEED + 8], "little")
        left = int.from_bytes(raw[_OFF_LEFT:_OFF_LEFT + 4], "little", signed=True)
        seeded = int.from_bytes(raw[_OFF_SEEDED:_OFF_SEEDED + 4], "little", signed=True)
        # PyTorch narrows next to uint32 when it loads the state.
        next_ = int.from_bytes(raw[_OFF_NEXT:_OFF_NEXT + 8], "little") & 0xFFFFFFFF
        # The state words are stored as u64; PyTorch keeps their low 32 bits.
        key = np.frombuffer(raw[_OFF_STATE:_OFF_NORMAL_X], dtype="<u8").astype(np.uint32)
        # mt19937::is_valid(): seeded must be exactly true (a C++ bool compared with int).
        if seeded != 1 or not 0 < left <= _MT_N or next_ > _MT_N:
            raise RuntimeError("Invalid mt19937 state")
        self._stream.set_torch_state(key, left, next_)
        self._seed = seed
        normal_valid = int.from_bytes(raw[_OFF_NORMAL_VALID:_OFF_NORMAL_VALID + 4], "little")
        self._next_double_normal = (
            float(np.frombuffer(raw[_OFF_NORMAL_Y:_OFF_NORMAL_Y + 8], dtype="<f8")[0])
            if normal_valid else None)
        self._next_float_normal = (
            float(np.frombuffer(raw[_OFF_FLOAT_NORMAL:_OFF_FLOAT_NORMAL + 4], dtype="<f4")[0])
            if raw[_OFF_FLOAT_VALID] else None)

    def clone(self):
        """Return an independent generator in the same state (``Generator.clone_state``)."""
        other = CPUGeneratorImpl.__new__(CPUGeneratorImpl)
        other._stream = self._stream.copy()
        other._seed = self._seed
        other._next_double_normal = self._next_double_normal
        other._next_float_normal = self._next_float_normal
        return other

    clone_state = clone

    def copy_from(self, other):
        """Make this generator's state equal to ``other``'s."""
        self.set_state(other.get_state())

    # -- raw draws -----------------------------------------------------------------------------
    def random_u32(self, n):
        """``n`` draws of PyTorch's ``random()`` (one 32-bit engine output each), as uint32."""
        return self._stream.next_u32(n)

    def random_u64(self, n):
        """``n`` draws of PyTorch's ``random64()`` (two engine outputs each), as uint64."""
        return self._stream.next_u64(n)

    # -- uniform -------------------------------------------------------------------------------
    def uniform(self, n, dtype, low=0.0, high=1.0, out=None):
        """``torch.rand`` / ``Tensor.uniform_(low, high)``.

        ``uniform_real`` computes ``x * (to - from) + from`` in the dtype's math type (float32
        for float32/half/bfloat16, float64 for float64); the AVX2/AVX-512 builds contract it to
        an FMA. A value that rounds up to ``to`` in the output dtype is replaced by ``from``.
        With ``out`` (a contiguous 1-D array of ``n`` elements of ``dtype``) the values are
        written there instead of into a new array.
        """
        dtype = _require_float_dtype(dtype, "uniform_")
        low, high = float(low), float(high)
        if not low <= high:
            raise RuntimeError(
                f"uniform_ expects to return a [from, to) range, but found from={low} > "
                f"to={high}")
        sample = self._uniform_sampler(dtype, low, high)
        to_scalar = _cast(np.array([high]), dtype)[0]
        from_scalar = _cast(np.array([low]), dtype)[0]
        n = int(n)
        out = np.empty(n, dtype=dtype) if out is None else out
        # Each element takes one draw, so drawing chunk by chunk consumes the stream in the
        # same order as drawing everything at once, without tensor-sized temporaries.
        for start in range(0, n, _CHUNK):
            values = _cast(sample(min(_CHUNK, n - start)), dtype)
            out[start:start + values.size] = np.where(values == to_scalar, from_scalar, values)
        return out

    def _uniform_sampler(self, dtype, low, high):
        """A function ``count -> values`` drawing ``count`` uniforms of [low, high) in the
        math type of ``dtype`` (float64 for float64, float32 otherwise)."""
        if dtype == np.float64:
            if low == 0.0 and high == 1.0:
                return lambda count: _uniform01_double(self._stream.next_u64(count))
            return lambda count: _fma64(_uniform01_double(self._stream.next_u64(count)),
                                        high - low, low)
        lo32, hi32 = np.float32(low), np.float32(high)
        if lo32 == 0 and hi32 == 1:
            return lambda count: _uniform01_float(self._stream.next_u32(count))
        span = hi32 - lo32
        fma = _fma32_tie_free if _uniform_sum_is_exact(span, lo32) else _fma32
        return lambda count: fma(_uniform01_float(self._stream.next_u32(count)), span, lo32)

    # -- normal --------------------------------------------------------------------------------
    def normal(self, n, dtype, mean=0.0, std=1.0, contiguous=True, out=None):
        """``torch.randn`` / ``Tensor.normal_(mean, std)``.

        Tensors with 16 or more elements that are contiguous take ``normal_fill`` (Box-Muller
        on blocks of 16 uniforms). Smaller or non-contiguous ones draw one cached double
        normal per element. With ``out`` (a contiguous 1-D array of ``n`` elements of
        ``dtype``) the values are written there.
        """
        streams = np.dtype(dtype) == np.float32 and int(n) >= 16 and contiguous
        if out is not None and not streams:  # only float32 normal_fill writes into out itself
            out[...] = self.normal(n, dtype, mean, std, contiguous)
            return out
        dtype = _require_float_dtype(dtype, "normal_")
        mean, std = float(mean), float(std)
        if not std >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        n = int(n)
        if n >= 16 and contiguous:
            if dtype == np.float64:
                return self._normal_fill_double(n, mean, std)
            if dtype == np.float32:
                return self._normal_fill_float(n, mean, std, out)
            return _cast(self._normal_fill_reduced(n, mean, std), dtype)
        return _cast(self._scalar_normals(n, mean, std), dtype)

    def _scalar_normals(self, n, mean, std):
        """``n`` draws of ``at::normal_distribution<double>(mean, std)``, cache included.

        Each fresh pair costs two ``random64()``: ``u1`` then ``u2``. It returns
        ``r * cos(theta)`` and caches ``r * sin(theta)`` for the following draw, also across
        calls. The result is ``ret * std + mean`` in double (a contracted FMA).
        """
        out = np.empty(n, dtype=np.float64)
        start = 0
        if n > 0 and self._next_double_normal is not None:
            out[0] = self._next_double_normal
            self._next_double_normal = None
            start = 1
        fresh = n - start
        pairs = (fresh + 1) // 2
        if pairs:
            u = _uniform01_double(self._stream.next_u64(2 * pairs))
            u1, u2 = u[0::2], u[1::2]
            radius = np.sqrt(-2.0 * _libm(math.log1p, -u2))
            theta = _TWO_PI * u1
            cos_part = radius * _libm(math.cos, theta)
            sin_part = radius * _libm(math.sin, theta)
            # Interleave cos, sin, cos, sin ...; the last sin stays cached if fresh is odd.
            pair_values = np.empty(2 * pairs, dtype=np.float64)
            pair_values[0::2] = cos_part
            pair_values[1::2] = sin_part
            out[start:] = pair_values[:fresh]
            if fresh % 2:
                self._next_double_normal = float(sin_part[-1])
        return _fma64_or_add(out, std, mean)

    def _normal_fill_float(self, n, mean, std, out=None):
        """float32 ``normal_fill`` with the AVX ``NormalFill16<float>`` math.

        PyTorch draws all n uniforms first, then transforms every full block of 16 in place.
        If n is not a multiple of 16, 16 fresh uniforms overwrite the last 16 slots (part of
        the last full block) and are transformed as one more block: n + 16 draws in all.
        Blocks are independent, so we draw and transform chunk by chunk, straight into
        ``out`` (a new array if None).
        """
        data = np.empty(n, dtype=np.float32) if out is None else out
        transform = _float_block_transform(mean, std)
        full = n // 16 * 16
        for start in range(0, full, _CHUNK):  # _CHUNK is a multiple of 16
            part = _uniform01_float(self._stream.next_u32(min(_CHUNK, full - start)))
            data[start:start + part.size] = transform(part.reshape(-1, 16)).ravel()
        if n % 16:
            self._stream.next_u32(n - full)  # drawn, then overwritten by the tail block
            tail = _uniform01_float(self._stream.next_u32(16))
            data[n - 16:] = transform(tail.reshape(1, 16)).ravel()
        return data

    def _normal_fill_reduced(self, n, mean, std):
        """Half/bfloat16 ``normal_fill``: same float math, but drawn block by block.

        These dtypes draw 16 float uniforms per full block, then 16 more for the tail block,
        so they consume (n // 16 + 1) * 16 draws when n % 16 != 0 (not n + 16 like float32).
        Returns float32 values; the caller rounds them to the dtype.
        """
        full = n // 16 * 16
        tail = 16 if n % 16 else 0
        uniforms = _uniform01_float(self._stream.next_u32(full + tail))
        transform = _float_block_transform(mean, std)
        data = np.empty(n, dtype=np.float32)
        data[:full] = transform(uniforms[:full].reshape(-1, 16)).ravel()
        if tail:
            data[n - 16:] = transform(uniforms[full:].reshape(1, 16)).ravel()
        return data

    def _normal_fill_double(self, n, mean, std):
        """float64 ``normal_fill``: scalar glibc math on blocks of 16 doubles."""
        data = _uniform01_double(self._stream.next_u64(n))
        full = n // 16 * 16
        data[:full] = _double_block_transform(data[:full].reshape(-1, 16), mean, std).ravel()
        if n % 16:
            tail = _uniform01_double(self._stream.next_u64(16))
            data[n - 16:] = _double_block_transform(tail.reshape(1, 16), mean, std).ravel()
        return data

    def normal_tensor(self, mean, std, dtype=None):
        """``torch.normal(mean, std)`` where ``mean`` and/or ``std`` are arrays.

        PyTorch fills the output with ``normal_(0, 1)`` (or ``normal_(0, std)`` when only
        ``mean`` is a tensor), then applies ``mul_(std)`` and ``add_(mean)`` as separate
        elementwise ops. Returns an array of the broadcast shape in ``dtype`` (default: the
        dtype of the tensor argument, ``mean``'s when both are arrays).
        """
        mean_is_array = isinstance(mean, np.ndarray)
        std_is_array = isinstance(std, np.ndarray)
        if not (mean_is_array or std_is_array):
            raise TypeError("normal_tensor expects mean and/or std to be arrays")
        if dtype is None:
            dtype = mean.dtype if mean_is_array else std.dtype
        dtype = _require_float_dtype(dtype, "normal")
        if std_is_array:
            if std.size and not np.all(std.astype(np.float64) >= 0):
                raise RuntimeError("normal expects all elements of std >= 0.0")
            if not mean_is_array:
                # PyTorch wraps a float mean in a 0-d tensor of the output dtype.
                mean = _cast(np.array(float(mean)), dtype)
            shape = np.broadcast_shapes(np.shape(mean), std.shape)
            z = self.normal(math.prod(shape), dtype).reshape(shape)
            out = _elementwise(z, std, np.multiply, dtype)
            return _elementwise(out, mean, np.add, dtype)
        # Only mean is an array: normal_(0, std) on an output shaped like mean, then add_(mean).
        z = self.normal(mean.size, dtype, 0.0, float(std)).reshape(mean.shape)
        return _elementwise(z, mean, np.add, dtype)

    def log_normal(self, n, dtype, mean=1.0, std=2.0):
        """``Tensor.log_normal_(mean, std)``: ``exp`` of a cached double normal, per element."""
        dtype = _require_float_dtype(dtype, "log_normal_")
        if not std > 0.0:
            raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
        return _cast(_libm(math.exp, self._scalar_normals(int(n), float(mean), float(std))),
                     dtype)

    # -- integers ------------------------------------------------------------------------------
    def randint(self, n, low, high, dtype=np.int64):
        """``torch.randint(low, high, (n,), dtype=dtype)``: ``random_(low, high)``."""
        return self.random_(n, dtype, low, high)

    def random_(self, n, dtype, low=None, high=None):
        """``Tensor.random_`` in all its forms.

        * ``random_(n, dtype)``: ``random_()``, [0, 2**mantissa] or [0, max] of the dtype.
        * ``random_(n, dtype, high=to)``: ``random_(to)``, i.e. [0, to).
        * ``random_(n, dtype, low, high)``: ``random_(from, to)``, i.e. [from, to).
        * ``random_(n, dtype, low)``: ``random_(from, None)``, i.e. [from, max of dtype];
          ``low = -2**63`` gives the full 64-bit range.
        """
        dtype = _as_dtype(dtype)
        n = int(n)
        if low is None and high is None:
            return self._random_default(n, dtype)
        low = 0 if low is None else int(low)
        if high is not None:
            high = int(high)
            if not low < high:
                raise RuntimeError(
                    f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                    f"to={high}")
            if dtype in _FLOAT_DTYPES:
                low, high = _update_from(low, dtype), _update_to(high, dtype)
                if not low < high:
                    raise RuntimeError(
                        "random_ expects 'from' casted to dtype to be less than 'to' casted to "
                        f"dtype, but got from={low} >= to={high}")
            _check_from_to_in_range(low, high - 1, dtype)
            return self._random_from_to(n, dtype, high - low, low)
        if low != -(2**63):
            if dtype in _FLOAT_DTYPES:
                to_inc = min(1 << _DIGITS[dtype], 2**63 - 1)
                low = _update_from(low, dtype)
                if not low < to_inc:
                    raise RuntimeError(
                        "random_ expects 'from' casted to dtype to be less than or equal to "
                        f"'to_inc' casted to dtype, but got from={low} > to_inc={to_inc}")
            else:
                to_inc = _int_limits(dtype)[1]
            _check_from_to_in_range(low, to_inc, dtype)
            return self._random_from_to(n, dtype, to_inc - low + 1, low)
        return self._random_full_range(n, dtype)

    def _random_from_to(self, n, dtype, span, base):
        """``uniform_int_from_to``: ``(draw % span) + base`` with 32- or 64-bit draws.

        Ranges of at least 2**28 use ``random64()``, smaller ones ``random()``. The sum is
        done in uint64 and read as int64, then cast to the dtype.
        """
        span %= 2**64
        draws = self._stream.next_u64(n) if span >= 2**28 else self._stream.next_u32(n)
        # A span of 2**64 wraps to 0 in C++ and cannot occur here (handled by full range).
        values = (draws.astype(np.uint64) % np.uint64(span)) + np.uint64(base % 2**64)
        return _cast_from_int64(_wrap_int64(values), dtype)

    def _random_full_range(self, n, dtype):
        """``random_(-2**63, None)``: every bit of ``random64()`` as an int64."""
        if dtype not in (np.dtype(np.int64), np.dtype(np.float64), np.dtype(np.float32),
                         _BFLOAT16):
            raise RuntimeError(
                "random_full_64_bits_range_kernel_cpu handles only int64, double, float and "
                "bfloat16")
        return _cast_from_int64(self._stream.next_u64(n).view(np.int64), dtype)

    def _random_default(self, n, dtype):
        """``random_()`` with no bounds (``uniform_int``)."""
        if dtype == np.bool_:
            return (self._stream.next_u32(n) & np.uint32(1)).astype(np.bool_)
        if dtype in (np.dtype(np.int64), np.dtype(np.float64)):
            modulus = 2**63 if dtype == np.int64 else 2**53 + 1
            values = self._stream.next_u64(n) % np.uint64(modulus)
        elif dtype in _FLOAT_DTYPES:
            values = self._stream.next_u32(n) % np.uint32((1 << _DIGITS[dtype]) + 1)
        elif dtype in (np.dtype(np.uint8), np.dtype(np.int8), np.dtype(np.int16),
                       np.dtype(np.int32)):
            modulus = _int_limits(dtype)[1] + 1
            values = self._stream.next_u32(n).astype(np.uint64) % np.uint64(modulus)
        else:
            raise RuntimeError(f"random_ is not implemented for {dtype}")
        return _cast_from_int64(values.astype(np.int64), dtype)

    def randperm(self, n, dtype=np.int64):
        """``torch.randperm(n, dtype=dtype)``.

        For n < (2**32 - 1) / 20: start from arange(n) and, for i = 0 .. n-2, swap slot i
        with slot i + random() % (n - i). Larger n use the inside-out Fisher-Yates shuffle
        with ``random64() % (i + 1)``. The draws are pulled in one batch and the swap loops
        are replayed with whole-array passes (``_randperm``).
        """
        n = int(n)
        dtype = _as_dtype(dtype)
        if n < 0:
            raise RuntimeError(f"n must be non-negative, got{n}")
        # PyTorch's check_supported_max_int_with_precision: n - 1 must fit in the dtype, and
        # half/float/double must hold every index exactly (bfloat16 is not checked).
        if dtype in _FLOAT_DTYPES and dtype != _BFLOAT16 and n > (1 << _DIGITS[dtype]) + 1:
            raise RuntimeError(
                f"n cannot be greater than 2^{_DIGITS[dtype]}+1 for {dtype} type.")
        if dtype.kind in "biu" and max(n - 1, 0) > _int_limits(dtype)[1]:
            raise RuntimeError(f"value cannot be converted to type {dtype} without overflow")
        if n == 0:
            perm = np.empty(0, dtype=np.int64)
        elif n < (2**32 - 1) // 20:
            # random() % (n - i) for i = 0 .. n-2; the remainder fits easily in int64.
            draws = self._stream.next_u32(n - 1).astype(np.int64)
            perm = forward_swaps(np.remainder(draws, np.arange(n, 1, -1, dtype=np.int64),
                                              out=draws))
        else:
            picks = self._stream.next_u64(n) % np.arange(1, n + 1, dtype=np.uint64)
            perm = inside_out_swaps(picks.astype(np.int64))
        return _cast_from_int64(perm, dtype)

    # -- Bernoulli and friends -----------------------------------------------------------------
    def bernoulli_scalar(self, n, p, dtype=np.float32):
        """``Tensor.bernoulli_(p)`` for a float ``p`` (dropout's mask): ``U64 < p``.

        Older PyTorch builds sent this to an MKL VSL stream on Intel CPUs; torch 2.13 uses
        the generator's mt19937 on Intel and AMD alike (checked on an Intel Xeon).
        """
        p = float(p)
        if not 0.0 <= p <= 1.0:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        hits = _uniform01_double(self._stream.next_u64(n)) < p
        return _cast_from_int64(hits.astype(np.int64), _as_dtype(dtype))

    def bernoulli_tensor(self, probs, dtype=None):
        """``torch.bernoulli(probs)`` / ``bernoulli_(p_tensor)``; element order is C order.

        float64 probabilities compare a 53-bit double uniform (``random64()``); every other
        dtype compares a 24-bit float uniform (``random()``) with ``p`` cast to float.
        Returns an array shaped like ``probs`` in ``dtype`` (default ``probs.dtype``).
        """
        probs = np.asarray(probs)
        dtype = probs.dtype if dtype is None else _as_dtype(dtype)
        flat = probs.ravel()
        as_double = flat.astype(np.float64)
        if not np.all((as_double >= 0) & (as_double <= 1)):
            raise RuntimeError("bernoulli expects all probabilities to be in [0, 1]")
        if probs.dtype == np.float64:
            hits = _uniform01_double(self._stream.next_u64(flat.size)) < flat
        else:
            hits = _uniform01_float(self._stream.next_u32(flat.size)) < flat.astype(np.float32)
        return _cast_from_int64(hits.astype(np.int64), dtype).reshape(probs.shape)

    def exponential(self, n, lambd=1.0, dtype=np.float32):
        """``Tensor.exponential_(lambd)``: ``-1/lambd * log1p(-U64)`` in double."""
        dtype = _require_float_dtype(dtype, "exponential_")
        lambd = float(lambd)
        if not lambd > 0.0:
            raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
        u = _uniform01_double(self._stream.next_u64(n))
        return _cast((-1.0 / lambd) * _libm(math.log1p, -u), dtype)

    def geometric(self, n, p, dtype=np.float32):
        """``Tensor.geometric_(p)``: ``ceil(log(U64) / log1p(-p))`` in double."""
        p = float(p)
        if not 0.0 < p < 1.0:
            raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
        u = _uniform01_double(self._stream.next_u64(n))
        values = np.ceil(_libm(math.log, u) / math.log1p(-p))
        return _cast(values, _as_dtype(dtype))

    def cauchy(self, n, median=0.0, sigma=1.0, dtype=np.float32):
        """``Tensor.cauchy_(median, sigma)``: ``median + sigma * tan(pi * (U64 - 0.5))``."""
        dtype = _require_float_dtype(dtype, "cauchy_")
        u = _uniform01_double(self._stream.next_u64(n))
        tangent = _libm(math.tan, math.pi * (u - 0.5))
        return _cast(_fma64(float(sigma), tangent, float(median)), dtype)

    # -- multinomial ---------------------------------------------------------------------------
    def multinomial(self, probs, num_samples, replacement=False):
        """``torch.multinomial(probs, num_samples, replacement)`` -> int64 indices.

        Without replacement, or for a single sample, PyTorch draws ``q ~ Exp(1)`` shaped like
        ``probs`` and takes the top ``num_samples`` of ``probs / q`` per row. With replacement
        it binary-searches one double uniform per sample in the normalised cumulative sums.
        """
        probs = np.asarray(probs)
        if probs.ndim not in (1, 2):
            raise RuntimeError("prob_dist must be 1 or 2 dim")
        num_samples = int(num_samples)
        if num_samples <= 0:
            raise RuntimeError("cannot sample n_sample <= 0 samples")
        rows = probs.reshape(-1, probs.shape[-1])
        if not replacement and num_samples > rows.shape[1]:
            raise RuntimeError(
                "cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        if not replacement or num_samples == 1:
            result = self._multinomial_exponential(rows, num_samples)
        else:
            result = self._multinomial_cdf(rows, num_samples)
        return result[0] if probs.ndim == 1 else result

    def _multinomial_exponential(self, rows, k):
        """The "p / Exp(1)" trick: argmax for one sample, topk (descending) otherwise."""
        dtype = rows.dtype
        q = self.exponential(rows.size, 1.0, dtype).reshape(rows.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = _elementwise(rows, q, np.divide, dtype).astype(np.float64)
        if k == 1:
            return np.argmax(ratio, axis=1).astype(np.int64)[:, None]
        # topk returns the largest first; a stable sort keeps earlier indices first on ties.
        order = np.argsort(-ratio, axis=1, kind="stable")
        return order[:, :k].astype(np.int64)

    def _multinomial_cdf(self, rows, k):
        """Sampling with replacement by inverse CDF, all rows at once.

        PyTorch walks the rows in order: it checks a row, builds its normalised cumulative
        sums, then draws the row's ``k`` double uniforms and binary-searches each. The draws
        are therefore row-major in the stream, so one ``next_u64(rows * k)`` call supplies
        them all (``_multinomial_kernel.py`` does the rest).
        """
        # Half and bfloat16 accumulate in float; float32 and float64 in their own type.
        acc_dtype = np.float32 if rows.dtype in _REDUCED_FLOATS else rows.dtype
        cum, bad = cumulative_rows(rows, acc_dtype)
        if bad is not None:
            row, message = bad
            self._stream.next_u64(row * k)  # the rows before it drew their uniforms
            raise RuntimeError(message)
        u = _uniform01_double(self._stream.next_u64(rows.shape[0] * k)).reshape(-1, k)
        return lockstep_search(cum, u)


# =============================================================================================
# Block transforms of normal_fill and dtype helpers used above
# =============================================================================================
# Blocks of 16 per chunk in the float32 Box-Muller math: small enough for the temporaries to
# stay in the CPU cache, large enough to amortise NumPy's per-call overhead.
_CHUNK_BLOCKS = 1024


def _float_block_transform(mean, std):
    """Return the AVX ``NormalFill16<float>`` transform, applied in place to (m, 16) blocks.

    Per block: u1 = 1 - d[0:8], u2 = d[8:16], radius = sqrt(-2 log u1), theta = 2pi * u2,
    d[0:8] = fma(radius * cos theta, std, mean), d[8:16] = fma(radius * sin theta, std, mean).
    """
    mean32, std32 = np.float32(mean), np.float32(std)
    two_pi = np.float32(_TWO_PI)
    minus_two = np.float32(-2.0)

    def scale(values):
        if std32 == 1:
            # fma(x, 1, mean) is a plain addition. Even for mean == 0 it is not a no-op:
            # it turns the -0.0 that u1 == 1 produces (radius = sqrt(-0.0)) into +0.0.
            return values + mean32
        if mean32 == 0:
            # The float64 product of two float32 values is exact and adding zero is exact,
            # so the one rounding to float32 is the fused result (subnormals included).
            return _fma32_tie_free(values, std32, mean32)
        return _fma32(values, std32, mean32)

    def transform(blocks):
        # Chunk by chunk, so that no temporary grows with the tensor (big temporaries cost
        # page faults and cache misses that dwarf the arithmetic).
        for start in range(0, blocks.shape[0], _CHUNK_BLOCKS):
            part = blocks[start:start + _CHUNK_BLOCKS]
            u1 = (_ONE - part[:, :8]).ravel()  # C order: block by block, lane by lane
            # The uniforms of normal_fill are k * 2**-24, for which the tie-free FMA is exact.
            radius = np.sqrt(minus_two * _avx_log(u1, _fma32_tie_free))
            sin, cos = _avx_sincos((two_pi * part[:, 8:]).ravel(), _fma32_tie_free)
            cos *= radius
            sin *= radius
            part[:, :8] = scale(cos).reshape(-1, 8)
            part[:, 8:] = scale(sin).reshape(-1, 8)
        return blocks

    return transform


def _double_block_transform(blocks, mean, std):
    """The scalar ``NormalFill16<double>`` on blocks shaped (m, 16), with glibc math."""
    u1 = 1.0 - blocks[:, :8]
    u2 = blocks[:, 8:]
    radius = np.sqrt(-2.0 * _libm(math.log, u1)).reshape(u1.shape)
    theta = _TWO_PI * u2
    cos = _libm(math.cos, theta).reshape(u2.shape)
    sin = _libm(math.sin, theta).reshape(u2.shape)
    out = np.concatenate([radius * cos, radius * sin], axis=1)
    return _fma64_or_add(out, std, mean)


def _fma64_or_add(values, std, mean):
    """``fma(values, std, mean)`` in double; for std == 1 that is just ``values + mean``.

    The addition matters even for mean == 0: it turns -0.0 samples into +0.0 as PyTorch does.
    """
    if std == 1.0:
        return values + mean
    return _fma64(values, std, mean)


def _cast_from_int64(values, dtype):
    """Cast integer results to ``dtype`` like ``static_cast<scalar_t>(int64_t)``."""
    dtype = _as_dtype(dtype)
    if dtype == np.bool_:
        return values != 0
    return _cast(values, dtype)


def _elementwise(a, b, op, dtype):
    """One PyTorch binary op whose result is stored in a ``dtype`` tensor.

    The op runs in the promoted type of its operands, except that half and bfloat16 math runs
    in float32 (PyTorch's CPU kernels upcast them); the result is then cast to ``dtype``.
    """
    a = np.asarray(a)
    b = np.asarray(b)
    compute = np.result_type(a.dtype, b.dtype)
    if compute in _REDUCED_FLOATS:
        compute = np.dtype(np.float32)
    return _cast(op(a.astype(compute), b.astype(compute)), dtype)
