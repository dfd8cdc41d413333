"""PyTorch's CPU rejection samplers (``aten/src/ATen/native/Distributions.{h,cpp}``), replayed
on cinder's copy of the generator so that a seeded ``torch._standard_gamma``,
``torch._sample_dirichlet``, ``torch.poisson`` or ``torch.binomial`` gives PyTorch's numbers bit
for bit.

Why the elements are visited one after another: PyTorch's kernels run serially over the
elements, and each element takes as many draws as its rejection loop needs (a gamma draw that
is rejected asks for another normal and another uniform). Where the draws of element ``i``
start therefore depends on every accept/reject decision before it, so the elements cannot be
computed independently. The raw draws, though, are pulled from the MT19937 stream in bulk
(``_Draws``); the per-element work is a handful of float operations on Python floats.

Precision follows the C++ exactly: the ``double`` accumulator type for the algorithm, and the
element type (``float`` for float32 tensors) where the C++ computes in ``scalar_t``
(``alpha + 1.0f``, ``count * prob``...). Transcendentals are glibc's, as PyTorch calls them:
Python's ``math`` functions wrap the same libm routines, except ``lgamma`` and the float
``log1pf``, which are called through ctypes.
"""

import ctypes
import math
import operator
import struct

import numpy as np
from scipy import special

from .._random_engine import _uniform01_double


def _c_math():
    """glibc's ``lgamma`` and ``log1pf`` through ctypes (Python's ``math.lgamma`` is its own
    implementation, and it has no float32 functions). Without a C math library to load, the
    closest Python functions stand in (the results may then differ from PyTorch's in rare
    accept/reject decisions)."""
    try:
        try:
            libm = ctypes.CDLL("libm.so.6")   # glibc's name: no ldconfig subprocess at import
        except OSError:                      # macOS, musl, Windows...
            from ctypes.util import find_library
            libm = ctypes.CDLL(find_library("m"))
        lgamma, log1pf = libm.lgamma, libm.log1pf
    except (OSError, TypeError, AttributeError):
        return math.lgamma, lambda x: _round_f32(math.log1p(x))
    lgamma.restype, lgamma.argtypes = ctypes.c_double, (ctypes.c_double,)
    log1pf.restype, log1pf.argtypes = ctypes.c_float, (ctypes.c_float,)
    return lgamma, log1pf


_TWO_PI = 2.0 * math.pi
_ONE_THIRD_F = struct.unpack("f", struct.pack("f", 1.0 / 3.0))[0]   # C++'s 1.0f / 3.0f
_SQUEEZE_F = struct.unpack("f", struct.pack("f", 0.0331))[0]       # C++'s 0.0331f
_F32 = struct.Struct("f")


def _round_f32(x):
    """A double rounded to the nearest float32 value (C++'s ``static_cast<float>``)."""
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


_lgamma, _log1pf = _c_math()


def _log(x):
    """C's ``log``: -inf at 0 (Python's ``math.log`` raises there)."""
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def _same(x):
    return x


def element_rounding(dtype):
    """The rounding of the element type: float32 math rounds every result to float32."""
    return _round_f32 if np.dtype(dtype) == np.float32 else _same


