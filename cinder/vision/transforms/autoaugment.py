"""AutoAugment, RandAugment, TrivialAugmentWide and AugMix: image operations of random kind
and strength.

The operations and magnitudes are drawn with the same ``randint``/``rand`` calls torchvision
makes, in the same order, and the magnitude tables are built with the same float32
``linspace``, so after ``manual_seed(s)`` both libraries apply the same operations with the
same strengths. AutoAugment's policies are the ones learned in the paper (as torchvision lists
them): 25 pairs of (operation, probability, magnitude bin) per dataset.
"""

import math
from enum import Enum

from ...ops import FUNCTIONS as _F
from . import functional as F
from .functional import InterpolationMode
from .transforms import Transform

__all__ = ["AugMix", "AutoAugment", "AutoAugmentPolicy", "RandAugment", "TrivialAugmentWide"]


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


# ------------------------------------------------------------------------------------------------
# AutoAugment: learned policies
# ------------------------------------------------------------------------------------------------
class AutoAugmentPolicy(Enum):
    """The datasets AutoAugment's policies were learned on: IMAGENET, CIFAR10 and SVHN."""

    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


# Each sub-policy: two (operation, probability, magnitude bin out of 10) steps, applied in order.
_POLICIES = {
    AutoAugmentPolicy.IMAGENET: [
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
        (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)),
        (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)),
        (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)),
        (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)),
        (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)),
        (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
    ],
    AutoAugmentPolicy.CIFAR10: [
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)),
        (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)),
        (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)),
        (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)),
        (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)),
        (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)),
        (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)),
        (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)),
        (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)),
        (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)),
        (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)),
        (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)),
        (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None)),
    ],
    AutoAugmentPolicy.SVHN: [
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)),
        (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)),
        (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)),
        (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)),
        (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)),
        (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)),
        (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)),
        (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None)),
    ],
}


class AutoAugment(Transform):
    """One of ``policy``'s 25 learned sub-policies, picked at random; each of its two steps is
    applied with its probability, at its magnitude bin (out of 10; the sign is random for
    signed operations). Tensors must be uint8; PIL images "L" or "RGB"."""

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=InterpolationMode.NEAREST,
                 fill=None):
        super().__init__()
        self.policy, self.interpolation, self.fill = policy, interpolation, fill
        self.policies = self._get_policies(policy)

    @staticmethod
    def _get_policies(policy):
        if policy not in _POLICIES:
            raise ValueError(f"The provided policy {policy} is not recognized.")
        return list(_POLICIES[policy])

    @staticmethod
    def _augmentation_space(num_bins, image_size):
        height, width = image_size
        ops = _space(num_bins, 0.3, 150.0 / 331.0 * width, 150.0 / 331.0 * height, 30.0, 0.9, 4)
        del ops["Identity"]
        ops["Invert"] = (_F["tensor"](0.0), False)
        return ops

    @staticmethod
    def get_params(transform_num):
        """(sub-policy index, the two steps' probability draws, their sign draws)."""
        policy_id = _randint(transform_num)
        probs = _F["rand"]((2,))
        signs = _F["randint"](2, (2,))
        return policy_id, probs, signs

    def forward(self, img):
        fill = _fill_for(self.fill, img)
        _, height, width = F.get_dimensions(img)
        transform_id, probs, signs = self.get_params(len(self.policies))
        ops = self._augmentation_space(10, (height, width))
        for i, (name, p, bin_id) in enumerate(self.policies[transform_id]):
            if probs[i] <= p:
                magnitudes, signed = ops[name]
                magnitude = float(magnitudes[bin_id].item()) if bin_id is not None else 0.0
                if signed and signs[i] == 0:
                    magnitude *= -1.0
                img = _apply_op(img, name, magnitude, self.interpolation, fill)
        return img

    def __repr__(self):
        return f"{self.__class__.__name__}(policy={self.policy}, fill={self.fill})"


