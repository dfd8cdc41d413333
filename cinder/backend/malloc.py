"""How the C heap hands memory to NumPy arrays (glibc on Linux).

Every cinder op allocates its result afresh, so one training step of a small CNN allocates
and frees the same few multi-megabyte buffers (im2col matrices, activations, gradients) again
and again. glibc serves blocks above its mmap threshold with a fresh ``mmap`` and unmaps them
on free, and trims the top of the heap once enough is free; the next step then pays a page
fault (and the kernel's zeroing) for every 4 KiB page again. Measured on LeNet-5: a third
of the step's CPU time was such system time.

``tune()`` raises both thresholds once, at import, so freed blocks stay in the heap and are
reused by the next step. Memory is still returned to the allocator on free (peak use does not
grow); only up to ``TRIM_THRESHOLD`` bytes of free heap are kept from the operating system.
Set ``CINDER_MALLOC_TUNING=0`` to keep the C library's defaults; explicit ``MALLOC_*``
environment settings of glibc are always left alone.
"""

import ctypes
import os
import sys

__all__ = ["tune"]

# mallopt parameter numbers (glibc's malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3

# Blocks up to 32 MiB (glibc's largest allowed mmap threshold on 64-bit) come from the heap;
# up to 256 MiB of free heap top is kept.
MMAP_THRESHOLD = 32 * 1024 * 1024
TRIM_THRESHOLD = 256 * 1024 * 1024

_USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_")


def tune():
    """Apply the thresholds above; returns whether they were applied."""
    if not sys.platform.startswith("linux") or os.environ.get("CINDER_MALLOC_TUNING") == "0":
        return False
    if any(name in os.environ for name in _USER_SETTINGS):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):      # not glibc-like: leave the allocator alone
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and \
        bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))


TUNED = tune()
