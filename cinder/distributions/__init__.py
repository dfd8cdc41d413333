"""Probability distributions with PyTorch's ``torch.distributions`` interface."""

from . import constraints, transforms
from .bernoulli import Bernoulli
from .categorical import Categorical
from .cauchy import Cauchy
from .constraint_registry import biject_to, transform_to
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gumbel import Gumbel
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403
from .uniform import Uniform

__all__ = [
    "Bernoulli", "Categorical", "Cauchy", "Distribution", "Exponential", "ExponentialFamily",
    "Gumbel", "Independent", "Laplace", "LogNormal", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "TransformedDistribution", "Uniform", "biject_to",
    "constraints", "kl_divergence", "register_kl", "transform_to", "transforms",
]
__all__.extend(transforms.__all__)
