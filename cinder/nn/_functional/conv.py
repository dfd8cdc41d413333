"""``nn.functional``, convolutions and the sliding-block unfold/fold.

Re-exported by ``cinder/nn/functional.py`` (the module users import).
"""

from ...ops.nn import conv as _conv

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "conv_tbc", "unfold", "fold"]


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
