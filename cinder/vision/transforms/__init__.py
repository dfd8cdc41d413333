"""``torchvision.transforms``: PIL and tensor image transforms (``v2`` holds the same names)."""

from .transforms import *  # noqa: F401,F403
from .transforms import InterpolationMode  # noqa: F401
from . import functional  # noqa: F401
from .autoaugment import (AugMix, AutoAugment, AutoAugmentPolicy,  # noqa: F401,E402
                          RandAugment, TrivialAugmentWide)
