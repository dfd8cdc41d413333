"""Mixins for the families given by either ``probs`` or ``logits``.

Bernoulli, Binomial, NegativeBinomial, Geometric, ContinuousBernoulli, LogitRelaxedBernoulli
and Categorical all take exactly one of the two parametrisations and compute the other on
demand. OneHotCategorical, ExpRelaxedCategorical and Multinomial wrap a Categorical, and the
relaxed distributions wrap a base distribution that holds the parameters. The code those
families share lives here once (the Categorical wrapper beside Categorical); the public classes
stay in PyTorch's files.
"""

from .utils import (
    broadcast_all, check_probs_or_logits, lazy_property, logits_to_probs, probs_to_logits)


class _LazyProbsLogits:
    """``probs`` and ``logits`` as lazy properties, each computed from the other.

    ``_binary`` picks the link: sigmoid and log-odds for a single event (the default), softmax
    and log over the last dim for categories.
    """

    _binary = True

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=self._binary)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=self._binary)


class _ProbsOrLogits(_LazyProbsLogits):
    """A family that also keeps the given parameter as ``_param`` (for ``param_shape``, and
    for ``_new`` to build tensors of its dtype and device)."""

    def _store_probs_or_logits(self, probs, logits, total_count=None):
        """Check that exactly one of ``probs`` and ``logits`` is given, broadcast it (against
        ``total_count`` for the counting families, whose count then takes the parameter's
        dtype), and store it under its own name and as ``_param``."""
        check_probs_or_logits(probs, logits)
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        if total_count is None:
            (param,) = broadcast_all(given)
        else:
            total_count, param = broadcast_all(total_count, given)
            self.total_count = total_count.type_as(param)
        setattr(self, name, param)
        self._param = param

    @property
    def param_shape(self):
        return self._param.size()

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)


class _RelaxedWrapper:
    """A relaxed distribution (a transform of ``base_dist``): its temperature and parameters
    are the base distribution's."""

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
