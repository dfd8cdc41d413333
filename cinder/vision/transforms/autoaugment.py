"""RandAugment and TrivialAugmentWide: random image operations of random strength.

The operation and its magnitude are drawn with the same ``randint`` calls torchvision makes,
and the magnitude tables are built with the same float32 ``linspace``, so after
``manual_seed(s)`` both libraries apply the same operation with the same strength.
(AutoAugment's learned policies and AugMix are not implemented.)
"""

import math

from ...ops import FUNCTIONS as _F
from . import functional as F
from .functional import InterpolationMode
from .transforms import Transform

__all__ = ["RandAugment", "TrivialAugmentWide"]


def _apply_op(img, op_name, magnitude, interpolation, fill):
    """One named operation at ``magnitude`` (its meaning depends on the operation)."""
    shear = math.degrees(math.atan(magnitude))
    geometric = {
        "ShearX": dict(angle=0.0, translate=[0, 0], scale=1.0, shear=[shear, 0.0],
                       center=[0, 0]),
        "ShearY": dict(angle=0.0, translate=[0, 0], scale=1.0, shear=[0.0, shear],
                       center=[0, 0]),
        "TranslateX": dict(angle=0.0, translate=[int(magnitude), 0], scale=1.0,
                           shear=[0.0, 0.0]),
        "TranslateY": dict(angle=0.0, translate=[0, int(magnitude)], scale=1.0,
                           shear=[0.0, 0.0]),
    }
    if op_name in geometric:
        return F.affine(img, interpolation=interpolation, fill=fill, **geometric[op_name])
    if op_name == "Rotate":
        return F.rotate(img, magnitude, interpolation=interpolation, fill=fill)
    enhance = {"Brightness": F.adjust_brightness, "Color": F.adjust_saturation,
               "Contrast": F.adjust_contrast, "Sharpness": F.adjust_sharpness}
    if op_name in enhance:
        return enhance[op_name](img, 1.0 + magnitude)
    if op_name == "Posterize":
        return F.posterize(img, int(magnitude))
    if op_name == "Solarize":
        return F.solarize(img, magnitude)
    plain = {"AutoContrast": F.autocontrast, "Equalize": F.equalize, "Invert": F.invert,
             "Identity": lambda x: x}
    if op_name in plain:
        return plain[op_name](img)
    raise ValueError(f"The provided operator {op_name} is not recognized.")


def _space(num_bins, shear, translate_x, translate_y, rotate, enhance, posterize_steps):
    """{operation: (magnitudes, signed)} in torchvision's order (the index is drawn)."""
    lin, zero = _F["linspace"], _F["tensor"](0.0)
    steps = (_F["arange"](num_bins) / ((num_bins - 1) / posterize_steps)).round().int()
    return {
        "Identity": (zero, False),
        "ShearX": (lin(0.0, shear, num_bins), True),
        "ShearY": (lin(0.0, shear, num_bins), True),
        "TranslateX": (lin(0.0, translate_x, num_bins), True),
        "TranslateY": (lin(0.0, translate_y, num_bins), True),
        "Rotate": (lin(0.0, rotate, num_bins), True),
        "Brightness": (lin(0.0, enhance, num_bins), True),
        "Color": (lin(0.0, enhance, num_bins), True),
        "Contrast": (lin(0.0, enhance, num_bins), True),
        "Sharpness": (lin(0.0, enhance, num_bins), True),
        "Posterize": (8 - steps, False),
        "Solarize": (lin(255.0, 0.0, num_bins), False),
        "AutoContrast": (zero, False),
        "Equalize": (zero, False),
    }


def _fill_for(fill, img):
    if F._is_tensor(img):
        channels = F.get_image_num_channels(img)
        if isinstance(fill, (int, float)):
            return [float(fill)] * channels
        if fill is not None:
            return [float(f) for f in fill]
    return fill


def _randint(n):
    return int(_F["randint"](n, (1,)).item())


class RandAugment(Transform):
    """``num_ops`` random operations, each at the fixed ``magnitude`` bin (sign random)."""

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31,
                 interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__()
        self.num_ops, self.magnitude = num_ops, magnitude
        self.num_magnitude_bins, self.interpolation, self.fill = (num_magnitude_bins,
                                                                  interpolation, fill)

    def forward(self, img):
        fill = _fill_for(self.fill, img)
        _, height, width = F.get_dimensions(img)
        ops = _space(self.num_magnitude_bins, 0.3, 150.0 / 331.0 * width,
                     150.0 / 331.0 * height, 30.0, 0.9, 4)
        for _ in range(self.num_ops):
            name = list(ops)[_randint(len(ops))]
            magnitudes, signed = ops[name]
            magnitude = float(magnitudes[self.magnitude].item()) if magnitudes.ndim > 0 else 0.0
            if signed and _F["randint"](2, (1,)):
                magnitude *= -1.0
            img = _apply_op(img, name, magnitude, self.interpolation, fill)
        return img

    def __repr__(self):
        return (f"{self.__class__.__name__}(num_ops={self.num_ops}, magnitude={self.magnitude}"
                f", num_magnitude_bins={self.num_magnitude_bins}, interpolation="
                f"{self.interpolation}, fill={self.fill})")


class TrivialAugmentWide(Transform):
    """One random operation at a random magnitude bin (sign random)."""

    def __init__(self, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST,
                 fill=None):
        super().__init__()
        self.num_magnitude_bins, self.interpolation, self.fill = (num_magnitude_bins,
                                                                  interpolation, fill)

    def forward(self, img):
        fill = _fill_for(self.fill, img)
        ops = _space(self.num_magnitude_bins, 0.99, 32.0, 32.0, 135.0, 0.99, 6)
        name = list(ops)[_randint(len(ops))]
        magnitudes, signed = ops[name]
        magnitude = (float(magnitudes[_F["randint"](len(magnitudes), (1,))].item())
                     if magnitudes.ndim > 0 else 0.0)
        if signed and _F["randint"](2, (1,)):
            magnitude *= -1.0
        return _apply_op(img, name, magnitude, self.interpolation, fill)

    def __repr__(self):
        return (f"{self.__class__.__name__}(num_magnitude_bins={self.num_magnitude_bins}, "
                f"interpolation={self.interpolation}, fill={self.fill})")
