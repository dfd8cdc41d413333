"""The shared body of HalfCauchy and HalfNormal: ``|X|`` for a zero-centred symmetric ``X``."""

import math

import cinder

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform


class _FoldedAtZero(TransformedDistribution):
    """``|X|`` for ``X`` drawn from ``_base_family(0, scale)``, a distribution symmetric about 0.

    Folding doubles the density on ``x >= 0``, so the log density gains ``log 2``, the cdf is
    ``2 F(x) - 1``, the quantile of ``p`` is the base quantile of ``(p + 1) / 2`` and the
    entropy loses ``log 2``.
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _base_family = None  # the symmetric family, called as _base_family(loc, scale, ...)

    def __init__(self, scale, validate_args=None):
        base_dist = self._base_family(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return cinder.zeros_like(self.scale)

    def _value_for_log_prob(self, value):
        """The value as ``log_prob`` evaluates it (a family may convert it first)."""
        return value

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = self._value_for_log_prob(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return cinder.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
