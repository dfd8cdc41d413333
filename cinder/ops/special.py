"""torch.special: special functions on SciPy's kernels (``scipy.special``), as op-table rows
``special_<name>`` with their derivatives where PyTorch defines one (formulas in cinder ops, so
they differentiate again). Integer and bool inputs compute in the default float dtype; float16
and bfloat16 compute in float32 and round back, as PyTorch's CPU kernels do.
"""

import math

import numpy as np
import scipy.special as sc

from .. import _dtype as D
from .. import backend
from .._tensor import Tensor
from ._prep import result_type, wrap
from ._registry import FUNCTIONS, OPS, needs_grad, node_class, record, register

SQRT_PI = math.sqrt(math.pi)
SQRT_2PI = math.sqrt(2 * math.pi)
_HALF = (D.float16, D.bfloat16)


def _float_dtype(*dts):
    dt = dts[0]
    for other in dts[1:]:
        dt = D.promote_types(dt, other)
    return D.get_default_dtype() if dt.category < D.FLOATING else dt


def _compute(arr, dt):
    """The array to compute on for result dtype ``dt`` (halves go through float32)."""
    return arr.astype(np.float32 if dt in _HALF else dt.numpy_dtype, copy=False)


def _run(kernel, *args):
    """``kernel(*args)`` on the arrays' device: SciPy's kernel for NumPy arrays, CuPy's kernel
    of the same name (``cupyx.scipy.special``, then ``cupy``) for CUDA arrays. Kernels composed
    here from array operations run as they are on either (NumPy's functions dispatch to CuPy)."""
    if backend.is_numpy(args[-1]):
        return kernel(*args)
    return backend.device_kernel(kernel)(*args)


def _order(n, like):
    """An integer order argument as the kernels want it: CuPy's need it as an array."""
    return n if backend.is_numpy(like) else backend.array_module_of(like).asarray(n, like.dtype)


def _as_tensor(x, like):
    if isinstance(x, Tensor):
        return x
    from .. import tensor
    return tensor(x, device=like.device if isinstance(like, Tensor) else None)


def _finish(res, dt, dev, out):
    res = np.asarray(res) if isinstance(res, (np.generic, float, int)) else res
    result = wrap(res.astype(dt.numpy_dtype, copy=False), dt, dev)
    if out is not None:
        from ._registry import write_out
        return write_out(out, result)
    return result


# special functions that are aliases of (or composites over) a torch.* op record that op's
# node in PyTorch; the rest have their own Special...Backward0 node
_TORCH_NODES = {
    "erf": "ErfBackward0", "erfc": "ErfcBackward0", "erfinv": "ErfinvBackward0",
    "ndtr": "MulBackward1", "exp2": "Exp2Backward0", "expm1": "Expm1Backward0",
    "log1p": "Log1PBackward0", "expit": "SigmoidBackward0", "sinc": "SincBackward0",
    "digamma": "DigammaBackward0", "psi": "DigammaBackward0", "gammaln": "LgammaBackward0",
    "i0": "I0Backward0", "xlogy": "XlogyBackward0",
}


def _node_name(name):
    return _TORCH_NODES.get(name) or \
        f"Special{''.join(p.title() for p in name.split('_'))}Backward0"


def _refuse(kernel_name, dt, refuse):
    """PyTorch's NotImplementedError for a dtype group its kernel lacks: 'half' (float16,
    bfloat16), 'complex', 'int' (integers and bool)."""
    if ("half" in refuse and dt in _HALF) or ("complex" in refuse and
                                              dt.category == D.COMPLEX) or \
            ("int" in refuse and dt.category < D.FLOATING):
        raise NotImplementedError(f'"{kernel_name}_cpu" not implemented for '
                                  f"'{dt.scalar_name}'")


def _unary(name, kernel, grad=None, complex_ok=False, refuse=()):
    """Publish ``special_<name>(input, *, out=None)`` computing ``kernel(array)``; ``refuse``
    lists the dtype groups PyTorch has no kernel for."""
    node = node_class(_node_name(name), {"self": grad}) if grad else None

    def fn(input, *, out=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"special_{name}(): argument 'input' (position 1) must be Tensor, "
                            f"not {type(input).__name__}")
        _refuse(name, input._dtype, refuse)
        dt = _float_dtype(input._dtype)
        if dt.category == D.COMPLEX and not complex_ok:
            raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                      f"'{dt.scalar_name}'")
        with np.errstate(all="ignore"):
            res = _run(kernel, _compute(input._data, dt))
        result = _finish(res, dt, input._device, None)
        if node is not None and needs_grad(input):
            record(node, (input,), (result,), self=input)
        return _finish(result._data, dt, input._device, out) if out is not None else result
    fn.__name__ = fn.__qualname__ = "special_" + name
    fn.__doc__ = f"Elementwise ``{name}`` (torch.special.{name})."
    return register("special_" + name, fn, method=False, function_too=False, family="special",
                    nodes=(node,) if node else ())


