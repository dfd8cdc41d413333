"""Scaled dot-product attention: two batched GEMMs around a fused softmax, explicit backward.

``softmax(q k^T * scale + mask) @ v`` over the last two dimensions, with PyTorch's options:
a boolean mask (True = may attend) or an additive float mask, ``is_causal`` (lower-triangular
mask), ``dropout_p`` (a ``bernoulli_(1 - p)`` mask drawn from the default generator, the
draw PyTorch makes, so results match after the same seed), ``scale`` and ``enable_gqa``
(fewer key/value heads than query heads, each shared by a group of query heads). A row that
may attend nowhere gives zeros, not NaN, as PyTorch's safe softmax does.
"""

import numpy as np

from ... import _dtype as D
from .._prep import xp_of
from ...autograd import grad_mode
from .._registry import needs_grad, node_class, record, register
from ._utils import like, recompute_grads

__all__ = ["scaled_dot_product_attention"]


def _sum_to(xp, arr, shape):
    """Reduce a broadcast gradient back to ``shape``."""
    lead = arr.ndim - len(shape)
    if lead:
        arr = arr.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and arr.shape[i] != 1)
    return arr.sum(axis=axes, keepdims=True) if axes else arr


def _repeat_heads(xp, arr, groups):
    """(…, Hk, S, E) -> (…, Hk * groups, S, E), each head repeated ``groups`` times in a row
    (``repeat_interleave`` on the head dimension)."""
    return arr if groups == 1 else xp.repeat(arr, groups, axis=-3)


def _fold_heads(arr, groups):
    """The adjoint of ``_repeat_heads``: sum each group of heads."""
    if groups == 1:
        return arr
    shape = arr.shape[:-3] + (arr.shape[-3] // groups, groups) + arr.shape[-2:]
    return arr.reshape(shape).sum(axis=-3)


def _softmax_rows(xp, s):
    """Softmax over the last axis; rows that are all -inf give zeros."""
    top = s.max(axis=-1, keepdims=True)
    dead = ~xp.isfinite(top)
    top = xp.where(dead, 0, top)
    e = xp.exp(s - top)
    total = e.sum(axis=-1, keepdims=True)
    return xp.where(dead, 0, e / xp.where(total == 0, 1, total)).astype(s.dtype, copy=False)


def _check(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa):
    if attn_mask is not None and is_causal:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value must have at "
                           "least 2 dimensions")
    if not (query._dtype is key._dtype is value._dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {query.dtype} key.dtype: {key.dtype} and value.dtype: "
                           f"{value.dtype} instead.")
    if query.shape[-1] != key.shape[-1]:
        batch_q = query.numel() // max(query.shape[-2] * query.shape[-1], 1)
        batch_k = key.numel() // max(key.shape[-2] * key.shape[-1], 1)
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{batch_q}, {query.shape[-1]}] but got: [{batch_k}, "
                           f"{key.shape[-1]}].")
    if key.shape[-2] != value.shape[-2]:
        raise RuntimeError("scaled_dot_product_attention: key and value must have the same "
                           "sequence length")
    if not 0 <= dropout_p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got "
                           f"{dropout_p}")
    groups = 1
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        if query.shape[-3] % key.shape[-3]:
            raise RuntimeError("number of heads in key/value must divide number of heads in "
                               "query")
        groups = query.shape[-3] // key.shape[-3]
    return groups


def _mask_array(xp, attn_mask, is_causal, L, S, dtype):
    """The additive mask (or None) and the boolean 'may attend' mask it came from."""
    if is_causal:
        allowed = xp.tril(xp.ones((L, S), dtype=bool))
        return xp.where(allowed, 0, -np.inf).astype(dtype)
    if attn_mask is None:
        return None
    m = attn_mask._data
    if m.dtype == np.bool_:
        return xp.where(m, 0, -np.inf).astype(dtype)
    return m.astype(dtype, copy=False)


def _backward_arrays(xp, s, g):
    """Gradients of q, k, v and a float mask from the output gradient ``g``."""
    q, k, v = s.q_arr, s.k_arr, s.v_arr
    p, noise, scale = s.probs, s.noise, s.scale
    pd = p if noise is None else p * noise
    dv = pd.swapaxes(-1, -2) @ g
    dpd = g @ v.swapaxes(-1, -2)
    dp = dpd if noise is None else dpd * noise
    ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True))
    dq = (ds @ k) * scale
    dk = (ds.swapaxes(-1, -2) @ q) * scale
    return dq, dk, dv, ds


