"""``torchvision.tv_tensors``: tensors that say what they hold (Image, Video, Mask,
BoundingBoxes).

A TVTensor is a Tensor subclass. Operations on it return plain Tensors (wrapping every result
would cost time and could carry wrong metadata), except ``clone``, ``to``, ``detach``,
``requires_grad_`` and ``pin_memory``, which keep the type and the metadata; inside
``set_return_type("TVTensor")`` every result keeps the type. ``BoundingBoxes`` carries its
``format``, ``canvas_size`` (height, width) and ``clamping_mode``.

The v2 transforms of cinder do not dispatch on these types yet (boxes and masks are not moved
along with the image); the types, their metadata and their tensor behaviour are torchvision's.
"""

from enum import Enum

from PIL import Image as _PILImage

from ... import Tensor
from ... import _C
from ...ops import FUNCTIONS as _F
from ..transforms.functional import pil_to_tensor

__all__ = ["BoundingBoxFormat", "BoundingBoxes", "Image", "Mask", "TVTensor", "Video",
           "is_rotated_bounding_format", "set_return_type", "wrap"]

# ------------------------------------------------------------------------------------------------
# Whether operations return TVTensors (set_return_type)
# ------------------------------------------------------------------------------------------------
_return_subclass = [False]


class _ReturnTypeContext:
    """Returned by ``set_return_type``: as a context manager it restores the previous setting."""

    def __init__(self, previous):
        self.previous = previous

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        _return_subclass[0] = self.previous


def set_return_type(return_type):
    """Whether torch operations on TVTensors return TVTensors ("TVTensor") or plain tensors
    ("Tensor", the default); usable globally or as a context manager."""
    previous = _return_subclass[0]
    try:
        _return_subclass[0] = {"tensor": False, "tvtensor": True}[return_type.lower()]
    except KeyError:
        raise ValueError(f"return_type must be 'TVTensor' or 'Tensor', got {return_type}") \
            from None
    return _ReturnTypeContext(previous)


# The methods whose results keep the TVTensor type whatever the setting (pin_memory too, once
# cinder's Tensor has it).
_KEEP_TYPE = {getattr(Tensor, name) for name in ("clone", "to", "detach", "requires_grad_",
                                                 "pin_memory") if hasattr(Tensor, name)}


def _flatten(obj):
    """The leaves of nested tuples, lists and dicts (torch's tree_flatten, leaves only)."""
    if isinstance(obj, (tuple, list)):
        return [leaf for item in obj for leaf in _flatten(item)]
    if isinstance(obj, dict):
        return [leaf for item in obj.values() for leaf in _flatten(item)]
    return [obj]


# ------------------------------------------------------------------------------------------------
# The base class
# ------------------------------------------------------------------------------------------------
class TVTensor(Tensor):
    """Base class of the tensors that carry what they hold (see the module docstring)."""

    @staticmethod
    def _to_tensor(data, dtype=None, device=None, requires_grad=None):
        if requires_grad is None:
            requires_grad = data.requires_grad if isinstance(data, Tensor) else False
        return _F["as_tensor"](data, dtype=dtype, device=device).requires_grad_(requires_grad)

    @classmethod
    def _wrap_output(cls, output, args=(), kwargs=None):
        if isinstance(output, Tensor) and not isinstance(output, cls):
            output = output.as_subclass(cls)
        if isinstance(output, (tuple, list)):
            output = type(output)(cls._wrap_output(part, args, kwargs) for part in output)
        return output

    @classmethod
    def wrap(cls, tensor, like, **kwargs):
        """``tensor`` as this TVTensor type, with ``like``'s metadata."""
        return tensor.as_subclass(cls)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with _C.DisableTorchFunctionSubclass():
            output = func(*args, **(kwargs or {}))
        if _return_subclass[0] or (func in _KEEP_TYPE and isinstance(args[0], cls)):
            return cls._wrap_output(output, args, kwargs)
        if isinstance(output, cls):
            return output.as_subclass(Tensor)
        return output

    def _make_repr(self, **kwargs):
        extra = ", ".join(f"{key}={value}" for key, value in kwargs.items())
        return f"{super().__repr__()[:-1]}, {extra})"

    def __deepcopy__(self, memo):
        return self.detach().clone().requires_grad_(self.requires_grad)


def _from_pil(data):
    if isinstance(data, _PILImage.Image):
        return pil_to_tensor(data)
    return data


class Image(TVTensor):
    """An image or a batch of images, ``[..., C, H, W]``; a 2-D input gets a channel dim.
    Accepts anything ``torch.as_tensor`` does, and PIL images."""

    def __new__(cls, data, *, dtype=None, device=None, requires_grad=None):
        tensor = cls._to_tensor(_from_pil(data), dtype=dtype, device=device,
                                requires_grad=requires_grad)
        if tensor.ndim < 2:
            raise ValueError(f"Tensor must be 2D or higher, got {tensor.ndim}D tensor.")
        if tensor.ndim == 2:
            tensor = tensor.unsqueeze(0)
        return tensor.as_subclass(cls)

    def __repr__(self, *, tensor_contents=None):
        return self._make_repr()