def _binary(name, kernel, grads=None, tensor_first=True, refuse=(), kernel_name=None):
    """Publish ``special_<name>(input, other, *, out=None)``; either may be a number."""
    node = node_class(_node_name(name), grads) if grads else None

    def fn(input, other, *, out=None):
        if not isinstance(input, Tensor) and not isinstance(other, Tensor):
            raise TypeError(f"special_{name}() received an invalid combination of arguments")
        a, b = _as_tensor(input, other), _as_tensor(other, input)
        _refuse(kernel_name or name, _operand_dtypes(input, other)[0], refuse)
        dt = _float_dtype(*_operand_dtypes(input, other))
        with np.errstate(all="ignore"):
            res = _run(kernel, _compute(a._data, dt), _compute(b._data, dt))
        result = _finish(res, dt, (a if isinstance(input, Tensor) else b)._device, None)
        if node is not None and needs_grad(a, b):
            record(node, (a, b), (result,), self=a, other=b)
        return _finish(result._data, dt, result._device, out) if out is not None else result
    fn.__name__ = fn.__qualname__ = "special_" + name
    fn.__doc__ = f"Elementwise ``{name}`` of two arguments (torch.special.{name})."
    return register("special_" + name, fn, method=False, function_too=False, family="special",
                    nodes=(node,) if node else ())


def _operand_dtypes(a, b):
    """PyTorch's promotion: tensors decide; a Python number only lifts the category."""
    return (result_type(a, b),)


# ----------------------------------------------------------------------------------------------
# error function family, normal distribution
# ----------------------------------------------------------------------------------------------

erf = _unary("erf", sc.erf, lambda g, s: g * (2 / SQRT_PI) * (-(s.self * s.self)).exp())
erfc = _unary("erfc", sc.erfc, lambda g, s: g * (-2 / SQRT_PI) * (-(s.self * s.self)).exp())
erfcx = _unary("erfcx", sc.erfcx,
               lambda g, s: g * (2 * s.self * s.result - 2 / SQRT_PI), refuse=("half",))
erfinv = _unary("erfinv", sc.erfinv,
                lambda g, s: g * (SQRT_PI / 2) * (s.result * s.result).exp())
ndtr = _unary("ndtr", sc.ndtr, lambda g, s: g * (-(s.self * s.self) / 2).exp() / SQRT_2PI)
ndtri = _unary("ndtri", sc.ndtri, lambda g, s: g * SQRT_2PI * (s.result * s.result / 2).exp(),
               refuse=("half",))
log_ndtr = _unary("log_ndtr", sc.log_ndtr,
                  lambda g, s: g * (-(s.self * s.self) / 2 - s.result).exp() / SQRT_2PI,
                  refuse=("half",))

# ----------------------------------------------------------------------------------------------
# exponentials, logarithms, logistic
# ----------------------------------------------------------------------------------------------

exp2 = _unary("exp2", np.exp2, lambda g, s: g * s.result * math.log(2), complex_ok=True)
expm1 = _unary("expm1", np.expm1, lambda g, s: g * (s.result + 1), complex_ok=True)
log1p = _unary("log1p", np.log1p, lambda g, s: g / (s.self + 1), complex_ok=True)
entr = _unary("entr", sc.entr, lambda g, s: g * -(s.self.log() + 1))


def _same_as(name, torch_op):
    """Publish ``special_<name>`` as PyTorch defines it: the ``torch.<torch_op>`` op itself
    (real and complex inputs, its node, its ``out=``)."""
    def fn(input, *, out=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"special_{name}(): argument 'input' (position 1) must be Tensor, "
                            f"not {type(input).__name__}")
        op = FUNCTIONS[torch_op]
        return op(input) if out is None else op(input, out=out)
    fn.__name__ = fn.__qualname__ = "special_" + name
    fn.__doc__ = f"Elementwise ``{name}`` (torch.special.{name}): the same op as torch.{torch_op}."
    return register("special_" + name, fn, method=False, function_too=False, family="special",
                    nodes=OPS[torch_op].nodes)


expit = _same_as("expit", "sigmoid")
sinc = _same_as("sinc", "sinc")


def special_logit(input, eps=None, *, out=None):
    """``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` when eps is given."""
    _refuse("logit", input._dtype, ("complex",))
    dt = _float_dtype(input._dtype)
    a = _compute(input._data, dt)
    if eps is not None:
        a = a.clip(eps, 1 - eps)
    with np.errstate(all="ignore"):
        res = _run(sc.logit, a)
    result = _finish(res, dt, input._device, None)
    if needs_grad(input):
        record(LogitNode, (input,), (result,), self=input, eps=eps)
    return _finish(result._data, dt, input._device, out) if out is not None else result


