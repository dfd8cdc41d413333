"""``torchvision.transforms``: image transforms as callable objects.

Random transforms draw their parameters with the same cinder calls, in the same order, as
torchvision draws them from torch (``rand(1)``, ``randint(0, n, size=(1,))``,
``empty(1).uniform_(a, b)``, ``randperm(4)``), so after ``manual_seed(s)`` a pipeline picks the
same crops, flips and angles as torchvision does.
"""

import math
import numbers
from collections.abc import Sequence

from ... import random as _random
from ...ops import FUNCTIONS as _F
from . import functional as F
from .functional import InterpolationMode, _interpolation_modes_from_int
from ... import float32

try:                         # transforms are nn.Modules in torchvision; cinder.nn may be partial
    from ...nn import Module as _ModuleBase
except ImportError:          # pragma: no cover - before cinder.nn.Module exists
    _ModuleBase = object

__all__ = ["Compose", "ToTensor", "PILToTensor", "ConvertImageDtype", "ToPILImage", "Normalize",
           "Resize", "CenterCrop", "Pad", "Lambda", "RandomApply", "RandomChoice",
           "RandomOrder", "RandomCrop", "RandomHorizontalFlip", "RandomVerticalFlip",
           "RandomResizedCrop", "FiveCrop", "TenCrop", "LinearTransformation", "ColorJitter",
           "RandomRotation", "RandomAffine", "Grayscale", "RandomGrayscale", "RandomPerspective",
           "RandomErasing", "GaussianBlur", "InterpolationMode", "RandomInvert",
           "RandomPosterize", "RandomSolarize", "RandomAdjustSharpness", "RandomAutocontrast",
           "RandomEqualize", "ElasticTransform"]


def _rand1():
    return _F["rand"](1)


def _randint(low, high):
    return int(_F["randint"](low, high, size=(1,)).item())


def _uniform(low, high):
    return float(_F["empty"](1).uniform_(low, high).item())


class Transform(_ModuleBase):
    """Base of the transforms: calling one runs ``forward``."""

    def __init__(self):
        if _ModuleBase is not object:
            super().__init__()

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)


class Compose:
    """Apply transforms one after another."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{self.__class__.__name__}({body}\n)"


class ToTensor:
    """PIL image or HWC ndarray -> float CHW tensor in [0, 1] (uint8 input is divided by 255)."""

    def __call__(self, pic):
        return F.to_tensor(pic)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class PILToTensor:
    """PIL image -> CHW tensor of the image's dtype, values unchanged."""

    def __call__(self, pic):
        return F.pil_to_tensor(pic)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class ConvertImageDtype(Transform):
    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype

    def forward(self, image):
        return F.convert_image_dtype(image, self.dtype)


class ToPILImage:
    def __init__(self, mode=None):
        self.mode = mode

    def __call__(self, pic):
        return F.to_pil_image(pic, self.mode)

    def __repr__(self):
        mode = "" if self.mode is None else f"mode={self.mode}"
        return f"{self.__class__.__name__}({mode})"


class Normalize(Transform):
    """Per channel: ``(x - mean) / std``."""

    def __init__(self, mean, std, inplace=False):
        super().__init__()
        self.mean, self.std, self.inplace = mean, std, inplace

    def forward(self, tensor):
        return F.normalize(tensor, self.mean, self.std, self.inplace)

    def __repr__(self):
        return f"{self.__class__.__name__}(mean={self.mean}, std={self.std})"


def _as_mode(interpolation):
    return _interpolation_modes_from_int(interpolation) if isinstance(interpolation, int) \
        else interpolation


