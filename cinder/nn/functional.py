"""``torch.nn.functional``: the functions behind the nn modules.

Sections are headed ``# --- <family> ---``; each function checks its arguments the way
PyTorch's does and then calls ops (the kernels live in ``cinder/ops/nn/``).
"""

import math
import warnings

from .. import _dtype as D
from ..autograd import grad_mode
from ..autograd.grad_mode import no_grad
from ..ops import FUNCTIONS as _OPS
from ..ops.nn import activation as _act
from ..ops.nn import dropout as _drop
from ..ops.nn import linear as _lin
from ..ops.nn import loss as _loss
from ..ops.nn import conv as _conv
from ..ops.nn import embedding as _embedding
from ..ops.nn import norm as _norm
from ..ops.nn import pad as _pad
from ..ops.nn import pool as _pool
from ..ops.nn import upsample as _upsample
from ..ops.nn._utils import ntuple as _ntuple
from . import _reduction as _Reduction


def _op(name):
    return _OPS[name]


# --- activation ---

def threshold(input, threshold, value, inplace=False):
    """``input`` where it is greater than ``threshold``, else ``value``."""
    if inplace:
        return _act.threshold.inplace(input, threshold, value)
    return _act.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    """In-place :func:`threshold`."""
    return _act.threshold.inplace(input, threshold, value)


def relu(input, inplace=False):
    """``max(0, x)`` elementwise."""
    return input.relu_() if inplace else _op("relu")(input)


def relu_(input):
    """In-place :func:`relu`."""
    return input.relu_()


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamp to ``[min_val, max_val]`` (the gradient is zero outside)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _act.hardtanh.inplace(input, min_val, max_val)
    return _act.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place :func:`hardtanh`."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    """``min(max(0, x), 6)``."""
    return hardtanh(input, 0.0, 6.0, inplace)


def elu(input, alpha=1.0, inplace=False):
    """``x`` for x > 0, else ``alpha * (exp(x) - 1)``."""
    if inplace:
        return _act.elu.inplace(input, alpha, 1.0, 1.0)
    return _act.elu(input, alpha, 1.0, 1.0)


def elu_(input, alpha=1.0):
    """In-place :func:`elu`."""
    return elu(input, alpha, inplace=True)


def selu(input, inplace=False):
    """Scaled ELU with the self-normalising constants."""
    return _act.selu_(input) if inplace else _act.selu(input)


def selu_(input):
    """In-place :func:`selu`."""
    return _act.selu_(input)


def celu(input, alpha=1.0, inplace=False):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    return _act.celu_(input, alpha) if inplace else _act.celu(input, alpha)


def celu_(input, alpha=1.0):
    """In-place :func:`celu`."""
    return _act.celu_(input, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``x`` for x > 0, else ``negative_slope * x``."""
    if inplace:
        return _act.leaky_relu.inplace(input, negative_slope)
    return _act.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """In-place :func:`leaky_relu`."""
    return leaky_relu(input, negative_slope, inplace=True)


def prelu(input, weight):
    """Leaky ReLU with a learned slope ``weight`` (one shared value or one per channel)."""
    return _act.prelu(input, weight)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: in training each negative element gets a slope drawn from
    U(lower, upper); in evaluation the slope is their mean."""
    return _op("rrelu_")(input, lower, upper, training) if inplace else \
        _op("rrelu")(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place :func:`rrelu`."""
    return rrelu(input, lower, upper, training, inplace=True)


def glu(input, dim=-1):
    """Gated linear unit: split ``input`` in halves ``a, b`` along ``dim``; ``a * sigmoid(b)``."""
    return _act.glu(input, dim)


def gelu(input, approximate="none"):
    """Gaussian Error Linear Unit ``x * Phi(x)``; ``approximate='tanh'`` uses the tanh form."""
    return _act.gelu(input, approximate)


def logsigmoid(input):
    """``log(sigmoid(x))``, computed stably."""
    return _act.log_sigmoid(input)


def hardshrink(input, lambd=0.5):
    """``x`` where ``|x| > lambd``, else 0."""
    return _act.hardshrink(input, lambd)


