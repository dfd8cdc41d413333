"""``torchvision.io`` image functions through Pillow: bytes <-> uint8 (C, H, W) tensors.

torchvision decodes with libpng/libjpeg in its compiled ``image.so``; cinder uses Pillow, which
decodes PNG identically and JPEG with the same libjpeg(-turbo) family (results can differ by
a grey level where the IDCT implementations differ). Videos are not supported.
"""

import enum
import io

import numpy as np

from ...ops import FUNCTIONS as _F
from ..transforms._functional_pil import pil
from ..transforms._functional_tensor import arr
from ... import uint8

__all__ = ["ImageReadMode", "read_file", "write_file", "decode_image", "decode_png",
           "decode_jpeg", "encode_png", "encode_jpeg", "read_image", "write_png",
           "write_jpeg"]


class ImageReadMode(enum.Enum):
    """How to convert colours while decoding."""

    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4
    RGBA = RGB_ALPHA


_PIL_MODE = {ImageReadMode.GRAY: "L", ImageReadMode.GRAY_ALPHA: "LA",
             ImageReadMode.RGB: "RGB", ImageReadMode.RGB_ALPHA: "RGBA"}


def _mode(mode):
    if isinstance(mode, str):
        mode = ImageReadMode[mode.upper()]
    return mode


def read_file(path):
    """The file's bytes as a 1-d uint8 tensor."""
    with open(path, "rb") as f:
        data = f.read()
    return _F["from_numpy"](np.frombuffer(data, dtype=np.uint8).copy())


def write_file(filename, data):
    """Write a 1-d uint8 tensor's bytes to ``filename``."""
    with open(filename, "wb") as f:
        f.write(arr(data).astype(np.uint8).tobytes())


def _bytes(data):
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    if data.dtype != _uint8() or data.ndim != 1:
        raise RuntimeError("Expected a 1-dimensional uint8 tensor of encoded bytes")
    return arr(data).tobytes()


def _uint8():
    return uint8


def decode_image(input, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """Decode PNG/JPEG/GIF/BMP/WEBP bytes (or read a path) into a uint8 (C, H, W) tensor."""
    if isinstance(input, str):
        input = read_file(input)
    mode = _mode(mode)
    img = pil().open(io.BytesIO(_bytes(input)))
    if apply_exif_orientation:
        from PIL import ImageOps
        img = ImageOps.exif_transpose(img)
    if mode != ImageReadMode.UNCHANGED:
        img = img.convert(_PIL_MODE[mode])
    elif img.mode not in ("L", "LA", "RGB", "RGBA"):
        img = img.convert("RGBA" if "A" in img.getbands() else "RGB")
    a = np.asarray(img, dtype=np.uint8)
    a = a[:, :, None] if a.ndim == 2 else a
    return _F["from_numpy"](np.ascontiguousarray(a.transpose(2, 0, 1)))


decode_png = decode_image
decode_jpeg = decode_image


def read_image(path, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False):
    """Read and decode an image file into a uint8 (C, H, W) tensor."""
    return decode_image(read_file(path), mode, apply_exif_orientation)


def _encode(input, fmt, **options):
    a = arr(input)
    if a.dtype != np.uint8 or a.ndim != 3 or a.shape[0] not in (1, 3):
        raise RuntimeError("Input tensor must be a uint8 (C, H, W) image with 1 or 3 channels")
    hwc = a.transpose(1, 2, 0)
    img = pil().fromarray(np.ascontiguousarray(hwc[:, :, 0] if a.shape[0] == 1 else hwc))
    buf = io.BytesIO()
    img.save(buf, format=fmt, **options)
    return _F["from_numpy"](np.frombuffer(buf.getvalue(), dtype=np.uint8).copy())


def encode_png(input, compression_level=6):
    if not 0 <= compression_level <= 9:
        raise ValueError("Compression level should be between 0 and 9")
    return _encode(input, "PNG", compress_level=compression_level)


def encode_jpeg(input, quality=75):
    if not 1 <= quality <= 100:
        raise ValueError("Image quality should be a positive number between 1 and 100")
    if isinstance(input, list):
        return [_encode(i, "JPEG", quality=quality) for i in input]
    return _encode(input, "JPEG", quality=quality)


def write_png(input, filename, compression_level=6):
    write_file(filename, encode_png(input, compression_level))


def write_jpeg(input, filename, quality=75):
    write_file(filename, encode_jpeg(input, quality))
