"""``torch.backends.mps``: Apple's Metal backend, which cinder does not have (both answers False).

Scripts ask ``torch.backends.mps.is_available()`` to pick their device; on cinder they fall
through to CUDA or the CPU.
"""

__all__ = ["is_available", "is_built"]


def is_available():
    """Whether an MPS device can be used: never in cinder."""
    return False


def is_built():
    """Whether this build includes MPS support: never in cinder."""
    return False
