"""``nn.functional``, attention: ``scaled_dot_product_attention`` and
``multi_head_attention_forward`` (re-exported by ``cinder/nn/functional.py``, the module users
import).

``multi_head_attention_forward`` follows PyTorch's steps in order — mask canonicalisation,
packed or separate input projections, bias_k/bias_v and zero-attention columns, key padding
mask folded into the attention mask — so masks, dropout draws and results match. With
``need_weights`` the probabilities are built explicitly (they are returned); otherwise the
fused attention kernel runs.
"""

import math

from ... import _dtype as D
from ..._tensor import Tensor
from ...ops import FUNCTIONS as _OPS

from ...ops.nn.attention import scaled_dot_product_attention as _sdpa
from ..attention import _check_allowed
from .activation import softmax
from .dropout import dropout
from .linear import linear
from .vision import pad

from . import warn as _warn

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """Attention ``softmax(query @ key^T * scale + mask) @ value`` over the last two dims.

    ``attn_mask`` is boolean (True where attending is allowed) or float (added to the
    scores); ``is_causal`` applies a lower-triangular mask; ``dropout_p`` drops attention
    probabilities (pass 0.0 in evaluation); ``scale`` defaults to ``1/sqrt(E)``;
    ``enable_gqa`` lets key/value have fewer heads than query (grouped-query attention).
    """
    if isinstance(query, Tensor):
        _check_allowed(query.device.type)
    return _sdpa(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the call is batched; AssertionError on inconsistent ranks (PyTorch's checks)."""
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")
    batched = query.dim() == 3
    rank, word = (3, "batched (3-D)") if batched else (2, "unbatched (2-D)")
    if key.dim() != rank or value.dim() != rank:
        raise AssertionError(f"For {word} `query`, expected `key` and `value` to be {rank}-D "
                             f"but found {key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != rank - 1:
        raise AssertionError(f"For {word} `query`, expected `key_padding_mask` to be `None` or "
                             f"{rank - 1}-D but found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {word} `query`, expected `attn_mask` to be `None`, 2-D "
                                 f"or 3-D but found {attn_mask.dim()}-D tensor instead")
        if not batched and attn_mask.dim() == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                     f"{attn_mask.shape}")
    return batched


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask becomes an additive float mask (-inf where True); floats pass through."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != D.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        _warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. "
                      f"Use same type for both instead.", stacklevel=3)
    if not is_float:
        mask = mask.new_zeros(mask.shape, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _in_projection_packed(q, k, v, w, b=None):
    """Project query/key/value with one stacked (3E, E) weight (one GEMM for self-attention,
    two for encoder-decoder attention)."""
    E = q.size(-1)
    if k is v:
        if q is k:
            proj = linear(q, w, b).unflatten(-1, (3, E))
            return proj[..., 0, :], proj[..., 1, :], proj[..., 2, :]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, E))
        return linear(q, w_q, b_q), kv[..., 0, :], kv[..., 1, :]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _heads(t, bsz, num_heads, head_dim, static, name):
    """(S, B, E) -> (B * heads, S, head_dim), or the given static tensor after checks."""
    if static is None:
        return t.reshape(t.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if static.size(0) != bsz * num_heads:
        raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads}, but got "
                             f"{static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got "
                             f"{static.size(2)}")
    return static


def _check_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads):
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should "
                               f"be {(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {(bsz * num_heads, tgt_len, src_len)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """The computation of :class:`~torch.nn.MultiheadAttention` (sequence-first layout
    ``(L, N, E)`` or unbatched ``(L, E)``). Returns ``(output, weights or None)``."""
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       None if attn_mask is None else attn_mask.dtype,
                                       "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None            # the kernel builds the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
        b_q, b_k, b_v = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = (linear(query, q_proj_weight, b_q), linear(key, k_proj_weight, b_k),
                   linear(value, v_proj_weight, b_v))
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape "
                                 f"{value.shape}")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads)
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _OPS["cat"]([k, bias_k.repeat(1, bsz, 1)])
        v = _OPS["cat"]([v, bias_v.repeat(1, bsz, 1)])
        attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k is set but bias_v is None" if bias_k is not None else
                             "bias_v is set but bias_k is None")
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _heads(k, bsz, num_heads, head_dim, static_k, "static_k")
    v = _heads(v, bsz, num_heads, head_dim, static_v, "static_v")
    if add_zero_attn:
        zeros = k.new_zeros((bsz * num_heads, 1, head_dim))
        k = _OPS["cat"]([k, zeros], 1)
        v = _OPS["cat"]([v, zeros.to(v.dtype)], 1)
        attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
    src_len = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1) \
            .reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    if need_weights:
        return _with_weights(q, k, v, attn_mask, dropout_p, is_causal, out_proj_weight,
                             out_proj_bias, tgt_len, bsz, num_heads, src_len, embed_dim,
                             average_attn_weights, batched)
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    return (out if batched else out.squeeze(1)), None


def _pad_masks(attn_mask, key_padding_mask):
    """One more key column (bias_k or the zero attention): both masks grow by a 0 column."""
    if attn_mask is not None:
        attn_mask = pad(attn_mask, (0, 1))
    if key_padding_mask is not None:
        key_padding_mask = pad(key_padding_mask, (0, 1))
    return attn_mask, key_padding_mask


def _with_weights(q, k, v, attn_mask, dropout_p, is_causal, out_w, out_b, tgt_len, bsz,
                  num_heads, src_len, embed_dim, average, batched):
    """The need_weights path: explicit probabilities, as PyTorch computes them."""
    if is_causal and attn_mask is None:
        raise AssertionError("FIXME: is_causal not implemented for need_weights")
    q_scaled = q * math.sqrt(1.0 / float(q.shape[2]))
    weights = _OPS["bmm"](q_scaled, k.transpose(-2, -1))
    if attn_mask is not None:
        weights = attn_mask + weights           # PyTorch's baddbmm(attn_mask, q, k^T)
    weights = softmax(weights, dim=-1)
    if dropout_p > 0.0:
        weights = dropout(weights, p=dropout_p)
    out = _OPS["bmm"](weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = linear(out, out_w, out_b).reshape(tgt_len, bsz, -1)
    weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
    if average:
        weights = weights.mean(dim=1)
    if not batched:
        out, weights = out.squeeze(1), weights.squeeze(0)
    return out, weights


def _none_or_dtype(input):
    """The dtype of a mask tensor, or None."""
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")
