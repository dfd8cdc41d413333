"""Image operations on tensors of shape (..., C, H, W).

The pixel work runs on the tensor's values as a NumPy array (images are prepared on the CPU,
usually inside DataLoader workers) and the result comes back as a tensor on the input's device
with the input's dtype; resize and the warps call ``nn.functional.interpolate`` and
``grid_sample``, as torchvision's kernels do. The arithmetic follows torchvision's tensor
kernels step for step (float32 intermediates, truncation or rounding back to integer dtypes
where torchvision does), so results agree with torchvision's to float rounding.
"""

import numpy as np

from ... import _dtype as D
from ... import _tensor
from ...backend import to_numpy
from ...ops.creation import as_tensor
from ...nn import functional as NF
from ...ops.creation import from_numpy
from ...ops import FUNCTIONS as _F

# ------------------------------------------------------------------------------------------------
# Conversions between tensors and arrays
# ------------------------------------------------------------------------------------------------


def is_tensor(x):
    return isinstance(x, _tensor.Tensor)


def arr(img):
    """The tensor's values as a host NumPy array (a copy is not guaranteed)."""
    return to_numpy(img.detach()._data)


def wrap(values, like, dtype=None):
    """A tensor from ``values`` on ``like``'s device, with ``like``'s dtype unless given."""
    dtype = like.dtype if dtype is None else dtype
    return as_tensor(np.ascontiguousarray(values), device=like.device).to(dtype)


def max_value(dtype):
    """The largest value of an image of ``dtype``: 1.0 for floats, the type's max for ints."""
    if dtype.is_floating_point:
        return 1.0
    if dtype.numpy_dtype == np.bool_:
        return 1
    return int(np.iinfo(dtype.numpy_dtype).max)


def cast_back(values, dtype):
    """float32 results go back to an integer dtype by rounding, as torchvision's kernels do."""
    if dtype.is_floating_point:
        return values
    return np.round(values)


def check_image(img):
    if not is_tensor(img):
        raise TypeError("Tensor is not a torch image.")
    if img.ndim < 2:
        raise TypeError("Tensor is not a torch image.")


def get_dimensions(img):
    check_image(img)
    channels = 1 if img.ndim == 2 else img.shape[-3]
    height, width = img.shape[-2:]
    return [channels, height, width]


def get_num_channels(img):
    return get_dimensions(img)[0]


def check_channels(img, permitted):
    c = get_num_channels(img)
    if c not in permitted:
        raise TypeError(f"Input image tensor permitted channel values are {permitted}, but "
                        f"found {c}")


# ------------------------------------------------------------------------------------------------
# Geometry without resampling
# ------------------------------------------------------------------------------------------------


def crop(img, top, left, height, width):
    """Crop, padding with zeros where the box leaves the image (torchvision's behaviour)."""
    _, h, w = get_dimensions(img)
    right, bottom = left + width, top + height
    if left < 0 or top < 0 or right > w or bottom > h:
        inner = img[..., max(top, 0):bottom, max(left, 0):right]
        pads = [max(-left + min(0, right), 0), max(right - max(w, left), 0),
                max(-top + min(0, bottom), 0), max(bottom - max(h, top), 0)]
        return pad(inner, pads, fill=0)
    return img[..., top:bottom, left:right]


def hflip(img):
    check_image(img)
    return img.flip(-1)


def vflip(img):
    check_image(img)
    return img.flip(-2)


