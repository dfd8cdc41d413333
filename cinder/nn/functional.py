"""``torch.nn.functional``: the stateless functions behind the nn modules.

Each function checks its arguments the way PyTorch does and calls ops from the op table; the
heavy lifting is in ``cinder/ops/nn`` (fused kernels with explicit backward).
"""

from .. import ops as _ops
from ..ops.nn import conv as _conv
from ..ops.nn import norm as _norm
from ..ops.nn import pad as _pad
from ..ops.nn import pool as _pool
from ..ops.nn._utils import ntuple as _ntuple

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

adaptive_avg_pool1d = _pool.adaptive_avg_pool1d
adaptive_avg_pool2d = _pool.adaptive_avg_pool2d
adaptive_avg_pool3d = _pool.adaptive_avg_pool3d


def _adaptive_max_fn(kernel, name):
    def adaptive_max_pool(input, output_size, return_indices=False):
        values, indices = kernel(input, output_size)
        return (values, indices) if return_indices else values

    adaptive_max_pool.__name__ = adaptive_max_pool.__qualname__ = name
    adaptive_max_pool.__doc__ = (f"Adaptive {name[-2]}-d max pooling to ``output_size``; with "
                                 "``return_indices`` also the positions of the maxima.")
    return adaptive_max_pool


adaptive_max_pool1d = _adaptive_max_fn(_pool.adaptive_max_pool1d, "adaptive_max_pool1d")
adaptive_max_pool2d = _adaptive_max_fn(_pool.adaptive_max_pool2d, "adaptive_max_pool2d")
adaptive_max_pool3d = _adaptive_max_fn(_pool.adaptive_max_pool3d, "adaptive_max_pool3d")
adaptive_max_pool1d_with_indices = _pool.adaptive_max_pool1d
adaptive_max_pool2d_with_indices = _pool.adaptive_max_pool2d
adaptive_max_pool3d_with_indices = _pool.adaptive_max_pool3d


def _unpool_output_size(input, kernel_size, stride, padding, output_size, nd):
    """The unpooled size: the inverse of the pooling size formula, or ``output_size`` (which
    may include the batch and channel dims) after checking it is reachable."""
    k = _ntuple(kernel_size, nd, "kernel_size")
    s = k if stride is None else _ntuple(stride, nd, "stride")
    p = _ntuple(padding, nd, "padding")
    spatial = input.shape[-nd:]
    default = [(n - 1) * ss - 2 * pp + kk for n, ss, pp, kk in zip(spatial, s, p, k)]
    if output_size is None:
        return default
    size = list(output_size)
    if len(size) == nd + 2 or (len(size) == nd + 1 and input.dim() == nd + 1):
        size = size[-nd:]
    if len(size) != nd:
        raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                         f"elements, but it has a length of '{len(size)}'")
    for d, (want, base, ss) in enumerate(zip(size, default, s)):
        if not base - ss < want < base + ss:
            raise ValueError(f'invalid output_size "{size}" (dim {d} must be between '
                             f'{base - ss} and {base + ss})')
    return size


def _max_unpool_fn(nd):
    def max_unpool(input, indices, kernel_size, stride=None, padding=0, output_size=None):
        size = _unpool_output_size(input, kernel_size, stride, padding, output_size, nd)
        if nd == 1:
            return _pool.max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), size + [1],
                                    2).squeeze(-1)
        return _pool.max_unpool(input, indices, size, nd)

    max_unpool.__name__ = max_unpool.__qualname__ = f"max_unpool{nd}d"
    max_unpool.__doc__ = (f"Partial inverse of max_pool{nd}d: each value goes to its index in a "
                          "zero tensor of the unpooled size.")
    return max_unpool


max_unpool1d, max_unpool2d, max_unpool3d = (_max_unpool_fn(n) for n in (1, 2, 3))


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, nd):
    """Power-average pooling: (sum over the window of x**p) ** (1/p), computed as PyTorch
    does from an average pool (sign and relu keep the root real)."""
    k = _ntuple(kernel_size, nd, "kernel_size")
    pool = (avg_pool1d, avg_pool2d, avg_pool3d)[nd - 1]
    if stride is not None:
        out = pool(input.pow(norm_type), k, stride, 0, ceil_mode)
    else:
        out = pool(input.pow(norm_type), k, padding=0, ceil_mode=ceil_mode)
    count = 1
    for v in k:
        count *= v
    return (out.sign() * out.abs().relu()).mul(count).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """1-d power-average pooling (p = ``norm_type``)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """2-d power-average pooling (p = ``norm_type``)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """3-d power-average pooling (p = ``norm_type``)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


# --- normalization ---

def _verify_batch_size(size):
    count = 1
    for i, n in enumerate(size):
        if i != 1:
            count *= n
    if count == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {size}")


def _verify_spatial_size(size):
    count = 1
    for n in size[2:]:
        count *= n
    if count == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{size}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise each channel (dim 1) by batch statistics (training) or by the running
    statistics; in training the running statistics are updated in place with ``momentum``."""
    if training:
        _verify_batch_size(input.size())
    return _norm.batch_norm(input, weight, bias, running_mean, running_var, training,
                            momentum, eps)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each channel of each sample separately (batch norm of a (1, N*C, ...) view);
    running statistics, when given, are updated with the mean over the batch."""
    if use_input_stats:
        _verify_spatial_size(input.size())
    n, c = input.shape[0], input.shape[1]
    shape = (1, n * c) + tuple(input.shape[2:])
    rep = (lambda t: None if t is None else t.repeat(n))
    rm, rv = rep(running_mean), rep(running_var)
    out = _norm.batch_norm(input.reshape(shape), rep(weight), rep(bias), rm, rv,
                           use_input_stats, momentum, eps)
    if use_input_stats:
        from ..autograd.grad_mode import no_grad
        with no_grad():
            if running_mean is not None:
                running_mean.copy_(rm.view(n, c).mean(0))
            if running_var is not None:
                running_var.copy_(rv.view(n, c).mean(0))
    return out.view(input.shape)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the trailing ``normalized_shape`` dims, then scale and shift."""
    return _norm.layer_norm(input, normalized_shape, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Root-mean-square normalisation over the trailing ``normalized_shape`` dims."""
    return _norm.rms_norm(input, normalized_shape, weight, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise groups of channels of each sample, then scale and shift per channel."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups]
                       + list(input.size()[2:]))
    return _norm.group_norm(input, num_groups, weight, bias, eps)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Normalise each position by the sum of squares over ``size`` neighbouring channels:
    ``x / (k + alpha * mean(x**2 over the window)) ** beta``."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


# --- padding ---

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
