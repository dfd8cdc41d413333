"""``nn.functional``, padding, resampling (interpolate / upsample), pixel and channel shuffle.

Re-exported by ``cinder/nn/functional.py`` (the module users import).
"""

from ...ops.nn import channel_shuffle as _shuffle
from ...ops.nn import pad as _pad
from ...ops.nn import upsample as _upsample
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

from . import warn as _warn

__all__ = ["pad", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear",
           "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle"]


_PAD_COMBINATIONS = ("Supported combinations for non-constant padding:\n"
                     "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                     "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                     "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def pad(input, pad, mode="constant", value=None):
    """Pad ``input``: ``pad`` lists (before, after) amounts starting from the last dim.
    ``mode`` is 'constant' (with ``value``, default 0; any number of dims, negative amounts
    crop), 'reflect', 'replicate' or 'circular' (the last 1-3 dims of a batched or unbatched
    input)."""
    if mode == "constant":
        return _pad.constant_pad_nd(input, pad, 0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pad) // 2
    if len(pad) % 2 or k not in (1, 2, 3) or input.dim() not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for "
                                  f"{input.dim()}D input tensor.\n{_PAD_COMBINATIONS}")
    return _pad.index_pad(input, pad, mode)


def _interp_sizes(input, size, scale_factor, recompute_scale_factor, mode):
    """(output size, per-dim scales or None) following PyTorch's rules."""
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format.")
            out = [int(v) for v in size]
        else:
            out = [int(size)] * dim
        scales = None
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scales = [float(v) for v in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
        out = [int(n * sc) for n, sc in zip(input.shape[2:], scales)]
        if recompute_scale_factor or mode == "area":
            scales = None
    else:
        raise ValueError("either size or scale_factor should be defined")
    return out, scales


_INTERP_DIMS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims of a (N, C, *spatial) input to ``size`` or by ``scale_factor``.
    Modes: 'nearest', 'nearest-exact', 'linear' (3-D), 'bilinear' / 'bicubic' (4-D),
    'trilinear' (5-D) and 'area' (adaptive average pooling). ``align_corners`` maps the corner
    pixels onto each other (interpolating modes only)."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    out, scales = _interp_sizes(input, size, scale_factor, recompute_scale_factor, mode)
    if antialias:
        if not (mode in ("bilinear", "bicubic") and input.dim() == 4):
            raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                             "modes and requires a 4-D tensor as input")
        kind = "cubic-aa" if mode == "bicubic" else "linear-aa"
        return _upsample.resample(input, out, kind, align_corners, scales)
    if input.dim() not in (3, 4, 5):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
            "the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
            f"nearest-exact (got {mode})")
    if mode in ("nearest", "nearest-exact"):
        return _upsample.resample(input, out, mode, False, scales)
    if mode == "area":
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[
            input.dim() - 3](input, out)
    need = _INTERP_DIMS.get(mode)
    if need is None:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
            "the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
            f"nearest-exact (got {mode})")
    if input.dim() != need:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {need}D "
                                  "input")
    kernel = "cubic" if mode == "bicubic" else "linear"
    return _upsample.resample(input, out, kernel, align_corners, scales)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of ``interpolate`` (warns, as PyTorch does)."""
    _warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode='nearest')``."""
    _warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)``."""
    _warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


pixel_shuffle = _upsample.pixel_shuffle
pixel_unshuffle = _upsample.pixel_unshuffle


def channel_shuffle(input, groups):
    """Split the C channels of (N, C, *) into ``groups`` and interleave them."""
    return _shuffle.channel_shuffle(input, groups)


native_channel_shuffle = channel_shuffle
