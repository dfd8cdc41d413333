"""``nn.functional``, activation functions: rectifiers, saturating curves, softmax family.

Re-exported by ``cinder/nn/functional.py`` (the module users import).
"""


from ...ops.nn import activation as _act
from . import _op, warn as _warn

__all__ = ["threshold", "threshold_", "relu", "relu_", "hardtanh", "hardtanh_", "relu6", "elu",
           "elu_", "selu", "selu_", "celu", "celu_", "leaky_relu", "leaky_relu_", "prelu", "rrelu",
           "rrelu_", "glu", "gelu", "logsigmoid", "hardshrink", "tanhshrink", "softsign",
           "softplus", "softmin", "softmax", "log_softmax", "gumbel_softmax", "softshrink", "tanh",
           "sigmoid", "hardsigmoid", "silu", "mish", "hardswish"]


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
    _warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
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
        _warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
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
