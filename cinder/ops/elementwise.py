"""More pointwise math: inverse hyperbolics, special functions (through ``scipy.special``),
float manipulation (hypot, copysign, nextafter, ldexp, frexp), integer ops (gcd, lcm,
shifts), addcmul/addcdiv, closeness tests (isclose, allclose, equal) and membership (isin).

Each op is one ``unary``/``binary`` entry where the factories fit, with derivative formulas
written in cinder ops; the others are short bespoke functions published with ``register``.
"""

import math

import numpy as np

from .. import _dtype as D
from .. import backend, return_types
from .._tensor import Tensor
from ._layouts import iterator_layout, like_preserved, row_major
from ._prep import (
    as_compute,
    broadcast_shape,
    check_tensor_arg,
    common_device,
    not_implemented,
    result_type,
    to_tensor_like,
    wrap,
    xp_of,
)
from ._registry import (
    alias,
    make_inplace,
    needs_grad,
    node_class,
    record,
    register,
    write_out,
)
from ._pointwise_factory import _COMPLEX, _conj, binary, unary
from .pointwise import _no_derivative

_F = {"float_only": True}


def _errstate(f, a):
    """``f(a)`` with NumPy's floating-point warnings silenced (PyTorch returns nan/inf quietly)."""
    with np.errstate(all="ignore"):
        return f(a)
_INTS_BOOL = frozenset((D.bool, D.uint8, D.int8, D.int16, D.int32, D.int64))
_HALF = frozenset((D.float16, D.bfloat16))


def _special(fname, kernel_name=None):
    """A kernel calling ``scipy.special.<fname>``; half types compute in float32 (SciPy has no
    bfloat16), as PyTorch's CPU kernels do. Complex inputs are refused as ``kernel_name``."""
    def kernel(xp, a):
        if a.dtype.kind == "c":
            not_implemented(kernel_name, D.from_numpy_dtype(a.dtype))
        wide = a.astype(np.float32) if a.dtype.itemsize == 2 else a
        with np.errstate(all="ignore"):
            return getattr(backend.special_module(xp), fname)(wide)
    return kernel


# ----------------------------------------------------------------------------------------------
# Inverse hyperbolic functions
# ----------------------------------------------------------------------------------------------

def _no_inplace_derivative(name):
    """PyTorch has no derivative for the in-place forms of these: recording one is refused
    (after the generic in-place checks, as PyTorch reports a leaf first)."""
    def refuse_recording(self):
        if needs_grad(self):
            raise NotImplementedError(f"the derivative for 'inplace version of {name}' is not "
                                      "implemented.")
    return refuse_recording


acosh = unary("acosh", lambda xp, a: _errstate(xp.arccosh, a), node_class("AcoshBackward0", {
    "self": lambda grad, s: grad * _conj((s.self * s.self - 1).rsqrt())}),
    inplace_precheck=_no_inplace_derivative("acosh"), **_F)
asinh = unary("asinh", lambda xp, a: _errstate(xp.arcsinh, a), node_class("AsinhBackward0", {
    "self": lambda grad, s: grad * _conj((s.self * s.self + 1).rsqrt())}),
    inplace_precheck=_no_inplace_derivative("asinh"), **_F)
atanh = unary("atanh", lambda xp, a: _errstate(xp.arctanh, a), node_class("AtanhBackward0", {
    "self": lambda grad, s: grad * _conj((1 - s.self * s.self).reciprocal())}),
    inplace_precheck=_no_inplace_derivative("atanh"), **_F)
for _alias, _of in (("arccosh", "acosh"), ("arcsinh", "asinh"), ("arctanh", "atanh")):
    alias(_alias, _of)

# ----------------------------------------------------------------------------------------------
# Special functions
# ----------------------------------------------------------------------------------------------

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

erfc = unary("erfc", _special("erfc", "erfc_vml_cpu"), node_class("ErfcBackward0", {
    "self": lambda grad, s: -_TWO_OVER_SQRT_PI * grad * (-(s.self * s.self)).exp()}),
    int_ok=True, **_F)