class _Draws:
    """Sequential reader over a generator's stream of ``uniform_real_distribution<double>``
    draws; it also carries the generator's cached ``normal_distribution<double>`` sample
    (``cached_normal``) for the gamma loop, which makes its normals itself.

    Draws are fetched from the MT19937 stream in blocks (doubling in size). A loop either
    calls ``uniform()`` (a generator's ``__next__``: the cheapest call Python offers) or
    indexes the list ``refill()`` returns and reports its count to ``finish``. ``close()``
    rewinds the stream and advances it by exactly the draws used, so the generator ends where
    PyTorch's would.
    """

    def __init__(self, engine, expected):
        self._engine = engine
        self._start = engine._stream.copy()
        self._buffer = []
        self._used = None                # set by finish() in the indexing mode
        self._fetched = 0
        self._current = iter(())
        self._block = max(64, int(expected))
        self.cached_normal = engine._next_double_normal
        self.uniform = self._blocks().__next__

    def _fetch(self):
        fresh = _uniform01_double(self._engine._stream.next_u64(self._block)).tolist()
        self._block *= 2
        self._fetched += len(fresh)
        return fresh

    def _blocks(self):
        while True:
            self._current = iter(self._fetch())
            yield from self._current

    def refill(self):
        """Append a block of draws to the buffer and return the buffer (indexing mode)."""
        self._buffer += self._fetch()
        return self._buffer

    def finish(self, used, cached_normal):
        """``close()`` for loops that indexed the buffer themselves: ``used`` draws taken,
        ``cached_normal`` left in the cache."""
        self._used, self.cached_normal = used, cached_normal
        self.close()

    def close(self):
        """Leave the generator exactly after the draws that were used."""
        used = self._used
        if used is None:                 # uniform() mode: all fetched but the unread rest
            used = self._fetched - operator.length_hint(self._current)
        stream = self._start
        stream.next_u32(2 * used)
        self._engine._stream = stream
        self._engine._next_double_normal = self.cached_normal


# ----------------------------------------------------------------------------------------------
# Gamma: Marsaglia and Tsang, with the boost U ** (1 / alpha) for alpha < 1
# ----------------------------------------------------------------------------------------------

def _gamma_constants(alpha):
    """Per-element constants of ``sample_gamma<scalar_t, double>``, computed in the element
    dtype where the C++ computes in ``scalar_t`` (NumPy's float32 +, /, sqrt round like C's):
    the boost exponent ``1 / alpha`` for alpha < 1 (0 marks no boost), ``d = alpha - 1/3``
    after the boost, and ``c = 1 / sqrt(9 d)`` in double."""
    dt = alpha.dtype.type
    small = alpha < 1
    with np.errstate(divide="ignore", invalid="ignore"):
        exponent = np.where(small, dt(1) / alpha, 0).astype(np.float64)
        boosted = np.where(small, alpha + dt(1), alpha)
        d = (boosted - dt(_ONE_THIRD_F)).astype(np.float64)
        c = 1.0 / np.sqrt(9.0 * d)
    return exponent.tolist(), d.tolist(), c.tolist()


def _gammas(engine, alpha):
    """Gamma draws (double) for the flat array ``alpha`` (float32 or float64), element by
    element from the generator (``sample_gamma``); alpha == 0 gives 0 without drawing.

    The draws and the normal cache are handled inline (a local index into the buffer)
    rather than through ``_Draws.uniform``/``normal``: this loop is the cost of every
    gamma-based sampler, and the calls were most of it.
    """
    exponents, ds, cs = _gamma_constants(alpha)
    draws = _Draws(engine, 3 * alpha.size + 16)
    buf, k, cached = draws.refill(), 0, draws.cached_normal
    log, log1p, sqrt, sin, cos, pow_ = math.log, math.log1p, math.sqrt, math.sin, math.cos, math.pow
    out = []
    for a, exponent, d, c in zip(alpha.tolist(), exponents, ds, cs):
        if a == 0:
            out.append(0.0)
            continue
        if not d > 0:
            # PyTorch's loop never ends here (NaN, or alpha <= -2/3 after the boost): say so
            raise RuntimeError(f"_standard_gamma: the sampler cannot draw with concentration "
                               f"{a}")
        if k + 4 > len(buf):          # a trial takes at most 3 draws, the boost 1
            buf = draws.refill()
        scale = 1.0
        if exponent:
            scale = pow_(1.0 - buf[k], exponent)
            k += 1
        while True:
            while True:
                if cached is not None:
                    x, cached = cached, None
                else:                 # Box-Muller: u1 for the angle, u2 for the radius
                    radius = sqrt(-2.0 * log1p(-buf[k + 1]))
                    theta = _TWO_PI * buf[k]
                    k += 2
                    cached = radius * sin(theta)
                    x = radius * cos(theta) + 0.0
                y = 1.0 + c * x
                if not y <= 0:        # C++'s do-while: a NaN leaves the loop too
                    break
                if k + 4 > len(buf):
                    buf = draws.refill()
            v = y * y * y
            u = 1.0 - buf[k]
            k += 1
            xx = x * x
            if u < 1.0 - _SQUEEZE_F * xx * xx or log(u) < 0.5 * xx + d * (1.0 - v + log(v)):
                out.append(scale * d * v)
                break
            if k + 4 > len(buf):
                buf = draws.refill()
    draws.finish(k, cached)
    return np.array(out, dtype=np.float64)