class Resize(Transform):
    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None,
                 antialias=True):
        super().__init__()
        if not isinstance(size, (int, Sequence)):
            raise TypeError(f"Size should be int or sequence. Got {type(size)}")
        if isinstance(size, Sequence) and len(size) not in (1, 2):
            raise ValueError("If size is a sequence, it should have 1 or 2 values")
        self.size, self.max_size, self.antialias = size, max_size, antialias
        self.interpolation = _as_mode(interpolation)

    def forward(self, img):
        return F.resize(img, self.size, self.interpolation, self.max_size, self.antialias)

    def __repr__(self):
        return (f"{self.__class__.__name__}(size={self.size}, interpolation="
                f"{self.interpolation.value}, max_size={self.max_size}, "
                f"antialias={self.antialias})")


def _setup_size(size, error_msg):
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 1:
        return size[0], size[0]
    if len(size) != 2:
        raise ValueError(error_msg)
    return size


class CenterCrop(Transform):
    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")

    def forward(self, img):
        return F.center_crop(img, self.size)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size})"


class Pad(Transform):
    def __init__(self, padding, fill=0, padding_mode="constant"):
        super().__init__()
        if not isinstance(padding, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate padding arg")
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
        if isinstance(padding, Sequence) and len(padding) not in (1, 2, 4):
            raise ValueError("Padding must be an int or a 1, 2, or 4 element tuple, not a "
                             f"{len(padding)} element tuple")
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def forward(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)

    def __repr__(self):
        return (f"{self.__class__.__name__}(padding={self.padding}, fill={self.fill}, "
                f"padding_mode={self.padding_mode})")


class Lambda:
    def __init__(self, lambd):
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {repr(type(lambd).__name__)}")
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class RandomTransforms:
    """Base of RandomChoice and RandomOrder: holds a list of transforms."""

    def __init__(self, transforms):
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence")
        self.transforms = transforms

    def __repr__(self):
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{self.__class__.__name__}({body}\n)"


class RandomApply(Transform):
    """Apply all the transforms with probability ``p``."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms, self.p = transforms, p

    def forward(self, img):
        if self.p < _rand1():
            return img
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{self.__class__.__name__}(\n    p={self.p}{body}\n)"


class RandomOrder(RandomTransforms):
    def __call__(self, img):
        import random
        order = list(range(len(self.transforms)))
        random.shuffle(order)            # torchvision uses Python's random here, too
        for i in order:
            img = self.transforms[i](img)
        return img


class RandomChoice(RandomTransforms):
    def __init__(self, transforms, p=None):
        super().__init__(transforms)
        if p is not None and not isinstance(p, Sequence):
            raise TypeError("Argument p should be a sequence")
        self.p = p

    def __call__(self, *args):
        import random
        t = random.choices(self.transforms, weights=self.p)[0]
        return t(*args)

    def __repr__(self):
        return f"{super().__repr__()}(p={self.p})"


class RandomCrop(Transform):
    """Crop at a random place, after optional padding (and padding up to ``size`` if asked)."""

    @staticmethod
    def get_params(img, output_size):
        _, h, w = F.get_dimensions(img)
        th, tw = output_size
        if h < th or w < tw:
            raise ValueError(f"Required crop size {(th, tw)} is larger than input image size "
                             f"{(h, w)}")
        if w == tw and h == th:
            return 0, 0, h, w
        i = _randint(0, h - th + 1)
        j = _randint(0, w - tw + 1)
        return i, j, th, tw

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        super().__init__()
        self.size = tuple(_setup_size(size, "Please provide only two dimensions (h, w) for "
                                            "size."))
        self.padding, self.pad_if_needed = padding, pad_if_needed
        self.fill, self.padding_mode = fill, padding_mode

    def forward(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        _, height, width = F.get_dimensions(img)
        if self.pad_if_needed and width < self.size[1]:
            img = F.pad(img, [self.size[1] - width, 0], self.fill, self.padding_mode)
        if self.pad_if_needed and height < self.size[0]:
            img = F.pad(img, [0, self.size[0] - height], self.fill, self.padding_mode)
        i, j, h, w = self.get_params(img, self.size)
        return F.crop(img, i, j, h, w)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size}, padding={self.padding})"


class _RandomP(Transform):
    """A transform applied with probability ``p`` (one ``rand(1)`` draw per call)."""

    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        if _rand1() < self.p:
            return self.apply(img)
        return img

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


class RandomHorizontalFlip(_RandomP):
    def apply(self, img):
        return F.hflip(img)


class RandomVerticalFlip(_RandomP):
    def apply(self, img):
        return F.vflip(img)


class RandomPerspective(Transform):
    def __init__(self, distortion_scale=0.5, p=0.5, interpolation=InterpolationMode.BILINEAR,
                 fill=0):
        super().__init__()
        self.p, self.distortion_scale, self.fill = p, distortion_scale, fill
        self.interpolation = _as_mode(interpolation)

    @staticmethod
    def get_params(width, height, distortion_scale):
        half_h, half_w = height // 2, width // 2
        dw, dh = int(distortion_scale * half_w), int(distortion_scale * half_h)
        topleft = [_randint(0, dw + 1), _randint(0, dh + 1)]
        topright = [_randint(width - dw - 1, width), _randint(0, dh + 1)]
        botright = [_randint(width - dw - 1, width), _randint(height - dh - 1, height)]
        botleft = [_randint(0, dw + 1), _randint(height - dh - 1, height)]
        start = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return start, [topleft, topright, botright, botleft]

    def forward(self, img):
        fill = _fill_for(self.fill, img)
        if _rand1() < self.p:
            _, height, width = F.get_dimensions(img)
            start, end = self.get_params(width, height, self.distortion_scale)
            return F.perspective(img, start, end, self.interpolation, fill)
        return img

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


def _fill_for(fill, img):
    """A numeric fill becomes one float per channel for tensors, as torchvision passes it."""
    if F_is_tensor(img):
        if isinstance(fill, (int, float)):
            return [float(fill)] * F.get_image_num_channels(img)
        return [float(f) for f in fill]
    return fill


def F_is_tensor(img):
    return F._is_tensor(img)


class RandomResizedCrop(Transform):
    """Crop a random area and aspect ratio, then resize to ``size``."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=InterpolationMode.BILINEAR, antialias=True):
        super().__init__()
        self.size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        self.interpolation = _as_mode(interpolation)
        self.antialias, self.scale, self.ratio = antialias, scale, ratio

    @staticmethod
    def get_params(img, scale, ratio):
        _, height, width = F.get_dimensions(img)
        area = height * width
        log_ratio = _F["log"](_F["tensor"](ratio))
        for _ in range(10):
            target_area = area * _uniform(scale[0], scale[1])
            aspect = _F["exp"](_F["empty"](1).uniform_(log_ratio[0], log_ratio[1])).item()
            w = int(round(math.sqrt(target_area * aspect)))
            h = int(round(math.sqrt(target_area / aspect)))
            if 0 < w <= width and 0 < h <= height:
                return _randint(0, height - h + 1), _randint(0, width - w + 1), h, w
        # Fallback: the central crop with the ratio clamped into range.
        in_ratio = float(width) / float(height)
        if in_ratio < min(ratio):
            w, h = width, int(round(width / min(ratio)))
        elif in_ratio > max(ratio):
            h, w = height, int(round(height * max(ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def forward(self, img):
        i, j, h, w = self.get_params(img, self.scale, self.ratio)
        return F.resized_crop(img, i, j, h, w, self.size, self.interpolation,
                              antialias=self.antialias)

    def __repr__(self):
        return (f"{self.__class__.__name__}(size={self.size}, "
                f"scale={tuple(round(s, 4) for s in self.scale)}, "
                f"ratio={tuple(round(r, 4) for r in self.ratio)}, "
                f"interpolation={self.interpolation.value}, antialias={self.antialias})")


class FiveCrop(Transform):
    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")

    def forward(self, img):
        return F.five_crop(img, self.size)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size})"


class TenCrop(Transform):
    def __init__(self, size, vertical_flip=False):
        super().__init__()
        self.size = _setup_size(size, "Please provide only two dimensions (h, w) for size.")
        self.vertical_flip = vertical_flip

    def forward(self, img):
        return F.ten_crop(img, self.size, self.vertical_flip)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size}, vertical_flip={self.vertical_flip})"


