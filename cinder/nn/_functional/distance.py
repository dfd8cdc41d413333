"""``nn.functional``, distances and similarities: pairwise_distance, cosine_similarity,
pdist, normalize.

Re-exported by ``cinder/nn/functional.py`` (the module users import).
"""

from . import _op

__all__ = ["pairwise_distance", "cosine_similarity", "pdist", "normalize"]


def _broadcast_pair(a, b):
    """Both tensors expanded to their common shape (``torch.broadcast_tensors`` of two)."""
    if a.shape == b.shape:
        return a, b
    from ...ops._prep import broadcast_shape
    shape = broadcast_shape(a.shape, b.shape)
    return a.expand(shape), b.expand(shape)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` over the last dimension."""
    nd = max(x1.dim(), x2.dim())
    return _op("norm")(x1 - x2 + eps, p, nd - 1, keepdim) if nd else \
        _op("norm")(x1 - x2 + eps, p)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``x1 . x2 / (max(||x1||, eps) * max(||x2||, eps))`` along ``dim``."""
    x1, x2 = _broadcast_pair(x1, x2)
    n1 = x1.norm(2, dim, True)
    n2 = x2.norm(2, dim, True)
    n1 = _op("where")(n1 < eps, _op("full_like")(n1, eps), n1)
    n2 = _op("where")(n2 < eps, _op("full_like")(n2, eps), n2)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pdist(input, p=2):
    """Distances between every pair of rows of a 2-d input (upper triangle, row-major)."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    n = input.shape[0]
    if n < 2:
        return input.new_zeros((0,))
    idx = _op("triu_indices")(n, n, 1)
    diff = input.index_select(0, idx[0]) - input.index_select(0, idx[1])
    return _op("norm")(diff, p, 1)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(||input||_p, eps)`` along ``dim``."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return _op("div")(input, denom, out=out)