def tanhshrink(input):
    """``x - tanh(x)``."""
    return input - input.tanh()


def softsign(input):
    """``x / (1 + |x|)``."""
    return input / (input.abs() + 1)


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * x)) / beta``; linear where ``beta * x > threshold``."""
    return _act.softplus(input, beta, threshold)


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-input)`` along ``dim``."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return _act.softmax(-input, dim, dtype)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim`` (computed in ``dtype`` when given)."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return _act.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``log(softmax(x))`` along ``dim``, computed stably in one kernel."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _act.log_softmax(input, dim, dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Sample from the Gumbel-softmax distribution; ``hard=True`` returns one-hot samples whose
    gradient is the soft sample's (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -_op("empty_like")(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _op("zeros_like")(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def softshrink(input, lambd=0.5):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return _act.softshrink(input, lambd)


def tanh(input):
    """Elementwise hyperbolic tangent (``input.tanh()``)."""
    return input.tanh()


def sigmoid(input):
    """Elementwise logistic sigmoid (``input.sigmoid()``)."""
    return input.sigmoid()


def hardsigmoid(input, inplace=False):
    """``relu6(x + 3) / 6``."""
    return _act.hardsigmoid.inplace(input) if inplace else _act.hardsigmoid(input)


def silu(input, inplace=False):
    """``x * sigmoid(x)`` (also called swish)."""
    return _act.silu.inplace(input) if inplace else _act.silu(input)


def mish(input, inplace=False):
    """``x * tanh(softplus(x))``."""
    return _act.mish.inplace(input) if inplace else _act.mish(input)


def hardswish(input, inplace=False):
    """``x * relu6(x + 3) / 6``."""
    return _act.hardswish.inplace(input) if inplace else _act.hardswish(input)


# --- linear ---

def linear(input, weight, bias=None):
    """``input @ weight.T + bias``; a 2-d input with a bias is one GEMM (PyTorch's addmm)."""
    if input._dtype is not weight._dtype:
        a, b = input._dtype, weight._dtype
        if bias is None:       # PyTorch's matmul path words it differently from addmm's
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                               f"{a.cpp_name} != {b.cpp_name}")
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                           f"{a.scalar_name} and {b.scalar_name}")
    if input.dim() == 2 and bias is not None:
        if _lin.can_use_linear_2d(input, weight, bias):
            return _lin.linear_2d(input, weight, bias)
        return _op("addmm")(bias, input, weight.t())
    if input.dim() == 1 and bias is not None:
        # a vector is a batch of one, viewed back (PyTorch's ViewBackward0)
        return linear(input.unsqueeze(0), weight, bias).view(weight.shape[0])
    if input.dim() > 2 and bias is not None and input.is_contiguous():
        # leading dims folded into one GEMM, then viewed back (PyTorch's ViewBackward0)
        flat = input.reshape(-1, input.shape[-1])
        out = linear(flat, weight, bias)
        return out.view(tuple(input.shape[:-1]) + (out.shape[-1],))
    out = input.matmul(weight.t())
    return out if bias is None else out + bias


def bilinear(input1, input2, weight, bias=None):
    """``y_k = x1^T W_k x2 + b_k`` for inputs ``(..., in1)`` and ``(..., in2)``."""
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError("bilinear(): input batch dimensions do not match: got "
                           f"{list(input1.shape[:-1])} and {list(input2.shape[:-1])}")
    out_f, in1, in2 = weight.shape
    if input1.shape[-1] != in1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {in1}")
    if input2.shape[-1] != in2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {in2}")
    lead = input1.shape[:-1]
    x1 = input1.reshape(-1, in1)
    x2 = input2.reshape(-1, in2)
    # (n, in1) @ (in1, out*in2) -> (n, out, in2), then contract with x2 over in2: two GEMM-ish
    # steps instead of a loop over output features.
    w = weight.permute(1, 0, 2).reshape(in1, out_f * in2)
    t = x1.matmul(w).reshape(-1, out_f, in2)
    out = t.matmul(x2.unsqueeze(-1)).squeeze(-1).reshape(tuple(lead) + (out_f,))
    return out if bias is None else out + bias