def standard_gamma(engine, alpha, dtype):
    """Gamma(alpha, 1) draws for the flat float array ``alpha``, in ``dtype`` (``_s_gamma_cpu``:
    results below the dtype's smallest normal number are raised to it)."""
    result = _gammas(engine, alpha.astype(dtype)).astype(dtype)
    return np.maximum(result, np.finfo(dtype).tiny)


def dirichlet(engine, alpha, dtype):
    """``_s_dirichlet_cpu`` for ``alpha`` shaped (..., K): double gamma draws, normalised over
    the last dim, cast to ``dtype`` and kept inside (0, 1)."""
    gammas = _gammas(engine, alpha.astype(np.float64).reshape(-1))
    gamma = np.maximum(gammas, np.finfo(np.float64).tiny).reshape(alpha.shape)
    ratio = (gamma / gamma.sum(-1, keepdims=True)).astype(dtype)
    below_one = np.nextafter(np.array(1.0, dtype), np.array(0.0, dtype))
    return np.clip(ratio, np.finfo(dtype).tiny, below_one)


# ----------------------------------------------------------------------------------------------
# Poisson: Hormann's transformed rejection (PTRS) for rate >= 10, the product method below
# ----------------------------------------------------------------------------------------------

def _product_method(lam, uniform):
    """``sample_poisson`` for 0 < rate < 10: multiply uniforms until below exp(-rate)."""
    enlam = math.exp(-lam)
    count = 0
    prod = uniform()
    while prod > enlam:
        count += 1
        prod *= uniform()
    return count


def _ptrs_constants(lam):
    """The rate-only constants of the transformed rejection, with glibc's sqrt and log."""
    b = 0.931 + 2.53 * math.sqrt(lam)
    return (math.log(lam), b, -0.059 + 0.02483 * b,
            math.log(1.1239 + 1.1328 / (b - 3.4)), 0.9277 - 3.6224 / (b - 2))


def _ptrs(lam, constants, uniform):
    """The transformed rejection branch of ``sample_poisson`` (rate >= 10)."""
    loglam, b, a, log_invalpha, vr = constants
    log, floor = math.log, math.floor
    while True:
        u = uniform() - 0.5
        v = uniform()
        us = 0.5 - abs(u)
        x = (2 * a / us + b) * u + lam + 0.43
        # C++'s (int64_t)floor(x): x86 gives INT64_MIN for NaN and out-of-range values
        k = floor(x) if -(2.0**63) <= x < 2.0**63 else -(2**63)
        if us >= 0.07 and v <= vr:
            return k
        if k < 0 or (us < 0.013 and v > us):
            continue
        if _log(v) + log_invalpha - log(a / (us * us) + b) <= -lam + k * loglam - _lgamma(
                k + 1.0):
            return k