erfinv = unary("erfinv", _special("erfinv", "erfinv_vml_cpu"), node_class("ErfinvBackward0", {
    "self": lambda grad, s: 0.5 * math.sqrt(math.pi) * grad * (s.self.erfinv().square()).exp()}),
    **_F)
lgamma = unary("lgamma", _special("gammaln", "lgamma_vml_cpu"), node_class("LgammaBackward0", {
    "self": lambda grad, s: grad * s.self.digamma()}), **_F)


def _digamma_kernel(xp, a):
    out = _special("psi", "digamma")(xp, a)
    # PyTorch follows the limit from the right at 0: digamma(0) = -inf (SciPy returns nan)
    return xp.where(a == 0, -xp.inf, out) if a.size else out


digamma = unary("digamma", _digamma_kernel, node_class("DigammaBackward0", {
    "self": lambda grad, s: grad * polygamma(1, s.self)}), **_F)


def _i1(t):
    """The modified Bessel function I1 of ``t`` (the derivative of I0), not differentiable."""
    res = _special("i1")(xp_of(t), t._data).astype(t._data.dtype, copy=False)
    return wrap(res, t._dtype, t._device)


i0 = unary("i0", _special("i0", "i0_vml_cpu"), node_class("I0Backward0", {
    "self": lambda grad, s: grad * _i1(s.self)}), **_F)


def _sinc_kernel(xp, a):
    return xp.sinc(a.astype(np.float32) if a.dtype.itemsize == 2 and a.dtype.kind == "f" else a)


def _sinc_grad(grad, s):
    # d/dx sin(pi x)/(pi x) = (cos(pi x) * pi x - sin(pi x)) / (pi x^2); 0 at x = 0
    px = s.self * math.pi
    d = (px.cos() * px - px.sin()) / (px * s.self)
    return grad * _conj(d.masked_fill(s.self == 0, 0.0))


sinc = unary("sinc", _sinc_kernel, node_class("SincBackward0", {"self": _sinc_grad}), **_F)
def _degrees(name, factor):
    def kernel(xp, a):
        if a.dtype.kind == "c":
            raise RuntimeError(f"{name} is not supported for complex tensors.")
        return a * factor
    return kernel


deg2rad = unary("deg2rad", _degrees("deg2rad", math.pi / 180), node_class("Deg2RadBackward0", {
    "self": lambda grad, s: grad * (math.pi / 180)}), **_F)
rad2deg = unary("rad2deg", _degrees("rad2deg", 180 / math.pi), node_class("Rad2DegBackward0", {
    "self": lambda grad, s: grad * (180 / math.pi)}), **_F)


def signbit(input, *, out=None):
    """True where the sign bit is set (negative numbers, -0.0 and -inf)."""
    check_tensor_arg(input, "signbit", "input", 1)
    if input._dtype in _COMPLEX:
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    a = input._data
    res = xp_of(input).signbit(a.astype(np.float32) if a.dtype.itemsize == 2 and
                               a.dtype.kind == "f" else a) if a.dtype.kind != "b" \
        else xp_of(input).zeros(a.shape, bool)
    result = wrap(res, D.bool, input._device)
    return write_out(out, result) if out is not None else result


register("signbit", signbit, family="pointwise")

def _angle_grad(grad, z):
    """PyTorch's angle_backward: zero for real inputs; for complex z, grad * (-im, re) / |z|^2
    as a complex gradient."""
    if z._dtype not in _COMPLEX:
        return grad * 0
    denom = z.abs().square()
    return _complex_from(-z.imag * grad / denom, z.real * grad / denom)


AngleNode = node_class("AngleBackward0", {"self": lambda grad, s: _angle_grad(grad, s.self)})


def _complex_from(re, im):
    from .creation import complex as make_complex
    return make_complex(re, im)


