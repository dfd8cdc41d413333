"""Distances between vectors: ``torch.cosine_similarity``, ``pairwise_distance`` and ``pdist``,
composed of differentiable cinder ops (so every order of gradient works)."""

from ... import _dtype as D
from .._registry import FUNCTIONS, register
from ..reduction import _aten_norm
from .loss import _broadcast_pair


def _op(name):
    return FUNCTIONS[name]


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The ``p``-norm of ``x1 - x2 + eps`` over the last dimension (inputs broadcast)."""
    nd = max(x1.dim(), x2.dim())
    diff = x1 - x2 + eps
    # ATen's norm with a dim, as PyTorch's kernel calls it (NormBackward1); 0-d inputs too
    return _aten_norm(diff, p, max(nd - 1, 0), keepdim)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``x1 . x2 / (max(||x1||, eps) * max(||x2||, eps))`` along ``dim`` (inputs broadcast)."""
    x1, x2 = _broadcast_pair(x1, x2)
    n1 = x1.norm(2, dim, True).clamp_min(eps)
    n2 = x2.norm(2, dim, True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pdist(input, p=2):
    """The ``p``-norm distance between every pair of rows of a 2-d ``input``, in the order of
    the upper triangle read row by row."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if input.dtype in (D.float16, D.bfloat16) and input.device.type == "cpu":
        # PyTorch's CPU kernel has no half-precision version
        raise NotImplementedError(f'"pdist" not implemented for \'{input.dtype.scalar_name}\'')
    n = input.shape[0]
    idx = _op("triu_indices")(n, n, 1)
    diff = input.index_select(0, idx[0]) - input.index_select(0, idx[1])
    return _op("norm")(diff, p, 1)


for _fn in (pairwise_distance, cosine_similarity, pdist):
    register(_fn.__name__, _fn, method=False, family="nn.distance")
