"""``torch.optim``: optimizers, learning-rate schedulers and weight averaging (swa_utils)."""

from . import lr_scheduler, swa_utils  # noqa: F401
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Adam", "AdamW", "Optimizer", "SGD", "lr_scheduler", "swa_utils"]
