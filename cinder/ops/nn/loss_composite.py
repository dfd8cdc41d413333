"""Losses PyTorch publishes on ``torch`` with an integer ``reduction`` (0 none, 1 mean, 2 sum):
``kl_div``, ``poisson_nll_loss``, ``margin_ranking_loss``, ``hinge_embedding_loss``,
``cosine_embedding_loss`` and ``triplet_margin_loss``. Each is a short composition of
differentiable cinder ops, so gradients of every order follow.

Called without ``reduction``, PyTorch's ``torch.<loss>`` functions return the unreduced loss
(what its argument parser makes of the declared default); cinder does the same.
"""

import math

from .._registry import FUNCTIONS, register
from .distance import pairwise_distance

NONE, MEAN, SUM = 0, 1, 2


def _op(name):
    return FUNCTIONS[name]


def _reduce(loss, reduction):
    if reduction == MEAN:
        return loss.mean()
    if reduction == SUM:
        return loss.sum()
    return loss


def kl_div(input, target, reduction=NONE, *, log_target=False):
    """Pointwise KL divergence ``target * (log(target) - input)`` with ``input`` given as
    log-probabilities (``target`` too when ``log_target``)."""
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _op("xlogy")(target, target) - target * input
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """Negative log-likelihood of ``target`` under a Poisson of rate ``exp(input)`` (or
    ``input`` when not ``log_input``); ``full`` adds Stirling's term for targets above 1."""
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=NONE):
    """``max(0, -target * (input1 - input2) + margin)`` (inputs broadcast; the
    equal-dimensions check is ``nn.functional``'s)."""
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, reduction=NONE):
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1."""
    zeros = _op("zeros_like")(input)
    margin_part = _op("where")(target != 1, (margin - input).clamp_min(0), zeros)
    self_part = _op("where")(target != -1, input, zeros)
    return _reduce(margin_part + self_part, reduction)


def _check_cosine_embedding(input1, input2, target):
    td = target.dim()
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = td + 1
    if input1.dim() != want or input2.dim() != want:
        raise RuntimeError(f"{td}D target tensor expects {want}D input tensors, but found "
                           f"inputs with sizes {list(input1.shape)} and {list(input2.shape)}.")
    return td


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=NONE):
    """``1 - cos(input1, input2)`` where ``target`` is 1, ``max(0, cos - margin)`` where it is
    -1 (cosine over the last dimension)."""
    dim = _check_cosine_embedding(input1, input2, target)
    eps = 1e-12
    prod = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + eps
    mag2 = (input2 * input2).sum(dim) + eps
    cos = prod / (mag1 * mag2).sqrt()
    zeros = _op("zeros_like")(cos)
    pos = _op("where")(target == 1, 1 - cos, zeros)
    neg = _op("where")(target == -1, (cos - margin).clamp_min(0), zeros)
    return _reduce(pos + neg, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        reduction=NONE):
    """``max(d(anchor, positive) - d(anchor, negative) + margin, 0)`` with ``d`` the
    ``p``-norm :func:`pairwise_distance`; ``swap`` uses the smaller of the two negative
    distances (anchor's and positive's)."""
    a, pd, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == pd and pd == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {a}D, positive "
                           f"{pd}D, and negative {n}D inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _op("minimum")(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), reduction)


for _fn in (kl_div, poisson_nll_loss, margin_ranking_loss, hinge_embedding_loss,
            cosine_embedding_loss, triplet_margin_loss):
    register(_fn.__name__, _fn, method=False, family="nn.loss")