def _ptrs_trials(lam, constants, u, v):
    """The outcome of transformed-rejection trials (uniform pairs ``u``, ``v``), all at once:
    (accepted, k). The cheap tests are whole-array IEEE operations, the same as the C++'s;
    only the trials that reach the log-gamma test (a small share) take the scalar glibc
    path, so every decision is PyTorch's."""
    loglam, b, a, log_invalpha, vr = constants
    u = u - 0.5
    us = 0.5 - np.abs(u)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = (2 * a / us + b) * u + lam + 0.43
    inside = (x >= -(2.0 ** 63)) & (x < 2.0 ** 63)
    k = np.where(inside, np.floor(np.where(inside, x, 0)), 0).astype(np.int64)
    k[~inside] = np.iinfo(np.int64).min     # C++'s (int64_t) of NaN or out-of-range values
    accepted = (us >= 0.07) & (v <= vr)
    rejected = ~accepted & ((k < 0) | ((us < 0.013) & (v > us)))
    open_ = np.flatnonzero(~accepted & ~rejected)
    uo, ko = us[open_], k[open_].astype(np.float64)
    with np.errstate(divide="ignore"):
        lhs = np.log(v[open_]) + log_invalpha - np.log(a / (uo * uo) + b)
    log_power, log_factorial = ko * loglam, special.gammaln(ko + 1.0)
    rhs = -lam + log_power - log_factorial
    scale = lam + np.abs(log_power) + np.abs(log_factorial)

    def exact(i):
        ui, ki = float(us[i]), int(k[i])
        return _log(float(v[i])) + log_invalpha - math.log(a / (ui * ui) + b) <= \
            -lam + ki * loglam - _lgamma(ki + 1.0)
    accepted[open_] = _decide(lhs, rhs, scale, open_, exact)
    return accepted, k


def _decide(lhs, rhs, scale, where, exact):
    """``lhs <= rhs`` from NumPy's and SciPy's log/lgamma, which may differ from glibc's by
    a few ulps of the terms summed (``scale``: their magnitude): comparisons closer than a
    wide margin are redone with ``exact(i)`` (the scalar glibc path) for the trial
    ``where[i]``, so every decision is PyTorch's."""
    decided = lhs <= rhs
    margin = 1e-9 * (scale + np.abs(lhs) + np.abs(rhs) + 1.0)
    with np.errstate(invalid="ignore"):
        close = ~(np.abs(lhs - rhs) > margin)          # (NaN and inf cases too)
    for j in np.flatnonzero(close).tolist():
        decided[j] = exact(where[j])
    return decided


def _shared_pair_trials(engine, n, decide):
    """``n`` samples of a rejection sampler whose every trial takes exactly two uniforms and
    whose parameters all elements share: trial j always reads draws 2j and 2j + 1, so the
    samples are the values of the first n accepted trials, and ``decide(u, v)`` ->
    (accepted, value) can judge whole blocks of trials at once. The stream is then rewound
    and advanced past exactly the trials used, where PyTorch's serial loop leaves it."""
    start = engine._stream.copy()
    found, have, trials = [], 0, 0
    block = n + n // 4 + 16
    while have < n:
        uv = _uniform01_double(engine._stream.next_u64(2 * block))
        accepted, values = decide(uv[0::2], uv[1::2])
        hits = np.flatnonzero(accepted)[:n - have]
        found.append(values[hits])
        have += hits.size
        trials += int(hits[-1]) + 1 if have == n else block
        block = max(16, 2 * (n - have))
    start.next_u64(2 * trials)
    engine._stream = start
    return np.concatenate(found)


def _product_steps(u, enlam):
    """For a sample of the product method starting at each draw of ``u``: how many draws it
    takes (the count plus one), or -1 when its run goes past the end of ``u``. Every start
    is followed at once: pass j multiplies the j-th next draw into the starts still above
    exp(-rate), which have all taken j draws so far."""
    steps = np.ones(u.size, dtype=np.int64)
    idx = np.flatnonzero(u > enlam)
    prod = u[idx]
    taken = 1
    while idx.size:
        inside = int(np.searchsorted(idx, u.size - taken))     # (idx is sorted)
        steps[idx[inside:]] = -1                               # runs past the known draws
        idx, prod = idx[:inside], prod[:inside]
        prod *= u[idx + taken]
        taken += 1
        done = prod <= enlam
        steps[idx[done]] = taken
        idx, prod = idx[~done], prod[~done]
    return steps