class Video(TVTensor):
    """A video or a batch of videos, ``[..., T, C, H, W]``."""

    def __new__(cls, data, *, dtype=None, device=None, requires_grad=None):
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim < 4:
            raise ValueError
        return tensor.as_subclass(cls)

    def __repr__(self, *, tensor_contents=None):
        return self._make_repr()


class Mask(TVTensor):
    """Segmentation or detection masks, ``[..., H, W]``; accepts PIL images too."""

    def __new__(cls, data, *, dtype=None, device=None, requires_grad=None):
        tensor = cls._to_tensor(_from_pil(data), dtype=dtype, device=device,
                                requires_grad=requires_grad)
        return tensor.as_subclass(cls)


# ------------------------------------------------------------------------------------------------
# Bounding boxes
# ------------------------------------------------------------------------------------------------
class BoundingBoxFormat(Enum):
    """How the numbers of a box are laid out: XYXY (corners), XYWH (corner and size), CXCYWH
    (centre and size), and the rotated forms XYWHR, CXCYWHR (angle in degrees) and XYXYXYXY
    (four corners)."""

    XYXY = "XYXY"
    XYWH = "XYWH"
    CXCYWH = "CXCYWH"
    XYWHR = "XYWHR"
    CXCYWHR = "CXCYWHR"
    XYXYXYXY = "XYXYXYXY"


_ROTATED = ("XYWHR", "CXCYWHR", "XYXYXYXY")


def is_rotated_bounding_format(format):
    """Whether ``format`` (a BoundingBoxFormat or its name) describes rotated boxes."""
    if isinstance(format, BoundingBoxFormat):
        return format.value in _ROTATED
    if isinstance(format, str):
        return format in _ROTATED
    raise ValueError(f"format should be str or BoundingBoxFormat, got {type(format)}")


class BoundingBoxes(TVTensor):
    """``[N, K]`` boxes (K = 4, or 5/8 for rotated formats) on an image of ``canvas_size``
    (height, width), in ``format``; ``clamping_mode`` is "soft" (default), "hard" or None."""

    @classmethod
    def _wrap(cls, tensor, *, format, canvas_size, clamping_mode="soft", check_dims=True):
        if check_dims:
            if tensor.ndim == 1:
                tensor = tensor.unsqueeze(0)
            elif tensor.ndim != 2:
                raise ValueError(f"Expected a 1D or 2D tensor, got {tensor.ndim}D")
        if clamping_mode is not None and clamping_mode not in ("hard", "soft"):
            raise ValueError(f"clamping_mode must be None, hard or soft, got {clamping_mode}.")
        if isinstance(format, str):
            format = BoundingBoxFormat[format.upper()]
        boxes = tensor.as_subclass(cls)
        boxes.format, boxes.canvas_size, boxes.clamping_mode = format, canvas_size, clamping_mode
        return boxes

    @classmethod
    def wrap(cls, tensor, like, **kwargs):
        return cls._wrap(tensor, format=kwargs.get("format", like.format),
                         canvas_size=kwargs.get("canvas_size", like.canvas_size),
                         clamping_mode=kwargs.get("clamping_mode", like.clamping_mode))

    def __new__(cls, data, *, format, canvas_size, clamping_mode="soft", dtype=None,
                device=None, requires_grad=None):
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if not tensor.is_floating_point() and is_rotated_bounding_format(format):
            raise ValueError(f"Rotated bounding boxes should be floating point tensors, got "
                             f"{tensor.dtype}.")
        return cls._wrap(tensor, format=format, canvas_size=canvas_size,
                         clamping_mode=clamping_mode)

    @classmethod
    def _wrap_output(cls, output, args=(), kwargs=None):
        # The metadata of the first BoundingBoxes among the arguments goes to the result(s).
        leaves = _flatten(tuple(args) + (tuple(kwargs.values()) if kwargs else ()))
        first = next(x for x in leaves if isinstance(x, BoundingBoxes))
        meta = dict(format=first.format, canvas_size=first.canvas_size,
                    clamping_mode=first.clamping_mode, check_dims=False)
        if isinstance(output, Tensor) and not isinstance(output, BoundingBoxes):
            return BoundingBoxes._wrap(output, **meta)
        if isinstance(output, (tuple, list)):          # chunk(), unbind()
            return type(output)(BoundingBoxes._wrap(part, **meta) for part in output)
        return output

    def __repr__(self, *, tensor_contents=None):
        return self._make_repr(format=self.format, canvas_size=self.canvas_size,
                               clamping_mode=self.clamping_mode)


def wrap(wrappee, *, like, **kwargs):
    """``wrappee`` (a Tensor) as the TVTensor type of ``like``, with its metadata (fields in
    ``kwargs`` override it)."""
    wrap_method = getattr(type(like), "wrap", None)
    if wrap_method is not None:
        return wrap_method(wrappee, like, **kwargs)
    return wrappee.as_subclass(type(like))
