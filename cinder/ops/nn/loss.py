"""Loss kernels: nll_loss (1-d and k-d), and the pointwise losses with their own graph nodes
(mse, smooth_l1, huber, binary_cross_entropy(_with_logits), soft_margin). cross_entropy is
log_softmax + nll_loss, as in PyTorch (both fused kernels); CTC has its own forward/backward.

``reduction`` is PyTorch's enum: 0 none, 1 mean, 2 sum (``nn._reduction.get_enum``).
"""

import numpy as np

from ... import _dtype as D
from ... import backend
from ..._tensor import Tensor
from ...autograd import grad_mode
from .._layouts import iterator_layout, row_major
from .._prep import wrap, xp_of
from .._registry import needs_grad, node_class, record, register
from ..pointwise import where
from .._prep import broadcast_shape, not_implemented

NONE, MEAN, SUM = 0, 1, 2


def _as_array(x):
    """A 0-d array for a reduction's result (NumPy returns scalars; CuPy 0-d arrays)."""
    return np.asarray(x) if isinstance(x, np.generic) else x


def _reduce_arr(loss, reduction):
    if reduction == NONE:
        return loss
    if reduction == SUM:
        return _as_array(loss.sum(dtype=loss.dtype))
    return _as_array(loss.mean(dtype=loss.dtype))


def _loss_grad(grad, s):
    """The gradient reaching each element of an unreduced loss."""
    if s.reduction == MEAN:
        return grad / s.numel
    return grad


# ----------------------------------------------------------------------------------------------
# nll_loss
# ----------------------------------------------------------------------------------------------

def _check_nll(input, target, weight):
    if input._data.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input._data.ndim})")
    if target._dtype not in (D.int64, D.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{target._dtype.scalar_name}")
    batch = target._data.shape[0] if target._data.ndim else 0
    if input._data.ndim != 1 and input._data.shape[0] != batch:
        raise ValueError(f"Expected input batch_size ({input._data.shape[0]}) to match target "
                         f"batch_size ({batch}).")
    if input._data.ndim == 2 and target._data.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input._data.ndim > 2:
        want = (input._data.shape[0],) + input._data.shape[2:]
        if target._data.shape != want:
            raise RuntimeError(f"Expected target size {list(want)}, got "
                               f"{list(target._data.shape)}")
    classes = input._data.shape[0 if input._data.ndim == 1 else 1]
    check_weight_dtype(input, weight)
    if weight is not None and weight._data.size != classes:
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes "
                           f"or no classes but got weight tensor of shape: "
                           f"{list(weight._data.shape)}")
    return classes


def check_weight_dtype(input, weight):
    """A class-weight tensor must have the input's dtype (PyTorch does not cast it)."""
    if weight is not None and weight._dtype is not input._dtype:
        raise RuntimeError(f"expected scalar type {input._dtype.scalar_name} but found "
                           f"{weight._dtype.scalar_name}")


def _nll_pick(input, target, weight, ignore_index, classes):
    """Per-element ``(picked input, class weight)``, with ignored targets weighted 0."""
    a = input._data
    t = target._data.astype(np.int64, copy=False)
    if input._data.ndim == 1:
        a, t = a[None], t.reshape(1)
    if a.ndim == 2 and t.size:
        lo, hi = t.min(), t.max()
        if 0 <= lo and hi < classes and not lo <= ignore_index <= hi:
            # The common batch: every target a valid class and none ignored, so the mask,
            # the bounds error and the ``where`` are not needed (same values).
            t = t.copy()        # saved for backward: later edits of target must not reach it
            xp = xp_of(input)
            picked = a[xp.arange(t.shape[0]), t]
            if weight is None:
                return picked, xp.ones(t.shape[0], a.dtype), t
            return picked, weight._data.astype(a.dtype, copy=False)[t], t
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= classes))
    if bad.any():
        raise IndexError(f"Target {int(t[bad].ravel()[0])} is out of bounds.")
    tc = np.where(valid, t, 0)
    picked = np.take_along_axis(a, tc[:, None], 1)[:, 0]
    if weight is None:
        w = valid.astype(a.dtype)
    else:
        w = weight._data.astype(a.dtype, copy=False)[tc] * valid
    return picked, w, tc


