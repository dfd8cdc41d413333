"""``torch.nn.parallel.comm``: the GPU-to-GPU copies of ``torch.cuda.comm`` (defined there, one
layer down, and named here too as PyTorch does)."""

from ...cuda.comm import (  # noqa: F401
    broadcast,
    broadcast_coalesced,
    gather,
    reduce_add,
    reduce_add_coalesced,
    scatter,
)

__all__ = ["broadcast", "broadcast_coalesced", "reduce_add", "reduce_add_coalesced", "scatter",
           "gather"]
