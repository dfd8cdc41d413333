"""Check that ``_fma32_tie_free`` is exact on every input ``normal_fill`` can produce.

float32 ``normal_`` runs ``_avx_log`` on u1 = 1 - k * 2**-24 and ``_avx_sincos`` on
float32(2pi) * k * 2**-24, for k in [0, 2**24). Both sets have exactly 2**24 members, so we
evaluate both routines on all of them twice, once with the tie-checked ``_fma32`` and once
with the plain ``_fma32_tie_free``, and require bit-identical results. Run it after changing
either routine:

    PYTHONPATH=$PWD python bench/verify_normal_fill_domain.py
"""

import numpy as np

from cinder._random_engine import _avx_log, _avx_sincos, _fma32, _fma32_tie_free

_CHUNK = 1 << 18


def _same_bits(a, b):
    return np.array_equal(a.view(np.uint32), b.view(np.uint32))


def main():
    two_pi = np.float32(2.0 * np.pi)
    mismatches = 0
    for start in range(0, 1 << 24, _CHUNK):
        k = np.arange(start, start + _CHUNK, dtype=np.uint32)
        d = k.astype(np.float32) * np.float32(2.0**-24)
        u1 = np.float32(1.0) - d
        mismatches += not _same_bits(_avx_log(u1, _fma32), _avx_log(u1, _fma32_tie_free))
        theta = two_pi * d
        for checked, free in zip(_avx_sincos(theta, _fma32), _avx_sincos(theta, _fma32_tie_free)):
            mismatches += not _same_bits(checked, free)
    print("chunks with a mismatch:", mismatches)
    if mismatches:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