def _nll_input_grad(grad, s):
    if not grad_mode.STATE.grad_enabled:
        return _nll_input_grad_array(grad, s)
    g = grad / s.total_weight if s.reduction == MEAN else grad
    if s.reduction == NONE and s.unbatched:
        g = g.reshape(1)
    src = (g * s.wt).unsqueeze(1) * -1
    index = s.tc.unsqueeze(1)
    out = s.self.new_zeros(s.shape2).scatter(1, index, src)
    return out.reshape(s.self.shape)


def _nll_input_grad_array(grad, s):
    """The same gradient in NumPy, when no graph of it is wanted: zeros with
    ``-grad * weight`` (``grad / total weight`` for ``mean``) at each target class."""
    g = grad._data
    if s.reduction == MEAN:
        g = g / s.total_weight._data
    if s.reduction == NONE and s.unbatched:
        g = g.reshape(1)
    src = (g * s.wt._data) * -1
    xp = xp_of(grad)
    self = s.self
    out = xp.zeros(s.shape2, dtype=self._data.dtype)
    tc = s.tc._data
    if tc.ndim == 1:            # (N, C): one target class per row
        out[xp.arange(tc.shape[0]), tc] = src
    else:
        xp.put_along_axis(out, tc[:, None], src[:, None], axis=1)
    return wrap(out.reshape(self._data.shape), self._dtype, self._device)


NllLossNode = node_class("NllLossBackward0", {"self": _nll_input_grad, "target": None},
                         saves_also=("self", "reduction", "total_weight", "wt", "tc", "shape2",
                                     "unbatched"))
NllLoss2dNode = node_class("NllLoss2DBackward0", {"self": _nll_input_grad, "target": None},
                           saves_also=("self", "reduction", "total_weight", "wt", "tc",
                                       "shape2", "unbatched"))


def nll_loss_nd(input, target, weight=None, reduction=MEAN, ignore_index=-100):
    """Negative log-likelihood of ``target`` class indices under log-probabilities ``input``
    (shape (C), (N, C) or (N, C, d1, ...)), weighted per class; ``mean`` divides by the total
    weight of the targets that are not ``ignore_index``."""
    _check_float(input, "nll_loss_out_frame")
    classes = _check_nll(input, target, weight)
    picked, w, tc = _nll_pick(input, target, weight, ignore_index, classes)
    losses = -(picked * w)
    dt, dev = input._dtype, input._device
    total = _as_array(w.sum(dtype=w.dtype))
    if reduction == NONE:
        res = row_major(losses.reshape(target._data.shape))   # as PyTorch allocates it
    elif reduction == SUM:
        res = _as_array(losses.sum(dtype=losses.dtype))
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            res = _as_array(losses.sum(dtype=losses.dtype) / total)
    result = wrap(res.astype(dt.numpy_dtype, copy=False), dt, dev)
    if needs_grad(input):
        shape2 = (1,) + input._data.shape if input._data.ndim == 1 else input._data.shape
        node = NllLoss2dNode if input._data.ndim >= 3 else NllLossNode   # k-d goes through 2d
        record(node, (input, None), (result,), self=input, reduction=reduction,
               total_weight=wrap(total, dt, dev), wt=wrap(w, dt, dev),
               tc=wrap(tc, D.int64, dev), shape2=shape2, unbatched=input._data.ndim == 1)
    return result


register("nll_loss_nd", nll_loss_nd, method=False, function_too=False, family="nn.loss",
         nodes=(NllLossNode, NllLoss2dNode))


# ----------------------------------------------------------------------------------------------
# Pointwise losses with their own nodes
# ----------------------------------------------------------------------------------------------

def _broadcast_pair(input, target):
    if input._data.shape == target._data.shape:
        return input, target
    from ..views import broadcast_to
    shape = broadcast_shape(input._data.shape, target._data.shape)
    return broadcast_to(input, shape), broadcast_to(target, shape)


def _check_float(input, kernel_name):
    dt = input._dtype
    if dt.category != D.FLOATING:
        not_implemented(kernel_name, dt)