def angle(input, *, out=None):
    """The argument (phase) of each element; 0 or pi for real inputs (nan stays nan)."""
    check_tensor_arg(input, "angle", "input", 1)
    dt = input._dtype
    xp = xp_of(input)
    a = input._data
    if dt in _COMPLEX:
        res, rdt = xp.angle(a), dt.to_real()
    else:
        rdt = dt if dt.category == D.FLOATING else D.get_default_dtype()
        a = a.astype(rdt.numpy_dtype)
        res = xp.where(a < 0, np.pi, 0.0).astype(rdt.numpy_dtype)
        res = xp.where(xp.isnan(a), a, res)
    result = wrap(res.astype(rdt.numpy_dtype, copy=False), rdt, input._device)
    if input._requires_grad and needs_grad(input):
        record(AngleNode, (input,), (result,), self=input)
    return write_out(out, result) if out is not None else result


register("angle", angle, family="pointwise", nodes=(AngleNode,))


def positive(input):
    """Returns ``input`` itself (the unary ``+``); refused for bool tensors."""
    check_tensor_arg(input, "positive", "input", 1)
    if input._dtype is D.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


register("positive", positive, family="pointwise")

LogitNode = node_class("LogitBackward0", {"self": lambda grad, s: _logit_grad(grad, s)},
                      saves_also=("self", "eps"))


def _logit_grad(grad, s):
    x = s.self
    g = grad / (x * (1 - x))
    if s.eps is None:
        return g.masked_fill((x < 0) | (x > 1), float("nan"))
    return g.masked_fill((x < s.eps) | (x > 1 - s.eps), 0.0)


def logit(input, eps=None, *, out=None):
    """``log(p / (1 - p))``; with ``eps``, ``p`` is first clamped to ``[eps, 1 - eps]``."""
    check_tensor_arg(input, "logit", "input", 1)
    dt = input._dtype if input._dtype.category == D.FLOATING else D.get_default_dtype()
    if input._dtype in _COMPLEX:
        not_implemented("logit_cpu", input._dtype)
    a = input._data.astype(dt.numpy_dtype)
    xp = xp_of(input)
    if eps is not None:
        a = xp.clip(a, eps, 1 - eps)
    with np.errstate(all="ignore"):
        res = xp.log(a / (1 - a))
    result = wrap(res.astype(dt.numpy_dtype, copy=False), dt, input._device)
    if input._requires_grad and needs_grad(input):
        record(LogitNode, (input,), (result,), self=input, eps=eps)
    return write_out(out, result) if out is not None else result


register("logit", logit, inplace=True, family="pointwise", nodes=(LogitNode,))

NanToNumNode = node_class("NanToNumBackward0", {
    "self": lambda grad, s: grad * s.self.isfinite()})


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """Replaces NaN with ``nan`` and infinities with ``posinf``/``neginf`` (default: the
    dtype's largest/lowest finite value)."""
    check_tensor_arg(input, "nan_to_num", "input", 1)
    a = input._data
    dt = input._dtype
    if dt.category in (D.FLOATING, D.COMPLEX):
        xp = xp_of(input)
        res = xp.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)
        if dt is D.bfloat16 or dt is D.float16:
            # the replacement limits are the half type's own (NumPy would use float32's)
            info = np.finfo(np.float32) if dt is D.bfloat16 else np.finfo(np.float16)
            wide = a.astype(np.float32)
            res = xp.where(xp.isnan(wide), nan, wide)
            res = xp.where(wide == np.inf, info.max if posinf is None else posinf, res)
            res = xp.where(wide == -np.inf, info.min if neginf is None else neginf, res)
            if dt is D.bfloat16:
                lim = 3.3895313892515355e38      # bfloat16's largest finite value
                res = xp.where(wide == np.inf, lim if posinf is None else posinf, res)
                res = xp.where(wide == -np.inf, -lim if neginf is None else neginf, res)
        res = res.astype(dt.numpy_dtype, copy=False)
    else:
        res = a.copy()
    result = wrap(res, dt, input._device)
    if input._requires_grad and needs_grad(input):
        record(NanToNumNode, (input,), (result,), self=input)
    return write_out(out, result) if out is not None else result


