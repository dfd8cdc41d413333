"""``torch.special`` (cinder/ops/special.py and the pointwise/reduction ops it re-exports)
through the generic runners: values and dtypes (integer inputs are promoted to float),
gradients and float64 gradcheck where PyTorch defines a derivative, out=, bad inputs.

Each function gets inputs inside its domain (positive for the gamma family and the
Bessel functions of the second kind, (0, 1) for ndtri/logit, (-1, 1) for erfinv)."""

from . import FLOATS, ErrorSample, OpEntry, Sample

FAMILY = "special"
# (integer inputs, promoted to float, are run by the other-dtypes runner on the first two
# samples of each entry)
DTYPES = FLOATS
TOL = {"float32": (2e-5, 1e-5)}

# name -> ((low, high) of the input, whether PyTorch has a derivative)
_ANY, _POS, _UNIT, _SMALL = (-3, 3), (0.2, 4), (0.05, 0.95), (-0.9, 0.9)
UNARY = {
    "erf": (_ANY, True), "erfc": (_ANY, True), "erfcx": (_ANY, True),
    "erfinv": (_SMALL, True), "ndtr": (_ANY, True), "ndtri": (_UNIT, True),
    "log_ndtr": (_ANY, True), "exp2": (_ANY, True), "expm1": (_ANY, True),
    "log1p": (_POS, True), "expit": (_ANY, True), "entr": (_POS, True), "sinc": (_ANY, True),
    "digamma": (_POS, True), "psi": (_POS, True),
    "gammaln": (_POS, True), "i0": (_ANY, True), "i1": (_ANY, True), "i0e": (_ANY, True),
    "i1e": (_ANY, True), "bessel_j0": (_ANY, False), "bessel_j1": (_ANY, False),
    "bessel_y0": (_POS, False), "bessel_y1": (_POS, False),
    "modified_bessel_i0": (_ANY, False), "modified_bessel_i1": (_ANY, False),
    "modified_bessel_k0": (_POS, False), "modified_bessel_k1": (_POS, False),
    "scaled_modified_bessel_k0": (_POS, False), "scaled_modified_bessel_k1": (_POS, False),
    "spherical_bessel_j0": (_ANY, False), "airy_ai": (_ANY, False),
}
# (integer inputs outside the domain give NaN/inf in both, so they are compared as well)
POLYS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
         "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
         "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
         "laguerre_polynomial_l", "legendre_polynomial_p")


def _special(name):
    def call(lib, *args, **kwargs):
        return getattr(lib.special, name)(*args, **kwargs)
    return call


def _unary_samples(low, high):
    def gen(dtype, make):
        return [Sample(make((3, 4), low=low, high=high)), Sample(make((), low=low, high=high)),
                Sample(make((5,), low=low, high=high, layout="strided"))]
    return gen


def _entry(name, samples, *, grad=True, dtypes=DTYPES, out=True, **kw):
    return OpEntry("special_" + name, call=_special(name), samples=samples, dtypes=dtypes,
                   method=False, grad=grad, out=out, tol=TOL, family=FAMILY, **kw)


def _poly_samples(dtype, make):
    x = make((5,), low=-1, high=1)
    n = make((5,), "int64", values=[-1, 0, 1, 4, 7])
    return [Sample(x, n), Sample(x, 3), Sample(make((2, 5), low=-1, high=1), n)]


def _binary(low_a, high_a, low_b, high_b):
    def gen(dtype, make):
        a, b = make((3, 4), low=low_a, high=high_a), make((3, 4), low=low_b, high=high_b)
        return [Sample(a, b), Sample(a, make((4,), low=low_b, high=high_b)),
                Sample(make((), low=low_a, high=high_a), b)]
    return gen


def _xlogy_samples(dtype, make):
    out = _binary(-3, 3, 0.2, 4)(dtype, make)
    return out + [Sample(make((3,), values=[0.0, 1.5, 2.0]), 3.0),
                  Sample(2.0, make((3, 4), low=0.2, high=4))]


def _zeta_samples(dtype, make):
    q = make((3, 4), low=0.2, high=4)
    s = make((3, 4), low=1.7, high=5.5, grad=False)
    return [Sample(s, q), Sample(make((4,), low=1.7, high=5.5, grad=False), q)]


def _gammainc_samples(dtype, make):
    a = make((3, 4), low=0.2, high=4, grad=False)
    return [Sample(a, make((3, 4), low=0.2, high=4)), Sample(a, make((4,), low=0.2, high=4))]


def _polygamma_samples(dtype, make):
    x = make((3, 4), low=0.2, high=4)
    return [Sample(0, x), Sample(1, x), Sample(3, x)]


def _reduction_samples(dtype, make):
    x = make((3, 4), low=-3, high=3)
    return [Sample(x, 1), Sample(x, 0), Sample(make((2, 3, 4), low=-3, high=3), -1)]


_NO_COMPLEX = {"forward": ("PyTorch computes this for complex inputs; cinder refuses them "
                           "(not implemented yet)", ("complex64", "complex128"))}

ENTRIES = [
    *(_entry(name, _unary_samples(*rng), grad=grad,
             skips=_NO_COMPLEX if name in ("expit", "sinc") else None)
      for name, (rng, grad) in UNARY.items()),
    _entry("round", lambda dtype, make: [Sample(make((3, 4), low=-9, high=9)),
                                         Sample(make((3, 4), low=-9, high=9), decimals=1)],
           dtypes=FLOATS),
    _entry("logit", lambda dtype, make: _unary_samples(*_UNIT)(dtype, make) + [
        Sample(make((3, 4), low=0.05, high=0.95), eps=0.2)]),
    *(_entry(name, _poly_samples, grad=False, dtypes=FLOATS) for name in POLYS),
    # (PyTorch names the node of a Python-number argument XlogyBackward1/2; cinder records
    # XlogyBackward0 for every form)
    _entry("xlogy", _xlogy_samples, check_grad_fn=False),
    _entry("xlog1py", _binary(-3, 3, 0.2, 4)),
    _entry("zeta", _zeta_samples),
    _entry("gammainc", _gammainc_samples),
    _entry("gammaincc", _gammainc_samples),
    _entry("polygamma", _polygamma_samples),
    _entry("multigammaln", lambda dtype, make: [Sample(make((3, 4), low=1.7, high=5), 3),
                                                Sample(make((4,), low=1.2, high=5), 1)],
           dtypes=FLOATS, out=True,
           errors=lambda make: [ErrorSample(Sample(make((3,), low=1.7, high=5), 0))]),
    _entry("softmax", _reduction_samples, out=False, dtypes=FLOATS),
    _entry("log_softmax", _reduction_samples, out=False, dtypes=FLOATS),
    _entry("logsumexp", _reduction_samples, dtypes=FLOATS),
]
