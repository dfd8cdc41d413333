"""Generalized Pareto distribution (the tail model of extreme value theory)."""

import math

import cinder

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Generalized Pareto distribution with ``loc``, ``scale`` > 0 and ``concentration`` (the
    shape xi). xi = 0 is a shifted Exponential, xi = -1 a Uniform, xi > 0 a Pareto tail;
    for xi < 0 the support ends at ``loc - scale / xi``. Sampling inverts the CDF.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_attrs(GeneralizedPareto, batch_shape, _instance,
                                  ("loc", "scale", "concentration"))

    def rsample(self, sample_shape=cinder.Size()):  # noqa: B008 - Size is an immutable tuple
        shape = self._extended_shape(sample_shape)
        u = cinder.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def _safe_concentration(self):
        """(concentration is ~0, the concentration with those entries replaced by 1): the
        xi = 0 limit has its own formula, and the general one must not divide by 0."""
        eq_zero = cinder.isclose(self.concentration, cinder.tensor(0.0))
        return eq_zero, cinder.where(eq_zero, cinder.ones_like(self.concentration),
                                     self.concentration)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration()
        y = 1 / safe_conc + cinder.ones_like(z)
        where_nonzero = cinder.where(y == 0, y, y * cinder.log1p(safe_conc * z))
        return -self.scale.log() - cinder.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        """log P(X > value)."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration()
        where_nonzero = -cinder.log1p(safe_conc * z) / safe_conc
        return cinder.where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value):
        """log P(X <= value)."""
        return cinder.log1p(-cinder.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return cinder.exp(self.log_cdf(value))

    def icdf(self, value):
        concentration = self.concentration
        eq_zero = cinder.isclose(concentration, cinder.zeros_like(concentration))
        safe_conc = cinder.where(eq_zero, cinder.ones_like(concentration), concentration)
        logu = cinder.log1p(-value)
        where_nonzero = self.loc + self.scale / safe_conc * cinder.expm1(-safe_conc * logu)
        where_zero = self.loc - self.scale * logu
        return cinder.where(eq_zero, where_zero, where_nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        valid = self.concentration < 1    # the mean is infinite from xi = 1 on
        safe_conc = cinder.where(valid, self.concentration, 0.5)
        return cinder.where(valid, self.loc + self.scale / (1 - safe_conc), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe_conc = cinder.where(valid, self.concentration, 0.25)
        result = self.scale**2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return cinder.where(valid, result, math.nan)

    def entropy(self):
        ans = cinder.log(self.scale) + self.concentration + 1
        return cinder.broadcast_to(ans, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = cinder.where(self.concentration < 0, lower - self.scale / self.concentration,
                             math.inf)
        return constraints.interval(lower, upper)
