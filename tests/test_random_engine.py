"""Bit-exact comparison of cinder's CPU random engine with real PyTorch.

Every sampling test seeds a ``torch.Generator`` and a ``CPUGeneratorImpl`` with the same seed,
draws the same thing from both and requires identical bits (floats are compared through an
unsigned-integer view, so -0.0 vs 0.0 or NaN payloads would count as differences). After each
draw the two generators' 5056-byte states must be identical as well, which checks that both
consumed exactly the same number of engine outputs and left the same normal-sample cache.

Some of PyTorch's results depend on how its wheel was compiled for the CPU: in the AVX2/AVX-512
kernels GCC fuses multiply-adds into FMAs and the float32 ``randn`` path uses the Cephes AVX
routines. cinder reproduces those kernels, so tests that depend on them are skipped when torch
runs its DEFAULT (non-AVX) kernels.
"""

import math
import warnings
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from cinder._random_engine import STATE_SIZE, CPUGeneratorImpl, _fma32, _fma64

try:
    import torch
except ImportError:  # the engine's own arithmetic tests below still run
    torch = None

requires_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch to compare against")
_AVX = torch is not None and torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512")
requires_avx_torch = pytest.mark.skipif(
    not _AVX, reason="matches PyTorch's AVX2/AVX-512 CPU kernels only")

SEEDS = [0, 1, 42, 1000, 2**32 + 5, -1]
SIZES = [1, 5, 15, 16, 17, 1000, 100003]
FLOAT_DTYPES = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16]

if torch is not None:
    TORCH_DTYPES = {
        np.dtype(np.bool_): torch.bool,
        np.dtype(np.uint8): torch.uint8,
        np.dtype(np.int8): torch.int8,
        np.dtype(np.int16): torch.int16,
        np.dtype(np.int32): torch.int32,
        np.dtype(np.int64): torch.int64,
        np.dtype(np.float16): torch.float16,
        np.dtype(ml_dtypes.bfloat16): torch.bfloat16,
        np.dtype(np.float32): torch.float32,
        np.dtype(np.float64): torch.float64,
    }


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------
def tdt(dtype):
    """The torch dtype matching a NumPy dtype."""
    return TORCH_DTYPES[np.dtype(dtype)]


def to_numpy(tensor):
    """A torch tensor as a NumPy array (bfloat16 goes through its raw 16-bit pattern)."""
    tensor = tensor.contiguous()
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return tensor.numpy()


def raw_bits(array):
    """View an array's elements as unsigned integers of the same width (bools stay bools)."""
    array = np.ascontiguousarray(array)
    if array.dtype == np.bool_:
        return array
    return array.view(f"u{array.dtype.itemsize}")


def pair(seed):
    """A torch generator and a cinder generator, both seeded with ``seed``."""
    gen = torch.Generator()
    gen.manual_seed(seed)
    ours = CPUGeneratorImpl()
    ours.manual_seed(seed)
    return gen, ours


def torch_state(gen):
    return gen.get_state().numpy().tobytes()


def assert_same(ours, expected, gen=None, cinder=None):
    """Require equal dtype, shape and bits; with generators given, also equal states."""
    expected = to_numpy(expected) if isinstance(expected, torch.Tensor) else expected
    assert ours.dtype == expected.dtype
    assert ours.shape == expected.shape
    mismatches = np.count_nonzero(raw_bits(ours) != raw_bits(expected))
    assert mismatches == 0, f"{mismatches} of {expected.size} elements differ"
    if gen is not None:
        assert cinder.get_state() == torch_state(gen), "generator states differ"


