"""nn kernels under the names PyTorch publishes on ``torch`` itself: the in-place activations
``torch.selu_`` / ``celu_`` / ``threshold_``, ``channel_shuffle`` / ``native_channel_shuffle``
and ``native_dropout`` (the dropout that also returns its boolean mask)."""

from ..._tensor import Tensor
from ... import _dtype as D
from .._layouts import preserved
from .._prep import wrap
from ...autograd import grad_mode
from .._registry import needs_grad, node_class, record, register
from . import activation as _act
from . import channel_shuffle as _shuffle  # noqa: F401  (registers channel_shuffle)


def selu_(input):
    """In-place :func:`selu`."""
    return _act.selu_(input)


def celu_(input, alpha=1.0):
    """In-place :func:`celu`."""
    return _act.celu_(input, alpha)


def threshold_(input, threshold, value):
    """In-place :func:`threshold`: elements not above ``threshold`` become ``value``."""
    return _act.threshold.inplace(input, threshold, value)


for _fn in (selu_, celu_, threshold_):
    register(_fn.__name__, _fn, method=False, family="nn.activation")

def _no_derivative(grad, s):
    raise RuntimeError("derivative for aten::native_channel_shuffle is not implemented")


# PyTorch gives native_channel_shuffle no derivative: its node raises when backward reaches it
NativeShuffleNode = node_class("NotImplemented", {"self": _no_derivative})


def native_channel_shuffle(input, groups):
    """:func:`channel_shuffle` without a derivative (PyTorch's native kernel)."""
    with grad_mode.no_grad():
        result = _shuffle.channel_shuffle(input, groups)
    if needs_grad(input):
        record(NativeShuffleNode, (input,), (result,))
    return result


register("native_channel_shuffle", native_channel_shuffle, method=False, family="nn.shuffle",
         nodes=(NativeShuffleNode,))

# ----------------------------------------------------------------------------------------------
# native_dropout: (output, mask) with PyTorch's CPU draws
# ----------------------------------------------------------------------------------------------

NativeDropoutNode = node_class("NativeDropoutBackward0", {
    "input": lambda grad, s: grad * s.mask * s.scale}, saves_also=("mask", "scale"))


def native_dropout(input, p, train):
    """Dropout returning ``(output, mask)``: in training (``train`` True or None) each element
    is kept with probability ``1 - p`` and scaled by ``1 / (1 - p)``; ``mask`` (bool) says which
    were kept. The mask is drawn as PyTorch's CPU kernel draws it (``bernoulli_(1 - p)`` on a
    tensor of the input's dtype), so seeded results match."""
    if not isinstance(input, Tensor):
        raise TypeError(f"native_dropout(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    from ..creation import empty_like, ones_like
    if input.numel() == 0:
        return input.clone(), empty_like(input, dtype=D.bool)
    if train is False:
        out, mask = preserved(input._data), ones_like(input)    # clone(preserve_format)
    else:
        keep = 1.0 - p
        mask = empty_like(input)
        mask.bernoulli_(keep)
        out = input._data * mask._data
        out *= out.dtype.type(0.0 if keep == 0 else 1.0 / keep)
    result = wrap(out, input._dtype, input._device)
    if needs_grad(input):
        # PyTorch's derivative scales by 1 / (1 - p) only when ``train`` is True (not None)
        scale = 1.0 if not train else (0.0 if p == 1 else 1.0 / (1.0 - p))
        record(NativeDropoutNode, (input,), (result,), mask=mask, scale=scale)
    return result, mask.to(D.bool)


register("native_dropout", native_dropout, method=False, family="nn.dropout",
         nodes=(NativeDropoutNode,))