register("nan_to_num", nan_to_num, inplace=True, family="pointwise", nodes=(NanToNumNode,))


def _polygamma_kernel(n, a):
    xp = backend.array_module_of(a)
    sp = backend.special_module(xp)
    wide = a.astype(np.float32) if a.dtype.itemsize == 2 else a
    with np.errstate(all="ignore"):
        if n == 0:
            return _digamma_kernel(xp, wide)
        # CuPy's polygamma takes the order as an array
        return sp.polygamma(n if xp is np else xp.asarray(n, wide.dtype), wide)


PolygammaNode = node_class("PolygammaBackward0", {
    "self": lambda grad, s: grad * polygamma(s.n + 1, s.self)})


def polygamma(n, input, *, out=None):
    """The ``n``-th derivative of the digamma function."""
    check_tensor_arg(input, "polygamma", "input", 2)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if input._dtype in _COMPLEX:
        not_implemented("digamma" if n == 0 else "trigamma" if n == 1 else "polygamma",
                        input._dtype)
    dt = input._dtype if input._dtype.category == D.FLOATING else D.get_default_dtype()
    res = _polygamma_kernel(n, input._data.astype(dt.numpy_dtype, copy=False))
    result = wrap(xp_of(input).asarray(res).astype(dt.numpy_dtype, copy=False), dt,
                  input._device)
    if input._requires_grad and needs_grad(input):
        record(PolygammaNode, (input,), (result,), self=input, n=n)
    return write_out(out, result) if out is not None else result


register("polygamma", polygamma, method=lambda self, n: polygamma(n, self),
         inplace=lambda self, n: make_inplace(lambda s, k: polygamma(k, s), "polygamma")(self, n),
         family="pointwise", nodes=(PolygammaNode,))

MvlgammaNode = node_class("MvlgammaBackward0", {
    "self": lambda grad, s: grad * _mvdigamma(s.self, s.p)})


def _mvdigamma(x, p):
    """d/dx mvlgamma(x, p) = sum_j digamma(x - j/2), j = 0..p-1 (p is small: a short loop)."""
    total = x.digamma()
    for j in range(1, p):
        total = total + (x - j / 2.0).digamma()
    return total


def mvlgamma(input, p, *, out=None):
    """The multivariate log-gamma function of dimension ``p``."""
    check_tensor_arg(input, "mvlgamma", "input", 1)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if input._dtype in _COMPLEX:
        not_implemented("arange_cpu", input._dtype)      # PyTorch's composite fails there
    if input._dtype is D.bool:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    dt = input._dtype if input._dtype.category == D.FLOATING else D.get_default_dtype()
    a = input._data.astype(dt.numpy_dtype)
    xp = xp_of(input)
    sp = backend.special_module(xp)
    wide = a.astype(np.float64)
    js = xp.arange(p, dtype=np.float64) / 2
    res = sp.gammaln(wide[..., None] - js).sum(-1) + p * (p - 1) / 4 * math.log(math.pi)
    res = row_major(xp.asarray(res))     # PyTorch's composite sums into a row-major result
    result = wrap(res.astype(dt.numpy_dtype), dt, input._device)
    if input._requires_grad and needs_grad(input):
        record(MvlgammaNode, (input,), (result,), self=input, p=p)
    return write_out(out, result) if out is not None else result


register("mvlgamma", mvlgamma, inplace=True, family="pointwise", nodes=(MvlgammaNode,))

# ----------------------------------------------------------------------------------------------
# Binary float manipulation
# ----------------------------------------------------------------------------------------------

_NOT_FLOAT = _INTS_BOOL | _COMPLEX
_NOT_INT = frozenset((D.bool, D.float16, D.bfloat16, D.float32, D.float64)) | _COMPLEX

hypot = binary("hypot", lambda xp, a, b: xp.hypot(a, b), node_class("HypotBackward0", {
    "self": lambda grad, s: grad * s.self / s.result,
    "other": lambda grad, s: grad * s.other / s.result}),
    unsupported=("hypot_cpu", _NOT_FLOAT), tensor_other=True)