def pointwise_loss(name, node, kernel, kernel_name, dtype_check=None, target_first=False):
    """Define ``name(input, target, reduction, *params)`` from the elementwise ``kernel(a, b,
    *params)``; ``node`` formulas see ``s.self``, ``s.target``, the params and ``reduction``.
    A node without a target formula refuses a target that requires grad, as PyTorch does.
    An unreduced loss is laid out like ``input`` (TensorIterator's first operand), or like
    ``target`` with ``target_first`` (PyTorch's composite that starts from the target)."""
    def fn(input, target, reduction=MEAN, *params, **named):
        (dtype_check or _check_float)(input, kernel_name)
        input, target = _broadcast_pair(input, target)
        if node._formulas[1] is None and target._requires_grad and needs_grad(target):
            raise RuntimeError(f"The function '{name}' is not differentiable with respect to "
                               "argument 'target'. This input cannot have requires_grad True.")
        dt = input._dtype
        a, b = input._data, target._data
        if dt in (D.float16, D.bfloat16):
            a, b = a.astype(np.float32), b.astype(np.float32)
        arrays = {n: v._data if isinstance(v, Tensor) else v for n, v in named.items()}
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            res = _reduce_arr(iterator_layout(kernel(a, b, *params, **arrays),
                                              (b, a) if target_first else (a, b)), reduction)
        result = wrap(_as_array(res).astype(dt.numpy_dtype, copy=False), dt, input._device)
        if needs_grad(input, target):
            extra = dict(zip(node._param_names, params), **named)
            record(node, (input, target), (result,), self=input, target=target,
                   reduction=reduction, numel=max(input.numel(), 1), **extra)
        return result

    fn.__name__ = fn.__qualname__ = name
    fn.node = node
    register(name, fn, method=False, function_too=False, family="nn.loss", nodes=(node,))
    return fn


def _loss_node(name, d_self, d_target, params=()):
    """A node whose gradients are ``loss_grad * d_self(s)`` / ``loss_grad * d_target(s)``."""
    cls = node_class(name, {
        "self": lambda grad, s: _loss_grad(grad, s) * d_self(s),
        "target": None if d_target is None else
        (lambda grad, s: _loss_grad(grad, s) * d_target(s))},
        saves_also=("self", "target", "reduction", "numel") + tuple(params))
    cls._param_names = tuple(params)
    return cls


mse_loss = pointwise_loss("mse_loss", _loss_node(
    "MseLossBackward0", lambda s: 2 * (s.self - s.target), lambda s: -2 * (s.self - s.target)),
    lambda a, b: (a - b) ** 2, "mse_cpu")


def _smooth_l1_arr(a, b, beta):
    z = np.abs(a - b)
    return np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)


def _smooth_l1_d(s):
    z = s.self - s.target
    return where(z.abs() < s.beta, z / s.beta, z.sign())


smooth_l1_loss = pointwise_loss("smooth_l1_loss", _loss_node(
    "SmoothL1LossBackward0", _smooth_l1_d, lambda s: -_smooth_l1_d(s), ("beta",)),
    _smooth_l1_arr, "smooth_l1_cpu")


def _huber_arr(a, b, delta):
    z = np.abs(a - b)
    return np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))


def _huber_d(s):
    z = s.self - s.target
    return z.clamp(-s.delta, s.delta)


huber_loss = pointwise_loss("huber_loss", _loss_node(
    "HuberLossBackward0", _huber_d, lambda s: -_huber_d(s), ("delta",)), _huber_arr,
    "huber_cpu")


def _soft_margin_arr(a, b):
    return np.log1p(np.exp(-b * a))


def _soft_margin_d(s):
    z = -s.target * s.self
    return -s.target * z.sigmoid()


def _soft_margin_check(input, kernel_name):
    from .._registry import cast_check
    if input._dtype is D.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    cast_check(D.get_default_dtype(), input._dtype)


soft_margin_loss = pointwise_loss("soft_margin_loss", _loss_node(
    "SoftMarginLossBackward0", _soft_margin_d, None), _soft_margin_arr, "soft_margin_loss",
    _soft_margin_check)


def _weighted(arr, weight):
    return arr if weight is None else arr * weight


def _bce_arr(a, b, weight=None):
    log_x = np.maximum(np.log(a), -100)
    log_1mx = np.maximum(np.log1p(-a), -100)
    return _weighted(-(b * log_x + (1 - b) * log_1mx), weight)


def _w(s, t):
    return t if s.weight is None else t * s.weight


def _bce_d_self(s):
    x = s.self
    return _w(s, (x - s.target) / (x * (1 - x)).clamp_min(1e-12))


def _bce_d_target(s):
    x = s.self
    return _w(s, (-x).log1p().clamp_min(-100) - x.log().clamp_min(-100))


