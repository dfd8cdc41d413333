"""Negative binomial distribution."""

import cinder
from cinder.nn.functional import logsigmoid

from . import constraints
from ._probs_logits import _ProbsOrLogits
from .distribution import Distribution
from .gamma import Gamma
from .utils import expand_probs_or_logits, lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_ProbsOrLogits, Distribution):
    """Number of successes (probability ``probs`` each) before ``total_count`` failures."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        self._store_probs_or_logits(probs, logits, total_count)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = cinder.Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        expand_probs_or_logits(self, new, batch_shape)
        super(NegativeBinomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.total_count * cinder.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / cinder.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=cinder.exp(-self.logits),
                     validate_args=False)

    def sample(self, sample_shape=cinder.Size()):  # noqa: B008 - Size is an immutable tuple
        """A Poisson draw at a Gamma-distributed rate."""
        with cinder.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return cinder.poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = (self.total_count * logsigmoid(-self.logits)
                                 + value * logsigmoid(self.logits))
        log_normalization = (-cinder.lgamma(self.total_count + value)
                             + cinder.lgamma(1.0 + value) + cinder.lgamma(self.total_count))
        # total_count + value == 0 is the certain outcome 0: no normalization
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
