"""v2 geometry transforms that move every part of a sample (images, masks, boxes) together."""

from . import functional as F
from ._transform import _RandomApplyTransform

__all__ = ["RandomHorizontalFlip", "RandomVerticalFlip"]


class RandomHorizontalFlip(_RandomApplyTransform):
    """Flip the whole sample left to right with probability ``p``."""

    def transform(self, inpt, params):
        return F.horizontal_flip(inpt)


class RandomVerticalFlip(_RandomApplyTransform):
    """Flip the whole sample upside down with probability ``p``."""

    def transform(self, inpt, params):
        return F.vertical_flip(inpt)
