"""Student's t distribution."""

import math

import cinder

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, location ``loc`` and scale ``scale``."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        m = self.loc.clone()
        m[self.df <= 1] = math.nan  # no mean for df <= 1
        return m

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        m = self.df.clone()
        big = self.df > 2
        m[big] = self.scale[big].pow(2) * self.df[big] / (self.df[big] - 2)
        m[(self.df <= 2) & (self.df > 1)] = math.inf
        m[self.df <= 1] = math.nan
        return m

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_attrs(StudentT, batch_shape, _instance, ("df", "loc", "scale", "_chi2"))

    def rsample(self, sample_shape=cinder.Size()):  # noqa: B008 - Size is an immutable tuple
        # t = N(0, 1) / sqrt(chi2(df) / df)
        shape = self._extended_shape(sample_shape)
        X = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        Z = self._chi2.rsample(sample_shape)
        Y = X * cinder.rsqrt(Z / self.df)
        return self.loc + self.scale * Y

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        Z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + cinder.lgamma(0.5 * self.df) - cinder.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * cinder.log1p(y ** 2.0 / self.df) - Z

    def entropy(self):
        lbeta = (cinder.lgamma(0.5 * self.df) + math.lgamma(0.5)
                 - cinder.lgamma(0.5 * (self.df + 1)))
        return (self.scale.log()
                + 0.5 * (self.df + 1)
                * (cinder.digamma(0.5 * (self.df + 1)) - cinder.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)