def _copysign_self_grad(grad, s):
    # d/dx copysign(x, y) = sign(x) * sign(result): +1 or -1, 0 where x == 0
    ratio = s.result / s.self
    return grad * ratio.masked_fill(s.self == 0, 0.0)


copysign = binary("copysign", lambda xp, a, b: xp.copysign(a, b),
                  node_class("CopysignBackward0", {
                      "self": _copysign_self_grad, "other": lambda grad, s: grad * 0}),
                  scalar_node=node_class("CopysignBackward1", {"self": _copysign_self_grad}),
                  promote_int_to_float=True, unsupported=("copysign_cpu", _COMPLEX))


def _same_dtype_check(name):
    def check(dt, input, other):
        if isinstance(other, Tensor) and other._dtype is not input._dtype:
            raise RuntimeError(f"{name} is not yet implemented for tensors with different "
                               "dtypes.")
    return check


def _no_complex(name, message):
    def check(dt, input, other):
        if dt in _COMPLEX:
            raise RuntimeError(message.format(name))
    return check


def _heaviside_check(dt, input, other):
    _no_complex("heaviside", "{} is not yet implemented for complex tensors.")(dt, input, other)
    _same_dtype_check("heaviside")(dt, input, other)


heaviside = binary("heaviside", lambda xp, a, b: xp.where(a == 0, b, (a > 0)).astype(a.dtype),
                   None, tensor_other=True, check=_heaviside_check)
def _nextafter_kernel(xp, a, b):
    if a.dtype.itemsize != 2 or a.dtype == np.float16:
        return xp.nextafter(a, b)
    # bfloat16 (NumPy has no ufunc loop): step the bit pattern one unit towards b
    a, b = xp.broadcast_arrays(a, b)
    bits = a.view(np.int16).astype(np.int32)
    up = (a < b) == (a > 0)
    stepped = xp.where(up, bits + 1, bits - 1).astype(np.int16).view(a.dtype)
    tiny = xp.where(b > 0, 1, -32767).astype(np.int16).view(a.dtype)   # +-smallest subnormal
    res = xp.where(a == 0, tiny, stepped)
    res = xp.where(a == b, b, res)
    return xp.where(xp.isnan(a) | xp.isnan(b), a + b, res)


nextafter = binary("nextafter", _nextafter_kernel, None, tensor_other=True,
                   unsupported=("nextafter_cpu", _NOT_FLOAT))
gcd = binary("gcd", lambda xp, a, b: xp.gcd(a, b), None, tensor_other=True,
             unsupported=("gcd_cpu", _NOT_INT))
lcm = binary("lcm", lambda xp, a, b: xp.lcm(a, b), None, tensor_other=True,
             unsupported=("lcm_cpu", _NOT_INT))


def _logaddexp_kernel(base2):
    def kernel(xp, a, b):
        wide = a.dtype.itemsize == 2 and a.dtype.kind == "f"
        a2, b2 = (a.astype(np.float32), b.astype(np.float32)) if wide else (a, b)
        with np.errstate(all="ignore"):
            if a.dtype.kind == "c":
                # NumPy's ufunc is real-only: the larger real part plus log1p of the rest
                big = a.real >= b.real
                m, n = xp.where(big, a, b), xp.where(big, b, a)
                return m + xp.log1p(xp.exp(n - m))
            res = xp.logaddexp2(a2, b2) if base2 else xp.logaddexp(a2, b2)
        return res.astype(a.dtype) if wide else res
    return kernel


logaddexp = binary("logaddexp", _logaddexp_kernel(False), node_class("LogaddexpBackward0", {
    "self": lambda grad, s: grad / (1 + (s.other - s.self).exp()),
    "other": lambda grad, s: grad / (1 + (s.self - s.other).exp())}),
    tensor_other=True, inplace=False, unsupported=("logaddexp_cpu", _INTS_BOOL))