class ReferenceMT19937:
    """A plain scalar MT19937 (Matsumoto and Nishimura's genrand_int32), for checking."""

    def __init__(self, seed):
        self.mt = [seed & 0xFFFFFFFF]
        for i in range(1, 624):
            prev = self.mt[-1]
            self.mt.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
        self.index = 624

    def _twist(self):
        for i in range(624):
            y = (self.mt[i] & 0x80000000) | (self.mt[(i + 1) % 624] & 0x7FFFFFFF)
            self.mt[i] = self.mt[(i + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
        self.index = 0

    def next(self):
        if self.index >= 624:
            self._twist()
        y = self.mt[self.index]
        self.index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        return y


# ---------------------------------------------------------------------------------------------
# Exact FMA emulation (no torch needed)
# ---------------------------------------------------------------------------------------------
def _round_fraction(value, dtype):
    """Round an exact rational to the nearest ``dtype`` value, ties to even."""
    approx = dtype(float(value))  # within an ulp of the answer
    candidates = [np.nextafter(approx, dtype(-np.inf)), approx,
                  np.nextafter(approx, dtype(np.inf))]

    def distance_then_oddness(candidate):
        last_bit = int(raw_bits(np.array([candidate], dtype))[0]) & 1
        return abs(Fraction(float(candidate)) - value), last_bit

    return min(candidates, key=distance_then_oddness)


def test_fma32_is_single_rounding():
    # (1 + 2**-12)**2 = 1 + 2**-11 + 2**-24 is a float32 tie; a tiny addend breaks the tie.
    # Rounding the float64 sum and then to float32 gives 1 + 2**-11, which is wrong.
    a = np.float32(1 + 2**-12)
    tiny = np.float32(2**-70)
    assert _fma32(a, a, tiny) == np.float32(1 + 2**-11 + 2**-23)
    assert _fma32(a, a, -tiny) == np.float32(1 + 2**-11)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(3000).astype(np.float32)
    y = rng.standard_normal(3000).astype(np.float32)
    z = (rng.standard_normal(3000) * 10.0 ** rng.integers(-12, 3, 3000)).astype(np.float32)
    got = _fma32(x, y, z)
    for i in range(x.size):
        exact = Fraction(float(x[i])) * Fraction(float(y[i])) + Fraction(float(z[i]))
        assert got[i] == _round_fraction(exact, np.float32), i


def test_fma64_is_single_rounding():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(3000)
    y = rng.standard_normal(3000)
    z = rng.standard_normal(3000) * 10.0 ** rng.integers(-20, 3, 3000)
    # (1 + 2**-26) * (1 + 2**-27) = 1 + 3 * 2**-27 + 2**-53 sits exactly on a float64 tie,
    # which a tiny addend breaks either way.
    x[:3] = 1 + 2.0**-26
    y[:3] = 1 + 2.0**-27
    z[:3] = [2.0**-200, -(2.0**-200), 0.0]
    got = _fma64(x, y, z)
    assert got[0] == 1 + 3 * 2.0**-27 + 2.0**-52
    assert got[1] == got[2] == 1 + 3 * 2.0**-27
    for i in range(x.size):
        exact = Fraction(x[i]) * Fraction(y[i]) + Fraction(z[i])
        assert got[i] == _round_fraction(exact, np.float64), i


# ---------------------------------------------------------------------------------------------
# Engine, seeding and state
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 5489, 2**32 - 1])
def test_raw_outputs_match_reference_mt19937(seed):
    ours = CPUGeneratorImpl(seed)
    ref = ReferenceMT19937(seed)
    expected = [ref.next() for _ in range(1500)]  # crosses two block regenerations
    got = np.concatenate([ours.random_u32(1), ours.random_u32(700), ours.random_u32(799)])
    assert got.dtype == np.uint32
    assert got.tolist() == expected


@requires_torch
@pytest.mark.parametrize("seed", SEEDS + [2**64 - 1, 67280421310721])
def test_seeding_and_initial_seed(seed):
    gen, ours = pair(seed)
    assert ours.initial_seed() == gen.initial_seed() == seed % 2**64
    assert ours.get_state() == torch_state(gen)
    assert len(ours.get_state()) == STATE_SIZE


@requires_torch
def test_fresh_generator_and_default_generator():
    ours = CPUGeneratorImpl()
    assert ours.initial_seed() == torch.Generator().initial_seed() == 67280421310721
    assert ours.get_state() == torch_state(torch.Generator())
    # The global generator behaves the same once seeded.
    torch.manual_seed(123)
    ours.manual_seed(123)
    assert_same(ours.normal(100, np.float32), torch.randn(100))
    assert ours.get_state() == torch.get_rng_state().numpy().tobytes()


