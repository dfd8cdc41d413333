"""Cauchy (Lorentz) distribution."""

import math

import cinder

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Cauchy"]


def _standard_cauchy(shape, dtype, device):
    """Standard Cauchy draws as PyTorch's CPU ``cauchy_`` makes them: a double-precision
    uniform u pushed through tan(pi * (u - 0.5)), then rounded to ``dtype``."""
    u = cinder.empty(shape, dtype=cinder.float64, device=device).uniform_()
    return cinder.tan(math.pi * (u - 0.5)).to(dtype)


class Cauchy(Distribution):
    """Cauchy distribution with median ``loc`` and half width at half maximum ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_attrs(Cauchy, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return cinder.full(self._extended_shape(), float("nan"), dtype=self.loc.dtype,
                           device=self.loc.device)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return cinder.full(self._extended_shape(), float("inf"), dtype=self.loc.dtype,
                           device=self.loc.device)

    def rsample(self, sample_shape=cinder.Size()):  # noqa: B008 - Size is an immutable tuple
        shape = self._extended_shape(sample_shape)
        eps = _standard_cauchy(shape, self.loc.dtype, self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (-math.log(math.pi) - self.scale.log()
                - (((value - self.loc) / self.scale) ** 2).log1p())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return cinder.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return cinder.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