logaddexp2 = binary("logaddexp2", _logaddexp_kernel(True), node_class("Logaddexp2Backward0", {
    "self": lambda grad, s: grad / (1 + (s.other - s.self).exp2()),
    "other": lambda grad, s: grad / (1 + (s.self - s.other).exp2())}),
    tensor_other=True, inplace=False, unsupported=("logaddexp2_cpu", _INTS_BOOL | _COMPLEX))


def _xlogy_kernel(xp, a, b):
    with np.errstate(all="ignore"):
        res = a * xp.log(b)
    res = xp.where(a == 0, xp.zeros((), res.dtype), res)
    return xp.where(xp.isnan(b), b, res) if not np.isscalar(b) else \
        (res if b == b else xp.full_like(res, np.nan))


XlogyNode = node_class("XlogyBackward0", {
    "self": lambda grad, s: grad * xlogy((s.self != 0), s.other),
    "other": lambda grad, s: grad * s.self / s.other})
XlogyScalarOtherNode = node_class("XlogyBackward2", {
    "self": lambda grad, s: grad * xlogy((s.self != 0), s.other)})
xlogy = binary("xlogy", _xlogy_kernel, XlogyNode, scalar_node=XlogyScalarOtherNode,
               promote_int_to_float=True, unsupported=("xlogy_cpu", _COMPLEX))


def _fmax_grad(keep_self):
    def grad_self(grad, s):
        if keep_self:
            keep = (s.self >= s.other) | s.other.isnan()
        else:
            keep = (s.self <= s.other) | s.other.isnan()
        return grad.masked_fill(~keep, 0.0)

    def grad_other(grad, s):
        if keep_self:
            keep = (s.self >= s.other) | s.other.isnan()
        else:
            keep = (s.self <= s.other) | s.other.isnan()
        return grad.masked_fill(keep, 0.0)
    return {"self": grad_self, "other": grad_other}


fmax = binary("fmax", lambda xp, a, b: xp.fmax(a, b),
              node_class("FmaxBackward0", _fmax_grad(True)),
              tensor_other=True, inplace=False,
              check=_no_complex("fmax", "{} not implemented for complex tensors."))
fmin = binary("fmin", lambda xp, a, b: xp.fmin(a, b),
              node_class("FminBackward0", _fmax_grad(False)),
              tensor_other=True, inplace=False,
              check=_no_complex("fmin", "{} not implemented for complex tensors."))


def _shift(left):
    def kernel(xp, a, b):
        bits = a.dtype.itemsize * 8
        b_arr = xp.asarray(b)
        over = (b_arr >= bits) | (b_arr < 0)
        safe = xp.where(over, 0, b_arr).astype(a.dtype)
        res = xp.left_shift(a, safe) if left else xp.right_shift(a, safe)
        fill = xp.zeros((), a.dtype) if left or a.dtype.kind == "u" else \
            xp.where(a < 0, -1, 0).astype(a.dtype)
        return xp.where(over, fill, res).astype(a.dtype, copy=False)
    return kernel


_NOT_SHIFTABLE = frozenset((D.float16, D.bfloat16, D.float32, D.float64, D.bool)) | _COMPLEX
bitwise_left_shift = binary("bitwise_left_shift", _shift(True), None,
                            unsupported=("lshift_cpu", _NOT_SHIFTABLE))
bitwise_right_shift = binary("bitwise_right_shift", _shift(False), None,
                             unsupported=("rshift_cpu", _NOT_SHIFTABLE))


def ldexp(input, other, *, out=None):
    """``input * 2 ** other`` (composite, as in PyTorch: records MulBackward0)."""
    from .pointwise import mul, pow
    check_tensor_arg(other, "ldexp")
    result = mul(input, pow(2.0, other))
    return write_out(out, result) if out is not None else result


register("ldexp", ldexp, inplace=True, family="pointwise")


_FREXP_OUT = return_types._named("frexp_out", ("mantissa", "exponent"))