# --- dropout ---

def _check_dropout_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` during training and scale the rest by
    ``1 / (1 - p)``; identity when not training."""
    _check_dropout_p(p)
    return _drop.dropout_(input, p, training) if inplace else _drop.dropout(input, p, training)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: keeps zero mean and unit variance."""
    _check_dropout_p(p)
    return _drop.alpha_dropout_(input, p, training) if inplace else \
        _drop.alpha_dropout(input, p, training)


def _feature_dropout(input, p, training, inplace):
    return _drop.feature_dropout_(input, p, training) if inplace else \
        _drop.feature_dropout(input, p, training)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) or (C, L) inputs."""
    _check_dropout_p(p)
    nd = input.dim()
    if nd not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. "
                           "Note that dropout1d exists to provide channel-wise dropout on inputs "
                           "with 1 spatial dimension, a channel dimension, and an optional batch "
                           "dimension (i.e. 2D or 3D inputs).")
    return _unbatched_feature_dropout(input, p, training, inplace, nd == 3)


def _unbatched_feature_dropout(input, p, training, inplace, batched):
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature_dropout(input, p, training, inplace)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def _warn_feature_dims(name, nd, spatial, ok):
    if nd not in ok:
        warnings.warn(
            f"{name}: Received a {nd}-D input to {name}, which is deprecated and will result in "
            "an error in a future release. To retain the behavior and silence this warning, "
            f"please use dropout instead. Note that {name} exists to provide channel-wise dropout "
            f"on inputs with {spatial} spatial dimensions, a channel dimension, and an optional "
            f"batch dimension (i.e. {ok[0]}D or {ok[1]}D inputs).", stacklevel=3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, H, W) inputs."""
    _check_dropout_p(p)
    nd = input.dim()
    _warn_feature_dims("dropout2d", nd, 2, (3, 4))
    if nd == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) inputs."""
    _check_dropout_p(p)
    nd = input.dim()
    _warn_feature_dims("dropout3d", nd, 3, (4, 5))
    return _unbatched_feature_dropout(input, p, training, inplace, nd == 5)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels."""
    _check_dropout_p(p)
    return _drop.feature_alpha_dropout_(input, p, training) if inplace else \
        _drop.feature_alpha_dropout(input, p, training)


# --- loss ---

def _reduction_enum(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_enum(size_average, reduce)
    return _Reduction.get_enum(reduction)


def _reduction_str(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_string(size_average, reduce)
    return reduction


def _broadcast_pair(a, b):
    """Both tensors expanded to their common shape (``torch.broadcast_tensors`` of two)."""
    if a.shape == b.shape:
        return a, b
    from ..ops._prep import broadcast_shape
    shape = broadcast_shape(a.shape, b.shape)
    return a.expand(shape), b.expand(shape)


def _apply_reduction(loss, enum):
    if enum == 1:
        return loss.mean()
    if enum == 2:
        return loss.sum()
    return loss


def _warn_size(input, target):
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input "
                      f"size ({input.size()}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", stacklevel=3)


def _weighted_reduction(loss, weight, input, reduction):
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood of class indices ``target`` given log-probabilities ``input``."""
    enum = _reduction_enum(size_average, reduce, reduction)
    return _loss.nll_loss_nd(input, target, weight, enum, ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """``nll_loss(log_softmax(input))`` for class-index targets, or the cross-entropy against
    class probabilities when ``target`` has ``input``'s shape; optional label smoothing."""
    enum = _reduction_enum(size_average, reduce, reduction)
    class_dim = 0 if input.dim() == 1 else 1
    if input.shape == target.shape:
        if target._dtype.category != D.FLOATING:
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {target._dtype.scalar_name}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probs(input, target, weight, enum, label_smoothing, class_dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                               f"{label_smoothing}")
        return _cross_entropy_smoothed(input, target, weight, enum, ignore_index,
                                       label_smoothing, class_dim)
    logp = _act.log_softmax(input, class_dim)
    return _loss.nll_loss_nd(logp, target, weight, enum, ignore_index)


def _class_shape(input, class_dim, n):
    shape = [1] * input.dim()
    shape[class_dim] = n
    return shape


def _cross_entropy_probs(input, target, weight, enum, label_smoothing, class_dim):
    n_classes = input.shape[class_dim]
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                           f"{n_classes} classes or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")
    logp = _act.log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                               f"{label_smoothing}")
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    prod = logp * target
    if weight is not None:
        prod = prod * (weight.view(_class_shape(input, 1, n_classes)) if input.dim() > 1
                       else weight)
    if enum == 1:
        if input.numel() == 0:
            return -prod.sum() * float("nan")
        return -prod.sum() / (input.numel() // n_classes)
    if enum == 2:
        return -prod.sum()
    return -prod.sum(class_dim)


def _cross_entropy_smoothed(input, target, weight, enum, ignore_index, label_smoothing,
                            class_dim):
    n_classes = input.shape[class_dim]
    logp = _act.log_softmax(input, class_dim)
    nll = _loss.nll_loss_nd(logp, target, weight, enum, ignore_index)
    ignore = target == ignore_index
    if weight is not None:
        smooth = -(logp * weight.view(_class_shape(input, class_dim, n_classes))).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = smooth.masked_fill(ignore, 0.0)
    if enum == 1:
        if weight is not None:
            kept = target.masked_select(~ignore).flatten()
            ret = smooth.sum() / weight.gather(0, kept).sum()
        else:
            ret = smooth.sum() / (~ignore).sum()
    elif enum == 2:
        ret = smooth.sum()
    else:
        ret = smooth
    return (1 - label_smoothing) * nll + ret * (label_smoothing / n_classes)


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0, options=None):
    """``cross_entropy(linear(input, linear_weight, linear_bias), target)`` with the logits
    shaped (N, C, *out_features) for a weight of shape (C, *out_features, in_features).
    ``options`` (chunking) are accepted; cinder always computes the reference path."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    batches, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions "
                           f"(in_features), got {input.shape[-1]} and "
                           f"{linear_weight.shape[-1]}, respectively")
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, (N, "
                           f"{in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = (*batches, classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    width = math.prod(out_features, start=classes)
    w = linear_weight.reshape((width, in_features))
    b = None if linear_bias is None else linear_bias.reshape(width)
    logits = linear(input, w, b).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index,
                         label_smoothing=label_smoothing)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean (or sum, or none) of ``|input - target|``."""
    _warn_size(input, target)
    reduction = _reduction_str(size_average, reduce, reduction)
    x, y = _broadcast_pair(input, target)
    loss = (x - y).abs()
    if weight is not None:
        return _weighted_reduction(loss, weight, input, reduction)
    return _apply_reduction(loss, _Reduction.get_enum(reduction))


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean (or sum, or none) of ``(input - target) ** 2``."""
    _warn_size(input, target)
    reduction = _reduction_str(size_average, reduce, reduction)
    if weight is not None:
        x, y = _broadcast_pair(input, target)
        return _weighted_reduction((x - y) ** 2, weight, input, reduction)
    return _loss.mse_loss(input, target, _Reduction.get_enum(reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Squared error below ``beta`` (scaled by ``0.5 / beta``), absolute error above."""
    _warn_size(input, target)
    reduction = _reduction_str(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    return _loss.smooth_l1_loss(input, target, _Reduction.get_enum(reduction), beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Squared error below ``delta``, ``delta``-scaled absolute error above."""
    _warn_size(input, target)
    if weight is None:
        return _loss.huber_loss(input, target, _Reduction.get_enum(reduction), delta)
    loss = _loss.huber_loss(input, target, 0, delta)
    return _weighted_reduction(loss, weight, input, reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """Binary cross-entropy between probabilities ``input`` and ``target``."""
    enum = _reduction_enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input "
                         f"size ({input.size()}) is deprecated. Please ensure they have the "
                         "same size.")
    return _loss.binary_cross_entropy(input, target, weight, enum)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """Binary cross-entropy on logits (sigmoid folded in, numerically stable)."""
    enum = _reduction_enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    return _loss.binary_cross_entropy_with_logits(input, target, weight, pos_weight, enum)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL divergence with ``input`` as log-probabilities (and ``target`` too if
    ``log_target``); ``'batchmean'`` divides the sum by the batch size."""
    if size_average is not None or reduce is not None:
        enum = _Reduction.legacy_get_enum(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                          "the support size.'batchmean' divides only by the batch size, and "
                          "aligns with the KL div math definition.'mean' will be changed to "
                          "behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        enum = _Reduction.get_enum("sum" if reduction == "batchmean" else reduction)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _xlogy_self(target) - target * input
    out = _apply_reduction(loss, enum)
    if reduction == "batchmean" and input.dim() != 0:
        out = out / input.size()[0]
    return out


def _xlogy_self(t):
    """``t * log(t)`` with 0 where ``t == 0`` (xlogy(t, t))."""
    safe = _op("where")(t == 0, _op("ones_like")(t), t)
    return t * safe.log()


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Negative log-likelihood of ``target`` under a Poisson with rate ``exp(input)`` (or
    ``input`` itself when ``log_input=False``)."""
    reduction = _reduction_str(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _apply_reduction(loss, _Reduction.get_enum(reduction))


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Negative log-likelihood of ``target`` under a Gaussian with mean ``input`` and variance
    ``var`` (clamped at ``eps``; the clamp is not differentiated)."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _op("ones_like")(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and sum(
                y for x, y in zip(input.size(), var.size()) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with grad_mode.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _apply_reduction(loss, {"none": 0, "mean": 1, "sum": 2}[reduction])


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``."""
    enum = _reduction_enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.size()}, input2: {input2.size()}, "
                           f"target: {target.size()} ")
    return _apply_reduction((-target * (input1 - input2) + margin).clamp_min(0), enum)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """``x`` where ``target == 1``; ``max(0, margin - x)`` where ``target == -1``."""
    enum = _reduction_enum(size_average, reduce, reduction)
    zeros = _op("zeros_like")(input)
    margin_clamp = (margin - input).clamp_min(0)
    out_margin = _op("where")(target != 1, margin_clamp, zeros)
    out_self = _op("where")(target != -1, input, zeros)
    return _apply_reduction(out_margin + out_self, enum)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-class multi-label hinge loss; ``target`` lists class indices, ended by -1."""
    enum = _reduction_enum(size_average, reduce, reduction)
    if target._dtype is not D.int64:
        raise RuntimeError(f"expected scalar type Long but found {target._dtype.scalar_name}")
    unbatched = input.dim() <= 1
    x = input.reshape(1, -1) if unbatched else input
    t = target.reshape(1, -1) if unbatched else target
    if x.shape != t.shape:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    return _loss.multilabel_margin_loss(input, target, enum)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-target * input))`` (two-class logistic loss)."""
    enum = _reduction_enum(size_average, reduce, reduction)
    return _loss.soft_margin_loss(input, target, enum)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """One-versus-all logistic loss averaged over classes."""
    reduction = _reduction_str(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """``1 - cos(x1, x2)`` where ``target == 1``; ``max(0, cos(x1, x2) - margin)`` where
    ``target == -1``."""
    enum = _reduction_enum(size_average, reduce, reduction)
    td = target.dim()
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if td == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    if td == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    prod = (input1 * input2).sum(td)
    mag1 = (input1 * input1).sum(td) + 1e-12
    mag2 = (input2 * input2).sum(td) + 1e-12
    cos = prod / (mag1 * mag2).sqrt()
    zeros = _op("zeros_like")(cos)
    pos = _op("where")(target == 1, 1 - cos, zeros)
    neg = _op("where")(target == -1, (cos - margin).clamp_min(0), zeros)
    return _apply_reduction(pos + neg, enum)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Multi-class hinge loss: ``sum_i max(0, margin - x[y] + x[i])^p / C`` over ``i != y``."""
    enum = _reduction_enum(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _loss.check_weight_dtype(input, weight)
    unbatched = input.dim() <= 1
    if input.dim() > 2 or input.numel() == 0:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")
    x = input.reshape(1, -1) if unbatched else input
    if target.dim() > 1 or target.numel() != x.shape[0]:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal "
                           f"to the number of input samples (batch size). Expected target "
                           f"size [{x.shape[0]}], but got {list(target.shape)}. Input has "
                           f"shape {list(input.shape)}.")
    return _loss.multi_margin_loss(input, target, p, margin, weight, enum)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with the ``p``-norm pairwise distance."""
    enum = _reduction_enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _op("minimum")(d_neg, pairwise_distance(positive, negative, p, eps))
    return _apply_reduction((margin + d_pos - d_neg).clamp_min(0), enum)


def _check_triplet_dims(anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p and p == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {a}D, positive "
                           f"{p}D, and negative {n}D inputs")


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """Triplet loss with any ``distance_function(x1, x2)`` (pairwise distance by default)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = _op("minimum")(d_neg, dist(positive, negative))
    loss = (margin + d_pos - d_neg).clamp_min(0)
    return _apply_reduction(loss, {"none": 0, "mean": 1, "sum": 2}[reduction])


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """Connectionist Temporal Classification loss for ``log_probs`` of shape (T, N, C)."""
    return _loss.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                          _Reduction.get_enum(reduction), zero_infinity)


# --- distance ---

def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` over the last dimension."""
    nd = max(x1.dim(), x2.dim())
    return _op("norm")(x1 - x2 + eps, p, nd - 1, keepdim) if nd else \
        _op("norm")(x1 - x2 + eps, p)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``x1 . x2 / (max(||x1||, eps) * max(||x2||, eps))`` along ``dim``."""
    x1, x2 = _broadcast_pair(x1, x2)
    n1 = x1.norm(2, dim, True)
    n2 = x2.norm(2, dim, True)
    n1 = _op("where")(n1 < eps, _op("full_like")(n1, eps), n1)
    n2 = _op("where")(n2 < eps, _op("full_like")(n2, eps), n2)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pdist(input, p=2):
    """Distances between every pair of rows of a 2-d input (upper triangle, row-major)."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    n = input.shape[0]
    if n < 2:
        return input.new_zeros((0,))
    idx = _op("triu_indices")(n, n, 1)
    diff = input.index_select(0, idx[0]) - input.index_select(0, idx[1])
    return _op("norm")(diff, p, 1)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(||input||_p, eps)`` along ``dim``."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return _op("div")(input, denom, out=out)


def one_hot(tensor, num_classes=-1):
    """Int64 one-hot encoding with a new last dimension of size ``num_classes`` (the largest
    class + 1 when -1)."""
    if tensor._dtype is not D.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.max()) + 1
    if tensor.numel() and int(tensor.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if tensor.numel() and int(tensor.max()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    # PyTorch's own composite: zeros with a class dimension, a 1 scattered at each index.
    out = tensor.new_zeros(tuple(tensor.shape) + (num_classes,))
    return out.scatter_(-1, tensor.unsqueeze(-1), 1)



# --- channelshuffle ---

def channel_shuffle(input, groups):
    """Split the C channels of (N, C, *) into ``groups`` and interleave them."""
    from ..ops.nn.channel_shuffle import channel_shuffle as _shuffle
    return _shuffle(input, groups)


native_channel_shuffle = channel_shuffle


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


def _max_pool_fn(with_indices, values_only, name):
    def max_pool(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                 return_indices=False):
        if not return_indices:
            return values_only(input, kernel_size, stride, padding, dilation, ceil_mode)
        return with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)

    max_pool.__name__ = max_pool.__qualname__ = name
    max_pool.__doc__ = (f"{name[-2]}-d max pooling; with ``return_indices`` also the flat "
                        "per-channel positions of the maxima (for ``max_unpool``).")
    return max_pool


max_pool1d = _max_pool_fn(max_pool1d_with_indices, _pool.max_pool1d, "max_pool1d")
max_pool2d = _max_pool_fn(max_pool2d_with_indices, _pool.max_pool2d, "max_pool2d")
max_pool3d = _max_pool_fn(max_pool3d_with_indices, _pool.max_pool3d, "max_pool3d")

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


def _fractional_fn(nd):
    name = f"fractional_max_pool{nd}d"

    def fractional_max_pool(input, kernel_size, output_size=None, output_ratio=None,
                            return_indices=False, _random_samples=None):
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output_size or an "
                             "output_ratio")
        k = _ntuple(kernel_size, nd, "kernel_size")
        if output_size is None:
            # (PyTorch's 2-d version takes len() of the ratio, so a bare float is a TypeError.)
            if nd == 2 and len(output_ratio) > 2:
                raise ValueError("fractional_max_pool2d requires output_ratio to either be a "
                                 "single Int or tuple of Ints.")
            ratio = output_ratio if isinstance(output_ratio, (list, tuple)) else \
                (output_ratio,) * nd
            if len(ratio) == 1:
                ratio = tuple(ratio) * nd
            output_size = [int(input.size(-nd + i) * ratio[i]) for i in range(nd)]
        size = _ntuple(output_size, nd, "output_size")
        if _random_samples is None:
            from .. import ops as _o
            batch = 1 if input.dim() == nd + 1 else input.size(0)
            _random_samples = _o.FUNCTIONS["rand"](batch, input.size(-nd - 1), nd,
                                                   dtype=input.dtype)
        values, indices = _pool.fractional_max_pool(input, k, size, _random_samples)
        return (values, indices) if return_indices else values

    fractional_max_pool.__name__ = fractional_max_pool.__qualname__ = name
    fractional_max_pool.__doc__ = (
        f"{nd}-d fractional max pooling: windows of ``kernel_size`` at pseudo-random starts "
        "(drawn with ``torch.rand`` unless ``_random_samples`` is given) so that the output "
        "has ``output_size`` or ``output_ratio`` times the input size.")
    return fractional_max_pool


fractional_max_pool2d = _fractional_fn(2)
fractional_max_pool3d = _fractional_fn(3)
fractional_max_pool2d_with_indices = fractional_max_pool2d
fractional_max_pool3d_with_indices = fractional_max_pool3d

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

    def rep(t):         # a per-channel tensor repeated for every sample
        return None if t is None else t.unsqueeze(0).expand(n, c).reshape(-1)

    rm, rv = rep(running_mean), rep(running_var)
    out = _norm.batch_norm(input.reshape(shape), rep(weight), rep(bias), rm, rv,
                           use_input_stats, momentum, eps)
    if use_input_stats:
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


# --- vision (affine_grid / grid_sample) ---

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the "
                  "old behavior is desired. See the documentation of grid_sample for details.")


def _base_coords(steps, align_corners, like):
    """Normalised pixel-centre coordinates in [-1, 1] along one dim."""
    from .. import ops as _o
    line = _o.FUNCTIONS["linspace"](-1, 1, steps, dtype=like.dtype)
    if not align_corners:
        line = line * ((steps - 1) / steps)
    return line


def affine_grid(theta, size, align_corners=None):
    """Sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps ``theta`` (N, 2, 3)
    or (N, 3, 4) for an output of ``size``; coordinates in [-1, 1], x first."""
    from .. import ops as _o
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
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
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    # Base grid (*spatial, nd + 1) holding (x, y[, z], 1): x runs along the last dim.
    axes = [_base_coords(n, align_corners, theta) for n in spatial]
    parts = []
    for i in range(nd):          # coordinate i (x = 0) varies along spatial dim nd - 1 - i
        dim = nd - 1 - i
        shape = [1] * nd
        shape[dim] = spatial[dim]
        parts.append(axes[dim].reshape(shape).expand(*spatial))
    parts.append(_o.FUNCTIONS["ones"](spatial, dtype=theta.dtype))
    base = _o.FUNCTIONS["stack"](parts, -1).reshape(1, -1, nd + 1)
    grid = base.matmul(theta.transpose(1, 2))
    return grid.reshape([theta.shape[0]] + spatial + [nd])


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, low2, high2):
    """PyTorch's reflect_coordinates: fold ``coord`` into [low2/2, high2/2] by mirroring."""
    if low2 == high2:
        return coord * 0
    lo, span = low2 / 2, (high2 - low2) / 2
    dist = (coord - lo).abs()
    extra = dist.fmod(span)
    flips = (dist / span).floor().detach()
    even = flips.fmod(2) == 0
    return (extra + lo).where(even, span - extra + lo)