class LinearTransformation(Transform):
    """Flatten, subtract ``mean_vector``, multiply by a square matrix, reshape back."""

    def __init__(self, transformation_matrix, mean_vector):
        super().__init__()
        n = transformation_matrix.size(0)
        if transformation_matrix.size(0) != transformation_matrix.size(1):
            raise ValueError("transformation_matrix should be square. Got "
                             f"{tuple(transformation_matrix.size())} rectangular matrix.")
        if mean_vector.size(0) != n:
            raise ValueError(f"mean_vector should have the same length {mean_vector.size(0)} as "
                             "any one of the dimensions of the transformation_matrix "
                             f"[{tuple(transformation_matrix.size())}]")
        self.transformation_matrix, self.mean_vector = transformation_matrix, mean_vector

    def forward(self, tensor):
        shape = tensor.shape
        n = shape[-3] * shape[-2] * shape[-1]
        if n != self.transformation_matrix.shape[0]:
            raise ValueError("Input tensor and transformation matrix have incompatible shape."
                             f"[{shape[-3]} x {shape[-2]} x {shape[-1]}] != "
                             f"{self.transformation_matrix.shape[0]}")
        flat = tensor.reshape(-1, n) - self.mean_vector
        out = flat.matmul(self.transformation_matrix.to(flat.dtype))
        return out.view(shape)

    def __repr__(self):
        return (f"{self.__class__.__name__}(transformation_matrix="
                f"{self.transformation_matrix.tolist()}, mean_vector="
                f"{self.mean_vector.tolist()})")