def _logit_grad(g, s):
    x = s.self
    d = g / (x * (1 - x))
    if s.eps is not None:
        d = d.masked_fill((x < s.eps) | (x > 1 - s.eps), 0)
    return d


LogitNode = node_class("LogitBackward0", {"self": _logit_grad})
register("special_logit", special_logit, method=False, function_too=False, family="special",
         nodes=(LogitNode,))

# ----------------------------------------------------------------------------------------------
# gamma family
# ----------------------------------------------------------------------------------------------


def special_polygamma(n, input, *, out=None):
    """The ``n``-th derivative of the digamma function."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    _refuse("polygamma", input._dtype, ("complex",))
    dt = _float_dtype(input._dtype)
    with np.errstate(all="ignore"):
        a = _compute(input._data, dt)
        res = _run(sc.psi, a) if n == 0 else _run(sc.polygamma, _order(n, a), a)
    result = _finish(res, dt, input._device, None)
    if needs_grad(input):
        record(PolygammaNode, (input,), (result,), self=input, n=n)
    return _finish(result._data, dt, input._device, out) if out is not None else result


PolygammaNode = node_class("PolygammaBackward0", {
    "self": lambda g, s: g * special_polygamma(s.n + 1, s.self)})
register("special_polygamma", special_polygamma, method=False, function_too=False,
         family="special", nodes=(PolygammaNode,))

digamma = _unary("digamma", sc.psi, lambda g, s: g * special_polygamma(1, s.self))
psi = _unary("psi", sc.psi, lambda g, s: g * special_polygamma(1, s.self))
gammaln = _unary("gammaln", sc.gammaln, lambda g, s: g * special_polygamma(0, s.self))


def special_multigammaln(input, p, *, out=None):
    """Log of the multivariate gamma function of dimension ``p`` (alias of ``mvlgamma``)."""
    from .elementwise import mvlgamma
    return mvlgamma(input, p, out=out)


register("special_multigammaln", special_multigammaln, method=False, function_too=False,
         family="special")

def _no_derivative(what):
    def formula(grad, s):
        raise NotImplementedError(f"the derivative for '{what}' is not implemented.")
    return formula




def special_gammainc(input, other, *, out=None):
    """Regularized lower incomplete gamma function (alias of ``igamma``)."""
    return OPS["igamma"].function(input, other, out=out)


def special_gammaincc(input, other, *, out=None):
    """Regularized upper incomplete gamma function (alias of ``igammac``)."""
    return OPS["igammac"].function(input, other, out=out)


gammainc, gammaincc = special_gammainc, special_gammaincc
for _fn in (special_gammainc, special_gammaincc):
    register(_fn.__name__, _fn, method=False, function_too=False, family="special")
zeta = _binary("zeta", sc.zeta, {
    "self": _no_derivative("zeta"),
    "other": lambda g, s: g * -s.self * zeta(s.self + 1, s.other)}, refuse=("half", "complex"))
xlogy = _binary("xlogy", sc.xlogy, {
    "self": lambda g, s: xlogy(g, s.other).masked_fill((s.self == 0) & (s.other <= 0), 0),
    "other": lambda g, s: g * s.self / s.other}, refuse=("complex",))
xlog1py = _binary("xlog1py", sc.xlog1py, {
    "self": lambda g, s: xlog1py(g, s.other).masked_fill((s.self == 0) & (s.other <= -1), 0),
    "other": lambda g, s: g * s.self / (s.other + 1)}, refuse=("complex",))

# ----------------------------------------------------------------------------------------------
# Bessel functions
# ----------------------------------------------------------------------------------------------

i0 = _unary("i0", sc.i0, lambda g, s: g * i1(s.self))
i1 = _unary("i1", sc.i1, lambda g, s: g * _i1_grad(s.self, s.result))
i0e = _unary("i0e", sc.i0e, lambda g, s: g * (i1e(s.self) - s.self.sgn() * s.result))
i1e = _unary("i1e", sc.i1e, lambda g, s: g * _i1e_grad(s.self, s.result))


def _i1_grad(x, y):
    d = i0(x) - y / x
    return d.masked_fill(x == 0, 0.5)


def _i1e_grad(x, y):
    d = i0e(x) - y * (x.sgn() + 1 / x)
    return d.masked_fill(x == 0, 0.5)


for _name, _kernel in [("bessel_j0", sc.j0), ("bessel_j1", sc.j1), ("bessel_y0", sc.y0),
                       ("bessel_y1", sc.y1), ("modified_bessel_i0", sc.i0),
                       ("modified_bessel_i1", sc.i1), ("modified_bessel_k0", sc.k0),
                       ("modified_bessel_k1", sc.k1), ("scaled_modified_bessel_k0", sc.k0e),
                       ("scaled_modified_bessel_k1", sc.k1e),
                       ("spherical_bessel_j0", lambda a: sc.spherical_jn(0, a)),
                       ("airy_ai", lambda a: sc.airy(a)[0])]:
    # (PyTorch defines no derivative for these, nor half kernels)
    _unary(_name, _kernel, refuse=("half",))

# ----------------------------------------------------------------------------------------------
# orthogonal polynomials: three-term recurrences over the degree (vectorised over elements)
# ----------------------------------------------------------------------------------------------


def _recurrence(first, second, step):
    """``p(x, n)`` from ``p_0 = first(x)``, ``p_1 = second(x)``, ``p_{k+1} = step(k, x, p_k,
    p_{k-1})``; negative degrees give 0."""
    def kernel(x, n):
        x, n = np.broadcast_arrays(x, n)
        n = np.nan_to_num(n).astype(np.int64)
        out = np.where(n == 0, first(x), 0).astype(x.dtype)
        prev, cur = first(x) * np.ones_like(x), second(x) * np.ones_like(x)
        out = np.where(n == 1, cur, out)
        top = int(n.max()) if n.size else 0
        for k in range(1, top):
            prev, cur = cur, step(k, x, cur, prev)
            out = np.where(n == k + 1, cur, out)
        return out
    return kernel


_ONE = lambda x: np.ones_like(x)      # noqa: E731
_POLYS = {
    "chebyshev_polynomial_t": (_ONE, lambda x: x, lambda k, x, p, q: 2 * x * p - q),
    "chebyshev_polynomial_u": (_ONE, lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - q),
    "chebyshev_polynomial_v": (_ONE, lambda x: 2 * x - 1, lambda k, x, p, q: 2 * x * p - q),
    "chebyshev_polynomial_w": (_ONE, lambda x: 2 * x + 1, lambda k, x, p, q: 2 * x * p - q),
    "hermite_polynomial_h": (_ONE, lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - 2 * k * q),
    "hermite_polynomial_he": (_ONE, lambda x: x, lambda k, x, p, q: x * p - k * q),
    "laguerre_polynomial_l": (_ONE, lambda x: 1 - x,
                              lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1)),
    "legendre_polynomial_p": (_ONE, lambda x: x,
                              lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1)),
}
for _name, (_f, _s, _step) in _POLYS.items():
    _binary(_name, _recurrence(_f, _s, _step), refuse=("half", "complex"))
    if _name.startswith("chebyshev"):
        _kern = _recurrence(_f, _s, _step)
        _binary("shifted_" + _name, lambda x, n, _k=_kern: _k(2 * x - 1, n),
                refuse=("half", "complex"))

# ----------------------------------------------------------------------------------------------
# reductions along a dim, rounding
# ----------------------------------------------------------------------------------------------


# softmax, log_softmax, logsumexp, multigammaln, gammainc/gammaincc are aliases in PyTorch:
# they run (and record the nodes of) torch.softmax, torch.mvlgamma, torch.igamma...


def special_softmax(input, dim, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim`` (alias of ``softmax``)."""
    from .nn.activation import softmax
    return softmax(input, dim, dtype=dtype)


