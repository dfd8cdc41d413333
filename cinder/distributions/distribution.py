"""The ``Distribution`` base class: shapes, validation and the interface every family fills in."""

import warnings

import cinder

from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """Abstract probability distribution.

    ``batch_shape`` indexes independent (not identically distributed) draws; ``event_shape`` is
    the shape of one draw. Arguments are checked against ``arg_constraints`` when validation is on
    (the default under ``__debug__``).
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument and sample validation on or off for every later distribution."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=cinder.Size(), event_shape=cinder.Size(), validate_args=None):  # noqa: B008 - Size is an immutable tuple
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_arguments()
        super().__init__()

    def _check_arguments(self):
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(f"{self.__class__} does not define `arg_constraints`. "
                          "Please set `arg_constraints = {}` or initialize the distribution "
                          "with `validate_args=False` to turn off validation.", stacklevel=2)
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue  # a support depending on other parameters cannot be checked alone
            if param not in self.__dict__ and isinstance(getattr(type(self), param),
                                                         lazy_property):
                continue  # not built yet: checking would force the lazy computation
            value = getattr(self, param)
            if not bool(constraint.check(value).all()):
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {repr(self)} to satisfy the "
                    f"constraint {repr(constraint)}, but found invalid values:\n{value}")

    def expand(self, batch_shape, _instance=None):
        """A new distribution whose batch dims are broadcast to ``batch_shape`` (no copies)."""
        raise NotImplementedError

    @property
    def batch_shape(self):
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single sample, without batching."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """Map from parameter names to the constraints they must satisfy."""
        raise NotImplementedError

    @property
    def support(self):
        """The constraint describing where the distribution puts its mass."""
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=cinder.Size()):  # noqa: B008 - Size is an immutable tuple
        """Draw ``sample_shape`` batches of samples without tracking gradients."""
        with cinder.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=cinder.Size()):  # noqa: B008 - Size is an immutable tuple
        """Draw reparameterized samples: gradients flow back to the parameters."""
        raise NotImplementedError

    def sample_n(self, n):
        """Deprecated spelling of ``sample((n,))``."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning, stacklevel=2)
        return self.sample(cinder.Size((n,)))

    def log_prob(self, value):
        """Log of the density (or mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value):
        """Cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value):
        """Inverse of the cumulative distribution function."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """All values of a discrete support, along a new leading dim."""
        raise NotImplementedError

    def entropy(self):
        """Entropy, one value per batch entry."""
        raise NotImplementedError

    def perplexity(self):
        """exp(entropy)."""
        return cinder.exp(self.entropy())

    def _extended_shape(self, sample_shape=cinder.Size()):  # noqa: B008 - Size is an immutable tuple
        if not isinstance(sample_shape, cinder.Size):
            sample_shape = cinder.Size(sample_shape)
        return cinder.Size(sample_shape + self._batch_shape + self._event_shape)

    def _validate_sample(self, value):
        if not cinder.is_tensor(value):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual_shape = value.size()
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual_shape} vs {expected_shape}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample "
                          "validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=2)
            return
        assert support is not None
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({repr(support)}) of the "
                f"distribution {repr(self)}, but found invalid values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def _expand_attrs(self, cls, batch_shape, _instance, names):
        """``expand`` for a family ``cls`` whose batch is carried by the attributes ``names``
        (parameter tensors or inner distributions): a new instance holding each of them
        expanded to ``batch_shape``, with this one's event shape and validation setting."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = cinder.Size(batch_shape)
        for name in names:
            setattr(new, name, getattr(self, name).expand(batch_shape))
        super(cls, new).__init__(batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def __repr__(self):
        param_names = [k for k, _ in self.arg_constraints.items() if k in self.__dict__]
        args_string = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in param_names)
        return self.__class__.__name__ + "(" + args_string + ")"
