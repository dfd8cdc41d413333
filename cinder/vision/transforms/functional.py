"""``torchvision.transforms.functional``: one function per image operation, taking a PIL image
or a tensor of shape (..., C, H, W) and returning the same kind."""

import enum
import math
import numbers
import sys
import warnings

import numpy as np

from ... import _dtype
from ...ops.creation import as_tensor, from_numpy
from . import _functional_pil as F_pil
from . import _functional_tensor as F_t
from ... import get_default_dtype
from ... import float32


class InterpolationMode(enum.Enum):
    """Interpolation modes; the values are the names torch's interpolate uses."""

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


# PIL's integer constants for each mode (Image.NEAREST=0, LANCZOS=1, BILINEAR=2, BICUBIC=3...).
_PIL_CODES = {InterpolationMode.NEAREST: 0, InterpolationMode.NEAREST_EXACT: 0,
              InterpolationMode.LANCZOS: 1, InterpolationMode.BILINEAR: 2,
              InterpolationMode.BICUBIC: 3, InterpolationMode.BOX: 4,
              InterpolationMode.HAMMING: 5}
pil_modes_mapping = dict(_PIL_CODES)


def _interpolation_modes_from_int(i):
    table = {0: InterpolationMode.NEAREST, 2: InterpolationMode.BILINEAR,
             3: InterpolationMode.BICUBIC, 4: InterpolationMode.BOX,
             5: InterpolationMode.HAMMING, 1: InterpolationMode.LANCZOS}
    return table[i]


def _mode(interpolation):
    """Accept an InterpolationMode or PIL's integer constant (with torchvision's warning)."""
    if isinstance(interpolation, int):
        warnings.warn("Argument interpolation should be of type InterpolationMode instead of int. "
                      "Please, use InterpolationMode enum.", stacklevel=2)
        return _interpolation_modes_from_int(interpolation)
    if not isinstance(interpolation, InterpolationMode):
        raise TypeError("Argument interpolation should be a InterpolationMode or a corresponding "
                        "Pillow integer constant")
    return interpolation


def _is_tensor(img):
    return F_t.is_tensor(img)


def _need_image(img):
    if not (_is_tensor(img) or F_pil.is_pil_image(img)):
        raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")


# ------------------------------------------------------------------------------------------------
# Sizes and conversions
# ------------------------------------------------------------------------------------------------


def get_dimensions(img):
    """[channels, height, width] of a PIL image or tensor."""
    return F_t.get_dimensions(img) if _is_tensor(img) else F_pil.get_dimensions(img)


def get_image_size(img):
    """[width, height]."""
    _, h, w = get_dimensions(img)
    return [w, h]


def get_image_num_channels(img):
    return get_dimensions(img)[0]


def _to_float(img_uint8_hwc):
    return img_uint8_hwc.to(get_default_dtype()).div(255)


def to_tensor(pic):
    """PIL image or HWC ndarray -> CHW tensor; uint8 data is scaled to float in [0, 1]."""
    is_array = isinstance(pic, np.ndarray)
    if not (F_pil.is_pil_image(pic) or is_array):
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    if is_array:
        if pic.ndim not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        if pic.ndim == 2:
            pic = pic[:, :, None]
        img = from_numpy(np.ascontiguousarray(pic.transpose((2, 0, 1))))
        return _to_float(img) if img.dtype is _dtype.uint8 else img
    kinds = {"I": np.int32, "I;16" if sys.byteorder == "little" else "I;16B": np.int16,
             "F": np.float32}
    values = np.array(pic, kinds.get(pic.mode, np.uint8), copy=True)
    if pic.mode == "1":
        values = values * np.uint8(255)
    values = values.reshape(pic.size[1], pic.size[0], len(pic.getbands()))
    img = from_numpy(np.ascontiguousarray(values.transpose(2, 0, 1)))
    return _to_float(img) if img.dtype is _dtype.uint8 else img


def pil_to_tensor(pic):
    """PIL image -> CHW tensor with the image's own dtype (no scaling)."""
    if not F_pil.is_pil_image(pic):
        raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
    values = np.array(pic, copy=True)
    values = values.reshape(pic.size[1], pic.size[0], len(pic.getbands()))
    return from_numpy(np.ascontiguousarray(values.transpose(2, 0, 1)))