def special_log_softmax(input, dim, dtype=None):
    """``x - logsumexp(x)`` along ``dim`` (alias of ``log_softmax``)."""
    from .nn.activation import log_softmax
    return log_softmax(input, dim, dtype=dtype)


def special_logsumexp(input, dim, keepdim=False, *, out=None):
    """``log(sum(exp(x)))`` over ``dim``, stable for large values (alias of ``logsumexp``)."""
    from .statistics import logsumexp
    return logsumexp(input, dim, keepdim, out=out)


def special_round(input, *, decimals=0, out=None):
    """Round half to even, to ``decimals`` decimal places (zero gradient)."""
    if input._dtype.category < D.FLOATING or input._dtype.category == D.COMPLEX:
        raise NotImplementedError(f'"round_vml_cpu" not implemented for '
                                  f"'{input._dtype.scalar_name}'")
    res = backend.array_module_of(input._data).round(input._data, decimals)
    result = wrap(res.astype(input._dtype.numpy_dtype, copy=False), input._dtype, input._device)
    if needs_grad(input):
        record(RoundNode, (input,), (result,))
    return _finish(result._data, result._dtype, result._device, out) if out is not None \
        else result


RoundNode = node_class("RoundBackward1", {"self": lambda g, s: g * 0})

for _name, _fn in [("softmax", special_softmax), ("log_softmax", special_log_softmax),
                   ("logsumexp", special_logsumexp), ("round", special_round)]:
    register("special_" + _name, _fn, method=False, function_too=False, family="special")
