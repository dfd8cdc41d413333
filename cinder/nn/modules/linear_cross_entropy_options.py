"""``LinearCrossEntropyOptions``: PyTorch's settings for a chunked ``linear_cross_entropy``.

cinder accepts them (so programs written for PyTorch 2.13 run) but always computes the
reference path, logits then cross-entropy: the results are the same, only the memory use of
very wide classifier heads differs.
"""

import dataclasses

__all__ = ["LinearCrossEntropyOptions"]


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Chunking settings (kept for compatibility; see the module docstring)."""

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None
