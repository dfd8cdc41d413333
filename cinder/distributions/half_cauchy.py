"""Half-Cauchy distribution: |X| for X ~ Cauchy(0, scale)."""

import math

import cinder

from ._folded import _FoldedAtZero
from .cauchy import Cauchy

__all__ = ["HalfCauchy"]


class HalfCauchy(_FoldedAtZero):
    """The absolute value of a zero-median Cauchy variable of scale ``scale``."""

    _base_family = Cauchy

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return cinder.full(self._extended_shape(), math.inf, dtype=self.scale.dtype,
                           device=self.scale.device)

    @property
    def variance(self):
        return self.base_dist.variance

    def _value_for_log_prob(self, value):
        # numbers and other dtypes are taken in the scale's dtype and device, as PyTorch does
        return cinder.as_tensor(value, dtype=self.base_dist.scale.dtype,
                                device=self.base_dist.scale.device)