def _mode_for(npimg, mode):
    """The PIL mode of an HWC array, checking a requested ``mode`` as torchvision does."""
    channels = npimg.shape[2]
    if channels == 1:
        expected = {np.dtype(np.uint8): "L", np.dtype(np.int16): "I;16",
                    np.dtype(np.int32): "I", np.dtype(np.float32): "F"}.get(npimg.dtype)
        if mode is not None and mode != expected:
            raise ValueError(f"Incorrect mode ({mode}) supplied for input type {np.dtype}. "
                             f"Should be {expected}")
        return expected
    permitted = {2: ["LA"], 4: ["RGBA", "CMYK", "RGBX"], 3: ["RGB", "YCbCr", "HSV"]}[channels]
    if mode is not None and mode not in permitted:
        raise ValueError(f"Only modes {permitted} are supported for {channels}D inputs")
    if mode is None and npimg.dtype == np.uint8:
        mode = permitted[0]
    return mode


def to_pil_image(pic, mode=None):
    """CHW tensor or HWC ndarray -> PIL image (floats are scaled by 255 and truncated)."""
    if _is_tensor(pic):
        if pic.ndim == 3:
            pic = pic.permute((1, 2, 0))
        pic = pic.numpy(force=True)
    elif not isinstance(pic, np.ndarray):
        raise TypeError(f"pic should be Tensor or ndarray. Got {type(pic)}.")
    if pic.ndim == 2:
        pic = pic[:, :, None]
    if pic.ndim != 3:
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
    if pic.shape[-1] > 4:
        raise ValueError(f"pic should not have > 4 channels. Got {pic.shape[-1]} channels.")
    if np.issubdtype(pic.dtype, np.floating) and mode != "F":
        pic = (pic * 255).astype(np.uint8)
    mode = _mode_for(pic, mode)
    if pic.shape[2] == 1:
        pic = pic[:, :, 0]
    if mode is None:
        raise TypeError(f"Input type {pic.dtype} is not supported")
    return F_pil.pil().fromarray(np.ascontiguousarray(pic), mode=mode)


def convert_image_dtype(image, dtype=None):
    """Convert and rescale a tensor image between dtypes."""
    if not _is_tensor(image):
        raise TypeError("Input img should be Tensor Image")
    return F_t.convert_image_dtype(image, float32 if dtype is None else dtype)


