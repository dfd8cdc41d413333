"""``torch.nn.init``: weight initialisers.

Every initialiser makes the same random calls, in the same order, as PyTorch's (``uniform_``,
``normal_``, ``randperm`` on the default or given generator), so a model built after
``manual_seed(s)`` starts from PyTorch's exact weights.
"""

import math
import warnings

from ..autograd.grad_mode import no_grad
from ..ops import FUNCTIONS

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "sparse_", "uniform", "normal", "constant", "eye",
           "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal",
           "orthogonal", "sparse"]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d")


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (1 for linear/sigmoid, 5/3 for tanh, sqrt(2)
    for relu, sqrt(2 / (1 + slope^2)) for leaky_relu, 3/4 for selu)."""
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or \
                isinstance(param, float):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with draws from U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with draws from N(mean, std^2)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _norm_cdf(x):
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with draws from N(mean, std^2) restricted to [a, b], by rejection sampling (redraw
    what falls outside, or for narrow windows sample uniformly and accept by the density)."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    with no_grad():
        p = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
        if p > 0.3:
            _trunc_by_redraw(tensor, mean, std, a, b, generator)
        else:
            _trunc_by_acceptance(tensor, mean, std, a, b, generator)
    return tensor


def _trunc_by_redraw(tensor, mean, std, a, b, generator):
    lo = tensor.new_tensor(a).item()
    hi = tensor.new_tensor(b).item()
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        mask = (result < lo) | (result > hi)
        if not mask.any():
            break
        fresh = FUNCTIONS["empty_like"](result).normal_(mean, std, generator=generator)
        result = FUNCTIONS["where"](mask, fresh, result)
    if tensor is not result:
        tensor.copy_(result)


def _log_density(candidates, mean, std, log_peak):
    return candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)


def _trunc_by_acceptance(tensor, mean, std, a, b, generator):
    where, empty_like = FUNCTIONS["where"], FUNCTIONS["empty_like"]
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2
    candidates = empty_like(tensor)
    accept_buf = empty_like(tensor)
    tensor.uniform_(a, b, generator=generator)
    candidates.copy_(tensor)
    _log_density(candidates, mean, std, log_peak)
    pending = accept_buf.uniform_(generator=generator).log_().gt(candidates)
    if not pending.any():
        return
    result = tensor
    while True:
        candidates.uniform_(a, b, generator=generator)
        result = where(pending, candidates, result)
        _log_density(candidates, mean, std, log_peak)
        pending = where(pending, accept_buf.uniform_(generator=generator).log_().gt(candidates),
                        pending)
        if not pending.any():
            break
    tensor.copy_(result)


def constant_(tensor, val):
    """Fill with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fill with ones."""
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fill with zeros."""
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fill a 2-d tensor with the identity matrix."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(FUNCTIONS["eye"](*tensor.shape, dtype=tensor.dtype))
    return tensor


def dirac_(tensor, groups=1):
    """Fill a 3/4/5-d convolution weight with the Dirac delta (identity convolution), per
    group."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    min_dim = min(per_group, sizes[1])
    centre = tuple(s // 2 for s in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.size(1) * receptive, tensor.size(0) * receptive


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot uniform: U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot normal: N(0, std^2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _kaiming_std(tensor, a, mode, nonlinearity):
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He uniform: U(-bound, bound) with ``bound = gain * sqrt(3 / fan)``."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    with no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He normal: N(0, std^2) with ``std = gain / sqrt(fan)``."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    with no_grad():
        return tensor.normal_(0, std, generator=generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fill with a (semi-)orthogonal matrix: the Q of a QR decomposition of a normal sample,
    signs fixed by R's diagonal; dims after the first are flattened."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
    q = _signed_q(flat.t() if rows < cols else flat)
    if rows < cols:
        q = q.t()
    with no_grad():
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def _signed_q(mat):
    """Q of ``mat = QR`` with columns multiplied by sign(diag(R)) (a unique choice)."""
    from ..linalg import qr
    q, r = qr(mat)
    return q * r.diagonal().sign()


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill a 2-d tensor from N(0, std^2), then zero a ``sparsity`` fraction of each column
    (rows chosen by ``randperm``)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            zero_rows = FUNCTIONS["randperm"](rows)[:num_zeros]
            tensor[zero_rows, col] = 0
    return tensor


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = f"Deprecated alias of :func:`{new_name}`."
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
