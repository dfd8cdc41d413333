"""``nn.functional``, ``normalize`` (``pairwise_distance``, ``cosine_similarity`` and ``pdist``
are the published ops ``cinder.<name>``, as in PyTorch: see ``cinder/ops/nn/distance.py``).

Re-exported by ``cinder/nn/functional.py`` (the module users import).
"""

from . import _op

__all__ = ["normalize"]


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(||input||_p, eps)`` along ``dim``."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return _op("div")(input, denom, out=out)
