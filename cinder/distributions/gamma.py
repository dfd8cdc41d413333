"""Gamma distribution."""


import cinder

from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Gamma distribution with shape ``concentration`` and inverse scale ``rate``.

    ``rsample`` draws PyTorch's numbers (``torch._standard_gamma``) and carries gradients to
    both parameters (the implicit reparameterization gradient for ``concentration``).
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_attrs(Gamma, batch_shape, _instance, ("concentration", "rate"))

    def rsample(self, sample_shape=cinder.Size()):  # noqa: B008 - Size is an immutable tuple
        shape = self._extended_shape(sample_shape)
        value = cinder._standard_gamma(self.concentration.expand(shape)) / self.rate.expand(
            shape)
        value.detach().clamp_(min=cinder.finfo(value.dtype).tiny)   # in place, as PyTorch
        return value

    def log_prob(self, value):
        value = cinder.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (cinder.xlogy(self.concentration, self.rate)
                + cinder.xlogy(self.concentration - 1, value)
                - self.rate * value - cinder.lgamma(self.concentration))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return cinder.special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        return (self.concentration - cinder.log(self.rate) + cinder.lgamma(self.concentration)
                + (1.0 - self.concentration) * cinder.digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return cinder.lgamma(x + 1) + (x + 1) * cinder.log(-y.reciprocal())
