"""The fast paths of cinder's random engine against PyTorch and against the careful paths.

``normal_`` and ``uniform_`` on large float32 tensors run chunk by chunk, with plain float64
multiply-adds where those are provably the fused result. These tests compare multi-million
element draws with PyTorch bit for bit, and check the two arguments behind the shortcuts:
the tie-free FMA is exact on the inputs ``normal_fill`` can produce (a sample of them here;
``bench/verify_normal_fill_domain.py`` covers all 2**24), and ``_uniform_sum_is_exact`` only
admits bounds for which the shortcut equals the tie-checked FMA.
"""

import numpy as np
import pytest

from cinder._random_engine import (
    CPUGeneratorImpl,
    _avx_log,
    _avx_sincos,
    _fma32,
    _fma32_tie_free,
    _uniform_sum_is_exact,
)

torch = pytest.importorskip("torch")
requires_avx_torch = pytest.mark.skipif(
    torch.backends.cpu.get_cpu_capability() not in ("AVX2", "AVX512"),
    reason="matches PyTorch's AVX2/AVX-512 CPU kernels only")

BIG = (1 << 20) + 5  # more than one chunk, and a tail block


def pair(seed):
    gen = torch.Generator()
    gen.manual_seed(seed)
    return gen, CPUGeneratorImpl(seed)


def assert_same_bits(ours, expected, gen, cinder):
    expected = expected.numpy()
    assert ours.dtype == expected.dtype and ours.shape == expected.shape
    width = f"u{ours.dtype.itemsize}"
    mismatches = np.count_nonzero(ours.view(width) != expected.view(width))
    assert mismatches == 0, f"{mismatches} of {expected.size} elements differ"
    assert cinder.get_state() == gen.get_state().numpy().tobytes(), "generator states differ"


@requires_avx_torch
@pytest.mark.parametrize("mean,std", [(0.0, 1.0), (0.0, 0.01), (0.0, 3e-39), (1.5, 1.0),
                                      (-0.25, 3.0)])
def test_large_float32_normal_matches_torch(mean, std):
    gen, ours = pair(11)
    expected = torch.empty(BIG).normal_(mean, std, generator=gen)
    assert_same_bits(ours.normal(BIG, np.float32, mean, std), expected, gen, ours)


@requires_avx_torch
@pytest.mark.parametrize("low,high", [(0.0, 1.0), (-0.01, 0.01), (-1e-30, 1.0), (2.0, 3.0),
                                      (0.5, 0.5000001)])
def test_large_float32_uniform_matches_torch(low, high):
    gen, ours = pair(12)
    expected = torch.empty(BIG).uniform_(low, high, generator=gen)
    assert_same_bits(ours.uniform(BIG, np.float32, low, high), expected, gen, ours)


@requires_avx_torch
@pytest.mark.parametrize("mean,std", [(0.0, 1.0), (0.3, 0.02)])
def test_large_float64_normal_and_uniform_match_torch(mean, std):
    gen, ours = pair(13)
    n = (1 << 17) + 3
    expected = torch.empty(n, dtype=torch.float64).normal_(mean, std, generator=gen)
    assert_same_bits(ours.normal(n, np.float64, mean, std), expected, gen, ours)
    expected = torch.empty(BIG, dtype=torch.float64).uniform_(-mean, std, generator=gen)
    assert_same_bits(ours.uniform(BIG, np.float64, -mean, std), expected, gen, ours)


def test_tie_free_fma_is_exact_on_a_sample_of_the_normal_fill_domain():
    # Every 97th k, plus both ends; the benchmark script checks all 2**24 values.
    k = np.concatenate([np.arange(0, 1 << 24, 97), [1, 2, (1 << 24) - 2, (1 << 24) - 1]])
    d = k.astype(np.uint32).astype(np.float32) * np.float32(2.0**-24)
    u1 = np.float32(1.0) - d
    assert np.array_equal(_avx_log(u1, _fma32).view(np.uint32),
                          _avx_log(u1, _fma32_tie_free).view(np.uint32))
    theta = np.float32(2.0 * np.pi) * d
    for careful, fast in zip(_avx_sincos(theta, _fma32), _avx_sincos(theta, _fma32_tie_free)):
        assert np.array_equal(careful.view(np.uint32), fast.view(np.uint32))


def test_uniform_sum_is_exact_admits_only_exact_bounds():
    rng = np.random.default_rng(0)
    u = (np.arange(0, 1 << 24, 4099, dtype=np.uint32).astype(np.float32)
         * np.float32(2.0**-24))
    admitted = 0
    for _ in range(300):
        low, high = np.sort(rng.standard_normal(2) * 10.0 ** rng.integers(-8, 8, 2))
        low32, high32 = np.float32(low), np.float32(high)
        span = high32 - low32
        if _uniform_sum_is_exact(span, low32):
            admitted += 1
            assert np.array_equal(_fma32_tie_free(u, span, low32).view(np.uint32),
                                  _fma32(u, span, low32).view(np.uint32)), (low, high)
    assert admitted > 30  # the check is not vacuous
    assert not _uniform_sum_is_exact(np.float32(1.0), np.float32(1e-30))
    assert not _uniform_sum_is_exact(np.float32(0.0), np.float32(1.0))
    assert _uniform_sum_is_exact(np.float32(0.2), np.float32(-0.1))
