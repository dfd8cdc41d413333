"""``torch.affine_grid_generator``: the sampling grid of a batch of affine maps (the kernel
behind ``nn.functional.affine_grid``), composed of differentiable cinder ops."""

from .._registry import FUNCTIONS, register


def _coords(steps, align_corners, like):
    """Normalised pixel coordinates along one dim in [-1, 1] (pixel centres unless
    ``align_corners``); a single pixel sits at 0."""
    if steps <= 1:
        return FUNCTIONS["zeros"](max(steps, 0), dtype=like.dtype, device=like.device)
    line = FUNCTIONS["linspace"](-1, 1, steps, dtype=like.dtype, device=like.device)
    # two roundings, times (steps - 1) then over steps, as PyTorch's kernel: grid_sample's
    # gradient jumps where a coordinate crosses a pixel centre, so the last bit matters
    return line if align_corners else line * (steps - 1) / steps


def affine_grid_generator(theta, size, align_corners):
    """Grid (N, H, W, 2) or (N, D, H, W, 3) of ``theta`` (N, 2, 3) / (N, 3, 4) applied to the
    normalised coordinates of an output of ``size`` (x first in the last dim)."""
    spatial = list(size[2:])
    nd = len(spatial)
    axes = [_coords(n, align_corners, theta) for n in spatial]
    parts = []
    for i in range(nd):          # coordinate i (x = 0) varies along spatial dim nd - 1 - i
        dim = nd - 1 - i
        shape = [1] * nd
        shape[dim] = spatial[dim]
        parts.append(axes[dim].reshape(shape).expand(*spatial))
    parts.append(FUNCTIONS["ones"](spatial, dtype=theta.dtype, device=theta.device))
    base = FUNCTIONS["stack"](parts, -1).reshape(1, -1, nd + 1)
    grid = base.matmul(theta.transpose(1, 2))
    return grid.reshape([theta.shape[0]] + spatial + [nd])


register("affine_grid_generator", affine_grid_generator, method=False, family="nn.vision")
