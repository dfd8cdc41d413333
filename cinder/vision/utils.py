"""``torchvision.utils``: tile images into a grid, save them, draw boxes/masks/keypoints."""

import math
import warnings

import numpy as np

from .. import _tensor
from ..autograd.grad_mode import no_grad
from ..ops import FUNCTIONS as _F
from .transforms._functional_tensor import arr, wrap
from .transforms._functional_pil import pil


def _is_tensor(x):
    return isinstance(x, _tensor.Tensor)


def _as_batch(tensor):
    """A list or tensor of images as one (B, C, H, W) tensor, grey images made 3-channel."""
    if not _is_tensor(tensor):
        if isinstance(tensor, list):
            for t in tensor:
                if not _is_tensor(t):
                    raise TypeError("tensor or list of tensors expected, got a list containing "
                                    f"{type(t)}")
            tensor = _F["stack"](tensor, dim=0)
        else:
            raise TypeError(f"tensor or list of tensors expected, got {type(tensor)}")
    if tensor.dim() == 2:
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 3:
        if tensor.size(0) == 1:
            tensor = _F["cat"]((tensor, tensor, tensor), 0)
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 4 and tensor.size(1) == 1:
        tensor = _F["cat"]((tensor, tensor, tensor), 1)
    return tensor


def _normalized(values, value_range, scale_each):
    """Clamp to the range (default: the values' min and max) and map it onto [0, 1]."""
    def norm(v):
        lo, hi = value_range if value_range is not None else (float(v.min()), float(v.max()))
        v = np.clip(v, lo, hi)
        return ((v - np.asarray(lo, v.dtype)) / np.asarray(max(hi - lo, 1e-5), v.dtype))
    if scale_each:
        return np.stack([norm(v) for v in values])
    return norm(values)


def make_grid(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False,
              pad_value=0.0):
    """Tile a (B, C, H, W) batch (or a list of images) into one image, ``nrow`` per row,
    ``padding`` pixels of ``pad_value`` between and around them."""
    with no_grad():
        tensor = _as_batch(tensor)
        values = arr(tensor)
        if normalize is True:
            if value_range is not None and not isinstance(value_range, tuple):
                raise TypeError("value_range has to be a tuple (min, max) if specified. min and "
                                "max are numbers")
            values = _normalized(values, value_range, scale_each)
            if tensor.size(0) == 1:
                return wrap(values, tensor).squeeze(0)
        elif tensor.size(0) == 1:
            return tensor.squeeze(0)
        n, c, h, w = values.shape
        xmaps = min(nrow, n)
        ymaps = int(math.ceil(float(n) / xmaps))
        height, width = h + padding, w + padding
        grid = np.full((c, height * ymaps + padding, width * xmaps + padding), pad_value,
                       dtype=values.dtype)
        for k in range(n):                  # one slice assignment per image, not per pixel
            y, x = divmod(k, xmaps)
            top, left = y * height + padding, x * width + padding
            grid[:, top:top + height - padding, left:left + width - padding] = values[k]
        return wrap(grid, tensor)


def save_image(tensor, fp, format=None, **kwargs):
    """make_grid, scale [0, 1] to bytes (rounding), and write the picture with Pillow."""
    grid = make_grid(tensor, **kwargs)
    values = arr(grid).astype(np.float32) * 255 + 0.5
    ndarr = np.clip(values, 0, 255).transpose(1, 2, 0).astype(np.uint8)
    pil().fromarray(np.ascontiguousarray(ndarr)).save(fp, format=format)


def _check_drawable(image):
    if not _is_tensor(image):
        raise TypeError(f"Tensor expected, got {type(image)}")
    if not (str(image.dtype) == "torch.uint8" or image.is_floating_point()):
        raise ValueError(f"The image dtype must be uint8 or float, got {image.dtype}")
    if image.dim() != 3:
        raise ValueError("Pass individual images, not batches")
    if image.size(0) not in (1, 3):
        raise ValueError("Only grayscale and RGB images are supported")


def _to_uint8_hwc(image):
    a = arr(image)
    if image.is_floating_point():
        a = (a * 255).astype(np.uint8)
    if a.shape[0] == 1:
        a = np.repeat(a, 3, axis=0)
    return np.ascontiguousarray(a.transpose(1, 2, 0))


def _back(hwc, image):
    out = hwc.transpose(2, 0, 1)
    if image.is_floating_point():
        out = out.astype(np.float32) / 255
    return wrap(out, image)


def _color(c, default):
    from PIL import ImageColor
    if c is None:
        return default
    if isinstance(c, str):
        return ImageColor.getrgb(c)
    if _is_tensor(c):
        return tuple(int(v) for v in c.tolist())
    return tuple(int(v) for v in c)


