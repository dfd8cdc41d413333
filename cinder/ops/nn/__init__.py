"""The nn kernels of the op table (fused forward + explicit backward), one family per file."""

from . import conv, embedding, norm, pad, pool, upsample  # noqa: F401