def normalize(tensor, mean, std, inplace=False):
    """(tensor - mean) / std per channel; differentiable, as it uses tensor ops."""
    if not _is_tensor(tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
    if not tensor.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.ndim < 3:
        raise ValueError("Expected tensor to be a tensor image of size (..., C, H, W). Got "
                         f"tensor.size() = {tensor.size()}")
    if not inplace:
        tensor = tensor.clone()
    mean = as_tensor(mean, dtype=tensor.dtype, device=tensor.device)
    std = as_tensor(std, dtype=tensor.dtype, device=tensor.device)
    if (std == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {tensor.dtype}, leading to "
                         "division by zero.")
    if mean.ndim == 1:
        mean = mean.view(-1, 1, 1)
    if std.ndim == 1:
        std = std.view(-1, 1, 1)
    return tensor.sub_(mean).div_(std)


# ------------------------------------------------------------------------------------------------
# Geometry
# ------------------------------------------------------------------------------------------------


def _resized_size(image_size, size, max_size):
    h, w = image_size
    short, long = (w, h) if w <= h else (h, w)
    if len(size) == 1:
        new_short, new_long = size[0], int(size[0] * long / short)
        if max_size is not None:
            if max_size <= size[0]:
                raise ValueError(f"max_size = {max_size} must be strictly greater than the "
                                 f"requested size for the smaller edge size = {size}")
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
        new_w, new_h = (new_short, new_long) if w <= h else (new_long, new_short)
        return [new_h, new_w]
    return [size[0], size[1]]


def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    """Resize to ``size`` ([h, w]), or make the shorter edge ``size`` when it is one number."""
    interpolation = _mode(interpolation)
    if isinstance(size, (list, tuple)):
        if len(size) not in (1, 2):
            raise ValueError("Size must be an int or a 1 or 2 element tuple/list, not a "
                             f"{len(size)} element tuple/list")
        if max_size is not None and len(size) != 1:
            raise ValueError("max_size should only be passed if size specifies the length of the "
                             "smaller edge, i.e. size should be an int or a sequence of length 1 "
                             "in torchscript mode.")
    _, height, width = get_dimensions(img)
    size = [size] if isinstance(size, int) else list(size)
    out_size = _resized_size((height, width), size, max_size)
    if [height, width] == out_size:
        return img
    if not _is_tensor(img):
        if antialias is False:
            warnings.warn("Anti-alias option is always applied for PIL Image input. Argument "
                          "antialias is ignored.", stacklevel=2)
        return F_pil.resize(img, out_size, _PIL_CODES[interpolation])
    return F_t.resize(img, out_size, interpolation.value, antialias)


def _padding_ltrb(padding):
    if isinstance(padding, int):
        return [padding] * 4
    padding = list(padding)
    if len(padding) == 1:
        return padding * 4
    if len(padding) == 2:
        return [padding[0], padding[1], padding[0], padding[1]]
    return padding


def pad(img, padding, fill=0, padding_mode="constant"):
    """Pad by an int, (lr, tb) or (left, top, right, bottom); modes constant/edge/reflect/
    symmetric."""
    if not isinstance(padding, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if isinstance(padding, (tuple, list)) and len(padding) not in (1, 2, 4):
        raise ValueError("Padding must be an int or a 1, 2, or 4 element tuple, not a "
                         f"{len(padding)} element tuple")
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    left, top, right, bottom = _padding_ltrb(padding)
    if not _is_tensor(img):
        return F_pil.pad(img, [left, top, right, bottom], fill, padding_mode)
    return F_t.pad(img, [left, right, top, bottom], fill, padding_mode)


def crop(img, top, left, height, width):
    """The box at (top, left) of the given size; parts outside the image are zero."""
    if not _is_tensor(img):
        return F_pil.crop(img, top, left, height, width)
    return F_t.crop(img, top, left, height, width)


def _pair(size):
    if isinstance(size, numbers.Number):
        return (int(size), int(size))
    if isinstance(size, (tuple, list)) and len(size) == 1:
        return (size[0], size[0])
    return tuple(size)


def center_crop(img, output_size):
    """The centred box of ``output_size``, zero-padding first if the image is smaller."""
    crop_h, crop_w = _pair(output_size)
    _, h, w = get_dimensions(img)
    if crop_w > w or crop_h > h:
        ltrb = [(crop_w - w) // 2 if crop_w > w else 0, (crop_h - h) // 2 if crop_h > h else 0,
                (crop_w - w + 1) // 2 if crop_w > w else 0,
                (crop_h - h + 1) // 2 if crop_h > h else 0]
        img = pad(img, ltrb, fill=0)
        _, h, w = get_dimensions(img)
        if (crop_w, crop_h) == (w, h):
            return img
    top = int(round((h - crop_h) / 2.0))
    left = int(round((w - crop_w) / 2.0))
    return crop(img, top, left, crop_h, crop_w)


def resized_crop(img, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR,
                 antialias=True):
    img = crop(img, top, left, height, width)
    return resize(img, size, interpolation, antialias=antialias)


def hflip(img):
    return F_t.hflip(img) if _is_tensor(img) else F_pil.hflip(img)


def vflip(img):
    return F_t.vflip(img) if _is_tensor(img) else F_pil.vflip(img)


def five_crop(img, size):
    """The four corners and the centre, each of ``size``."""
    size = _pair(size)
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    _, h, w = get_dimensions(img)
    ch, cw = size
    if cw > w or ch > h:
        raise ValueError(f"Requested crop size {size} is bigger than input size {(h, w)}")
    return (crop(img, 0, 0, ch, cw), crop(img, 0, w - cw, ch, cw), crop(img, h - ch, 0, ch, cw),
            crop(img, h - ch, w - cw, ch, cw), center_crop(img, [ch, cw]))


def ten_crop(img, size, vertical_flip=False):
    """five_crop of the image and of its (horizontal or vertical) flip."""
    size = _pair(size)
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    flipped = vflip(img) if vertical_flip else hflip(img)
    return five_crop(img, size) + five_crop(flipped, size)


def _get_inverse_affine_matrix(center, angle, translate, scale, shear, inverted=True):
    """The 2x3 matrix mapping output pixels back to input pixels (or forward if not inverted)
    for rotation about ``center``, translation, scale and shear (degrees)."""
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    # rotation-shear part (determinant 1), before scaling
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    if inverted:
        m = [v / scale for v in (d, -b, 0.0, -c, a, 0.0)]
        m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty)
        m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty)
        m[2] += cx
        m[5] += cy
    else:
        m = [a * scale, b * scale, 0.0, c * scale, d * scale, 0.0]
        m[2] += m[0] * (-cx) + m[1] * (-cy)
        m[5] += m[3] * (-cx) + m[4] * (-cy)
        m[2] += cx + tx
        m[5] += cy + ty
    return m


def _tensor_fill(fill, img):
    if fill is None:
        return None
    if isinstance(fill, (int, float)):
        return [float(fill)] * get_image_num_channels(img)
    return [float(f) for f in fill]


def affine(img, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST,
           fill=None, center=None):
    """Rotate by ``angle`` degrees, translate, scale and shear, keeping the image centre fixed."""
    interpolation = _mode(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)):
        raise TypeError("Argument translate should be a sequence")
    if len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if isinstance(shear, numbers.Number):
        shear = [shear, 0.0]
    shear = list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    _, height, width = get_dimensions(img)
    if not _is_tensor(img):
        # PIL: centre without the half-pixel offset (what torchvision found looks right)
        center = [width * 0.5, height * 0.5] if center is None else center
        matrix = _get_inverse_affine_matrix(center, angle, translate, scale, shear)
        return F_pil.affine(img, matrix, _PIL_CODES[interpolation], fill)
    center_f = [0.0, 0.0] if center is None else [
        1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    matrix = _get_inverse_affine_matrix(center_f, float(angle), [1.0 * t for t in translate],
                                        scale, shear)
    return F_t.affine(img, matrix, interpolation.value, _tensor_fill(fill, img))


def rotate(img, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None,
           fill=None):
    """Rotate counter-clockwise by ``angle`` degrees about the centre (or ``center``)."""
    interpolation = _mode(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not _is_tensor(img):
        return F_pil.rotate(img, angle, _PIL_CODES[interpolation], expand, center, fill)
    if expand:
        raise NotImplementedError("cinder.vision: rotate(expand=True) is not implemented for "
                                  "tensors yet; use a PIL image")
    _, height, width = get_dimensions(img)
    center_f = [0.0, 0.0] if center is None else [
        1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    matrix = _get_inverse_affine_matrix(center_f, -angle, [0.0, 0.0], 1.0, [0.0, 0.0])
    return F_t.affine(img, matrix, interpolation.value, _tensor_fill(fill, img))


def _get_perspective_coeffs(startpoints, endpoints):
    """Solve for the 8 coefficients that map ``endpoints`` onto ``startpoints``."""
    if len(startpoints) != 4 or len(endpoints) != 4:
        raise ValueError(f"Please provide exactly four corners, got {len(startpoints)} "
                         f"startpoints and {len(endpoints)} endpoints.")
    a = np.zeros((8, 8))
    for i, (p1, p2) in enumerate(zip(endpoints, startpoints)):
        a[2 * i] = [p1[0], p1[1], 1, 0, 0, 0, -p2[0] * p1[0], -p2[0] * p1[1]]
        a[2 * i + 1] = [0, 0, 0, p1[0], p1[1], 1, -p2[1] * p1[0], -p2[1] * p1[1]]
    b = np.asarray(startpoints, dtype=np.float64).reshape(8)
    solution = np.linalg.lstsq(a, b, rcond=None)[0]
    return solution.astype(np.float32).tolist()


def elastic_transform(img, displacement, interpolation=InterpolationMode.BILINEAR, fill=None):
    """Move every pixel by ``displacement`` (a (1, H, W, 2) tensor in grid_sample's [-1, 1]
    units, x then y), resampling with ``interpolation``; PIL images go through a tensor."""
    interpolation = _mode(interpolation)
    if not _is_tensor(displacement):
        raise TypeError("Argument displacement should be a Tensor")
    _need_image(img)
    tensor = img if _is_tensor(img) else pil_to_tensor(img)
    shape = (1,) + tensor.shape[-2:] + (2,)
    if displacement.shape != shape:
        raise ValueError(f"Argument displacement shape should be {shape}, but given "
                         f"{displacement.shape}")
    out = F_t.elastic_transform(tensor, displacement, interpolation.value, fill)
    return out if _is_tensor(img) else to_pil_image(out, mode=img.mode)


def perspective(img, startpoints, endpoints, interpolation=InterpolationMode.BILINEAR,
                fill=None):
    coeffs = _get_perspective_coeffs(startpoints, endpoints)
    interpolation = _mode(interpolation)
    if not _is_tensor(img):
        return F_pil.perspective(img, coeffs, _PIL_CODES[interpolation], fill)
    return F_t.perspective(img, coeffs, interpolation.value, _tensor_fill(fill, img))


# ------------------------------------------------------------------------------------------------
# Colour and filters
# ------------------------------------------------------------------------------------------------


def _either(name):
    """A function running ``name`` from the PIL or tensor module, whichever fits the input."""
    def run(img, *args):
        _need_image(img)
        module = F_t if _is_tensor(img) else F_pil
        return getattr(module, name)(img, *args)
    run.__name__ = name
    return run


adjust_brightness = _either("adjust_brightness")
adjust_contrast = _either("adjust_contrast")
adjust_saturation = _either("adjust_saturation")
adjust_hue = _either("adjust_hue")
adjust_sharpness = _either("adjust_sharpness")
adjust_gamma = _either("adjust_gamma")
invert = _either("invert")
posterize = _either("posterize")
solarize = _either("solarize")
autocontrast = _either("autocontrast")
equalize = _either("equalize")


def rgb_to_grayscale(img, num_output_channels=1):
    if not _is_tensor(img):
        return F_pil.to_grayscale(img, num_output_channels)
    return F_t.rgb_to_grayscale(img, num_output_channels)


to_grayscale = rgb_to_grayscale


def gaussian_blur(img, kernel_size, sigma=None):
    """Blur with a Gaussian kernel (odd sizes); sigma defaults to 0.3*((k-1)*0.5 - 1) + 0.8."""
    if isinstance(kernel_size, int):
        kernel_size = [kernel_size, kernel_size]
    if len(kernel_size) != 2:
        raise ValueError("If kernel_size is a sequence its length should be 2. Got "
                         f"{len(kernel_size)}")
    for k in kernel_size:
        if k % 2 == 0 or k < 0:
            raise ValueError("kernel_size should have odd and positive integers. Got "
                             f"{kernel_size}")
    if sigma is None:
        sigma = [k * 0.15 + 0.35 for k in kernel_size]
    if isinstance(sigma, (int, float)):
        sigma = [float(sigma), float(sigma)]
    if len(sigma) == 1:
        sigma = [sigma[0], sigma[0]]
    for s in sigma:
        if s <= 0.0:
            raise ValueError(f"sigma should have positive values. Got {sigma}")
    if _is_tensor(img):
        return F_t.gaussian_blur(img, kernel_size, sigma)
    _need_image(img)
    out = F_t.gaussian_blur(pil_to_tensor(img), kernel_size, sigma)
    return to_pil_image(out, mode=img.mode)


def erase(img, i, j, h, w, v, inplace=False):
    """Set the box (i, j, h, w) of a tensor image to ``v``."""
    if not _is_tensor(img):
        raise TypeError(f"img should be Tensor Image. Got {type(img)}")
    return F_t.erase(img, i, j, h, w, v, inplace)
