"""``nn.functional``, spatial transformers: affine_grid and grid_sample.

Re-exported by ``cinder/nn/functional.py`` (the module users import).
"""


from . import _op, warn as _warn

__all__ = ["affine_grid", "grid_sample"]

_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")


_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the "
                  "old behavior is desired. See the documentation of grid_sample for details.")


def affine_grid(theta, size, align_corners=None):
    """Sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps ``theta`` (N, 2, 3)
    or (N, 3, 4) for an output of ``size``; coordinates in [-1, 1], x first."""
    if align_corners is None:
        _warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    nd = len(size) - 2
    if nd not in (2, 3):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if theta.dim() != 3 or theta.shape[-2] != nd or theta.shape[-1] != nd + 1:
        kind = "2D affine matrices of shape Nx2x3" if nd == 2 else \
            "3D affine matrices of shape Nx3x4"
        raise ValueError(f"Expected a batch of {kind} for size {size}. Got {theta.shape}.")
    spatial = list(size[2:])
    if align_corners and min(spatial) == 1:
        _warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return _op("affine_grid_generator")(theta, size, align_corners)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` (N, C, H, W) or (N, C, D, H, W) at the normalised locations of
    ``grid`` (N, *out, 2 or 3; x first) with bilinear, nearest or (4-D input only) bicubic
    interpolation; points outside read zeros, the border value, or a reflection
    (``padding_mode``). Gradients flow to both input and grid (``torch.grid_sampler`` does
    the work, with the modes as its integer codes)."""
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        _warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    return _op("grid_sampler")(input, grid, _MODES.index(mode), _PADDINGS.index(padding_mode),
                               align_corners)
