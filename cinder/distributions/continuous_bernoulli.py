"""Continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem and Cunningham, NeurIPS 2019)."""

import math

import cinder
from cinder.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from ._probs_logits import _ProbsOrLogits
from .exp_family import ExponentialFamily
from .utils import (
    broadcast_all, clamp_probs, expand_probs_or_logits, lazy_property, logits_to_probs)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(_ProbsOrLogits, ExponentialFamily):
    """The density ``C(p) * p**x * (1 - p)**(1 - x)`` on [0, 1], given by ``probs`` p in (0, 1)
    or by ``logits`` (whose sigmoid is p). Unlike the Bernoulli, p is not a probability.

    Near p = 0.5 the closed forms divide 0 by 0, so inside ``lims`` (default (0.499, 0.501))
    the normaliser, mean and variance use Taylor expansions around 0.5 instead.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        self._store_probs_or_logits(probs, logits)
        if probs is not None:
            # checked before the clamp below would hide a bad value
            if validate_args is not None:
                if not self.arg_constraints["probs"].check(self.probs).all():
                    raise ValueError("The parameter probs has invalid values")
            self.probs = self._param = clamp_probs(self.probs)
        self._lims = lims
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = cinder.Size(batch_shape)
        expand_probs_or_logits(self, new, batch_shape)
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _outside_unstable_region(self):
        return cinder.max(cinder.le(self.probs, self._lims[0]),
                          cinder.gt(self.probs, self._lims[1]))

    def _cut_probs(self):
        """``probs``, with values inside the unstable region moved to its lower edge (their
        results are replaced by the Taylor expansions anyway)."""
        return cinder.where(self._outside_unstable_region(), self.probs,
                            self._lims[0] * cinder.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """log C(p), the log normalising constant, as a function of ``probs``."""
        cut = self._cut_probs()
        below_half = cinder.where(cinder.le(cut, 0.5), cut, cinder.zeros_like(cut))
        above_half = cinder.where(cinder.ge(cut, 0.5), cut, cinder.ones_like(cut))
        log_norm = cinder.log(cinder.abs(cinder.log1p(-cut) - cinder.log(cut))) - cinder.where(
            cinder.le(cut, 0.5), cinder.log1p(-2.0 * below_half),
            cinder.log(2.0 * above_half - 1.0))
        x = cinder.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return cinder.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (cinder.log1p(-cut) - cinder.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * cinder.pow(x, 2)) * x
        return cinder.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return cinder.sqrt(self.variance)

    @property
    def variance(self):
        cut = self._cut_probs()
        variances = (cut * (cut - 1.0) / cinder.pow(1.0 - 2.0 * cut, 2)
                     + 1.0 / cinder.pow(cinder.log1p(-cut) - cinder.log(cut), 2))
        x = cinder.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return cinder.where(self._outside_unstable_region(), variances, taylor)

    @lazy_property
    def probs(self):
        # kept off 0 and 1 as the given probs are (the normaliser is singular there)
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def sample(self, sample_shape=cinder.Size()):  # noqa: B008 - Size is an immutable tuple
        shape = self._extended_shape(sample_shape)
        u = cinder.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        with cinder.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=cinder.Size()):  # noqa: B008 - Size is an immutable tuple
        shape = self._extended_shape(sample_shape)
        u = cinder.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (-binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = ((cinder.pow(cut, value) * cinder.pow(1.0 - cut, 1.0 - value) + cut - 1.0)
                / (2.0 * cut - 1.0))
        unbounded = cinder.where(self._outside_unstable_region(), cdfs, value)
        return cinder.where(cinder.le(value, 0.0), cinder.zeros_like(value),
                            cinder.where(cinder.ge(value, 1.0), cinder.ones_like(value),
                                         unbounded))

    def icdf(self, value):
        cut = self._cut_probs()
        inverted = ((cinder.log1p(-cut + value * (2.0 * cut - 1.0)) - cinder.log1p(-cut))
                    / (cinder.log(cut) - cinder.log1p(-cut)))
        return cinder.where(self._outside_unstable_region(), inverted, value)

    def entropy(self):
        log_probs0 = cinder.log1p(-self.probs)
        log_probs1 = cinder.log(self.probs)
        return (self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm()
                - log_probs0)

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log C as a function of the natural parameter (the logits)."""
        unstable_lo, unstable_hi = self._lims[0] - 0.5, self._lims[1] - 0.5
        outside = cinder.max(cinder.le(x, unstable_lo), cinder.gt(x, unstable_hi))
        cut = cinder.where(outside, x, unstable_lo * cinder.ones_like(x))
        log_norm = (cinder.log(cinder.abs(cinder.special.expm1(cut)))
                    - cinder.log(cinder.abs(cut)))
        taylor = 0.5 * x + cinder.pow(x, 2) / 24.0 - cinder.pow(x, 4) / 2880.0
        return cinder.where(outside, log_norm, taylor)