@requires_torch
def test_seed_is_random_and_reproducible():
    ours = CPUGeneratorImpl()
    first = ours.seed()
    assert ours.initial_seed() == first
    assert 0 <= first < 2**64
    gen = torch.Generator()
    gen.manual_seed(first)
    assert ours.get_state() == torch_state(gen)
    assert CPUGeneratorImpl().seed() != first  # 64 random bits: a collision is negligible


@requires_torch
@pytest.mark.parametrize("draws", [0, 1, 623, 624, 625, 1000, 1248])
def test_get_state_after_draws(draws):
    gen, ours = pair(7)
    if draws:
        torch.randint(0, 10, (draws,), generator=gen)
        ours.randint(draws, 0, 10)
    assert ours.get_state() == torch_state(gen)


@requires_torch
def test_set_state_both_directions():
    gen, ours = pair(11)
    torch.randn(7, generator=gen)  # leaves a cached normal in the state
    torch.rand(100, generator=gen)
    theirs = gen.get_state()
    # Our generator continues torch's stream from torch's bytes ...
    fresh = CPUGeneratorImpl()
    fresh.set_state(theirs.numpy().tobytes())
    assert_same(fresh.normal(3, np.float32), torch.randn(3, generator=gen), gen, fresh)
    assert_same(fresh.normal(40, np.float32), torch.randn(40, generator=gen), gen, fresh)
    # ... and torch continues ours (bytes, bytearray and uint8 arrays are all accepted).
    ours.uniform(5, np.float32)
    ours.normal(1, np.float64)
    state = ours.get_state()
    gen.set_state(torch.from_numpy(np.frombuffer(state, np.uint8).copy()))
    for form in (state, bytearray(state), np.frombuffer(state, np.uint8)):
        other = CPUGeneratorImpl()
        other.set_state(form)
        assert other.get_state() == state
    assert_same(ours.normal(9, np.float64), torch.randn(9, generator=gen, dtype=torch.float64),
                gen, ours)


@requires_torch
def test_set_state_with_unusual_left_and_next():
    # PyTorch accepts any left/next pair; it serves state[next:next+left-1] before
    # regenerating. Such states never come from get_state, but must still round-trip.
    gen, ours = pair(5)
    state = bytearray(torch_state(gen))
    state[8:12] = (300).to_bytes(4, "little")
    state[16:24] = (5).to_bytes(8, "little")
    gen.set_state(torch.frombuffer(bytearray(state), dtype=torch.uint8))
    ours.set_state(bytes(state))
    assert ours.get_state() == torch_state(gen)
    for n in (100, 150, 500):
        assert_same(ours.randint(n, 0, 2**31), torch.randint(0, 2**31, (n,), generator=gen),
                    gen, ours)


def test_set_state_rejects_bad_input():
    ours = CPUGeneratorImpl()
    with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size 5056 but "
                                           "found the input RNG state size to be 10"):
        ours.set_state(bytes(10))
    bad = bytearray(ours.get_state())
    bad[8:12] = (0).to_bytes(4, "little")  # left must be in 1..624
    with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
        ours.set_state(bytes(bad))


def test_clone_is_independent():
    ours = CPUGeneratorImpl(3)
    ours.normal(3, np.float32)
    twin = ours.clone()
    assert twin.get_state() == ours.get_state()
    first = ours.normal(50, np.float32)
    assert twin.get_state() != ours.get_state()
    assert np.array_equal(raw_bits(twin.normal(50, np.float32)), raw_bits(first))


# ---------------------------------------------------------------------------------------------
# Uniform
# ---------------------------------------------------------------------------------------------
@requires_torch
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("seed", SEEDS)
def test_rand(seed, dtype):
    gen, ours = pair(seed)
    for n in SIZES:
        assert_same(ours.uniform(n, dtype), torch.rand(n, generator=gen, dtype=tdt(dtype)),
                    gen, ours)