def draw_bounding_boxes(image, boxes, labels=None, colors=None, fill=False, width=1, font=None,
                        font_size=None, label_colors=None, fill_labels=False):
    """Draw (xmin, ymin, xmax, ymax) boxes on a (C, H, W) uint8 or float image."""
    from PIL import ImageDraw, ImageFont
    _check_drawable(image)
    n = boxes.shape[0]
    if n == 0:
        warnings.warn("boxes doesn't contain any box. No box was drawn", stacklevel=2)
        return image
    b = arr(boxes)
    if ((b[:, 0] > b[:, 2]) | (b[:, 1] > b[:, 3])).any():
        raise ValueError("Boxes need to be in (xmin, ymin, xmax, ymax) format. Use "
                         "torchvision.ops.box_convert to convert them")
    if labels is not None and len(labels) != n:
        warnings.warn(f"Number of boxes ({n}) and labels ({len(labels)}) mismatch. Please "
                      "specify labels for each box.", stacklevel=2)
    palette = _palette(n)
    colors = [colors] * n if colors is None or isinstance(colors, (str, tuple)) else colors
    canvas = pil().fromarray(_to_uint8_hwc(image))
    draw = ImageDraw.Draw(canvas, "RGBA" if fill else None)
    txt = ImageFont.load_default() if font is None else ImageFont.truetype(font, font_size or 10)
    for i, box in enumerate(b.tolist()):
        color = _color(colors[i], palette[i])
        if fill:
            draw.rectangle(box, width=width, outline=color, fill=color + (100,))
        else:
            draw.rectangle(box, width=width, outline=color)
        if labels is not None and i < len(labels) and labels[i] is not None:
            margin = width + 1
            draw.text((box[0] + margin, box[1] + margin), labels[i],
                      fill=_color(label_colors, color) if label_colors else color, font=txt)
    return _back(np.asarray(canvas), image)


def _palette(n):
    """Distinct colours for ``n`` items, from the same generator torchvision uses."""
    base = np.array([2 ** 25 - 1, 2 ** 15 - 1, 2 ** 21 - 1])
    return [tuple(int(v) for v in (i * base) % 255) for i in range(n)]


def draw_segmentation_masks(image, masks, alpha=0.8, colors=None):
    """Blend boolean masks (N, H, W) or (H, W) over the image with ``alpha``."""
    _check_drawable(image)
    m = arr(masks)
    if m.ndim == 2:
        m = m[None]
    if m.ndim != 3:
        raise ValueError("masks must be of shape (H, W) or (batch_size, H, W)")
    if m.dtype != np.bool_:
        raise ValueError(f"The masks must be of dtype bool. Got {masks.dtype}")
    if m.shape[-2:] != tuple(image.shape[-2:]):
        raise ValueError("The image and the masks must have the same height and width")
    if m.shape[0] == 0:
        warnings.warn("masks doesn't contain any mask. No mask was drawn", stacklevel=2)
        return image
    palette = _palette(m.shape[0])
    colors = [colors] * m.shape[0] if colors is None or isinstance(colors, (str, tuple)) \
        else colors
    bound = 1.0 if image.is_floating_point() else 255
    img = arr(image).astype(np.float32)
    if img.shape[0] == 1:
        img = np.repeat(img, 3, axis=0)
    out = img.copy()
    for i in range(m.shape[0]):
        c = np.asarray(_color(colors[i], palette[i]), np.float32) / 255 * bound
        out[:, m[i]] = c[:, None]
    blended = img * (1 - alpha) + out * alpha
    if not image.is_floating_point():
        blended = blended.astype(np.uint8)
    return wrap(blended, image)


def draw_keypoints(image, keypoints, connectivity=None, colors=None, radius=2, width=3,
                   visibility=None):
    """Draw (K, N, 2) keypoints as circles, joined by ``connectivity`` pairs."""
    from PIL import ImageDraw
    _check_drawable(image)
    if keypoints.ndim != 3:
        raise ValueError("keypoints must be of shape (num_instances, K, 2)")
    canvas = pil().fromarray(_to_uint8_hwc(image))
    draw = ImageDraw.Draw(canvas)
    color = _color(colors, (255, 0, 0)) if not isinstance(colors, list) else colors
    pts = arr(keypoints).tolist()
    vis = None if visibility is None else arr(visibility).astype(bool)
    for k, inst in enumerate(pts):
        for j, (x, y) in enumerate(inst):
            if vis is not None and not vis[k if vis.ndim == 2 else 0][j]:
                continue
            draw.ellipse([x - radius, y - radius, x + radius, y + radius], fill=color,
                         outline=None, width=0)
        for a, b in connectivity or []:
            if vis is not None and not (vis[k if vis.ndim == 2 else 0][a] and
                                        vis[k if vis.ndim == 2 else 0][b]):
                continue
            draw.line([tuple(inst[a]), tuple(inst[b])], width=width, fill=color)
    return _back(np.asarray(canvas), image)
