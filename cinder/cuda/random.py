"""``torch.cuda``'s seeding functions.

cinder draws CUDA tensors' random numbers from its CPU generator and moves them to the GPU;
PyTorch's CUDA generators (Philox streams per device) are not reproduced, a known gap. Seeding
"the CUDA generator" therefore has nothing of its own to seed: these calls are accepted and do
nothing, so that they never disturb the CPU stream a PyTorch program would see unchanged.
"""

__all__ = ["manual_seed", "manual_seed_all", "seed", "seed_all"]


def manual_seed(seed):
    """Accepted for compatibility; CUDA draws come from the CPU generator (see module doc)."""


def manual_seed_all(seed):
    """See ``manual_seed``."""


def seed():
    """See ``manual_seed``."""


def seed_all():
    """See ``manual_seed``."""