@requires_avx_torch
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("low,high", [(-1 / math.sqrt(3), 1 / math.sqrt(3)), (-3.7, 2.1),
                                      (-0.0625, 0.0625), (2.0, 2.0)])
def test_uniform_bounds(low, high, dtype):
    # uniform_(-b, b) is how nn.Linear and nn.Conv2d initialise their weights.
    gen, ours = pair(3)
    for n in (5, 1000, 100003):
        expected = torch.empty(n, dtype=tdt(dtype)).uniform_(low, high, generator=gen)
        assert_same(ours.uniform(n, dtype, low, high), expected, gen, ours)


# ---------------------------------------------------------------------------------------------
# Normal
# ---------------------------------------------------------------------------------------------
@requires_avx_torch
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("seed", SEEDS)
def test_randn(seed, dtype):
    gen, ours = pair(seed)
    for n in SIZES:
        assert_same(ours.normal(n, dtype), torch.randn(n, generator=gen, dtype=tdt(dtype)),
                    gen, ours)


@requires_avx_torch
def test_randn_signed_zero():
    # With seed 34, draw 298484 is an exact 0 and becomes u1 = 1 in its block: log(1) = 0 and
    # radius = sqrt(-2 * 0) = -0.0. PyTorch's final fma(x, std=1, mean=0) turns -0.0 into
    # +0.0, so skipping that "no-op" would flip the sign bit of two outputs.
    gen, ours = pair(34)
    got = ours.normal(298496, np.float32)
    assert_same(got, torch.randn(298496, generator=gen), gen, ours)
    assert got[298484] == 0 and not np.signbit(got[298484])


@requires_avx_torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mean,std", [(2.0, 3.0), (0.5, 0.02), (-1.0, 0.0)])
def test_normal_mean_std(mean, std, dtype):
    gen, ours = pair(4)
    for n in (5, 15, 40, 1000, 100003):
        expected = torch.empty(n, dtype=tdt(dtype)).normal_(mean, std, generator=gen)
        assert_same(ours.normal(n, dtype, mean, std), expected, gen, ours)


@requires_avx_torch
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_normal_non_contiguous_uses_cached_doubles(dtype):
    gen, ours = pair(6)
    for n, mean, std in ((1001, 0.0, 1.0), (40, 2.0, 3.0), (3, -1.5, 0.7)):
        expected = torch.empty(n, 2, dtype=tdt(dtype))[:, 0].normal_(mean, std, generator=gen)
        assert_same(ours.normal(n, dtype, mean, std, contiguous=False), expected, gen, ours)


@requires_avx_torch
def test_normal_cache_persists_across_calls():
    gen, ours = pair(3)
    calls = [
        (lambda: ours.normal(5, np.float32), lambda: torch.randn(5, generator=gen)),
        (lambda: ours.normal(3, np.float32), lambda: torch.randn(3, generator=gen)),
        (lambda: ours.uniform(2, np.float32), lambda: torch.rand(2, generator=gen)),
        (lambda: ours.normal(1, np.float64),
         lambda: torch.randn(1, generator=gen, dtype=torch.float64)),
        (lambda: ours.normal(20, np.float32), lambda: torch.randn(20, generator=gen)),
        (lambda: ours.normal(1, np.float16, 1.0, 2.0),
         lambda: torch.empty(1, dtype=torch.float16).normal_(1.0, 2.0, generator=gen)),
        (lambda: ours.normal(2, np.float32), lambda: torch.randn(2, generator=gen)),
    ]
    for mine, theirs in calls:
        assert_same(mine(), theirs(), gen, ours)
    # manual_seed clears the cache.
    ours.normal(1, np.float32)
    torch.randn(1, generator=gen)
    assert ours.get_state()[5040] == 1
    ours.manual_seed(3)
    gen.manual_seed(3)
    assert ours.get_state() == torch_state(gen)