_NP_PAD_MODES = {"edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}


def pad(img, padding, fill=0, padding_mode="constant"):
    """Pad the last two dims by (left, right, top, bottom); negative padding crops."""
    check_image(img)
    left, right, top, bottom = padding
    a = arr(img)
    # Negative padding removes pixels first.
    h, w = a.shape[-2:]
    a = a[..., max(-top, 0):h - max(-bottom, 0), max(-left, 0):w - max(-right, 0)]
    widths = [(0, 0)] * (a.ndim - 2) + [(max(top, 0), max(bottom, 0)),
                                          (max(left, 0), max(right, 0))]
    if padding_mode == "constant":
        out = np.pad(a, widths, mode="constant", constant_values=fill or 0)
    else:
        out = np.pad(a, widths, mode=_NP_PAD_MODES[padding_mode])
    return wrap(out, img)


# ------------------------------------------------------------------------------------------------
# Resampling: resize (nn.functional.interpolate) and inverse-mapped grids (affine, perspective)
# ------------------------------------------------------------------------------------------------


def resize(img, size, interpolation="bilinear", antialias=True):
    """Resize the last two dims to ``size`` = [h, w] with ``nn.functional.interpolate``, as
    torchvision's kernel does: float32 work, integers rounded back (bicubic clamped first)."""
    check_image(img)
    h_out, w_out = size
    h_in, w_in = img.shape[-2:]
    if (h_out, w_out) == (h_in, w_in):
        return img
    if interpolation not in ("bilinear", "bicubic"):
        antialias = False
    align_corners = False if interpolation in ("bilinear", "bicubic") else None
    dtype = img.dtype
    x = img.detach()
    if x.dtype not in (D.float32, D.float64):
        x = x.to(D.float32)
    lead = tuple(img.shape[:-2])
    out = NF.interpolate(x.reshape(1, -1, h_in, w_in), size=[h_out, w_out], mode=interpolation,
                         align_corners=align_corners, antialias=antialias)
    out = out.reshape(lead + (h_out, w_out))
    if not dtype.is_floating_point:
        if interpolation == "bicubic":
            out = out.clamp(0, max_value(dtype))
        out = out.round()
    return out.to(dtype)


def _grid_sample(a, gx, gy, mode, fill):
    """Sample ``a`` (..., C, H, W) at pixel coordinates (gx, gy) of shape (H', W') with
    ``nn.functional.grid_sample``; points outside the image take ``fill`` (zeros when None)."""
    h, w = a.shape[-2:]
    grid = np.stack(((2 * gx + 1) / w - 1, (2 * gy + 1) / h - 1), axis=-1)
    return _grid_sample_normalized(a, grid, mode, fill)


def _grid_sample_normalized(a, grid, mode, fill):
    """``_grid_sample`` with the points given as grid_sample's (H', W', 2) grid: x then y,
    scaled to [-1, 1] across the image (pixel centres inside, align_corners=False)."""
    h, w = a.shape[-2:]
    lead = a.shape[:-2]
    fill_values = None if fill is None else np.broadcast_to(
        np.asarray(fill, dtype=np.float32).reshape(-1, 1, 1), lead[-1:] + (1, 1))
    grid = from_numpy(np.ascontiguousarray(grid[None], dtype=np.float32))
    planes = from_numpy(np.ascontiguousarray(a, dtype=np.float32).reshape(1, -1, h, w))
    out = NF.grid_sample(planes, grid, mode=mode, padding_mode="zeros", align_corners=False)
    out = out.numpy().reshape(lead + grid.shape[1:3])
    if fill_values is not None:
        ones = from_numpy(np.ones((1, 1, h, w), np.float32))
        weight_in = NF.grid_sample(ones, grid, mode=mode, padding_mode="zeros",
                                   align_corners=False).numpy()[0, 0]
        # torchvision samples a mask of ones alongside the image, then fills where the mask
        # fell short: below 0.5 for nearest, blended by the mask for bilinear.
        if mode == "nearest":
            out = np.where(weight_in < 0.5, fill_values, out)
        else:
            out = out * weight_in + (1 - weight_in) * fill_values
    return out


def _apply_grid(img, gx, gy, interpolation, fill):
    a = arr(img).astype(np.float32)
    out = _grid_sample(a, gx.astype(np.float32), gy.astype(np.float32), interpolation, fill)
    if not img.dtype.is_floating_point:
        out = np.round(out)
    return wrap(out, img)


def elastic_transform(img, displacement, interpolation="bilinear", fill=None):
    """Sample each output pixel at its own position plus ``displacement`` (1, H, W, 2), given
    in grid_sample's [-1, 1] units (x then y)."""
    h, w = img.shape[-2:]
    # The identity grid: pixel centres in [-1, 1] units, from float32 linspace as torchvision.
    ys, xs = (arr(_F["linspace"]((-s + 1) / s, (s - 1) / s, s)) for s in (h, w))
    grid = np.stack(np.meshgrid(xs, ys), axis=-1) + arr(displacement)[0]
    out = _grid_sample_normalized(arr(img).astype(np.float32), grid, interpolation, fill)
    if not img.dtype.is_floating_point:
        out = np.round(out)
    return wrap(out, img)


def affine(img, matrix, interpolation="nearest", fill=None):
    """Warp by the inverse affine ``matrix`` (6 numbers, output pixel -> input pixel, centred)."""
    h, w = img.shape[-2:]
    theta = np.asarray(matrix, dtype=np.float32).reshape(2, 3)
    # Output pixel centres relative to the image centre, as torchvision's base grid.
    xs = np.arange(w, dtype=np.float32) - np.float32(w * 0.5 - 0.5)
    ys = np.arange(h, dtype=np.float32) - np.float32(h * 0.5 - 0.5)
    bx, by = np.meshgrid(xs, ys)
    gx = theta[0, 0] * bx + theta[0, 1] * by + theta[0, 2]
    gy = theta[1, 0] * bx + theta[1, 1] * by + theta[1, 2]
    return _apply_grid(img, gx + np.float32((w - 1) * 0.5), gy + np.float32((h - 1) * 0.5),
                       interpolation, fill)


def perspective(img, coeffs, interpolation="bilinear", fill=None):
    """Warp with the 8 perspective coefficients mapping output pixels to input pixels."""
    h, w = img.shape[-2:]
    a, b, c, d, e, f, g, hh = [np.float32(v) for v in coeffs]
    bx, by = np.meshgrid(np.arange(w, dtype=np.float32) + 0.5,
                         np.arange(h, dtype=np.float32) + 0.5)
    den = g * bx + hh * by + 1
    gx = (a * bx + b * by + c) / den - 0.5
    gy = (d * bx + e * by + f) / den - 0.5
    return _apply_grid(img, gx, gy, interpolation, fill)


# ------------------------------------------------------------------------------------------------
# Colour
# ------------------------------------------------------------------------------------------------


def _float(img):
    return arr(img).astype(np.float32)


def _gray_values(a):
    r, g, b = a[..., 0, :, :], a[..., 1, :, :], a[..., 2, :, :]
    return (0.2989 * r + 0.587 * g + 0.114 * b).astype(np.float32)


def rgb_to_grayscale(img, num_output_channels=1):
    if img.ndim < 3:
        raise TypeError("Input image tensor should have at least 3 dimensions, but found "
                        f"{img.ndim}")
    check_channels(img, [1, 3])
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if img.shape[-3] == 3:
        gray = _gray_values(_float(img))
        if not img.dtype.is_floating_point:
            gray = np.trunc(gray)           # torchvision's .to(uint8) truncates here
        gray = gray[..., None, :, :]
    else:
        gray = arr(img)
    if num_output_channels == 3:
        gray = np.broadcast_to(gray, gray.shape[:-3] + (3,) + gray.shape[-2:])
    return wrap(gray, img)


def _blend_values(a, b, ratio, dtype):
    bound = max_value(dtype)
    out = np.clip(ratio * a + (1.0 - ratio) * b, 0, bound).astype(np.float32)
    return out if dtype.is_floating_point else np.trunc(out)


def adjust_brightness(img, factor):
    if factor < 0:
        raise ValueError(f"brightness_factor ({factor}) is not non-negative.")
    check_channels(img, [1, 3])
    return wrap(_blend_values(_float(img), 0.0, factor, img.dtype), img)


def adjust_contrast(img, factor):
    if factor < 0:
        raise ValueError(f"contrast_factor ({factor}) is not non-negative.")
    check_channels(img, [3, 1])
    a = _float(img)
    gray = _gray_values(a) if img.shape[-3] == 3 else a[..., 0, :, :]
    if not img.dtype.is_floating_point:
        gray = np.trunc(gray)
    mean = gray.mean(axis=(-2, -1), keepdims=True)[..., None, :, :]
    return wrap(_blend_values(a, mean, factor, img.dtype), img)


def adjust_saturation(img, factor):
    if factor < 0:
        raise ValueError(f"saturation_factor ({factor}) is not non-negative.")
    check_channels(img, [1, 3])
    if img.shape[-3] == 1:
        return img
    a = _float(img)
    gray = _gray_values(a)
    if not img.dtype.is_floating_point:
        gray = np.trunc(gray)
    return wrap(_blend_values(a, gray[..., None, :, :], factor, img.dtype), img)


def _rgb_to_hsv(a):
    r, g, b = a[..., 0, :, :], a[..., 1, :, :], a[..., 2, :, :]
    maxc, minc = a.max(axis=-3), a.min(axis=-3)
    eqc = maxc == minc
    cr = maxc - minc
    ones = np.ones_like(maxc)
    s = cr / np.where(eqc, ones, maxc)
    cr_div = np.where(eqc, ones, cr)
    rc, gc, bc = (maxc - r) / cr_div, (maxc - g) / cr_div, (maxc - b) / cr_div
    hr = (maxc == r) * (bc - gc)
    hg = ((maxc == g) & (maxc != r)) * (2.0 + rc - bc)
    hb = ((maxc != g) & (maxc != r)) * (4.0 + gc - rc)
    h = np.fmod((hr + hg + hb) / 6.0 + 1.0, 1.0)
    return np.stack((h, s, maxc), axis=-3).astype(np.float32)


def _hsv_to_rgb(a):
    h, s, v = a[..., 0, :, :], a[..., 1, :, :], a[..., 2, :, :]
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    i = i.astype(np.int64) % 6
    p = np.clip(v * (1.0 - s), 0.0, 1.0)
    q = np.clip(v * (1.0 - s * f), 0.0, 1.0)
    t = np.clip(v * (1.0 - s * (1.0 - f)), 0.0, 1.0)
    choices = [(v, q, p, p, t, v), (t, v, v, q, p, p), (p, p, t, v, v, q)]
    out = [np.choose(i, c) for c in choices]
    return np.stack(out, axis=-3).astype(np.float32)


def adjust_hue(img, factor):
    if not -0.5 <= factor <= 0.5:
        raise ValueError(f"hue_factor ({factor}) is not in [-0.5, 0.5].")
    check_channels(img, [1, 3])
    if img.shape[-3] == 1:
        return img
    a = _float(img)
    if not img.dtype.is_floating_point:
        a = a / 255.0
    hsv = _rgb_to_hsv(a)
    hsv[..., 0, :, :] = np.fmod(hsv[..., 0, :, :] + factor, 1.0)
    hsv[..., 0, :, :] += (hsv[..., 0, :, :] < 0)
    out = _hsv_to_rgb(hsv)
    if not img.dtype.is_floating_point:
        out = np.trunc(out * 255.0)
    return wrap(out, img)


def adjust_gamma(img, gamma, gain=1.0):
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    a = _float(img)
    if not img.dtype.is_floating_point:
        a = a / max_value(img.dtype)
    out = np.clip(gain * a ** gamma, 0, 1)
    if not img.dtype.is_floating_point:
        out = np.round(out * max_value(img.dtype))
    return wrap(out, img)


def invert(img):
    check_channels(img, [1, 3])
    return wrap(max_value(img.dtype) - arr(img), img)


def posterize(img, bits):
    if str(img.dtype) != "torch.uint8":
        raise TypeError(f"Only torch.uint8 image tensors are supported, but found {img.dtype}")
    check_channels(img, [1, 3])
    mask = np.uint8(-int(2 ** (8 - bits)) & 0xFF)
    return wrap(arr(img) & mask, img)


def solarize(img, threshold):
    check_channels(img, [1, 3])
    if threshold > max_value(img.dtype):
        raise TypeError("Threshold should be less than bound of img.")
    a = arr(img)
    return wrap(np.where(a >= threshold, max_value(img.dtype) - a, a), img)


def _blurred_for_sharpness(a, dtype):
    """torchvision's 3x3 smoothing kernel (centre 5, others 1, /13) on interior pixels, by
    ``nn.functional.conv2d`` as torchvision."""
    k = np.ones((3, 3), np.float32)
    k[1, 1] = 5.0
    k /= k.sum()
    h, w = a.shape[-2:]
    planes = from_numpy(np.ascontiguousarray(a, dtype=np.float32).reshape(-1, 1, h, w))
    acc = NF.conv2d(planes, from_numpy(k[None, None])).numpy()
    acc = acc.reshape(a.shape[:-2] + (h - 2, w - 2))
    if not dtype.is_floating_point:
        acc = np.round(acc)
    out = a.copy()
    out[..., 1:-1, 1:-1] = acc
    return out


def adjust_sharpness(img, factor):
    if factor < 0:
        raise ValueError(f"sharpness_factor ({factor}) is not non-negative.")
    check_channels(img, [1, 3])
    if img.shape[-1] <= 2 or img.shape[-2] <= 2:
        return img
    a = _float(img)
    return wrap(_blend_values(a, _blurred_for_sharpness(a, img.dtype), factor, img.dtype), img)


def autocontrast(img):
    check_channels(img, [1, 3])
    bound = max_value(img.dtype)
    a = _float(img)
    lo = a.min(axis=(-2, -1), keepdims=True)
    hi = a.max(axis=(-2, -1), keepdims=True)
    flat = hi == lo
    scale = np.where(flat, 1.0, bound / np.where(flat, 1.0, hi - lo)).astype(np.float32)
    lo = np.where(flat, 0.0, lo)
    out = np.clip((a - lo) * scale, 0, bound)
    if not img.dtype.is_floating_point:
        out = np.trunc(out)
    return wrap(out, img)


def _equalize_channel(ch):
    hist = np.bincount(ch.ravel(), minlength=256)
    nonzero = hist[hist != 0]
    step = (nonzero[:-1].sum()) // 255 if nonzero.size else 0
    if step == 0:
        return ch
    lut = (np.cumsum(hist) + step // 2) // step
    lut = np.concatenate(([0], lut[:-1])).clip(0, 255).astype(np.uint8)
    return lut[ch]


def equalize(img):
    if str(img.dtype) != "torch.uint8":
        raise TypeError(f"Only torch.uint8 image tensors are supported, but found {img.dtype}")
    check_channels(img, [1, 3])
    a = arr(img)
    flat = a.reshape(-1, *a.shape[-2:])
    out = np.stack([_equalize_channel(c) for c in flat]).reshape(a.shape)
    return wrap(out, img)


def gaussian_blur(img, kernel_size, sigma):
    """Gaussian blur (``nn.functional.conv2d`` after reflect padding, as torchvision), rounded
    back for integer images."""
    kx, ky = kernel_size
    sx, sy = sigma

    def kernel1d(size, s):
        half = (size - 1) * 0.5
        x = np.linspace(-half, half, size, dtype=np.float32)
        pdf = np.exp(-0.5 * (x / np.float32(s)) ** 2)
        return (pdf / pdf.sum()).astype(np.float32)

    h, w = img.shape[-2:]
    planes = from_numpy(np.ascontiguousarray(_float(img)).reshape(-1, 1, h, w))
    planes = NF.pad(planes, [kx // 2, kx // 2, ky // 2, ky // 2], mode="reflect")
    kernel = from_numpy(np.outer(kernel1d(ky, sy), kernel1d(kx, sx))[None, None])
    out = NF.conv2d(planes, kernel).numpy().reshape(img.shape)
    return wrap(cast_back(out, img.dtype), img)


def erase(img, i, j, h, w, v, inplace=False):
    if not inplace:
        img = img.clone()
    img[..., i:i + h, j:j + w] = v
    return img


def normalize_values(a, mean, std):
    mean = np.asarray(mean, dtype=a.dtype).reshape(-1, 1, 1)
    std = np.asarray(std, dtype=a.dtype).reshape(-1, 1, 1)
    return (a - mean) / std


def convert_image_dtype(img, dtype):
    """Rescale values between dtype ranges: [0, 1] for floats, [0, max] for integers."""
    if img.dtype == dtype:
        return img
    src_float, dst_float = img.dtype.is_floating_point, dtype.is_floating_point
    if src_float and dst_float:
        return img.to(dtype)
    if src_float:
        if (str(img.dtype), str(dtype)) in (("torch.float32", "torch.int32"),
                                            ("torch.float32", "torch.int64"),
                                            ("torch.float64", "torch.int64")):
            raise RuntimeError(f"The cast from {img.dtype} to {dtype} cannot be performed safely.")
        eps = 1e-3
        bound = max_value(dtype)
        return img.mul(bound + 1.0 - eps).to(dtype)
    if dst_float:
        return img.to(dtype).div(max_value(img.dtype))
    in_max, out_max = max_value(img.dtype), max_value(dtype)
    if in_max > out_max:
        factor = (in_max + 1) // (out_max + 1)
        return img.div(factor, rounding_mode="floor").to(dtype)
    factor = (out_max + 1) // (in_max + 1)
    return img.to(dtype).mul(factor)