def _grads(grad, s):
    xp = xp_of(grad)
    dq, dk, dv, ds = _backward_arrays(xp, s, grad._data)
    dk = _sum_to(xp, _fold_heads(dk, s.groups), s.k_shape)
    dv = _sum_to(xp, _fold_heads(dv, s.groups), s.v_shape)
    dq = _sum_to(xp, dq, s.q_shape)
    dm = None if s.mask_shape is None else _sum_to(xp, ds, s.mask_shape)
    return [None if a is None else like(a, grad) for a in (dq, dk, dv, dm)]


def _attention_ops(s, query, key, value, attn_mask):
    """The attention of the forward in differentiable ops (the double-backward path)."""
    if s.groups > 1:
        key = key.repeat_interleave(s.groups, -3)
        value = value.repeat_interleave(s.groups, -3)
    scores = query.matmul(key.transpose(-1, -2)) * s.scale
    if attn_mask is not None:
        scores = scores + attn_mask
    elif s.mask is not None:
        scores = scores + like(s.mask, query)
    xp = xp_of(query)
    dead = None
    if s.mask is not None:
        dead = xp.broadcast_to(xp.isneginf(s.mask).all(axis=-1, keepdims=True), scores.shape)
    if dead is not None and dead.any():
        # A row that may attend nowhere gives zeros (PyTorch's safe softmax).
        dead_t = like(xp.ascontiguousarray(dead), query, D.bool)
        probs = scores.masked_fill(dead_t, 0).softmax(-1).masked_fill(dead_t, 0)
    else:
        probs = scores.softmax(-1)
    if s.noise is not None:
        probs = probs * like(s.noise, query)
    return probs.matmul(value)


_Base = node_class("ScaledDotProductAttentionBackward0",
                   {"query": None, "key": None, "value": None, "attn_mask": None},
                   saves_also=("query", "key", "value", "attn_mask", "mask", "q_arr",
                               "k_arr", "v_arr", "probs", "noise", "scale", "groups",
                               "q_shape", "k_shape", "v_shape", "mask_shape"))


class AttentionNode(_Base):
    """All four gradients from one pass (the formulas would share every product)."""

    __slots__ = ()

    def _apply_formulas(self, grad):
        if grad_mode.STATE.grad_enabled:    # create_graph=True: differentiable gradients
            grads = recompute_grads(self, _attention_ops, ("query", "key", "value",
                                                           "attn_mask"), grad)
        else:
            self.saved("query")             # the saved input: raises once freed
            grads = _grads(grad, self)
        return tuple(None if edge is None else g
                     for g, (edge, _) in zip(grads, self.next_functions))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(query @ key.T * scale + mask) @ value`` over the last two dimensions
    (see the module docstring for the options)."""
    groups = _check(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa)
    xp = xp_of(query)
    q = query._data
    k = _repeat_heads(xp, key._data, groups)
    v = _repeat_heads(xp, value._data, groups)
    sc = 1.0 / float(np.sqrt(q.shape[-1])) if scale is None else float(scale)
    scores = q @ k.swapaxes(-1, -2)
    scores *= q.dtype.type(sc)
    mask = _mask_array(xp, attn_mask, is_causal, q.shape[-2], k.shape[-2], q.dtype)
    if mask is not None:
        scores = scores + mask
    probs = _softmax_rows(xp, scores)
    noise = None
    if dropout_p > 0:
        noise = _dropout_noise(query, probs.shape, dropout_p)
        out = (probs * noise) @ v
    else:
        out = probs @ v
    result = like(out, query)
    float_mask = attn_mask if attn_mask is not None and attn_mask._data.dtype != np.bool_ \
        else None
    if needs_grad(query, key, value, float_mask):
        record(AttentionNode, (query, key, value, float_mask), (result,), query=query,
               key=key, value=value, attn_mask=float_mask, mask=mask, q_arr=q, k_arr=k,
               v_arr=v, probs=probs, noise=noise, scale=sc, groups=groups,
               q_shape=q.shape, k_shape=key._data.shape, v_shape=value._data.shape,
               mask_shape=None if float_mask is None else float_mask._data.shape)
    return result


def _dropout_noise(query, shape, p):
    """PyTorch's dropout noise: ``empty(shape).bernoulli_(1 - p).div_(1 - p)``."""
    if p == 1:
        return xp_of(query).zeros(shape, query._data.dtype)
    noise = query.new_empty(shape)
    noise.bernoulli_(1 - p)
    noise.div_(1 - p)
    return noise._data


register("_scaled_dot_product_attention", scaled_dot_product_attention, method=False,
         function_too=False, family="nn.attention", nodes=(AttentionNode,))