def _source_coord(coord, size, padding_mode, align_corners):
    ix = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        return ix.clamp(0, size - 1)
    if padding_mode == "reflection":
        ix = _reflect(ix, 0, 2 * (size - 1)) if align_corners else \
            _reflect(ix, -1, 2 * size - 1)
        return ix.clamp(0, size - 1)
    return ix


def _gather_points(input, flat_index, valid):
    """input (N, C, *spatial) read at flat spatial indices (N, P); invalid points read 0."""
    n, c = input.shape[:2]
    idx = flat_index.clamp(0, max(input[0, 0].numel() - 1, 0)).long()
    vals = input.reshape(n, c, -1).gather(2, idx.unsqueeze(1).expand(n, c, idx.shape[1]))
    return vals * valid.unsqueeze(1).to(input.dtype)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` (N, C, H, W) or (N, C, D, H, W) at the normalised locations of
    ``grid`` (N, *out, 2 or 3; x first) with bilinear or nearest interpolation; points outside
    read zeros, the border value, or a reflection (``padding_mode``). Gradients flow to both
    input and grid. (Composite of gather and pointwise ops; 'bicubic' is not implemented.)"""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    nd = input.dim() - 2
    if nd not in (2, 3) or grid.dim() != input.dim() or grid.shape[-1] != nd or \
            grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nd} in last "
                           f"dimension and the same batch size as input, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if mode == "bicubic":
        raise NotImplementedError("cinder: grid_sample(mode='bicubic') is not implemented")
    n = input.shape[0]
    spatial = list(input.shape[2:])
    out_shape = list(grid.shape[1:-1])
    flat_grid = grid.reshape(n, -1, nd)
    # coordinate i of the grid (x = 0) indexes spatial dim nd - 1 - i
    coords = [_source_coord(flat_grid[..., i], spatial[nd - 1 - i], padding_mode,
                            align_corners) for i in range(nd)]
    if mode == "nearest":
        picks = [c.detach().round() for c in coords]
        out = _gather_points(input, *_flat_and_valid(picks, spatial))
        # PyTorch gives the grid a zero gradient (not None) in nearest mode.
        out = out * (flat_grid.sum(-1) * 0 + 1).unsqueeze(1)
    else:
        out = _interpolate_corners(input, coords, spatial)
    return out.reshape([n, input.shape[1]] + out_shape)


def _flat_and_valid(picks, spatial):
    """Flat spatial index and in-bounds mask of per-coordinate integer positions."""
    nd = len(picks)
    flat, valid = 0, None
    for dim in range(nd):
        p = picks[nd - 1 - dim]
        inside = (p >= 0).logical_and(p <= spatial[dim] - 1)
        valid = inside if valid is None else valid.logical_and(inside)
        flat = flat * spatial[dim] + p
    return flat, valid


def _interpolate_corners(input, coords, spatial):
    """Sum over the 2**nd neighbouring grid points of value * (product of 1-d weights)."""
    lows = [c.detach().floor() for c in coords]
    total = 0
    for corner in range(2 ** len(coords)):
        picks, weight = [], 1
        for i, (c, lo) in enumerate(zip(coords, lows)):
            up = (corner >> i) & 1
            frac = c - lo
            picks.append(lo + up)
            weight = weight * (frac if up else 1 - frac)
        total = total + _gather_points(input, *_flat_and_valid(picks, spatial)) * \
            weight.unsqueeze(1)
    return total


# --- attention (implemented in _functional_attention.py) ---
from ._functional_attention import multi_head_attention_forward  # noqa: E402,F401
from ._functional_attention import scaled_dot_product_attention  # noqa: E402,F401
from ._functional_attention import _canonical_mask  # noqa: E402,F401
from ._functional_attention import _none_or_dtype  # noqa: E402,F401