class ColorJitter(Transform):
    """Random brightness, contrast, saturation and hue, applied in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self.brightness = self._check_input(brightness, "brightness")
        self.contrast = self._check_input(contrast, "contrast")
        self.saturation = self._check_input(saturation, "saturation")
        self.hue = self._check_input(hue, "hue", center=0, bound=(-0.5, 0.5),
                                     clip_first_on_zero=False)

    @staticmethod
    def _check_input(value, name, center=1, bound=(0, float("inf")), clip_first_on_zero=True):
        if isinstance(value, numbers.Number):
            if value < 0:
                raise ValueError(f"If {name} is a single number, it must be non negative.")
            value = [center - float(value), center + float(value)]
            if clip_first_on_zero:
                value[0] = max(value[0], 0.0)
        elif isinstance(value, (tuple, list)) and len(value) == 2:
            value = [float(value[0]), float(value[1])]
        else:
            raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}, but got {value}.")
        # (center, center) means "leave it alone": no draw for this factor.
        return None if value[0] == value[1] == center else tuple(value)

    @staticmethod
    def get_params(brightness, contrast, saturation, hue):
        order = _F["randperm"](4)
        picks = [None if r is None else float(_F["empty"](1).uniform_(r[0], r[1]))
                 for r in (brightness, contrast, saturation, hue)]
        return (order, *picks)

    def forward(self, img):
        order, b, c, s, h = self.get_params(self.brightness, self.contrast, self.saturation,
                                            self.hue)
        adjust = [(b, F.adjust_brightness), (c, F.adjust_contrast), (s, F.adjust_saturation),
                  (h, F.adjust_hue)]
        for idx in order.tolist():
            factor, fn = adjust[idx]
            if factor is not None:
                img = fn(img, factor)
        return img

    def __repr__(self):
        return (f"{self.__class__.__name__}(brightness={self.brightness}, contrast="
                f"{self.contrast}, saturation={self.saturation}, hue={self.hue})")


def _setup_angle(x, name, req_sizes=(2,)):
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        x = [-x, x]
    else:
        lengths = " or ".join(map(str, req_sizes))
        if not isinstance(x, Sequence):
            raise TypeError(f"{name} should be a sequence of length {lengths}.")
        if len(x) not in req_sizes:
            raise ValueError(f"{name} should be a sequence of length {lengths}.")
    return [float(d) for d in x]


class RandomRotation(Transform):
    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand=False,
                 center=None, fill=0):
        super().__init__()
        self.degrees = _setup_angle(degrees, "degrees")
        self.interpolation = _as_mode(interpolation)
        self.expand, self.center, self.fill = expand, center, fill

    @staticmethod
    def get_params(degrees):
        return _uniform(float(degrees[0]), float(degrees[1]))

    def forward(self, img):
        fill = _fill_for(self.fill, img)
        angle = self.get_params(self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, fill)

    def __repr__(self):
        s = (f"{self.__class__.__name__}(degrees={self.degrees}, interpolation="
             f"{self.interpolation.value}, expand={self.expand}")
        s += f", center={self.center}" if self.center is not None else ""
        s += f", fill={self.fill}" if self.fill is not None else ""
        return s + ")"


class RandomAffine(Transform):
    """Random rotation, translation (fractions of the size), scale and shear."""

    def __init__(self, degrees, translate=None, scale=None, shear=None,
                 interpolation=InterpolationMode.NEAREST, fill=0, center=None):
        super().__init__()
        self.degrees = _setup_angle(degrees, "degrees")
        if translate is not None:
            for t in translate:
                if not 0.0 <= t <= 1.0:
                    raise ValueError("translation values should be between 0 and 1")
        if scale is not None:
            for s in scale:
                if s <= 0:
                    raise ValueError("scale values should be positive")
        self.translate, self.scale = translate, scale
        self.shear = None if shear is None else _setup_angle(shear, "shear", (2, 4))
        self.interpolation = _as_mode(interpolation)
        self.fill = 0 if fill is None else fill
        self.center = center

    @staticmethod
    def get_params(degrees, translate, scale_ranges, shears, img_size):
        angle = _uniform(float(degrees[0]), float(degrees[1]))
        if translate is not None:
            max_dx = float(translate[0] * img_size[0])
            max_dy = float(translate[1] * img_size[1])
            translations = (int(round(_uniform(-max_dx, max_dx))),
                            int(round(_uniform(-max_dy, max_dy))))
        else:
            translations = (0, 0)
        scale = 1.0 if scale_ranges is None else _uniform(scale_ranges[0], scale_ranges[1])
        shear_x = shear_y = 0.0
        if shears is not None:
            shear_x = _uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = _uniform(shears[2], shears[3])
        return angle, translations, scale, (shear_x, shear_y)

    def forward(self, img):
        fill = _fill_for(self.fill, img)
        w, h = F.get_image_size(img)
        params = self.get_params(self.degrees, self.translate, self.scale, self.shear, [w, h])
        return F.affine(img, *params, interpolation=self.interpolation, fill=fill,
                        center=self.center)

    def __repr__(self):
        s = f"{self.__class__.__name__}(degrees={self.degrees}"
        s += f", translate={self.translate}" if self.translate is not None else ""
        s += f", scale={self.scale}" if self.scale is not None else ""
        s += f", shear={self.shear}" if self.shear is not None else ""
        if self.interpolation != InterpolationMode.NEAREST:
            s += f", interpolation={self.interpolation.value}"
        s += f", fill={self.fill}" if self.fill != 0 else ""
        s += f", center={self.center}" if self.center is not None else ""
        return s + ")"


class Grayscale(Transform):
    def __init__(self, num_output_channels=1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def forward(self, img):
        return F.rgb_to_grayscale(img, self.num_output_channels)

    def __repr__(self):
        return f"{self.__class__.__name__}(num_output_channels={self.num_output_channels})"


class RandomGrayscale(_RandomP):
    def __init__(self, p=0.1):
        super().__init__(p)

    def apply(self, img):
        return F.rgb_to_grayscale(img, F.get_image_num_channels(img))


class RandomErasing(Transform):
    """Erase a random box of a tensor image with probability ``p``."""

    def __init__(self, p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False):
        super().__init__()
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise ValueError("Scale and ratio should be of kind (min, max)")
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        if p < 0 or p > 1:
            raise ValueError("Random erasing probability should be between 0 and 1")
        self.p, self.scale, self.ratio, self.value, self.inplace = p, scale, ratio, value, inplace

    @staticmethod
    def get_params(img, scale, ratio, value=None):
        c, img_h, img_w = img.shape[-3], img.shape[-2], img.shape[-1]
        area = img_h * img_w
        log_ratio = _F["log"](_F["tensor"](ratio))
        for _ in range(10):
            erase_area = area * _uniform(scale[0], scale[1])
            aspect = _F["exp"](_F["empty"](1).uniform_(log_ratio[0], log_ratio[1])).item()
            h = int(round(math.sqrt(erase_area * aspect)))
            w = int(round(math.sqrt(erase_area / aspect)))
            if not (h < img_h and w < img_w):
                continue
            if value is None:
                v = _F["empty"]([c, h, w], dtype=float32).normal_()
            else:
                v = _F["tensor"](value)[:, None, None]
            i = _randint(0, img_h - h + 1)
            j = _randint(0, img_w - w + 1)
            return i, j, h, w, v
        return 0, 0, img_h, img_w, img

    def forward(self, img):
        if _rand1() < self.p:
            value = self.value
            if isinstance(value, (int, float)):
                value = [float(value)]
            elif isinstance(value, str):
                value = None
            elif isinstance(value, (list, tuple)):
                value = [float(v) for v in value]
            channels = img.shape[-3]
            if value is not None and len(value) not in (1, channels):
                raise ValueError("If value is a sequence, it should have either a single value "
                                 f"or {channels} (number of input channels)")
            i, j, h, w, v = self.get_params(img, self.scale, self.ratio, value)
            return F.erase(img, i, j, h, w, v, self.inplace)
        return img

    def __repr__(self):
        return (f"{self.__class__.__name__}(p={self.p}, scale={self.scale}, ratio={self.ratio}, "
                f"value={self.value}, inplace={self.inplace})")


class GaussianBlur(Transform):
    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        super().__init__()
        self.kernel_size = _setup_size(kernel_size, "Kernel size should be a tuple/list of two "
                                                    "integers")
        for k in self.kernel_size:
            if k <= 0 or k % 2 == 0:
                raise ValueError("Kernel size value should be an odd and positive number.")
        if isinstance(sigma, numbers.Number):
            if sigma <= 0:
                raise ValueError("If sigma is a single number, it must be positive.")
            sigma = (sigma, sigma)
        elif isinstance(sigma, Sequence) and len(sigma) == 2:
            if not 0.0 < sigma[0] <= sigma[1]:
                raise ValueError("sigma values should be positive and of the form (min, max).")
        else:
            raise ValueError("sigma should be a single number or a list/tuple with length 2.")
        self.sigma = sigma

    @staticmethod
    def get_params(sigma_min, sigma_max):
        return _uniform(sigma_min, sigma_max)

    def forward(self, img):
        sigma = self.get_params(self.sigma[0], self.sigma[1])
        return F.gaussian_blur(img, self.kernel_size, [sigma, sigma])

    def __repr__(self):
        return f"{self.__class__.__name__}(kernel_size={self.kernel_size}, sigma={self.sigma})"


def _float_pair(value, name):
    """ElasticTransform's alpha/sigma: a float or a sequence of one or two floats -> a list of
    two (torchvision's checks and messages)."""
    if not isinstance(value, (float, Sequence)):
        raise TypeError(f"{name} should be float or a sequence of floats. Got {type(value)}")
    if isinstance(value, Sequence) and len(value) != 2:
        raise ValueError(f"If {name} is a sequence its length should be 2. Got {len(value)}")
    if isinstance(value, Sequence):
        for element in value:
            if not isinstance(element, float):
                raise TypeError(f"{name} should be a sequence of floats. Got {type(element)}")
    return [float(value), float(value)] if isinstance(value, float) else value


class ElasticTransform(Transform):
    """Displace every pixel by a random field: uniform noise in [-1, 1] per pixel and axis,
    smoothed by a Gaussian of ``sigma`` and scaled by ``alpha`` (in pixels), then resample."""

    def __init__(self, alpha=50.0, sigma=5.0, interpolation=InterpolationMode.BILINEAR, fill=0):
        super().__init__()
        self.alpha = _float_pair(alpha, "alpha")
        self.sigma = _float_pair(sigma, "sigma")
        if isinstance(interpolation, int):
            interpolation = _interpolation_modes_from_int(interpolation)
        self.interpolation = interpolation
        if isinstance(fill, (int, float)):
            fill = [float(fill)]
        elif isinstance(fill, (list, tuple)):
            fill = [float(f) for f in fill]
        else:
            raise TypeError(f"fill should be int or float or a list or tuple of them. Got "
                            f"{type(fill)}")
        self.fill = fill

    @staticmethod
    def _smoothed_noise(sigma, axis, size):
        """Noise for one axis of the field, blurred when that axis's sigma is positive (the
        blur itself takes both sigmas, as torchvision's does)."""
        noise = _F["rand"]([1, 1] + size) * 2 - 1
        if sigma[axis] <= 0.0:
            return noise
        k = int(8 * sigma[axis] + 1)
        return F.gaussian_blur(noise, [k + 1 - k % 2] * 2, sigma)     # an odd kernel

    @staticmethod
    def get_params(alpha, sigma, size):
        """The (1, H, W, 2) displacement field, in grid_sample's [-1, 1] units."""
        dx = ElasticTransform._smoothed_noise(sigma, 0, size) * alpha[0] / size[1]
        dy = ElasticTransform._smoothed_noise(sigma, 1, size) * alpha[1] / size[0]
        return _F["cat"]([dx, dy], 1).permute([0, 2, 3, 1])

    def forward(self, img):
        _, height, width = F.get_dimensions(img)
        displacement = self.get_params(self.alpha, self.sigma, [height, width])
        return F.elastic_transform(img, displacement, self.interpolation, self.fill)

    def __repr__(self):
        return (f"{self.__class__.__name__}(alpha={self.alpha}, sigma={self.sigma}, "
                f"interpolation={self.interpolation}, fill={self.fill})")


class _RandomPItem(_RandomP):
    """Like _RandomP, but torchvision compares ``rand(1).item()`` here (same draw)."""

    def forward(self, img):
        if _rand1().item() < self.p:
            return self.apply(img)
        return img


class RandomInvert(_RandomPItem):
    def apply(self, img):
        return F.invert(img)


class RandomPosterize(_RandomPItem):
    def __init__(self, bits, p=0.5):
        super().__init__(p)
        self.bits = bits

    def apply(self, img):
        return F.posterize(img, self.bits)

    def __repr__(self):
        return f"{self.__class__.__name__}(bits={self.bits},p={self.p})"


class RandomSolarize(_RandomPItem):
    def __init__(self, threshold, p=0.5):
        super().__init__(p)
        self.threshold = threshold

    def apply(self, img):
        return F.solarize(img, self.threshold)

    def __repr__(self):
        return f"{self.__class__.__name__}(threshold={self.threshold},p={self.p})"


class RandomAdjustSharpness(_RandomPItem):
    def __init__(self, sharpness_factor, p=0.5):
        super().__init__(p)
        self.sharpness_factor = sharpness_factor

    def apply(self, img):
        return F.adjust_sharpness(img, self.sharpness_factor)

    def __repr__(self):
        return (f"{self.__class__.__name__}(sharpness_factor={self.sharpness_factor},"
                f"p={self.p})")


class RandomAutocontrast(_RandomPItem):
    def apply(self, img):
        return F.autocontrast(img)


class RandomEqualize(_RandomPItem):
    def apply(self, img):
        return F.equalize(img)


# Keep the module-level RNG reachable for readers looking for where draws come from.
_generator = _random