_bce = pointwise_loss("binary_cross_entropy", _loss_node(
    "BinaryCrossEntropyBackward0", _bce_d_self, _bce_d_target, ("weight",)), _bce_arr,
    "binary_cross_entropy")


def binary_cross_entropy(input, target, weight=None, reduction=MEAN):
    """``-w * (t log x + (1 - t) log(1 - x))``, logs clamped at -100 as PyTorch does."""
    _check_float(input, "binary_cross_entropy")
    a = input._data
    if a.size and not ((a >= 0) & (a <= 1)).all():
        raise RuntimeError("all elements of input should be between 0 and 1")
    if weight is not None and weight._data.shape != input._data.shape:
        from ..views import broadcast_to
        weight = broadcast_to(weight, input._data.shape)
    return _bce(input, target, reduction, weight=weight)


register("binary_cross_entropy", binary_cross_entropy, method=False, function_too=False,
         family="nn.loss", nodes=(_bce.node,))


def _bcel_arr(a, b, weight=None, pos_weight=None):
    sp = np.log1p(np.exp(-np.abs(a))) + np.maximum(-a, 0)      # softplus(-x) = -log sigmoid x
    if pos_weight is None:
        loss = (1 - b) * a + sp
    else:
        loss = (1 - b) * a + (1 + (pos_weight - 1) * b) * sp
    return _weighted(loss, weight)


def _bcel_d_self(s):
    sig = s.self.sigmoid()
    if s.pos_weight is None:
        return _w(s, sig - s.target)
    pt = s.pos_weight * s.target
    return _w(s, (pt + 1 - s.target) * sig - pt)


def _bcel_d_target(s):
    sp_neg = -(s.self.sigmoid().log())
    if s.pos_weight is None:
        return _w(s, -s.self)
    return _w(s, -s.self + (s.pos_weight - 1) * sp_neg)


_bcel = pointwise_loss("binary_cross_entropy_with_logits", _loss_node(
    "BinaryCrossEntropyWithLogitsBackward0", _bcel_d_self, _bcel_d_target,
    ("weight", "pos_weight")), _bcel_arr, "log_sigmoid_cpu", target_first=True)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction=MEAN):
    """Sigmoid + binary cross-entropy in one numerically stable step; ``pos_weight`` weighs
    the positive term per class."""
    from ..views import broadcast_to
    if weight is not None and weight._data.shape != input._data.shape:
        weight = broadcast_to(weight, input._data.shape)
    if pos_weight is not None and pos_weight._data.shape != input._data.shape:
        pos_weight = broadcast_to(pos_weight, input._data.shape)
    named = {"weight": weight, "pos_weight": pos_weight}
    return _bcel(input, target, reduction, **named)


register("binary_cross_entropy_with_logits", binary_cross_entropy_with_logits, method=False,
         function_too=True, family="nn.loss", nodes=(_bcel.node,))


# ----------------------------------------------------------------------------------------------
# CTC loss (forward-backward over the blank-extended label sequence, vectorised over the batch)
# ----------------------------------------------------------------------------------------------

_NEG_INF = -np.inf


def _lse(*arrays):
    """Elementwise log(sum(exp)) of several arrays, safe where all are -inf."""
    m = arrays[0]
    for a in arrays[1:]:
        m = np.maximum(m, a)
    safe = np.where(np.isfinite(m), m, 0.0)
    total = sum(np.exp(a - safe) for a in arrays)
    with np.errstate(divide="ignore"):
        return np.log(total) + safe


def _shift(a, k, fill=_NEG_INF):
    """``a`` moved right by ``k`` along the last axis (``k < 0`` moves left)."""
    out = np.full_like(a, fill)
    if k > 0:
        out[:, k:] = a[:, :-k]
    else:
        out[:, :k] = a[:, -k:]
    return out


def _ctc_targets(targets, target_lengths, batch):
    """Targets as a padded (N, S) int array, from either the padded or the concatenated form."""
    t = backend.to_numpy(targets._data).astype(np.int64, copy=False)
    lens = np.asarray(target_lengths, dtype=np.int64)
    if t.ndim == 2 or (t.ndim == 1 and batch == 1 and lens.ndim == 0):
        return t.reshape(batch, -1), lens.reshape(batch)
    smax = int(lens.max()) if lens.size else 0
    out = np.zeros((batch, smax), dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lens)[:-1]])
    for n in range(batch):          # a loop over the batch only (N rows, not elements)
        out[n, :lens[n]] = t[offsets[n]:offsets[n] + lens[n]]
    return out, lens


