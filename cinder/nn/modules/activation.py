"""Activation modules: thin Modules over ``nn.functional`` with PyTorch's reprs."""

import warnings

from ...ops.creation import empty
from .. import functional as F
from .. import init as nn_init
from ..parameter import Parameter
from .module import Module

__all__ = ["MultiheadAttention",
           "CELU", "ELU", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
           "LeakyReLU", "LogSigmoid", "LogSoftmax", "Mish", "PReLU", "ReLU", "ReLU6", "RReLU",
           "SELU", "SiLU", "Sigmoid", "Softmax", "Softmax2d", "Softmin", "Softplus",
           "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Threshold"]


def _inplace_suffix(inplace, leading=", "):
    return leading + "inplace=True" if inplace else ""


class _Inplace(Module):
    """An activation whose only setting is ``inplace``."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def extra_repr(self):
        return _inplace_suffix(self.inplace, "")


class Threshold(Module):
    """``y = x`` if ``x > threshold`` else ``value``."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}{_inplace_suffix(self.inplace)}"


class ReLU(_Inplace):
    """``max(0, x)``."""

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)


class RReLU(Module):
    """Randomized leaky ReLU: random negative slopes in training, their mean in eval."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{_inplace_suffix(self.inplace)}"


class Hardtanh(Module):
    """Clamp to ``[min_val, max_val]``."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None,
                 max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val "
                                 f"({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_suffix(self.inplace)}"


class ReLU6(Hardtanh):
    """``min(max(0, x), 6)``."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_suffix(self.inplace, "")


class Sigmoid(Module):
    """``1 / (1 + exp(-x))``."""

    def forward(self, input):
        return input.sigmoid()


class Hardsigmoid(Module):
    """``relu6(x + 3) / 6``."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Tanh(Module):
    """Hyperbolic tangent."""

    def forward(self, input):
        return input.tanh()


class SiLU(_Inplace):
    """``x * sigmoid(x)``."""

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)


class Mish(_Inplace):
    """``x * tanh(softplus(x))``."""

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)


class Hardswish(Module):
    """``x * relu6(x + 3) / 6``."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardswish(input, self.inplace)


class _AlphaActivation(Module):
    """An activation with settings ``alpha`` and ``inplace``."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_suffix(self.inplace)}"


class ELU(_AlphaActivation):
    """``x`` for x > 0, ``alpha * (exp(x) - 1)`` otherwise."""

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)


class CELU(_AlphaActivation):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class SELU(_Inplace):
    """``scale * elu(x, alpha)`` with the self-normalising constants."""

    def forward(self, input):
        return F.selu(input, self.inplace)


class GLU(Module):
    """Gated linear unit along ``dim``."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class GELU(Module):
    """Gaussian Error Linear Unit (``approximate='tanh'`` for the tanh form)."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={repr(self.approximate)}"


class Hardshrink(Module):
    """``x`` where ``|x| > lambd``, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class LeakyReLU(Module):
    """``x`` for x > 0, ``negative_slope * x`` otherwise."""

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{_inplace_suffix(self.inplace)}"


class LogSigmoid(Module):
    """``log(sigmoid(x))``."""

    def forward(self, input):
        return F.logsigmoid(input)


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta`` (linear above ``threshold``)."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Softshrink(Module):
    """Soft thresholding by ``lambd``."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class PReLU(Module):
    """Leaky ReLU with a learned slope: one shared (``num_parameters=1``) or one per channel,
    initialised to ``init``."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        nn_init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    """``x / (1 + |x|)``."""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """``x - tanh(x)``."""

    def forward(self, input):
        return F.tanhshrink(input)


class _SoftmaxLike(Module):
    _fn = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input):
        return type(self)._fn(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmin(_SoftmaxLike):
    """Softmax of ``-x`` along ``dim``."""

    _fn = staticmethod(F.softmin)


class Softmax(_SoftmaxLike):
    """``exp(x) / sum(exp(x))`` along ``dim``."""

    _fn = staticmethod(F.softmax)


class LogSoftmax(_SoftmaxLike):
    """``log(softmax(x))`` along ``dim``."""

    _fn = staticmethod(F.log_softmax)


class Softmax2d(Module):
    """Softmax over the channels of every spatial location of (N, C, H, W) or (C, H, W)."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3, _stacklevel=5)


# --- MultiheadAttention ---

class MultiheadAttention(Module):
    """Multi-head attention (Vaswani et al.): queries, keys and values are projected into
    ``num_heads`` heads of ``embed_dim // num_heads`` features, attended separately, joined
    and projected by ``out_proj``. ``kdim``/``vdim`` allow keys and values of other widths
    (then three separate projection weights exist); ``add_bias_kv`` appends a learned key and
    value; ``add_zero_attn`` appends a zero key and value. Inputs are ``(L, N, E)``, or
    ``(N, L, E)`` with ``batch_first``, or unbatched ``(L, E)``.
    """

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        from .linear import NonDynamicallyQuantizableLinear
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **factory))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **factory))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **factory))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **factory))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **factory))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        **factory)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **factory))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **factory))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        # The same initialisers in the same order as PyTorch, so the RNG draws line up.
        if self._qkv_same_embed_dim:
            nn_init.xavier_uniform_(self.in_proj_weight)
        else:
            nn_init.xavier_uniform_(self.q_proj_weight)
            nn_init.xavier_uniform_(self.k_proj_weight)
            nn_init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            nn_init.constant_(self.in_proj_bias, 0.0)
            nn_init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            nn_init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            nn_init.xavier_normal_(self.bias_v)

    def __setstate__(self, state):
        state.setdefault("_qkv_same_embed_dim", True)
        super().__setstate__(state)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        """Attend ``query`` to ``key``/``value``; returns ``(output, weights)`` (weights are
        averaged over heads unless ``average_attn_weights=False``; None unless
        ``need_weights``)."""
        batched = query.dim() == 3
        if self.batch_first and batched:
            # Keep self-attention's ``query is key is value`` (one packed projection).
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=separate,
            q_proj_weight=self.q_proj_weight if separate else None,
            k_proj_weight=self.k_proj_weight if separate else None,
            v_proj_weight=self.v_proj_weight if separate else None,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and batched:
            return out.transpose(1, 0), weights
        return out, weights