def _chain(steps, n):
    """The first ``n`` starts of the chain 0, 0 + steps[0], ... by pointer doubling (sample
    i starts at jump^i(0)); None when the chain leaves the known draws first."""
    m = steps.size
    kind = np.int32 if m < 2 ** 31 - 1 else np.int64
    jump = np.where(steps > 0, np.arange(m) + steps, m)
    jump = np.append(np.minimum(jump, m), m).astype(kind)  # m: "unknown", absorbing
    index = np.arange(n)
    starts = np.zeros(n, dtype=kind)
    bit = 0
    while (1 << bit) < n:
        take = (index >> bit) & 1 == 1
        starts[take] = jump[starts[take]]
        jump = jump[jump]
        bit += 1
    return None if starts[-1] >= m or steps[starts[-1]] < 0 else starts


def _poisson_shared_small(engine, lam, n):
    """``n`` product-method draws of one rate in (0, 10): each sample's draw count depends
    only on where it starts, so the counts of every possible start are found at once and the
    samples' starts follow by pointer doubling. The stream ends after the last sample's
    draws, as PyTorch's loop leaves it."""
    enlam = math.exp(-lam)
    size = int(n * (lam + 1) * 1.2) + 64
    while True:
        start = engine._stream.copy()
        u = _uniform01_double(start.next_u64(size))
        steps = _product_steps(u, enlam)
        starts = _chain(steps, n)
        if starts is not None:
            break
        size *= 2
    counts = steps[starts]
    engine._stream.next_u64(int(starts[-1]) + int(counts[-1]))
    return counts - 1


