"""The nn kernels of the op table (fused forward + explicit backward), one family per file."""

from . import conv, pool  # noqa: F401
