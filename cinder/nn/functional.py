"""``torch.nn.functional``: the stateless functions behind the nn modules.

Each function checks its arguments the way PyTorch does and calls ops from the op table; the
heavy lifting is in ``cinder/ops/nn`` (fused kernels with explicit backward).
"""

from .. import ops as _ops
from ..ops.nn import conv as _conv
from ..ops.nn import embedding as _embedding
from ..ops.nn import norm as _norm
from ..ops.nn import upsample as _upsample
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


# --- sparse (embedding) ---

def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Look up rows of ``weight`` (num_embeddings, embedding_dim) by the integer ``input``.

    ``padding_idx`` rows get no gradient; with ``max_norm`` the looked-up rows are first
    renormalised in place; ``scale_grad_by_freq`` divides gradients by index frequency.
    ``sparse=True`` is accepted but the gradient is dense (cinder has no sparse tensors).
    """
    if padding_idx is not None:
        n = weight.size(0)
        if padding_idx > 0 and padding_idx >= n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            if padding_idx < -n:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = n + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        from ..autograd.grad_mode import no_grad
        with no_grad():
            _embedding.embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    return _embedding.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def _bag_layout(input, offsets, include_last_offset):
    """(flat indices, bag id of each index, number of bags) of an embedding_bag call."""
    import numpy as np
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        bags, length = input.shape
        return input.reshape(-1), np.arange(bags * length) // max(length, 1), bags
    if input.dim() != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.dim() != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    starts = [int(v) for v in offsets.tolist()]
    n = input.shape[0]
    bags = len(starts) - 1 if include_last_offset else len(starts)
    # PyTorch's CPU kernel runs the last bag to the end of the input even when
    # include_last_offset gives a smaller final offset.
    ends = starts[1:bags] + [n]
    bag_of = np.full(n, -1)          # -1: before the first offset
    for b in range(bags):
        bag_of[starts[b]:ends[b]] = b
    return input, bag_of, bags


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embeddings without building the per-index rows' tensor
    as an output: ``input`` is 2-D (one fixed-length bag per row) or 1-D with ``offsets``
    marking where each bag starts. ``per_sample_weights`` (mode 'sum') scales each row."""
    import numpy as np
    from .. import ops as _o
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    flat, bag_of, bags = _bag_layout(input, offsets, include_last_offset)
    rows = embedding(flat, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq)
    n = flat.shape[0]
    keep = bag_of >= 0
    if padding_idx is not None:
        pad_row = padding_idx % weight.shape[0]
        keep &= flat.numpy() != pad_row
    member = np.zeros((bags, n))
    member[bag_of[keep], np.arange(n)[keep]] = 1
    if mode == "max":
        return _bag_max(rows, member, weight)
    mat = _o.FUNCTIONS["tensor"](member, dtype=weight.dtype)
    if per_sample_weights is not None:
        mat = mat * per_sample_weights.reshape(1, -1)
    if mode == "mean":
        count = member.sum(1, keepdims=True)
        mat = mat / _o.FUNCTIONS["tensor"](np.maximum(count, 1), dtype=weight.dtype)
    return mat.matmul(rows) if n else mat.new_zeros((bags, weight.shape[1]))


def _bag_max(rows, member, weight):
    """Per-bag maximum of the member rows (an empty bag gives zeros, as in PyTorch)."""
    import numpy as np
    from .. import ops as _o
    tensor = _o.FUNCTIONS["tensor"]
    inside = tensor(member.astype(bool))[:, :, None]
    lowest = tensor(float("-inf"), dtype=weight.dtype)
    stacked = rows.unsqueeze(0).expand(member.shape[0], -1, -1).where(inside, lowest)
    empty = tensor(~member.astype(bool).any(1))[:, None]
    if member.shape[1] == 0:
        return rows.new_zeros((member.shape[0], weight.shape[1]))
    return stacked.amax(1).masked_fill(empty, 0) if np.any(member) else \
        rows.new_zeros((member.shape[0], weight.shape[1]))


# --- upsampling ---

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
        raise NotImplementedError("cinder: interpolate(antialias=True) is not implemented yet")
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
    import warnings
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode='nearest')``."""
    import warnings
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)``."""
    import warnings
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# --- pixel shuffle ---

pixel_shuffle = _upsample.pixel_shuffle
pixel_unshuffle = _upsample.pixel_unshuffle
channel_shuffle = _upsample.channel_shuffle
native_channel_shuffle = _upsample.channel_shuffle
