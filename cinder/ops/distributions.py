"""The samplers behind ``torch.distributions`` (ATen's ``Distributions.cpp``), as op-table
entries: ``_standard_gamma``, ``_sample_dirichlet``, ``poisson`` and ``binomial`` draw PyTorch's
numbers bit for bit from cinder's copy of the CPU generator (``_sampler_kernels``), and
``_standard_gamma_grad`` / ``_dirichlet_grad`` are the implicit reparameterization gradients
(``_reparam_grads``) that make gamma-based ``rsample()`` differentiable in the concentration.
"""

import numpy as np

from .. import _dtype as D
from .. import backend
from .._tensor import Tensor, make_tensor
from . import _reparam_grads, _sampler_kernels
from ._inplace import check_fits
from ._prep import broadcast_shape, not_implemented
from ._registry import needs_grad, node_class, record, register
from .random import _engine


def _float_input(t, kernel, fname, name="self"):
    """The NumPy dtype of ``t`` when PyTorch's kernel dispatches on it (float and double)."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{fname}(): argument '{name}' (position 1) must be Tensor, not "
                        f"{type(t).__name__}")
    if t._dtype not in (D.float32, D.float64):
        not_implemented(kernel, t._dtype)
    return t._dtype.numpy_dtype


def _values(t):
    """``t``'s elements as a flat float array in C order (the order PyTorch's kernels visit)."""
    return np.ascontiguousarray(backend.to_numpy(t._data)).reshape(-1)


def _result(values, like):
    arr = values.reshape(like._data.shape)
    if like._device.type != "cpu":
        arr = backend.to_device(arr, like._device)
    return make_tensor(arr, like._dtype, like._device)


def _not_differentiable(op):
    def formula(grad, s):
        raise RuntimeError(f"derivative for aten::{op} is not implemented")
    return formula


# ----------------------------------------------------------------------------------------------
# Gamma and its gradient
# ----------------------------------------------------------------------------------------------

def _standard_gamma(input, generator=None):
    """Samples of Gamma(``input``, 1), one per element (Marsaglia and Tsang's method).

    Differentiable: the gradient with respect to ``input`` is the implicit reparameterization
    gradient ``_standard_gamma_grad(input, result)``.
    """
    dt = _float_input(input, "gamma_cpu", "_standard_gamma")
    vals = _sampler_kernels.standard_gamma(_engine(generator), _values(input), dt)
    result = _result(vals, input)
    if needs_grad(input):
        record(StandardGammaNode, (input,), (result,), self=input)
    return result


def _standard_gamma_grad(self, output):
    """d output / d ``self`` for ``output ~ Gamma(self, 1)`` (PyTorch's approximation)."""
    _float_input(self, "_standard_gamma_grad_cpu", "_standard_gamma_grad")
    shape = broadcast_shape(self._data.shape, output._data.shape)
    grad = _reparam_grads.standard_gamma_grad(backend.to_numpy(self._data),
                                              backend.to_numpy(output._data))
    out = make_tensor(grad.astype(self._dtype.numpy_dtype).reshape(shape), self._dtype,
                      self._device)
    if needs_grad(self, output):
        record(StandardGammaGradNode, (self, output), (out,))
    return out


StandardGammaNode = node_class("StandardGammaBackward0", {
    "self": lambda grad, s: grad * _standard_gamma_grad(s.self, s.result)})
StandardGammaGradNode = node_class("NotImplemented", {
    "self": _not_differentiable("_standard_gamma_grad"),
    "output": _not_differentiable("_standard_gamma_grad")})


# ----------------------------------------------------------------------------------------------
# Dirichlet and its gradient
# ----------------------------------------------------------------------------------------------

def _sample_dirichlet(input, generator=None):
    """Samples of Dirichlet(``input``) along the last dim: gamma draws in double precision,
    normalised. Not differentiable here (``distributions.Dirichlet`` wraps it in a Function
    whose backward uses ``_dirichlet_grad``)."""
    dt = _float_input(input, "dirichlet", "_sample_dirichlet")
    alpha = backend.to_numpy(input._data)
    vals = _sampler_kernels.dirichlet(_engine(generator), np.ascontiguousarray(alpha), dt)
    result = _result(vals, input)
    if needs_grad(input):
        record(SampleDirichletNode, (input,), (result,))
    return result


def _dirichlet_grad(x, alpha, total):
    """d x / d ``alpha`` for ``x`` a coordinate of a Dirichlet draw with concentration sum
    ``total`` (PyTorch's approximation, via Beta(alpha, total - alpha))."""
    _float_input(x, "_dirichlet_grad_cpu", "_dirichlet_grad", "x")
    for t in (alpha, total):
        if t._dtype is not x._dtype:
            raise RuntimeError(f"Found dtype {t._dtype.scalar_name} but expected "
                               f"{x._dtype.scalar_name}")
    shape = broadcast_shape(x._data.shape, alpha._data.shape, total._data.shape)
    if shape != x._data.shape:
        raise RuntimeError(f"output with shape {list(x._data.shape)} doesn't match the "
                           f"broadcast shape {list(shape)}")
    grad = _reparam_grads.dirichlet_grad(*(backend.to_numpy(t._data) for t in (x, alpha, total)))
    return make_tensor(grad.astype(x._dtype.numpy_dtype), x._dtype, x._device)


SampleDirichletNode = node_class("NotImplemented", {
    "self": _not_differentiable("_sample_dirichlet")})


# ----------------------------------------------------------------------------------------------
# Poisson and binomial counts
# ----------------------------------------------------------------------------------------------

def poisson(input, generator=None):
    """Poisson samples with the rates in ``input`` (float tensor; the result has its dtype).

    Rates of 10 and more use Hormann's transformed rejection, smaller ones multiply uniforms.
    The gradient with respect to the rates is zero.
    """
    dt = _float_input(input, "poisson_cpu", "poisson", "input")
    vals = _sampler_kernels.poisson(_engine(generator), _values(input), dt)
    result = _result(vals, input)
    if needs_grad(input):
        record(PoissonNode, (input,), (result,))
    return result


PoissonNode = node_class("PoissonBackward0", {"self": lambda grad, s: grad * 0})


def binomial(count, prob, generator=None):
    """Binomial samples: successes among ``count`` trials of probability ``prob`` (both float
    tensors of one dtype; ``prob`` broadcasts to ``count``'s shape)."""
    for name, t in (("count", count), ("prob", prob)):
        if not isinstance(t, Tensor):
            raise TypeError(f"binomial(): argument '{name}' must be Tensor, not "
                            f"{type(t).__name__}")
        if t._dtype.category != D.FLOATING:
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: "
                             f"{t._dtype.scalar_name}")
    if prob._dtype is not count._dtype:
        raise RuntimeError(f"Found dtype {prob._dtype.scalar_name} but expected "
                           f"{count._dtype.scalar_name}")
    dt = _float_input(count, "binomial_cpu", "binomial", "count")
    check_fits(count._data.shape, prob._data.shape)
    p = np.ascontiguousarray(np.broadcast_to(backend.to_numpy(prob._data),
                                             count._data.shape)).reshape(-1)
    vals = _sampler_kernels.binomial(_engine(generator), _values(count), p, dt)
    result = _result(vals, count)
    if needs_grad(count, prob):
        record(BinomialNode, (count, prob), (result,))
    return result


BinomialNode = node_class("NotImplemented", {"count": _not_differentiable("binomial"),
                                             "prob": _not_differentiable("binomial")})


for _fn, _nodes in ((_standard_gamma, (StandardGammaNode,)),
                    (_sample_dirichlet, (SampleDirichletNode,)),
                    (poisson, (PoissonNode,)), (binomial, (BinomialNode,))):
    register(_fn.__name__, _fn, method=False, family="random", nodes=_nodes)
register("_standard_gamma_grad", _standard_gamma_grad, method=False, family="special",
         nodes=(StandardGammaGradNode,))
register("_dirichlet_grad", _dirichlet_grad, method=False, family="special")
