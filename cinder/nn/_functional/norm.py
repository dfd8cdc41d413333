"""``nn.functional``, batch / instance / layer / RMS / group / local-response normalisation.

Re-exported by ``cinder/nn/functional.py`` (the module users import).
"""

from ...ops.nn import norm as _norm
from .pooling import avg_pool2d, avg_pool3d
from .vision import pad
from . import _op

__all__ = ["batch_norm", "instance_norm", "layer_norm", "rms_norm", "group_norm",
           "local_response_norm"]


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
    """Normalise each channel of each sample separately; running statistics, when given, are
    updated with the mean over the batch (the op ``cinder.instance_norm`` does the work)."""
    if use_input_stats:
        _verify_spatial_size(input.size())
    return _op("instance_norm")(input, weight, bias, running_mean, running_var,
                                use_input_stats, momentum, eps, True)


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
