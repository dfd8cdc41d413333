"""``torchvision.transforms.v2.functional``: the image functions of v1 under this name, plus the
bounding-box kernels of v2 and flips that dispatch on the tv_tensors types.

Box kernels cover the axis-aligned formats (XYXY, XYWH, CXCYWH); rotated formats (XYWHR,
CXCYWHR, XYXYXYXY) raise NotImplementedError. Any other name is looked up in the v1
``transforms.functional`` module (``resize``, ``crop``, ``hflip``, ...).
"""

from .... import Tensor
from ....ops import FUNCTIONS as _F
from ... import tv_tensors
from .. import functional as _v1

BoundingBoxFormat = tv_tensors.BoundingBoxFormat

__all__ = ["clamp_bounding_boxes", "convert_bounding_box_format", "crop_bounding_boxes",
           "horizontal_flip", "horizontal_flip_bounding_boxes", "resize", "resize_bounding_boxes",
           "resize_mask", "vertical_flip", "vertical_flip_bounding_boxes"]


def __getattr__(name):
    """The v1 functional of that name (v2 keeps v1's image functions)."""
    try:
        return getattr(_v1, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def as_plain(inpt):
    """The tensor under a TVTensor, as a plain Tensor (no metadata, no __torch_function__)."""
    return inpt.as_subclass(Tensor)


def _format(value):
    return BoundingBoxFormat[value.upper()] if isinstance(value, str) else value


def _axis_aligned(format):
    if tv_tensors.is_rotated_bounding_format(format):
        raise NotImplementedError(f"cinder's v2 box kernels do not support rotated boxes "
                                  f"({format}) yet")


# ------------------------------------------------------------------------------------------------
# Formats and clamping
# ------------------------------------------------------------------------------------------------
def _to_xyxy(boxes, format):
    """``boxes`` (a fresh tensor this function may change) from ``format`` to XYXY."""
    if format == BoundingBoxFormat.XYWH:
        boxes[..., 2:] += boxes[..., :2]
    elif format == BoundingBoxFormat.CXCYWH:
        dtype = boxes.dtype
        work = boxes if boxes.is_floating_point() else boxes.float()  # as torchvision: float math
        half = work[..., 2:] / 2
        work[..., :2].sub_(half)
        work[..., 2:].add_(work[..., :2])
        boxes = work.to(dtype)
    return boxes


def _from_xyxy(boxes, format):
    """``boxes`` (a fresh XYXY tensor this function may change) to ``format``."""
    if format == BoundingBoxFormat.XYWH:
        boxes[..., 2:] -= boxes[..., :2]
    elif format == BoundingBoxFormat.CXCYWH:
        boxes[..., 2:].sub_(boxes[..., :2])
        rounding = None if boxes.is_floating_point() else "floor"
        boxes[..., :2].mul_(2).add_(boxes[..., 2:]).div_(2, rounding_mode=rounding)
    return boxes


def _convert(boxes, old_format, new_format, inplace=False):
    if new_format == old_format:
        return boxes
    if tv_tensors.is_rotated_bounding_format(old_format) ^ \
            tv_tensors.is_rotated_bounding_format(new_format):
        raise ValueError("Cannot convert between rotated and unrotated bounding boxes.")
    _axis_aligned(old_format)
    work = boxes if inplace else boxes.clone()
    return _from_xyxy(_to_xyxy(work, old_format), new_format)


def convert_bounding_box_format(inpt, old_format=None, new_format=None, inplace=False):
    """Boxes in ``new_format``: a BoundingBoxes (its own format is the old one) or a plain
    tensor with ``old_format`` given."""
    if new_format is None:
        raise TypeError("convert_bounding_box_format() missing 1 required argument: "
                        "'new_format'")
    old_format, new_format = _format(old_format), _format(new_format)
    if isinstance(inpt, tv_tensors.BoundingBoxes):
        if old_format is not None:
            raise ValueError("For bounding box tv_tensor inputs, `old_format` must not be "
                             "passed.")
        out = _convert(as_plain(inpt), inpt.format, new_format, inplace)
        return tv_tensors.wrap(out, like=inpt, format=new_format)
    if _v1._is_tensor(inpt) and not isinstance(inpt, tv_tensors.TVTensor):
        if old_format is None:
            raise ValueError("For pure tensor inputs, `old_format` has to be passed.")
        return _convert(inpt, old_format, new_format, inplace)
    raise TypeError(f"Input can either be a plain tensor or a bounding box tv_tensor, but got "
                    f"{type(inpt)} instead.")


def _clamp(boxes, format, canvas_size, clamping_mode):
    """Keep the boxes inside the canvas (soft and hard agree for axis-aligned boxes)."""
    if clamping_mode is None:
        return boxes.clone()
    _axis_aligned(format)
    dtype = boxes.dtype
    work = boxes.clone() if boxes.is_floating_point() else boxes.float()
    xyxy = _to_xyxy(work, format)
    xyxy[..., 0::2].clamp_(min=0, max=canvas_size[1])
    xyxy[..., 1::2].clamp_(min=0, max=canvas_size[0])
    return _from_xyxy(xyxy, format).to(dtype)


def clamp_bounding_boxes(inpt, format=None, canvas_size=None, clamping_mode="auto"):
    """Clamp boxes to their canvas; ``clamping_mode="auto"`` takes a BoundingBoxes' own."""
    if clamping_mode is not None and clamping_mode not in ("soft", "hard", "auto"):
        raise ValueError(f"clamping_mode must be soft, hard, auto or None, got {clamping_mode}")
    if isinstance(inpt, tv_tensors.BoundingBoxes):
        if format is not None or canvas_size is not None:
            raise ValueError("For bounding box tv_tensor inputs, `format` and `canvas_size` "
                             "must not be passed.")
        if clamping_mode == "auto":
            clamping_mode = inpt.clamping_mode
        out = _clamp(as_plain(inpt), inpt.format, inpt.canvas_size, clamping_mode)
        return tv_tensors.wrap(out, like=inpt)
    if _v1._is_tensor(inpt) and not isinstance(inpt, tv_tensors.TVTensor):
        if format is None or canvas_size is None or clamping_mode == "auto":
            raise ValueError("For pure tensor inputs, `format`, `canvas_size` and "
                             "`clamping_mode` have to be passed.")
        return _clamp(inpt, _format(format), canvas_size, clamping_mode)
    raise TypeError(f"Input can either be a plain tensor or a bounding box tv_tensor, but got "
                    f"{type(inpt)} instead.")


# ------------------------------------------------------------------------------------------------
# Geometry of boxes
# ------------------------------------------------------------------------------------------------
def _flip_boxes(boxes, format, extent, first):
    """Mirror coordinates ``first`` (0: x, 1: y) across ``extent`` (width or height)."""
    _axis_aligned(format)
    shape = boxes.shape
    out = boxes.clone().reshape(-1, 4)
    low, high = first, first + 2
    if format == BoundingBoxFormat.XYXY:
        out[:, [high, low]] = out[:, [low, high]].sub_(extent).neg_()
    elif format == BoundingBoxFormat.XYWH:
        out[:, low].add_(out[:, high]).sub_(extent).neg_()
    else:                                               # CXCYWH: only the centre moves
        out[:, low].sub_(extent).neg_()
    return out.reshape(shape)


def horizontal_flip_bounding_boxes(bounding_boxes, format, canvas_size):
    """Boxes of an image flipped left to right."""
    return _flip_boxes(bounding_boxes, _format(format), canvas_size[1], 0)


def vertical_flip_bounding_boxes(bounding_boxes, format, canvas_size):
    """Boxes of an image flipped upside down."""
    return _flip_boxes(bounding_boxes, _format(format), canvas_size[0], 1)


def resize_bounding_boxes(bounding_boxes, canvas_size, size, max_size=None,
                          format=BoundingBoxFormat.XYXY, clamping_mode="soft"):
    """Boxes of an image resized to ``size`` (as ``resize`` reads it): (boxes, new canvas)."""
    format = _format(format)
    _axis_aligned(format)
    old_h, old_w = canvas_size
    size = [size] if isinstance(size, int) else list(size)
    new_h, new_w = _v1._resized_size(canvas_size, size, max_size)
    if (new_h, new_w) == (old_h, old_w):
        return bounding_boxes, canvas_size
    ratios = _F["tensor"]([new_w / old_w, new_h / old_h] * 2, device=bounding_boxes.device)
    return bounding_boxes.mul(ratios).to(bounding_boxes.dtype), (new_h, new_w)


def crop_bounding_boxes(bounding_boxes, format, top, left, height, width, clamping_mode="soft"):
    """Boxes of an image cropped to (top, left, height, width), clamped to the crop:
    (boxes, new canvas)."""
    format = _format(format)
    _axis_aligned(format)
    shift = [left, top, left, top] if format == BoundingBoxFormat.XYXY else [left, top, 0, 0]
    moved = bounding_boxes - _F["tensor"](shift, dtype=bounding_boxes.dtype,
                                          device=bounding_boxes.device)
    canvas = (height, width)
    return _clamp(moved, format, canvas, clamping_mode), canvas


# ------------------------------------------------------------------------------------------------
# Flips of any input
# ------------------------------------------------------------------------------------------------
def _flip(inpt, box_kernel, image_kernel):
    if isinstance(inpt, tv_tensors.BoundingBoxes):
        out = box_kernel(as_plain(inpt), inpt.format, inpt.canvas_size)
        return tv_tensors.wrap(out, like=inpt)
    if isinstance(inpt, tv_tensors.TVTensor):            # Image, Video, Mask: same pixels move
        return tv_tensors.wrap(image_kernel(as_plain(inpt)), like=inpt)
    return image_kernel(inpt)


def horizontal_flip(inpt):
    """Flip left to right: images, videos, masks and plain tensors by pixels, boxes by
    coordinates; the result has the input's type."""
    return _flip(inpt, horizontal_flip_bounding_boxes, _v1.hflip)


def vertical_flip(inpt):
    """Flip upside down (see ``horizontal_flip``)."""
    return _flip(inpt, vertical_flip_bounding_boxes, _v1.vflip)


# ------------------------------------------------------------------------------------------------
# Resizing any input
# ------------------------------------------------------------------------------------------------
def _interpolation(value):
    """v2 also takes the mode's name ("bilinear")."""
    if isinstance(value, str):
        return _v1.InterpolationMode(value.lower())
    return value


def resize_mask(mask, size, interpolation=_v1.InterpolationMode.BILINEAR, max_size=None):
    """Resize masks with nearest-neighbour sampling whatever ``interpolation`` says (only the
    NEAREST modes make sense for labels); a 2-D mask stays 2-D."""
    interpolation = _interpolation(interpolation)
    if interpolation not in (_v1.InterpolationMode.NEAREST, _v1.InterpolationMode.NEAREST_EXACT):
        interpolation = _v1.InterpolationMode.NEAREST
    flat = mask.ndim < 3
    out = _v1.resize(mask.unsqueeze(0) if flat else mask, size, interpolation, max_size)
    return out.squeeze(0) if flat else out


def resize(inpt, size, interpolation=_v1.InterpolationMode.BILINEAR, max_size=None,
           antialias=True):
    """Resize images, videos and plain tensors (``interpolation``), masks (nearest) and boxes
    (scaled coordinates, new canvas_size); the result has the input's type."""
    if isinstance(inpt, tv_tensors.BoundingBoxes):
        out, canvas = resize_bounding_boxes(as_plain(inpt), inpt.canvas_size, size, max_size,
                                            format=inpt.format,
                                            clamping_mode=inpt.clamping_mode)
        return tv_tensors.wrap(out, like=inpt, canvas_size=canvas)
    if isinstance(inpt, tv_tensors.Mask):
        return tv_tensors.wrap(resize_mask(as_plain(inpt), size, interpolation, max_size),
                               like=inpt)
    out = _v1.resize(as_plain(inpt) if isinstance(inpt, Tensor) else inpt, size,
                     _interpolation(interpolation), max_size, antialias)
    return tv_tensors.wrap(out, like=inpt) if isinstance(inpt, tv_tensors.TVTensor) else out
