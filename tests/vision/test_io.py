"""cinder.vision.io through Pillow. torchvision.io needs its compiled image.so, which the
oracle copy lacks, so these check round trips (PNG exact) and equality with Pillow's decoding."""

import numpy as np
import pytest
from PIL import Image

import cinder
from cinder.vision import io as CIO

RGB = np.random.default_rng(0).integers(0, 256, (3, 9, 11), dtype=np.uint8)


def test_png_round_trip_and_modes(tmp_path):
    img = cinder.from_numpy(RGB.copy())
    path = str(tmp_path / "a.png")
    CIO.write_png(img, path)
    back = CIO.read_image(path)
    assert str(back.dtype) == "torch.uint8" and back.shape == (3, 9, 11)
    np.testing.assert_array_equal(back.numpy(), RGB)
    np.testing.assert_array_equal(np.asarray(Image.open(path)), RGB.transpose(1, 2, 0))
    gray = CIO.read_image(path, CIO.ImageReadMode.GRAY)
    np.testing.assert_array_equal(gray.numpy()[0], np.asarray(Image.open(path).convert("L")))
    rgba = CIO.decode_image(CIO.read_file(path), mode="RGB_ALPHA")
    assert rgba.shape == (4, 9, 11) and (rgba.numpy()[3] == 255).all()


def test_jpeg_encode_decode_and_errors(tmp_path):
    data = CIO.encode_jpeg(cinder.from_numpy(RGB.copy()), quality=95)
    assert data.ndim == 1 and bytes(data.numpy()[:2]) == b"\xff\xd8"
    decoded = CIO.decode_jpeg(data)
    np.testing.assert_array_equal(decoded.numpy(), np.asarray(
        Image.open(__import__("io").BytesIO(data.numpy().tobytes()))).transpose(2, 0, 1))
    with pytest.raises(ValueError, match="Image quality should be a positive number"):
        CIO.encode_jpeg(cinder.from_numpy(RGB.copy()), quality=0)
    path = tmp_path / "raw.bin"
    CIO.write_file(str(path), cinder.from_numpy(np.arange(5, dtype=np.uint8)))
    assert path.read_bytes() == bytes(range(5))