@requires_avx_torch
def test_normal_tensor_overloads():
    gen, ours = pair(4)
    rng = np.random.default_rng(0)
    mean = rng.random((3, 1, 4)).astype(np.float32)
    std = rng.random((5, 1)).astype(np.float32)
    expected = torch.normal(torch.from_numpy(mean), torch.from_numpy(std), generator=gen)
    assert_same(ours.normal_tensor(mean, std), expected, gen, ours)
    mean = rng.random(40).astype(np.float32)
    expected = torch.normal(torch.from_numpy(mean), 2.0, generator=gen)
    assert_same(ours.normal_tensor(mean, 2.0), expected, gen, ours)
    expected = torch.normal(0.3, torch.from_numpy(mean), generator=gen)
    assert_same(ours.normal_tensor(0.3, mean), expected, gen, ours)
    mean64 = rng.random(7)
    expected = torch.normal(torch.from_numpy(mean64), torch.from_numpy(mean64), generator=gen)
    assert_same(ours.normal_tensor(mean64, mean64), expected, gen, ours)


@requires_avx_torch
def test_log_normal():
    gen, ours = pair(9)
    for dtype in (np.float32, np.float64):
        expected = torch.empty(1001, dtype=tdt(dtype)).log_normal_(0.5, 0.25, generator=gen)
        assert_same(ours.log_normal(1001, dtype, 0.5, 0.25), expected, gen, ours)


# ---------------------------------------------------------------------------------------------
# Integers
# ---------------------------------------------------------------------------------------------
@requires_torch
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("low,high", [(0, 10), (-5, 7), (3, 4), (-100, 2**28 - 100),
                                      (0, 2**28), (-5, 2**40), (-(2**62), 2**62)])
def test_randint(seed, low, high):
    gen, ours = pair(seed)
    for dtype in (np.int64, np.int32, np.float32, np.float64, np.int16):
        info = np.iinfo(dtype) if np.dtype(dtype).kind == "i" else None
        if info is not None and not info.min <= low < high - 1 <= info.max:
            continue
        if info is None and max(abs(low), abs(high)) > 2**24:
            continue  # torch warns: floats cannot hold every integer in that range
        for n in (1, 17, 1000):
            expected = torch.randint(low, high, (n,), generator=gen, dtype=tdt(dtype))
            assert_same(ours.randint(n, low, high, dtype), expected, gen, ours)


RANDOM_FORMS = [(None, None), (None, 5), (None, 100), (-3, 7), (2, None), (0, 2**29),
                (-(2**63), None)]


@requires_torch
@pytest.mark.parametrize("dtype", list(TORCH_DTYPES) if torch is not None else [])
@pytest.mark.parametrize("low,high", RANDOM_FORMS)
def test_random_(dtype, low, high):
    gen, ours = pair(11)

    def call_torch():
        t = torch.empty(1000, dtype=tdt(dtype))
        if low is None and high is None:
            return t.random_(generator=gen)
        if low is None:
            return t.random_(high, generator=gen)
        return t.random_(low, high, generator=gen)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # both libraries warn about wide float ranges
        try:
            expected = call_torch()
        except (RuntimeError, NotImplementedError):
            with pytest.raises(RuntimeError):
                ours.random_(1000, dtype, low, high)
            return
        got = ours.random_(1000, dtype, low, high)
    assert_same(got, expected, gen, ours)


@requires_torch
@pytest.mark.parametrize("n", [0, 1, 2, 10, 1000, 60000])
def test_randperm(n):
    gen, ours = pair(5)
    assert_same(ours.randperm(n), torch.randperm(n, generator=gen), gen, ours)
    # The same again, continuing the stream, in other dtypes.
    for dtype in (np.int32, np.float32):
        expected = torch.randperm(min(n, 2000), generator=gen, dtype=tdt(dtype))
        assert_same(ours.randperm(min(n, 2000), dtype), expected, gen, ours)


def test_randperm_dtype_limits():
    ours = CPUGeneratorImpl()
    with pytest.raises(RuntimeError, match="2049|2\\^11"):
        ours.randperm(2050, np.float16)
    with pytest.raises(RuntimeError):
        ours.randperm(300, np.int8)
    assert sorted(ours.randperm(2049, np.float16).astype(int).tolist()) == list(range(2049))


