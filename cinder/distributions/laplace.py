"""Laplace (double exponential) distribution."""


import cinder

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Laplace distribution with location ``loc`` and scale ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_attrs(Laplace, batch_shape, _instance, ("loc", "scale"))

    def rsample(self, sample_shape=cinder.Size()):  # noqa: B008 - Size is an immutable tuple
        shape = self._extended_shape(sample_shape)
        finfo = cinder.finfo(self.loc.dtype)
        # uniform on (-1, 1) avoiding -1 exactly, so log1p(-|u|) stays finite
        u = self.loc.new(shape).uniform_(finfo.eps - 1, 1)
        return self.loc - self.scale * u.sign() * cinder.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -cinder.log(2 * self.scale) - cinder.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * cinder.expm1(
            -(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * cinder.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + cinder.log(2 * self.scale)