def _ctc_setup(lp, targets, in_lens, tg_lens, blank):
    n_batch = lp.shape[1]
    smax = targets.shape[1]
    width = 2 * smax + 1
    ext = np.full((n_batch, width), blank, dtype=np.int64)
    ext[:, 1::2] = targets
    pos = np.arange(width)
    valid = pos[None, :] < (2 * tg_lens[:, None] + 1)
    skip = np.zeros((n_batch, width), dtype=bool)
    skip[:, 2:] = (pos[None, 2:] % 2 == 1) & (ext[:, 2:] != ext[:, :-2])
    emit = np.take_along_axis(lp, np.broadcast_to(ext[None], (lp.shape[0],) + ext.shape), 2)
    emit = np.where(valid[None], emit, _NEG_INF)
    return ext, skip, emit


def _ctc_alpha(emit, skip, in_lens):
    steps, n_batch, width = emit.shape
    alpha = np.full(emit.shape, _NEG_INF)
    alpha[0, :, :2] = emit[0, :, :2]
    for t in range(1, steps):              # the recursion runs over time; batch is vectorised
        prev = alpha[t - 1]
        rec = _lse(prev, _shift(prev, 1), np.where(skip, _shift(prev, 2), _NEG_INF)) + emit[t]
        alpha[t] = np.where((t < in_lens)[:, None], rec, _NEG_INF)
    return alpha


def _ctc_beta(emit, skip, in_lens, tg_lens):
    steps, n_batch, width = emit.shape
    beta = np.full(emit.shape, _NEG_INF)
    rows = np.arange(n_batch)
    last, cur = 2 * tg_lens, np.full((n_batch, width), _NEG_INF)
    skip_next = _shift(skip, -2, False)
    for t in range(steps - 1, -1, -1):
        rec = _lse(cur, _shift(cur, -1), np.where(skip_next, _shift(cur, -2), _NEG_INF)) + emit[t]
        init = np.full((n_batch, width), _NEG_INF)
        init[rows, last] = emit[t, rows, last]
        has_label = tg_lens > 0
        init[rows[has_label], last[has_label] - 1] = emit[t, rows[has_label],
                                                         last[has_label] - 1]
        cur = np.where((t == in_lens - 1)[:, None], init,
                       np.where((t < in_lens - 1)[:, None], rec, _NEG_INF))
        beta[t] = cur
    return beta


def _ctc_forward(lp, targets, in_lens, tg_lens, blank):
    ext, skip, emit = _ctc_setup(lp, targets, in_lens, tg_lens, blank)
    alpha = _ctc_alpha(emit, skip, in_lens)
    rows = np.arange(lp.shape[1])
    last_t = np.maximum(in_lens - 1, 0)
    end = alpha[last_t, rows, 2 * tg_lens]
    before = np.where(tg_lens > 0, alpha[last_t, rows, np.maximum(2 * tg_lens - 1, 0)],
                      _NEG_INF)
    return -_lse(end, before), (ext, skip, emit, alpha)


def _ctc_grad(lp, nll, state, in_lens, tg_lens, grad_per_sample, zero_infinity):
    ext, skip, emit, alpha = state
    beta = _ctc_beta(emit, skip, in_lens, tg_lens)
    ab = alpha + beta                                          # (T, N, S')
    m = ab.max(axis=2, keepdims=True)
    m_safe = np.where(np.isfinite(m), m, 0.0)
    onehot = (ext[:, :, None] == np.arange(lp.shape[2])[None, None, :]).astype(lp.dtype)
    summed = np.einsum("tns,nsc->tnc", np.exp(ab - m_safe), onehot)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        lcab = np.log(summed) + m_safe
        grad = np.exp(lp) - np.exp(lcab + nll[None, :, None] - lp)
    grad = grad * grad_per_sample[None, :, None]
    steps = np.arange(lp.shape[0])[:, None]
    grad = np.where((steps < in_lens[None, :])[:, :, None], grad, 0.0)
    if zero_infinity:
        grad = np.where(np.isinf(nll)[None, :, None], 0.0, grad)
    return np.nan_to_num(grad, nan=0.0) if zero_infinity else grad


