"""Half-normal distribution: |X| for X ~ Normal(0, scale)."""

import math

from ._folded import _FoldedAtZero
from .normal import Normal

__all__ = ["HalfNormal"]


class HalfNormal(_FoldedAtZero):
    """The absolute value of a zero-mean normal with standard deviation ``scale``."""

    _base_family = Normal

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)
