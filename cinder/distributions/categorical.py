"""Categorical distribution over the integers 0 .. K-1."""

import cinder

from . import constraints
from ._probs_logits import _ProbsOrLogits
from .distribution import Distribution
from .utils import check_probs_or_logits, expand_probs_or_logits

__all__ = ["Categorical"]


class Categorical(_ProbsOrLogits, Distribution):
    """Distribution over K categories given by ``probs`` (normalised along the last dim) or
    unnormalised log-probabilities ``logits``."""

    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    has_enumerate_support = True
    _binary = False  # softmax / log over the last dim link probs and logits

    def __init__(self, probs=None, logits=None, validate_args=None):
        check_probs_or_logits(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - cinder.logsumexp(logits, -1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else cinder.Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = cinder.Size(batch_shape)
        param_shape = batch_shape + cinder.Size((self._num_events,))
        expand_probs_or_logits(self, new, param_shape)
        new._num_events = self._num_events
        super(Categorical, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self):
        return cinder.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype,
                           device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(-1)

    @property
    def variance(self):
        return cinder.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype,
                           device=self.probs.device)

    def sample(self, sample_shape=cinder.Size()):  # noqa: B008 - Size is an immutable tuple
        if not isinstance(sample_shape, cinder.Size):
            sample_shape = cinder.Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        samples_2d = cinder.multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = cinder.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        # clamp so that a zero probability (logit -inf) contributes 0 rather than nan
        min_real = cinder.finfo(self.logits.dtype).min
        logits = cinder.clamp(self.logits, min=min_real)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand=True):
        values = cinder.arange(self._num_events, dtype=cinder.long, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values


class _CategoricalWrapper:
    """A family built on a Categorical held in ``_categorical``: the parameters, their shape
    and new tensors all come from it."""

    def _wrap_categorical(self, probs, logits):
        """Build the inner Categorical; return the (batch_shape, event_shape) it implies."""
        self._categorical = Categorical(probs=probs, logits=logits)
        return self._categorical.batch_shape, self._categorical.param_shape[-1:]

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs
