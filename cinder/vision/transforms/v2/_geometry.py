"""v2 geometry transforms that move every part of a sample (images, masks, boxes) together."""

from collections.abc import Sequence

from . import functional as F
from ._transform import Transform, _RandomApplyTransform

__all__ = ["RandomHorizontalFlip", "RandomVerticalFlip", "Resize"]


class RandomHorizontalFlip(_RandomApplyTransform):
    """Flip the whole sample left to right with probability ``p``."""

    def transform(self, inpt, params):
        return F.horizontal_flip(inpt)


class RandomVerticalFlip(_RandomApplyTransform):
    """Flip the whole sample upside down with probability ``p``."""

    def transform(self, inpt, params):
        return F.vertical_flip(inpt)


class Resize(Transform):
    """Resize the whole sample: images with ``interpolation``, masks with nearest, boxes by
    scaling (``size`` as in v1's Resize; None with ``max_size`` caps the longer edge)."""

    def __init__(self, size, interpolation="bilinear", max_size=None, antialias=True):
        super().__init__()
        if isinstance(size, int):
            size = [size]
        elif isinstance(size, Sequence) and len(size) in {1, 2}:
            size = list(size)
        elif size is None:
            if not isinstance(max_size, int):
                raise ValueError(f"max_size must be an integer when size is None, but got "
                                 f"{max_size} instead.")
            raise NotImplementedError("Resize(size=None, max_size=...) is not supported by "
                                      "cinder yet")
        else:
            raise ValueError(f"size can be an integer, a sequence of one or two integers, or "
                             f"None, but got {size} instead.")
        self.size, self.interpolation = size, interpolation
        self.max_size, self.antialias = max_size, antialias

    def transform(self, inpt, params):
        return F.resize(inpt, self.size, interpolation=self.interpolation,
                        max_size=self.max_size, antialias=self.antialias)
