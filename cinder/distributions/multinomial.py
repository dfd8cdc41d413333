"""Multinomial distribution: category counts over ``total_count`` draws."""

import math

import cinder

from . import constraints
from .binomial import Binomial
from .categorical import _CategoricalWrapper
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(_CategoricalWrapper, Distribution):
    """Counts of each of K categories in ``total_count`` independent categorical draws."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        batch_shape, event_shape = self._wrap_categorical(probs, logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = cinder.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    def sample(self, sample_shape=cinder.Size()):  # noqa: B008 - Size is an immutable tuple
        sample_shape = cinder.Size(sample_shape)
        # total_count categorical draws (same stream use as PyTorch), then counted
        samples = self._categorical.sample(cinder.Size((self.total_count,)) + sample_shape)
        order = list(range(1, samples.dim())) + [0]
        samples = samples.permute(*order)
        counts = samples.new(self._extended_shape(sample_shape)).zero_()
        counts.scatter_add_(-1, samples, cinder.ones_like(samples))
        return counts.type_as(self.probs)

    def entropy(self):
        n = cinder.tensor(self.total_count)
        term1 = n * self._categorical.entropy() - cinder.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = cinder.exp(self._binomial.log_prob(support))
        weights = cinder.lgamma(support + 1)
        term2 = (binomial_probs * weights).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        log_factorial_n = cinder.lgamma(value.sum(-1) + 1)
        log_factorial_xs = cinder.lgamma(value + 1).sum(-1)
        logits[(value == 0) & (logits == -math.inf)] = 0  # 0 * log(0) counts as 0
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
