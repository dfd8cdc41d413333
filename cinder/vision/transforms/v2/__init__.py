"""``torchvision.transforms.v2``: the v2 names for the same image operations.

cinder's v2 transform classes run the v1 implementations (images only: they do not yet move
the boxes and masks of a sample along). ``v2.functional`` has v2's bounding-box kernels and
flips that dispatch on the ``tv_tensors`` types (axis-aligned boxes).
``ToDtype(dtype, scale=True)`` is ConvertImageDtype; ``ToImage`` is PILToTensor for PIL images
and ndarrays.
"""

import numpy as np

from ..transforms import *  # noqa: F401,F403
from ..transforms import ConvertImageDtype
from ..transforms import Transform as _V1Transform
from ..autoaugment import (AugMix, AutoAugment, AutoAugmentPolicy,  # noqa: F401
                           RandAugment, TrivialAugmentWide)
from .. import functional as _v1_functional
from . import functional  # noqa: F401
from ._geometry import RandomHorizontalFlip, RandomVerticalFlip, Resize  # noqa: F401
from ._transform import Transform  # noqa: F401
from ..functional import pil_to_tensor
from ....ops.creation import from_numpy


class ToDtype(_V1Transform):
    """Cast to ``dtype``; with ``scale=True`` values are rescaled between dtype ranges."""

    def __init__(self, dtype, scale=False):
        super().__init__()
        self.dtype, self.scale = dtype, scale

    def forward(self, inpt):
        if self.scale:
            return _v1_functional.convert_image_dtype(inpt, self.dtype)
        return inpt.to(self.dtype)

    def __repr__(self):
        return f"{self.__class__.__name__}(scale={self.scale})"


class ToImage(_V1Transform):
    """PIL image, ndarray (HWC) or tensor -> CHW tensor with the input's dtype."""

    def forward(self, inpt):
        if isinstance(inpt, np.ndarray):
            a = inpt[:, :, None] if inpt.ndim == 2 else inpt
            return from_numpy(np.ascontiguousarray(a.transpose(2, 0, 1)))
        if _v1_functional._is_tensor(inpt):
            return inpt
        return pil_to_tensor(inpt)


ConvertImageDtype = ConvertImageDtype
