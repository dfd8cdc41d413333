"""Kernels behind ``torch.nn.functional`` (fused forward + explicit backward), one family per
file."""

from . import activation, dropout, loss  # noqa: F401
from . import conv, embedding, norm, pad, pool, upsample  # noqa: F401