# ---------------------------------------------------------------------------------------------
# Bernoulli, exponential and friends
# ---------------------------------------------------------------------------------------------
@requires_torch
@pytest.mark.parametrize("seed", SEEDS)
def test_bernoulli_scalar(seed):
    gen, ours = pair(seed)
    for dtype in (np.float32, np.float64, np.int64, np.bool_, np.float16):
        for p in (0.5, 0.1, 0.0, 1.0):
            expected = torch.empty(1000, dtype=tdt(dtype)).bernoulli_(p, generator=gen)
            assert_same(ours.bernoulli_scalar(1000, p, dtype), expected, gen, ours)


@requires_torch
def test_dropout_mask_uses_bernoulli():
    torch.manual_seed(9)
    ours = CPUGeneratorImpl(9)
    expected = torch.nn.functional.dropout(torch.ones(1000), 0.3, True)
    mask = ours.bernoulli_scalar(1000, 1 - 0.3, np.float32)
    assert_same(mask / np.float32(1 - 0.3), expected)
    assert ours.get_state() == torch.get_rng_state().numpy().tobytes()


@requires_torch
@pytest.mark.parametrize("probs_dtype", [np.float32, np.float64, np.float16])
def test_bernoulli_tensor(probs_dtype):
    gen, ours = pair(9)
    probs = np.linspace(0, 1, 1000).astype(probs_dtype)
    expected = torch.bernoulli(torch.from_numpy(probs), generator=gen)
    assert_same(ours.bernoulli_tensor(probs), expected, gen, ours)
    grid = np.random.default_rng(0).random((13, 7)).astype(probs_dtype)
    expected = torch.bernoulli(torch.from_numpy(grid), generator=gen)
    assert_same(ours.bernoulli_tensor(grid), expected, gen, ours)
    # bernoulli_(p_tensor) on a tensor of another dtype: the probabilities' dtype decides.
    expected = torch.empty(1000, dtype=torch.float64).bernoulli_(torch.from_numpy(probs),
                                                                 generator=gen)
    assert_same(ours.bernoulli_tensor(probs, np.float64), expected, gen, ours)


@requires_torch
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_exponential(dtype):
    gen, ours = pair(9)
    for n, lambd in ((5, 1.0), (10000, 0.7), (1000, 3.0)):
        expected = torch.empty(n, dtype=tdt(dtype)).exponential_(lambd, generator=gen)
        assert_same(ours.exponential(n, lambd, dtype), expected, gen, ours)


@requires_torch
def test_geometric():
    gen, ours = pair(9)
    for dtype, p in ((np.float32, 0.3), (np.int64, 0.3), (np.float64, 0.01)):
        expected = torch.empty(1000, dtype=tdt(dtype)).geometric_(p, generator=gen)
        assert_same(ours.geometric(1000, p, dtype), expected, gen, ours)


@requires_avx_torch
def test_cauchy():
    gen, ours = pair(9)
    for dtype in (np.float32, np.float64):
        expected = torch.empty(1000, dtype=tdt(dtype)).cauchy_(1.5, 2.5, generator=gen)
        assert_same(ours.cauchy(1000, 1.5, 2.5, dtype), expected, gen, ours)


# ---------------------------------------------------------------------------------------------
# Multinomial
# ---------------------------------------------------------------------------------------------
@requires_torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(50,), (4, 30)])
@pytest.mark.parametrize("k,replacement", [(1, False), (1, True), (5, False), (20, False),
                                           (7, True), (100, True)])
def test_multinomial(shape, dtype, k, replacement):
    gen, ours = pair(13)
    probs = np.random.default_rng(0).random(shape).astype(dtype)
    probs.reshape(-1)[::7] = 0  # zero-probability categories must never be drawn
    expected = torch.multinomial(torch.from_numpy(probs), k, replacement, generator=gen)
    assert_same(ours.multinomial(probs, k, replacement), expected, gen, ours)
