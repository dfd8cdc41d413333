"""``torch.nn.functional``: the stateless functions behind the nn modules.

Each function checks its arguments the way PyTorch does and calls ops from the op table; the
heavy lifting is in ``cinder/ops/nn`` (fused kernels with explicit backward).
"""

from .. import ops as _ops
from ..ops.nn import conv as _conv
from ..ops.nn import pool as _pool

# --- convolution ---

conv1d = _conv.conv1d
conv2d = _conv.conv2d
conv3d = _conv.conv3d
conv_transpose1d = _conv.conv_transpose1d
conv_transpose2d = _conv.conv_transpose2d
conv_transpose3d = _conv.conv_transpose3d
conv_tbc = _conv.conv_tbc


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding local blocks of a batched (N, C, H, W) or unbatched (C, H, W) input
    into columns: (N, C * prod(kernel_size), L), L the number of blocks."""
    if input.dim() == 3:
        return _conv.im2col_op(input.unsqueeze(0), kernel_size, dilation, padding,
                               stride).squeeze(0)
    if input.dim() != 4:
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported "
                                  f"(got {input.dim()}D)")
    return _conv.im2col_op(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Combine sliding local blocks (N, C * prod(kernel_size), L) into a (N, C, *output_size)
    tensor, summing where blocks overlap (the adjoint of ``unfold``)."""
    if input.dim() == 2:
        return _conv.col2im_op(input.unsqueeze(0), output_size, kernel_size, dilation, padding,
                               stride).squeeze(0)
    if input.dim() != 3:
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input "
                                  f"Tensors are supported (got {input.dim()}D)")
    return _conv.col2im_op(input, output_size, kernel_size, dilation, padding, stride)

# --- pooling ---

max_pool1d_with_indices = _pool.max_pool1d_with_indices
max_pool2d_with_indices = _pool.max_pool2d_with_indices
max_pool3d_with_indices = _pool.max_pool3d_with_indices
avg_pool1d = _pool.avg_pool1d
avg_pool2d = _pool.avg_pool2d
avg_pool3d = _pool.avg_pool3d


def _max_pool_fn(with_indices, name):
    def max_pool(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                 return_indices=False):
        values, indices = with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
        return (values, indices) if return_indices else values

    max_pool.__name__ = max_pool.__qualname__ = name
    max_pool.__doc__ = (f"{name[-2]}-d max pooling; with ``return_indices`` also the flat "
                        "per-channel positions of the maxima (for ``max_unpool``).")
    return max_pool


max_pool1d = _max_pool_fn(max_pool1d_with_indices, "max_pool1d")
max_pool2d = _max_pool_fn(max_pool2d_with_indices, "max_pool2d")
max_pool3d = _max_pool_fn(max_pool3d_with_indices, "max_pool3d")