def frexp(input, *, out=None):
    """Splits each element into a mantissa in [0.5, 1) and an int32 power-of-two exponent."""
    check_tensor_arg(input, "frexp", "input", 1)
    if input._dtype.category != D.FLOATING:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    a = input._data
    wide = a.astype(np.float32) if input._dtype is D.bfloat16 else a
    mant, expo = xp_of(input).frexp(wide)
    res = return_types.frexp((wrap(mant.astype(a.dtype), input._dtype, input._device),
                              wrap(expo.astype(np.int32), D.int32, input._device)))
    if out is not None:
        write_out(out[0], res[0])
        write_out(out[1], res[1])
        return _FREXP_OUT((out[0], out[1]))
    return res


register("frexp", frexp, family="pointwise")

# ----------------------------------------------------------------------------------------------
# addcmul / addcdiv
# ----------------------------------------------------------------------------------------------

AddcmulNode = node_class("AddcmulBackward0", {
    "self": lambda grad, s: grad,
    "tensor1": lambda grad, s: grad * _conj(s.tensor2 * s.value),
    "tensor2": lambda grad, s: grad * _conj(s.tensor1 * s.value)})
AddcdivNode = node_class("AddcdivBackward0", {
    "self": lambda grad, s: grad,
    "tensor1": lambda grad, s: grad * _conj(s.value / s.tensor2),
    "tensor2": lambda grad, s: -grad * _conj(s.value * s.tensor1 / (s.tensor2 * s.tensor2))})


def _addc(name, node, divide):
    def fn(input, tensor1, tensor2, *, value=1, out=None):
        for i, t in enumerate((input, tensor1, tensor2)):
            check_tensor_arg(t, name, ("input", "tensor1", "tensor2")[i], i + 1)
        dt = result_type(input, tensor1, tensor2)
        if divide and dt.category < D.FLOATING and \
                result_type(tensor1, tensor2).category < D.FLOATING:
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future release "
                "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
                "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
                "tensor2) for float inputs. The future addcdiv behavior is just the latter "
                "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
        if dt is D.bool:
            not_implemented(name + "_cpu_out", dt)
        dev = common_device((input, tensor1, tensor2))
        a, b, c = (as_compute(t, dt, dev) for t in (input, tensor1, tensor2))
        broadcast_shape(a.shape, b.shape, c.shape)
        v = _value_scalar(value, dt)
        with np.errstate(all="ignore"):
            res = a + v * (b / c if divide else b * c)
        res = iterator_layout(res, (a, b, c))      # one iterator over the three, in PyTorch
        result = wrap(res.astype(dt.numpy_dtype, copy=False), dt, dev)
        if needs_grad(input, tensor1, tensor2):
            record(node, (input, tensor1, tensor2), (result,), tensor1=tensor1,
                   tensor2=tensor2, value=value)
        return write_out(out, result) if out is not None else result
    fn.__name__ = fn.__qualname__ = name
    register(name, fn, inplace=make_inplace(fn, name, pointwise=True), family="pointwise",
             nodes=(node,))
    return fn


def _value_scalar(value, dt):
    if isinstance(value, Tensor):
        value = value.item()
    if dt.category < D.FLOATING:
        return int(value)          # an integer result truncates value, as PyTorch does
    return value


addcmul = _addc("addcmul", AddcmulNode, False)
addcdiv = _addc("addcdiv", AddcdivNode, True)

