"""Image operations on PIL images: each one is the PIL call torchvision makes, so results
are identical pixel for pixel. Pillow is imported lazily (``import cinder`` works without it)."""

import numpy as np


def pil():
    """The ``PIL.Image`` module, or an ImportError saying how to install it."""
    try:
        from PIL import Image
    except ImportError as e:          # pragma: no cover - depends on the environment
        raise ImportError("cinder.vision needs Pillow for PIL images: "
                          "pip install 'cinder[vision]'") from e
    return Image


def is_pil_image(img):
    Image = pil() if _pillow_present() else None
    return Image is not None and isinstance(img, Image.Image)


def _pillow_present():
    try:
        import PIL  # noqa: F401
    except ImportError:
        return False
    return True


def _check(img):
    if not is_pil_image(img):
        raise TypeError(f"img should be PIL Image. Got {type(img)}")


def get_dimensions(img):
    if is_pil_image(img):
        width, height = img.size
        return [len(img.getbands()), height, width]
    raise TypeError(f"Unexpected type {type(img)}")


def get_image_num_channels(img):
    return get_dimensions(img)[0]


def hflip(img):
    _check(img)
    return img.transpose(pil().FLIP_LEFT_RIGHT)


def vflip(img):
    _check(img)
    return img.transpose(pil().FLIP_TOP_BOTTOM)


def _enhance(kind, img, factor):
    from PIL import ImageEnhance
    _check(img)
    return getattr(ImageEnhance, kind)(img).enhance(factor)


def adjust_brightness(img, factor):
    return _enhance("Brightness", img, factor)


def adjust_contrast(img, factor):
    return _enhance("Contrast", img, factor)


def adjust_saturation(img, factor):
    return _enhance("Color", img, factor)


def adjust_sharpness(img, factor):
    return _enhance("Sharpness", img, factor)


def adjust_hue(img, factor):
    if not -0.5 <= factor <= 0.5:
        raise ValueError(f"hue_factor ({factor}) is not in [-0.5, 0.5].")
    _check(img)
    Image = pil()
    mode = img.mode
    if mode in {"L", "1", "I", "F"}:
        return img
    h, s, v = img.convert("HSV").split()
    # Hue is an 8-bit angle: adding wraps around modulo 256, as uint8 arithmetic does.
    shifted = np.array(h, dtype=np.uint8) + np.int32(factor * 255).astype(np.uint8)
    h = Image.fromarray(shifted.astype(np.uint8), "L")
    return Image.merge("HSV", (h, s, v)).convert(mode)


def adjust_gamma(img, gamma, gain=1.0):
    _check(img)
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    mode = img.mode
    table = [int((255 + 1 - 1e-3) * gain * pow(v / 255.0, gamma)) for v in range(256)] * 3
    return img.convert("RGB").point(table).convert(mode)


def parse_fill(fill, img, name="fillcolor"):
    """``fill`` as the keyword PIL expects: one int per channel (floats for mode 'F')."""
    channels = get_image_num_channels(img)
    if fill is None:
        fill = 0
    if isinstance(fill, (int, float)) and channels > 1:
        fill = tuple([fill] * channels)
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = tuple(fill) * channels
        elif len(fill) != channels:
            raise ValueError("The number of elements in 'fill' does not match the number of "
                             f"channels of the image ({len(fill)} != {channels})")
        fill = tuple(fill)
    if img.mode != "F":
        fill = tuple(int(x) for x in fill) if isinstance(fill, tuple) else int(fill)
    return {name: fill}


def pad(img, padding, fill=0, padding_mode="constant"):
    """``padding`` is already (left, top, right, bottom)."""
    from PIL import ImageOps
    _check(img)
    Image = pil()
    palette = img.getpalette() if img.mode == "P" else None
    if padding_mode == "constant":
        out = ImageOps.expand(img, border=tuple(padding), **parse_fill(fill, img, "fill"))
    else:
        left, top, right, bottom = padding
        cut = [max(-v, 0) for v in padding]
        if any(cut):
            img = img.crop((cut[0], cut[1], img.width - cut[2], img.height - cut[3]))
        left, top, right, bottom = [max(v, 0) for v in padding]
        a = np.asarray(img)
        widths = [(top, bottom), (left, right)] + [(0, 0)] * (a.ndim - 2)
        out = Image.fromarray(np.pad(a, widths, mode=padding_mode))
    if palette is not None:
        out.putpalette(palette)
    return out


def crop(img, top, left, height, width):
    _check(img)
    return img.crop((left, top, left + width, top + height))


def resize(img, size, interpolation):
    _check(img)
    return img.resize(tuple(size[::-1]), interpolation)


def affine(img, matrix, interpolation, fill=None):
    _check(img)
    return img.transform(img.size, pil().AFFINE, matrix, interpolation, **parse_fill(fill, img))


def rotate(img, angle, interpolation, expand=False, center=None, fill=None):
    _check(img)
    return img.rotate(angle, interpolation, expand, center, **parse_fill(fill, img))


def perspective(img, coeffs, interpolation, fill=None):
    _check(img)
    return img.transform(img.size, pil().PERSPECTIVE, coeffs, interpolation,
                         **parse_fill(fill, img))


def to_grayscale(img, num_output_channels):
    _check(img)
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    gray = img.convert("L")
    if num_output_channels == 3:
        g = np.array(gray, dtype=np.uint8)
        gray = pil().fromarray(np.dstack([g, g, g]), "RGB")
    return gray


def _ops(name, img, *args):
    from PIL import ImageOps
    _check(img)
    return getattr(ImageOps, name)(img, *args)


def invert(img):
    return _ops("invert", img)


def posterize(img, bits):
    return _ops("posterize", img, bits)


def solarize(img, threshold):
    return _ops("solarize", img, threshold)


def autocontrast(img):
    return _ops("autocontrast", img)


def equalize(img):
    return _ops("equalize", img)