# ------------------------------------------------------------------------------------------------
# AugMix
# ------------------------------------------------------------------------------------------------
class AugMix(Transform):
    """``mixture_width`` chains of 1-3 (or ``chain_depth``) random operations at a random
    strength up to ``severity``, mixed with Dirichlet weights and blended with the original by
    a Beta weight (both drawn through ``_sample_dirichlet`` with ``alpha``)."""

    _PARAMETER_MAX = 10

    def __init__(self, severity=3, mixture_width=3, chain_depth=-1, alpha=1.0, all_ops=True,
                 interpolation=InterpolationMode.BILINEAR, fill=None):
        super().__init__()
        if not 1 <= severity <= self._PARAMETER_MAX:
            raise ValueError(f"The severity must be between [1, {self._PARAMETER_MAX}]. Got "
                             f"{severity} instead.")
        self.severity, self.mixture_width, self.chain_depth = severity, mixture_width, chain_depth
        self.alpha, self.all_ops = alpha, all_ops
        self.interpolation, self.fill = interpolation, fill

    def _augmentation_space(self, num_bins, image_size):
        height, width = image_size
        ops = _space(num_bins, 0.3, width / 3.0, height / 3.0, 30.0, 0.9, 4)
        del ops["Identity"]
        ops["Posterize"] = (ops["Posterize"][0] - 4, False)     # 4 bits down to 0, not 8 to 4
        enhance = ("Brightness", "Color", "Contrast", "Sharpness")
        kept = {name: ops[name] for name in ops if name not in enhance}
        if self.all_ops:
            kept.update({name: ops[name] for name in enhance})
        return kept

    def _sample_dirichlet(self, params):
        # A method of its own so tests can replace it (torchvision's tests do the same).
        return _F["_sample_dirichlet"](params)

    def _mixing_weights(self, batch_size, device):
        """Per image: the Beta weight of the original and the chains' Dirichlet weights
        scaled by the Beta weight of the augmented part."""
        pair = _F["tensor"]([self.alpha, self.alpha], device=device).expand(batch_size, -1)
        m = self._sample_dirichlet(pair)
        chains = _F["tensor"]([self.alpha] * self.mixture_width,
                              device=device).expand(batch_size, -1)
        return m, self._sample_dirichlet(chains) * m[:, 1].view([batch_size, -1])

    def _chain(self, aug, ops, fill):
        depth = (self.chain_depth if self.chain_depth > 0
                 else int(_F["randint"](1, 4, (1,)).item()))
        for _ in range(depth):
            name = list(ops)[_randint(len(ops))]
            magnitudes, signed = ops[name]
            magnitude = (float(magnitudes[_F["randint"](self.severity, (1,))].item())
                         if magnitudes.ndim > 0 else 0.0)
            if signed and _F["randint"](2, (1,)):
                magnitude *= -1.0
            aug = _apply_op(aug, name, magnitude, self.interpolation, fill)
        return aug

    def forward(self, orig_img):
        fill = _fill_for(self.fill, orig_img)
        _, height, width = F.get_dimensions(orig_img)
        is_tensor = F._is_tensor(orig_img)
        img = orig_img if is_tensor else F.pil_to_tensor(orig_img)
        ops = self._augmentation_space(self._PARAMETER_MAX, (height, width))
        dims = list(img.shape)
        batch = img.view([1] * max(4 - img.ndim, 0) + dims)
        weight_shape = [batch.shape[0]] + [1] * (batch.ndim - 1)
        m, weights = self._mixing_weights(batch.shape[0], batch.device)
        mix = m[:, 0].view(weight_shape) * batch
        for i in range(self.mixture_width):
            mix.add_(weights[:, i].view(weight_shape) * self._chain(batch, ops, fill))
        mix = mix.view(dims).to(dtype=img.dtype)
        return mix if is_tensor else F.to_pil_image(mix)

    def __repr__(self):
        return (f"{self.__class__.__name__}(severity={self.severity}, mixture_width="
                f"{self.mixture_width}, chain_depth={self.chain_depth}, alpha={self.alpha}, "
                f"all_ops={self.all_ops}, interpolation={self.interpolation}, "
                f"fill={self.fill})")