def _ctc_backward(grad, s):
    per = backend.to_numpy(grad._data).astype(np.float64).reshape(-1)
    out = _ctc_grad(s.lp, s.nll, s.state, s.in_lens, s.tg_lens, per, False)
    out = out.reshape(s.shape).astype(s.dtype.numpy_dtype)
    return wrap(backend.to_device(out, s.device), s.dtype, s.device)


CtcNode = node_class("CtcLossBackward0", {"log_probs": _ctc_backward, "targets": None},
                     saves_also=("nll", "tg_lens", "lp", "state", "in_lens", "shape", "dtype",
                                 "device"))


def _lengths(x):
    if isinstance(x, Tensor):
        return backend.to_numpy(x._data).astype(np.int64)
    return np.asarray(x, dtype=np.int64)


def _ctc_per_sample(log_probs, targets, input_lengths, target_lengths, blank):
    """The CTC negative log-likelihood of each sample (the op with its own node)."""
    _check_float(log_probs, "ctc_loss_cpu")
    unbatched = log_probs.dim() == 2
    # The recursion runs on the host (a loop over time steps of small vectorised updates)
    lp = backend.to_numpy(log_probs._data).astype(np.float64)
    if unbatched:
        lp = lp[:, None, :]
    in_lens = _lengths(input_lengths).reshape(-1)
    tgt, tg_lens = _ctc_targets(targets, _lengths(target_lengths), lp.shape[1])
    if (in_lens > lp.shape[0]).any():
        raise RuntimeError(f"Expected input_lengths to have value at most {lp.shape[0]}, but "
                           f"got value {int(in_lens.max())} (while checking arguments for "
                           "ctc_loss_cpu)")
    if not 0 <= blank < lp.shape[2]:
        raise RuntimeError("blank must be in label range")
    nll, state = _ctc_forward(lp, tgt, in_lens, tg_lens, blank)
    dt, dev = log_probs._dtype, log_probs._device
    res = np.asarray(nll.reshape(()) if unbatched else nll).astype(dt.numpy_dtype)
    result = wrap(backend.to_device(res, dev), dt, dev)
    if needs_grad(log_probs):
        record(CtcNode, (log_probs, None), (result,), nll=nll, tg_lens=tg_lens, lp=lp,
               state=state, in_lens=in_lens, shape=log_probs._data.shape, dtype=dt, device=dev)
    return result, tg_lens


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=MEAN,
             zero_infinity=False):
    """Connectionist Temporal Classification: ``-log p(target | log_probs)`` summed over every
    alignment, for ``log_probs`` (T, N, C) or unbatched (T, C). ``mean`` divides each loss by
    its target length, then averages."""
    res, tg_lens = _ctc_per_sample(log_probs, targets, input_lengths, target_lengths, blank)
    if zero_infinity:
        res = where(res == float("inf"), res.new_zeros(()), res)
    if reduction == MEAN:
        lens = wrap(np.maximum(tg_lens, 1).astype(res._dtype.numpy_dtype), res._dtype,
                    res._device)
        return (res / lens.reshape(res.shape)).mean()
    if reduction == SUM:
        return res.sum()
    return res


register("ctc_loss", ctc_loss, method=False, family="nn.loss", nodes=(CtcNode,))


# ----------------------------------------------------------------------------------------------
# multi_margin_loss (multi-class hinge)
# ----------------------------------------------------------------------------------------------

def _per_sample(grad, reduction, batch):
    """The gradient reaching each sample's loss (a column, to scale that sample's row)."""
    if reduction == NONE:
        return grad.reshape(-1, 1)
    return grad / batch if reduction == MEAN else grad


def _multi_margin_grad(grad, s):
    x, t = s.self2d, s.tcol
    z = s.margin - x.gather(1, t) + x
    g = ((z > 0) & s.not_y).to(x.dtype)
    if s.p == 2:
        g = g * 2 * z
    if s.wy is not None:
        g = g * s.wy
    g = g / x.shape[1]
    g = g + x.new_zeros(x.shape).scatter(1, t, -g.sum(1, keepdim=True))
    return (g * _per_sample(grad, s.reduction, x.shape[0])).reshape(s.self.shape)


MultiMarginNode = node_class("MultiMarginLossBackward0", {
    "self": _multi_margin_grad, "target": None},
    saves_also=("self", "self2d", "tcol", "margin", "not_y", "p", "wy", "reduction"))


