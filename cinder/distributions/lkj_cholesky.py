"""LKJ distribution over Cholesky factors of correlation matrices."""

import math

import cinder

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Lower Cholesky factors ``L`` of ``dim`` x ``dim`` correlation matrices ``M = L L^T``,
    with density proportional to ``det(M) ** (concentration - 1)``; ``concentration = 1`` is
    uniform over correlation matrices.

    Sampling follows the onion method of Lewandowski, Kurowicka and Joe (2009), vectorised over
    rows: each row's squared length off the diagonal is a Beta draw and its direction a
    normalised Gaussian vector.
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(
                f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = cinder.Size((dim, dim))
        # Beta parameters of every row's off-diagonal squared norm (Sec. 3.2 of the paper)
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = cinder.arange(self.dim - 1, dtype=self.concentration.dtype,
                               device=self.concentration.device)
        offset = cinder.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = cinder.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=cinder.Size()):  # noqa: B008 - Size is an immutable tuple
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = cinder.randn(self._extended_shape(sample_shape), dtype=y.dtype,
                                device=y.device).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        u_hypersphere[..., 0, :].fill_(0.0)     # the first row is 0/0: it has no off-diagonal
        w = cinder.sqrt(y) * u_hypersphere
        # the diagonal makes each row unit length; the clamp keeps the sqrt real
        eps = cinder.finfo(w.dtype).tiny
        diag_elems = cinder.clamp(1 - cinder.sum(w**2, dim=-1), min=eps).sqrt()
        w += cinder.diag_embed(diag_elems)
        return w

    def log_prob(self, value):
        # The density of M is det(M) ** (eta - 1) = prod(L_ii ** (2 eta - 2)); the Jacobian of
        # L -> L L^T adds prod(L_ii ** (D - i)), so log p(L) = sum((2 eta - 2 + D - i) log L_ii)
        # minus the log normaliser of the LKJ density.
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = cinder.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = cinder.sum(order * diag_elems.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = cinder.lgamma(alpha) * dm1
        numerator = cinder.mvlgamma(alpha - 0.5, dm1)
        # mvlgamma carries (D-1)(D-2)/4 log(pi); the LKJ normaliser needs D(D-1)/4 log(pi)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        return unnormalized_log_pdf - (pi_constant + numerator - denominator)
