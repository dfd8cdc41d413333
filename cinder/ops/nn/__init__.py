"""The nn kernels of the op table (fused forward + explicit backward), one family per file."""

from . import conv, norm, pad, pool  # noqa: F401
