"""Helpers shared by the distribution families (mirrors ``torch.distributions.utils``)."""

from functools import update_wrapper
from numbers import Number

import cinder

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant


def broadcast_all(*values):
    """Broadcast tensors and Python numbers to one shape; numbers become tensors of the
    default dtype (or of the first tensor's dtype when there is one)."""
    if not all(cinder.is_tensor(v) or isinstance(v, Number) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(cinder.is_tensor(v) for v in values):
        options = dict(dtype=cinder.get_default_dtype())
        for v in values:
            if cinder.is_tensor(v):
                options = dict(dtype=v.dtype, device=v.device)
                break
        values = [v if cinder.is_tensor(v) else cinder.tensor(v, **options) for v in values]
    return cinder.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    """Standard normal draws of ``shape`` from the global stream (as PyTorch's ``normal_``)."""
    return cinder.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    """Sum out the ``dim`` rightmost dimensions of ``value``."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: sigmoid for binary outcomes, softmax over the last dim else."""
    if is_binary:
        return cinder.sigmoid(logits)
    return cinder.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Keep probabilities inside the open interval (0, 1) by the dtype's epsilon."""
    eps = cinder.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities (binary: log-odds; else the log of the clamped probs)."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return cinder.log(ps_clamped) - cinder.log1p(-ps_clamped)
    return cinder.log(ps_clamped)


def check_probs_or_logits(probs, logits):
    """Raise unless exactly one of ``probs`` and ``logits`` is given (as PyTorch's families)."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def expand_probs_or_logits(dist, new, shape):
    """Give ``new`` whichever of ``probs``/``logits`` ``dist`` holds, expanded to ``shape``;
    ``new._param`` is the given one (logits when both have been computed)."""
    if "probs" in dist.__dict__:
        new.probs = dist.probs.expand(shape)
        new._param = new.probs
    if "logits" in dist.__dict__:
        new.logits = dist.logits.expand(shape)
        new._param = new.logits


class lazy_property:
    """A property computed on first access and then stored on the instance; under grad mode
    off at creation it is still recomputed with grad so the graph is kept."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with cinder.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a lazy_property looks like on the class: also a property, so docs tools see it."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag=0):
    """The lower-triangular entries (below diagonal ``diag``) of the last two dims, row order."""
    n = mat.shape[-1]
    rows, cols = cinder.tril_indices(n, n, offset=diag)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec, diag=0):
    """Inverse of :func:`tril_matrix_to_vec`: fill a lower-triangular matrix from a vector."""
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1))
         ** 0.5) / 2
    eps = cinder.finfo(vec.dtype).eps
    if not round(n) - n < eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         "expressed as the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + (n, n))
    rows, cols = cinder.tril_indices(n, n, offset=diag)
    mat[..., rows, cols] = vec
    return mat