# ----------------------------------------------------------------------------------------------
# Closeness and membership
# ----------------------------------------------------------------------------------------------


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|input - other| <= atol + rtol * |other|`` elementwise (NaN equal only if asked)."""
    check_tensor_arg(input, "isclose", "input", 1)
    check_tensor_arg(other, "isclose", "other", 2)
    if input._dtype is not other._dtype:
        raise RuntimeError(f"{input._dtype.scalar_name} did not match {other._dtype.scalar_name}")
    if input._dtype in _COMPLEX and equal_nan:
        pass
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    dev = common_device((input, other))
    a, b = as_compute(input, input._dtype, dev), as_compute(other, other._dtype, dev)
    xp = xp_of(input)
    if a.dtype.itemsize == 2 and a.dtype.kind == "f":
        a, b = a.astype(np.float32), b.astype(np.float32)
    with np.errstate(all="ignore"):
        if a.dtype.kind in "iub":
            a, b = a.astype(np.float64), b.astype(np.float64)
        res = xp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return wrap(res, D.bool, dev)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of ``input`` is close to ``other`` (see :func:`isclose`)."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def equal(input, other):
    """True if both tensors have the same size and elements."""
    check_tensor_arg(input, "equal", "input", 1)
    check_tensor_arg(other, "equal", "other", 2)
    if input._data.shape != other._data.shape:
        return False
    dt = result_type(input, other)
    dev = common_device((input, other))
    return bool((as_compute(input, dt, dev) == as_compute(other, dt, dev)).all())


def isreal(input):
    """True where the element has no imaginary part (always, for real dtypes)."""
    check_tensor_arg(input, "isreal", "input", 1)
    xp = xp_of(input)
    if input._dtype in _COMPLEX:
        res = input._data.imag == 0
    else:
        res = xp.ones(input._data.shape, bool)
    if not input._data.flags.c_contiguous:
        res = like_preserved(res, input._data)     # the input's layout, as in PyTorch
    return wrap(res, D.bool, input._device)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """True where an element of ``elements`` occurs in ``test_elements``."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments")
    like = elements if isinstance(elements, Tensor) else test_elements
    e = to_tensor_like(elements, like)
    t = to_tensor_like(test_elements, like)
    for x in (e, t):
        if x._dtype in _COMPLEX or x._dtype is D.bool:
            raise RuntimeError("Unsupported input type encountered for isin(): "
                               f"{x._dtype.scalar_name}")
    dt = result_type(e, t)
    xp = xp_of(e)
    a, b = e._data.astype(dt.numpy_dtype), t._data.astype(dt.numpy_dtype)
    res = xp.isin(a, b, invert=invert)
    return wrap(xp.asarray(res, dtype=bool).reshape(a.shape), D.bool, e._device)


for _name, _f in (("isclose", isclose), ("allclose", allclose), ("equal", equal),
                  ("isreal", isreal)):
    register(_name, _f, family="pointwise")
register("isin", isin, method=False, family="pointwise")

# ----------------------------------------------------------------------------------------------
# Regularized incomplete gamma functions
# ----------------------------------------------------------------------------------------------


def _igamma_kernel(fname):
    def kernel(xp, a, b):
        wide = a.dtype.itemsize == 2
        a2 = a.astype(np.float32) if wide else a
        b2 = np.float32(b) if wide and np.isscalar(b) else (b.astype(np.float32) if wide else b)
        with np.errstate(all="ignore"):
            res = getattr(backend.special_module(xp), fname)(a2, b2)
        return res.astype(a.dtype)
    return kernel


def _igamma_other_grad(grad, s):
    # d/dx P(a, x) = x^(a-1) e^(-x) / Gamma(a)
    a, x = s.self, s.other
    return grad * ((a - 1) * x.log() - x - a.lgamma()).exp()


_NO_INPUT_GRAD = {"igamma": _no_derivative("igamma: input"),
                  "igammac": _no_derivative("igammac: input")}
igamma = binary("igamma", _igamma_kernel("gammainc"), node_class("IgammaBackward0", {
    "self": _NO_INPUT_GRAD["igamma"], "other": _igamma_other_grad}),
    tensor_other=True, unsupported=("igamma_cpu", _INTS_BOOL | _COMPLEX))
igammac = binary("igammac", _igamma_kernel("gammaincc"), node_class("IgammacBackward0", {
    "self": _NO_INPUT_GRAD["igammac"],
    "other": lambda grad, s: -_igamma_other_grad(grad, s)}, saves_also=("self", "other")),
    tensor_other=True, unsupported=("igammac_cpu", _INTS_BOOL | _COMPLEX))