def multi_margin_loss(input, target, p, margin, weight, reduction):
    """``sum_{i != y} w[y] * max(0, margin - x[y] + x[i])^p / C`` per sample; ``input`` is
    (N, C) or (C,), ``target`` the class of each sample (arguments checked by the caller)."""
    _check_float(input, "multi_margin_loss_cpu_kernel")
    x2 = input.reshape(1, -1) if input.dim() <= 1 else input
    a = x2._data
    t = target._data.reshape(-1).astype(np.int64, copy=False)
    rows = np.arange(a.shape[0])
    z = np.maximum(margin - a[rows, t][:, None] + a, 0)
    z[rows, t] = 0
    if p == 2:
        z = z * z
    wy = None
    if weight is not None:
        wy = weight._data[t][:, None]
        z = z * wy
    losses = z.sum(1) / a.shape[1]
    if input.dim() <= 1 and reduction == NONE:
        losses = losses.reshape(())
    res = _reduce_arr(losses, reduction).astype(input._dtype.numpy_dtype, copy=False)
    result = wrap(res, input._dtype, input._device)
    if needs_grad(input):
        not_y = np.ones(a.shape, dtype=bool)
        not_y[rows, t] = False
        dev = input._device
        record(MultiMarginNode, (input, None), (result,), self=input, self2d=x2,
               tcol=wrap(t[:, None].copy(), D.int64, dev), margin=margin,
               not_y=wrap(not_y, D.bool, dev), p=p, reduction=reduction,
               wy=None if wy is None else wrap(wy, input._dtype, dev))
    return result


register("multi_margin_loss", multi_margin_loss, method=False, function_too=False,
         family="nn.loss", nodes=(MultiMarginNode,))


# ----------------------------------------------------------------------------------------------
# multilabel_margin_loss (multi-label hinge)
# ----------------------------------------------------------------------------------------------

def _multilabel_active(x, tc, valid, others):
    """(N, J, C) mask of the terms ``1 - x[y_j] + x[i] > 0`` that count."""
    z = 1 - x.gather(1, tc).unsqueeze(2) + x.unsqueeze(1)
    return ((z > 0) & valid.unsqueeze(2) & others.unsqueeze(1)).to(x.dtype)


def _multilabel_grad(grad, s):
    x = s.self2d
    act = _multilabel_active(x, s.tc, s.valid, s.others)
    g = act.sum(1) + x.new_zeros(x.shape).scatter_add(1, s.tc, -act.sum(2))
    g = g / x.shape[1]
    return (g * _per_sample(grad, s.reduction, x.shape[0])).reshape(s.self.shape)


MultilabelMarginNode = node_class("MultilabelMarginLossBackward0", {
    "self": _multilabel_grad, "target": None},
    saves_also=("self", "self2d", "tc", "valid", "others", "reduction"))


def multilabel_margin_loss(input, target, reduction):
    """``sum_{j, i} max(0, 1 - x[y_j] + x[i]) / C`` over the targets ``y_j`` listed before the
    first -1 and the classes ``i`` that are not targets (shapes checked by the caller)."""
    _check_float(input, "multilabel_margin_loss_forward_out_frame")
    x2 = input.reshape(1, -1) if input.dim() <= 1 else input
    a = x2._data
    t = target._data.reshape(a.shape).astype(np.int64, copy=False)
    valid = np.cumprod(t >= 0, axis=1).astype(bool)
    tc = np.where(valid, t, 0)
    is_target = np.zeros(a.shape, dtype=bool)
    rows, cols = np.nonzero(valid)
    is_target[rows, t[rows, cols]] = True
    z = np.maximum(1 - np.take_along_axis(a, tc, 1)[:, :, None] + a[:, None, :], 0)
    z = z * (valid[:, :, None] & ~is_target[:, None, :])
    losses = z.sum((1, 2)) / a.shape[1]
    if input.dim() <= 1 and reduction == NONE:
        losses = losses.reshape(())
    res = _reduce_arr(losses, reduction).astype(input._dtype.numpy_dtype, copy=False)
    result = wrap(res, input._dtype, input._device)
    if needs_grad(input):
        dev = input._device
        record(MultilabelMarginNode, (input, None), (result,), self=input, self2d=x2,
               tc=wrap(tc, D.int64, dev), valid=wrap(valid, D.bool, dev),
               others=wrap(~is_target, D.bool, dev), reduction=reduction)
    return result


register("multilabel_margin_loss", multilabel_margin_loss, method=False, function_too=False,
         family="nn.loss", nodes=(MultilabelMarginNode,))
