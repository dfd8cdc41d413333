"""``nn.functional``, every loss function and its ``reduction`` handling.

Re-exported by ``cinder/nn/functional.py`` (the module users import).
"""

import math

from ... import _dtype as D
from ...autograd import grad_mode
from ...ops.nn import activation as _act
from ...ops.nn import loss as _loss
from .. import _reduction as _Reduction
from .activation import logsigmoid
from .linear import linear
from . import _op, warn as _warn

__all__ = ["nll_loss", "cross_entropy", "linear_cross_entropy", "l1_loss", "mse_loss",
           "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss", "gaussian_nll_loss",
           "margin_ranking_loss", "hinge_embedding_loss", "multilabel_margin_loss",
           "soft_margin_loss", "multilabel_soft_margin_loss", "cosine_embedding_loss",
           "multi_margin_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
           "ctc_loss"]


def _reduction_enum(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_enum(size_average, reduce)
    return _Reduction.get_enum(reduction)


def _reduction_str(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_string(size_average, reduce)
    return reduction


def _apply_reduction(loss, enum):
    if enum == 1:
        return loss.mean()
    if enum == 2:
        return loss.sum()
    return loss


def _warn_size(input, target):
    if target.size() != input.size():
        _warn(f"Using a target size ({target.size()}) that is different to the input "
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
    class_dim = 0 if input._data.ndim == 1 else 1
    if input._data.shape == target._data.shape:
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
    x, y = _loss._broadcast_pair(input, target)
    loss = (x - y).abs()
    if weight is not None:
        return _weighted_reduction(loss, weight, input, reduction)
    return _apply_reduction(loss, _Reduction.get_enum(reduction))


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean (or sum, or none) of ``(input - target) ** 2``."""
    _warn_size(input, target)
    reduction = _reduction_str(size_average, reduce, reduction)
    if weight is not None:
        x, y = _loss._broadcast_pair(input, target)
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
            _warn("reduction: 'mean' divides the total loss by both the batch size and "
                          "the support size.'batchmean' divides only by the batch size, and "
                          "aligns with the KL div math definition.'mean' will be changed to "
                          "behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        enum = _Reduction.get_enum("sum" if reduction == "batchmean" else reduction)
    out = _op("kl_div")(input, target, enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        out = out / input.size()[0]
    return out


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Negative log-likelihood of ``target`` under a Poisson with rate ``exp(input)`` (or
    ``input`` itself when ``log_input=False``)."""
    reduction = _reduction_str(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    return _op("poisson_nll_loss")(input, target, log_input, full, eps,
                                   _Reduction.get_enum(reduction))


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
    return _op("margin_ranking_loss")(input1, input2, target, margin, enum)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """``x`` where ``target == 1``; ``max(0, margin - x)`` where ``target == -1``."""
    enum = _reduction_enum(size_average, reduce, reduction)
    return _op("hinge_embedding_loss")(input, target, margin, enum)


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
    return _op("cosine_embedding_loss")(input1, input2, target, margin, enum)


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
    return _op("triplet_margin_loss")(anchor, positive, negative, margin, p, eps, swap, enum)


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
    dist = distance_function if distance_function is not None else _op("pairwise_distance")
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
