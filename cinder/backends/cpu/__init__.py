"""``torch.backends.cpu``: which vector instruction set PyTorch's CPU kernels would use here.

cinder's CPU arithmetic is NumPy's, which picks its own SIMD loops at run time; the answer
below is the one PyTorch gives on the same processor, read from NumPy's CPU feature table.
"""

import functools
import os

__all__ = ["get_cpu_capability"]

# The levels PyTorch's x86 dispatch knows, lowest first, with the CPU features each needs.
_X86_LEVELS = (("AVX2", ("AVX2", "FMA3")),
               ("AVX512", ("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ", "FMA3")))


@functools.cache
def _cpu_features():
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:          # an older or unusual NumPy: nothing known
        return {}
    return __cpu_features__


def get_cpu_capability():
    """The CPU capability as PyTorch names it: "AVX512", "AVX2" or "DEFAULT" on x86
    processors ("DEFAULT" elsewhere). As in PyTorch, the environment variable
    ``ATEN_CPU_CAPABILITY`` (``default``, ``avx2``, ``avx512``) can only lower it."""
    features = _cpu_features()
    level = "DEFAULT"
    for name, needs in _X86_LEVELS:
        if all(features.get(f, False) for f in needs):
            level = name
    cap = os.environ.get("ATEN_CPU_CAPABILITY", "").upper()
    order = ["DEFAULT"] + [name for name, _ in _X86_LEVELS]
    if cap in order and order.index(cap) < order.index(level):
        level = cap
    return level
