"""Wishart distribution over symmetric positive-definite matrices."""

import math
import warnings
from numbers import Number

import cinder

from . import constraints
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .multivariate_normal import _scale_tril_of
from .utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """The multivariate digamma function: sum of digamma(x - i / 2) for i < p."""
    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    halves = cinder.arange(p, dtype=x.dtype, device=x.device).div(2).expand(x.shape + (-1,))
    return cinder.digamma(x.unsqueeze(-1) - halves).sum(-1)


def _clamp_above_eps(x):
    """Positive ``x`` kept at least machine epsilon away from 0."""
    return x.clamp(min=cinder.finfo(x.dtype).eps)


class Wishart(ExponentialFamily):
    """Wishart distribution with ``df`` degrees of freedom (greater than the dimension minus
    one) and a scale given by exactly one of ``covariance_matrix``, ``precision_matrix`` or
    ``scale_tril`` (its Cholesky factor, which everything is computed from).

    ``rsample`` uses the Bartlett decomposition: ``L A A^T L^T`` where ``A`` is lower
    triangular with square roots of Chi2(df - i) draws on the diagonal and standard normals
    below it.
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = [p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        param = given[0]
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, Number):
            batch_shape = cinder.Size(param.shape[:-2])
            self.df = cinder.tensor(df, dtype=param.dtype, device=param.device)
        else:
            batch_shape = cinder.broadcast_shapes(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        if self.df.le(event_shape[-1] - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = "
                             f"{event_shape[-1] - 1}.")
        if scale_tril is not None:
            self.scale_tril = param.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(batch_shape + (-1, -1))
        else:
            self.precision_matrix = param.expand(batch_shape + (-1, -1))
        if self.df.lt(event_shape[-1]).any():
            warnings.warn("Low df values detected. Singular samples are highly likely to occur "
                          "for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        self._unbroadcasted_scale_tril = _scale_tril_of(scale_tril, covariance_matrix,
                                                        precision_matrix)
        self._dist_chi2 = self._bartlett_chi2(self.df, batch_shape)

    def _bartlett_chi2(self, df, batch_shape):
        """Chi2(df - i), i = 0 .. p-1: the squared diagonal of the Bartlett factor."""
        steps = cinder.arange(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype,
                              device=self._unbroadcasted_scale_tril.device)
        return Chi2(df=df.unsqueeze(-1) - steps.expand(batch_shape + (-1,)))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = cinder.Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        new._dist_chi2 = self._bartlett_chi2(new.df, batch_shape)
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        tril = self._unbroadcasted_scale_tril
        return (tril @ tril.transpose(-2, -1)).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        identity = cinder.eye(self._event_shape[-1], device=self._unbroadcasted_scale_tril.device,
                              dtype=self._unbroadcasted_scale_tril.dtype)
        return cinder.cholesky_solve(identity, self._unbroadcasted_scale_tril).expand(
            self._batch_shape + self._event_shape)

    @property
    def mean(self):
        return self.df.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan
        return factor.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        cov = self.covariance_matrix
        diag = cov.diagonal(dim1=-2, dim2=-1)
        return self.df.view(self._batch_shape + (1, 1)) * (
            cov.pow(2) + cinder.einsum("...i,...j->...ij", diag, diag))

    def _bartlett_sampling(self, sample_shape=cinder.Size()):  # noqa: B008 - immutable
        p = self._event_shape[-1]
        noise = _clamp_above_eps(self._dist_chi2.rsample(sample_shape).sqrt()).diag_embed(
            dim1=-2, dim2=-1)
        i, j = cinder.tril_indices(p, p, offset=-1)
        noise[..., i, j] = cinder.randn(
            cinder.Size(sample_shape) + self._batch_shape + (int(p * (p - 1) / 2),),
            dtype=noise.dtype, device=noise.device)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape=cinder.Size(), max_try_correction=None):  # noqa: B008
        """Bartlett samples, redrawn up to ``max_try_correction`` (default 10) times where the
        check flags them.

        Like PyTorch 2.13, the flag is ``support.check(sample)`` itself (true for valid,
        non-singular samples), so the first draw is normally replaced once by a second one,
        with the "Singular sample detected." warning; cinder repeats this so that seeded
        samples stay equal to PyTorch's. (PyTorch's backward through samples with a
        non-empty ``sample_shape`` then fails, because it saved the mask that is updated in
        place; cinder's indexing does not keep the mask, and the gradient is computed.)
        """
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = cinder.Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        is_singular = self._flags(sample, valid=True)
        if is_singular.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                sample_new = self._bartlett_sampling(is_singular[is_singular].shape)
                sample[is_singular] = sample_new
                is_singular[is_singular.clone()] = self._flags(sample_new, valid=False)
                if not is_singular.any():
                    break
        return sample

    def _flags(self, sample, valid):
        """Per-sample flags: the support check (``valid``) or its negation, over the batch."""
        flags = self.support.check(sample)
        if not valid:
            flags = ~flags
        if self._batch_shape:
            flags = flags.amax(self._batch_dims)
        return flags

    def _log_det_scale(self):
        """p log(2) / 2 + log det(scale_tril)."""
        p = self._event_shape[-1]
        return (p * _LOG_2 / 2
                + self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        trace_term = cinder.cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(
            dim1=-2, dim2=-1).sum(dim=-1)
        return (-nu * self._log_det_scale() - cinder.mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * cinder.linalg.slogdet(value).logabsdet - trace_term / 2)

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        return ((p + 1) * self._log_det_scale() + cinder.mvlgamma(nu / 2, p=p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2)

    @property
    def _natural_params(self):
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return ((y + (p + 1) / 2) * (-cinder.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p)
                + cinder.mvlgamma(y + (p + 1) / 2, p=p))