def poisson(engine, rate, dtype):
    """Poisson draws (``sample_poisson``) for the flat float array ``rate``, as ``dtype``."""
    rates = rate.astype(np.float64)
    if not (rates >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    if rates.size and rates[0] >= 10 and (rates == rates[0]).all():
        lam = float(rates[0])
        constants = _ptrs_constants(lam)
        values = _shared_pair_trials(engine, rates.size,
                                     lambda u, v: _ptrs_trials(lam, constants, u, v))
        return values.astype(np.float64).astype(dtype)
    if rates.size and 0 < rates[0] < 10 and (rates == rates[0]).all():
        return _poisson_shared_small(engine, float(rates[0]), rates.size).astype(
            np.float64).astype(dtype)
    draws = _Draws(engine, 2 * rate.size + 16)
    uniform = draws.uniform
    constants = {}            # per distinct large rate (rates are often all equal)
    out = []
    try:
        for lam in rates.tolist():
            if lam >= 10:
                if lam not in constants:
                    constants[lam] = _ptrs_constants(lam)
                out.append(_ptrs(lam, constants[lam], uniform))
            else:
                out.append(_product_method(lam, uniform) if lam > 0 else 0)
    finally:
        draws.close()
    return np.array(out, dtype=np.float64).astype(dtype)


# ----------------------------------------------------------------------------------------------
# Binomial: BTRS (Hormann 1993) when count * p >= 10, geometric inversion below
# ----------------------------------------------------------------------------------------------

_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_tail(k):
    """log(k!) minus its Stirling approximation: a table below 10, a series above."""
    if k < 10:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _stirling_tails(k):
    """``_stirling_tail`` over a float64 array."""
    k = np.asarray(k, dtype=np.float64)
    kp1sq = (k + 1) * (k + 1)
    with np.errstate(all="ignore"):
        series = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    table = np.array(_STIRLING_TAIL)[np.clip(np.nan_to_num(k), 0, 9).astype(np.int64)]
    return np.where(k < 10, table, series)


_ZERO, _COUNT, _NAN, _INVERSION, _BTRS = range(5)


def _binomial_plan(count, prob):
    """Per element of ``sample_binomial<scalar_t, double>``: which branch it takes, whether
    it counts failures (prob > 0.5 samples with 1 - prob), and the branch's constants (the
    log of 1 - p for inversion, a tuple for BTRS), computed with NumPy in the element dtype
    where the C++ computes in ``scalar_t``."""
    with np.errstate(all="ignore"):
        flip = prob > 0.5
        q = np.where(flip, (1.0 - prob.astype(np.float64)).astype(count.dtype), prob)
        kind = np.select(
            [(count <= 0) | (prob <= 0), prob >= 1, np.isnan(prob), count * q >= 10],
            [_ZERO, _COUNT, _NAN, _BTRS], _INVERSION)
    consts = [None] * count.size
    inversion = np.nonzero(kind == _INVERSION)[0]
    log1p = _log1pf if count.dtype == np.float32 else math.log1p
    for i, logprob in zip(inversion.tolist(), map(log1p, (-q[inversion]).tolist())):
        consts[i] = logprob
    btrs = np.nonzero(kind == _BTRS)[0]
    for i, tup in zip(btrs.tolist(), _btrs_constants(count[btrs], q[btrs])):
        consts[i] = tup
    return kind.tolist(), flip.tolist(), consts


def _btrs_constants(count, q):
    """BTRS's per-element constants, and the parts of its bound that depend only on m, the
    mode: one tuple per element."""
    one = count.dtype.type(1)
    with np.errstate(all="ignore"):
        q64, n64 = q.astype(np.float64), count.astype(np.float64)
        stddev = np.sqrt(count * q * (one - q)).astype(np.float64)
        b = 1.15 + 2.53 * stddev
        m = np.floor((count + one) * q).astype(np.float64)
        r = (q / (one - q)).astype(np.float64)
        log_m_term = _map(math.log, (m + 1) / (r * (n64 - m + 1)))
        columns = (b, -0.0873 + 0.0248 * b + 0.01 * q64, (count * q).astype(np.float64) + 0.5,
                   0.92 - 4.2 / b, r, (2.83 + 5.1 / b) * stddev, (m + 0.5) * log_m_term,
                   (count + one).astype(np.float64), n64 - m + 1, _stirling_tails(m),
                   _stirling_tails(n64 - m))
    return zip(*(col.tolist() for col in columns))


def _map(fn, values):
    return np.fromiter(map(fn, values.tolist()), dtype=np.float64, count=values.size)


def _binomial_inversion(count, logprob, uniform):
    """Count the geometric waiting times that fit in ``count`` trials."""
    geom_sum = 0.0
    num_geom = 0.0
    log, ceil, inf = math.log, math.ceil, math.inf
    while True:
        u = uniform()
        wait = log(u) / logprob if u > 0 else inf     # C: log(0) = -inf
        geom_sum += ceil(wait) if wait < inf else wait
        if geom_sum > count:
            return num_geom
        num_geom += 1.0         # exact: this branch only runs when count * prob < 10


def _btrs(count, constants, uniform, rnd):
    """Transformed rejection with squeeze (``btrs``), from the precomputed constants.

    ``k`` and the counts derived from it are whole numbers; below 2**24 they are exact in
    float32 too, so ``rnd`` (the float32 rounding) is only needed for larger counts.
    """
    b, a, c, v_r = constants[:4]
    rnd = rnd if count >= 2**24 else _same
    floor = math.floor
    while True:
        u = uniform() - 0.5
        v = uniform()
        us = 0.5 - abs(u)
        try:
            k = rnd(floor((2 * a / us + b) * u + c))
        except (OverflowError, ValueError):      # us == 0: C's floor keeps inf / NaN
            continue                             # ... and the k > count test rejects it
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        if _btrs_bound(count, constants, rnd, k, us, v):
            return k


def _btrs_bound(count, constants, rnd, k, us, v):
    """BTRS's final test (after the squeeze failed): whether ``k`` is under the bound."""
    b, a, _, _, r, alpha, m_term, count_p1, count_m1, stirling_m, stirling_count_m = \
        constants
    log = math.log
    v = _log(v * alpha / (a / (us * us) + b))
    count_k = rnd(count - k)
    count_k1 = rnd(count_k + 1)
    upperbound = (m_term + count_p1 * log(count_m1 / count_k1)
                  + (k + 0.5) * log(r * count_k1 / rnd(k + 1))
                  + stirling_m + stirling_count_m
                  - _stirling_tail(k) - _stirling_tail(count_k))
    return v <= upperbound


def _btrs_trials(count, constants, rnd, dtype, u, v):
    """``_btrs`` trials judged all at once (see ``_ptrs_trials``): (accepted, k)."""
    b, a, c, v_r = constants[:4]
    u = u - 0.5
    us = 0.5 - np.abs(u)
    with np.errstate(divide="ignore", invalid="ignore"):
        k = np.floor((2 * a / us + b) * u + c)
    if count >= 2**24 and rnd is not _same:
        k = k.astype(dtype).astype(np.float64)        # the float32 rounding of rnd
    with np.errstate(invalid="ignore"):
        possible = (k >= 0) & (k <= count)    # (inf and NaN, from us == 0, are rejected)
    accepted = possible & (us >= 0.07) & (v <= v_r)
    open_ = np.flatnonzero(possible & ~accepted)

    def exact(i):
        return _btrs_bound(count, constants, rnd, float(k[i]), float(us[i]), float(v[i]))
    if rnd is not _same:          # (float32 counts of 2**24 and more: the scalar path)
        accepted[open_] = [exact(i) for i in open_.tolist()]
        return accepted, k
    _, a, _, _, r, alpha, m_term, count_p1, count_m1, stirling_m, stirling_count_m = \
        constants
    ko, uo = k[open_], us[open_]
    count_k = count - ko
    with np.errstate(divide="ignore", invalid="ignore"):
        lhs = np.log(v[open_] * alpha / (a / (uo * uo) + b))
        left = count_p1 * np.log(count_m1 / (count_k + 1))
        right = (ko + 0.5) * np.log(r * (count_k + 1) / (ko + 1))
        rhs = (m_term + left + right + stirling_m + stirling_count_m
               - _stirling_tails(ko) - _stirling_tails(count_k))
    scale = abs(m_term) + np.abs(left) + np.abs(right)
    accepted[open_] = _decide(lhs, rhs, scale, open_, exact)
    return accepted, k


def binomial(engine, count, prob, dtype):
    """Binomial draws for flat float arrays ``count`` and ``prob`` of the same size."""
    rnd = element_rounding(dtype)
    count, prob = count.astype(dtype), prob.astype(dtype)
    if count.size and (count == count[0]).all() and (prob == prob[0]).all():
        kinds, flips, consts = _binomial_plan(count[:1], prob[:1])
        if kinds[0] == _BTRS:
            return _binomial_shared_btrs(engine, float(count[0]), flips[0], consts[0], rnd,
                                         dtype, count.size)
    kinds, flips, consts = _binomial_plan(count, prob)
    if (np.isnan(count) & (np.array(kinds) == _INVERSION)).any():
        # PyTorch's inversion loop never ends for a NaN count: say so instead
        raise RuntimeError("binomial: the sampler cannot draw with a NaN count")
    draws = _Draws(engine, 2 * count.size + 16)
    uniform = draws.uniform
    out = []
    try:
        for n, kind, flip, const in zip(count.tolist(), kinds, flips, consts):
            if kind == _ZERO:
                out.append(0.0)
            elif kind == _COUNT:
                out.append(n)
            elif kind == _NAN:
                out.append(math.nan)
            else:
                k = (_binomial_inversion(n, const, uniform) if kind == _INVERSION
                     else _btrs(n, const, uniform, rnd))
                out.append(rnd(n - k) if flip else k)
    finally:
        draws.close()
    return np.array(out, dtype=np.float64).astype(dtype)


def _binomial_shared_btrs(engine, count, flip, constants, rnd, dtype, size):
    """``size`` BTRS draws of one (count, prob): two uniforms per trial, so the trials are
    judged block by block (``_shared_pair_trials``)."""
    step_rnd = rnd if count >= 2**24 else _same
    k = _shared_pair_trials(engine, size, lambda u, v: _btrs_trials(
        count, constants, step_rnd, dtype, u, v))
    if flip:
        k = count - k
        if step_rnd is not _same:
            k = k.astype(dtype).astype(np.float64)
    return k.astype(dtype)
