"""torch.special against PyTorch: values and dtypes on several dtypes, gradients where PyTorch
defines them (same loss in both libraries), float64 gradcheck, the reductions and rounding."""
# ruff: noqa: B023  (each lambda in a loop is called within its own iteration)

import numpy as np
import pytest
import torch

import cinder

from .test_linalg import check, gradcheck

RNG = np.random.default_rng(3)
X = RNG.uniform(-3, 3, (3, 4))
POS = RNG.uniform(0.2, 4, (3, 4))
UNIT = RNG.uniform(0.05, 0.95, (3, 4))
SMALL = RNG.uniform(-0.9, 0.9, (3, 4))

# name -> (input values, differentiable in PyTorch)
UNARY = {
    "erf": (X, True), "erfc": (X, True), "erfcx": (X, True), "erfinv": (SMALL, True),
    "ndtr": (X, True), "ndtri": (UNIT, True), "log_ndtr": (X, True), "exp2": (X, True),
    "expm1": (X, True), "log1p": (POS, True), "expit": (X, True), "entr": (POS, True),
    "sinc": (X, True), "logit": (UNIT, True), "digamma": (POS, True), "psi": (POS, True),
    "gammaln": (POS, True), "i0": (X, True), "i1": (X, True), "i0e": (X, True),
    "i1e": (X, True), "bessel_j0": (X, False), "bessel_j1": (X, False),
    "bessel_y0": (POS, False), "bessel_y1": (POS, False), "modified_bessel_i0": (X, False),
    "modified_bessel_i1": (X, False), "modified_bessel_k0": (POS, False),
    "modified_bessel_k1": (POS, False), "scaled_modified_bessel_k0": (POS, False),
    "scaled_modified_bessel_k1": (POS, False), "spherical_bessel_j0": (X, False),
    "airy_ai": (X, False), "round": (X * 3, True),
}
POLYS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
         "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
         "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
         "laguerre_polynomial_l", "legendre_polynomial_p"]


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    values, grad = UNARY[name]
    rtol = 1e-4 if name == "airy_ai" else 1e-7     # PyTorch's airy_ai is a coarser Cephes fit
    check(lambda L, a: getattr(L.special, name)(a), [values], grad=grad, rtol=rtol, atol=1e-9)
    check(lambda L, a: getattr(L.special, name)(a), [values.astype(np.float32)], grad=False,
          rtol=2e-5, atol=1e-5)
    if name == "round":
        for lib in (torch, cinder):
            with pytest.raises(NotImplementedError):
                lib.special.round(lib.tensor([1, 2]))
    elif name not in ("ndtri", "logit", "erfinv"):
        ints = np.arange(1, 5, dtype=np.int64)
        check(lambda L, a: getattr(L.special, name)(a), [ints], grad=False, rtol=2e-6)


def test_binary_and_polygamma():
    check(lambda L, a, b: L.special.xlogy(a, b), [X, POS])
    check(lambda L, a, b: L.special.xlog1py(a, b), [X, POS])
    check(lambda L, a: L.special.xlogy(a, 3.0), [np.array([0.0, 1.5, 2.0])])
    check(lambda L, a: L.special.xlogy(2, a), [POS])
    # (no derivative with respect to the first argument in PyTorch: it is a constant here)
    check(lambda L, b: L.special.zeta(L.tensor(POS + 1.5), b), [POS])
    check(lambda L, b: L.special.gammainc(L.tensor(POS), b), [POS.T.copy().reshape(3, 4)])
    check(lambda L, b: L.special.gammaincc(L.tensor(POS), b), [POS[::-1].copy()])
    for lib in (torch, cinder):
        a = lib.tensor(POS + 1.5, requires_grad=True)
        with pytest.raises(NotImplementedError, match="the derivative for 'zeta'"):
            lib.special.zeta(a, lib.tensor(POS)).sum().backward()
    for n in (0, 1, 3):
        check(lambda L, a: L.special.polygamma(n, a), [POS])
    check(lambda L, a: L.special.multigammaln(a, 3), [POS + 1.5])
    check(lambda L, a: L.special.logit(a, eps=0.2), [UNIT])


@pytest.mark.parametrize("name", POLYS)
def test_polynomials(name):
    x = RNG.uniform(-1, 1, (5,))
    n = np.array([-1, 0, 1, 4, 7])
    check(lambda L, a, b: getattr(L.special, name)(a, b), [x, n], grad=False, rtol=1e-9)
    check(lambda L, a: getattr(L.special, name)(a, 3), [x], grad=False, rtol=1e-9)


def test_reductions_and_round():
    check(lambda L, a: L.special.softmax(a, 1), [X])
    check(lambda L, a: L.special.log_softmax(a, 0), [X])
    check(lambda L, a: L.special.log_softmax(a, 0, dtype=L.float32), [X], rtol=1e-6)
    check(lambda L, a: L.special.logsumexp(a, 1), [X])
    check(lambda L, a: L.special.logsumexp(a, (0, 1), keepdim=True), [X])
    check(lambda L, a: L.special.logsumexp(a, 0), [np.array([-np.inf, -np.inf])], grad=False)
    check(lambda L, a: L.special.round(a, decimals=2), [X])


def test_gradcheck():
    for name in ("erfcx", "log_ndtr", "i1e", "gammaln", "sinc"):
        gradcheck(lambda L, a: getattr(L.special, name)(a), [X + 0.1 if name != "gammaln"
                                                            else POS])
    gradcheck(lambda L, a, b: L.special.xlog1py(a, b), [X, POS])


def test_second_order():
    check(lambda L, a: L.autograd.grad(L.special.digamma(a).sum(), a, create_graph=True)[0],
          [POS])


# The op-table rows behind each public name (the coverage test reads this file for them).
OP_ROWS = {
    "special_airy_ai": "airy_ai", "special_bessel_j0": "bessel_j0",
    "special_bessel_j1": "bessel_j1", "special_bessel_y0": "bessel_y0",
    "special_bessel_y1": "bessel_y1", "special_chebyshev_polynomial_t": "chebyshev_polynomial_t",
    "special_chebyshev_polynomial_u": "chebyshev_polynomial_u",
    "special_chebyshev_polynomial_v": "chebyshev_polynomial_v",
    "special_chebyshev_polynomial_w": "chebyshev_polynomial_w", "special_digamma": "digamma",
    "special_entr": "entr", "special_erf": "erf", "special_erfc": "erfc", "special_erfcx": "erfcx",
    "special_erfinv": "erfinv", "special_exp2": "exp2", "special_expit": "expit",
    "special_expm1": "expm1", "special_gammainc": "gammainc", "special_gammaincc": "gammaincc",
    "special_gammaln": "gammaln", "special_hermite_polynomial_h": "hermite_polynomial_h",
    "special_hermite_polynomial_he": "hermite_polynomial_he", "special_i0": "i0",
    "special_i0e": "i0e", "special_i1": "i1", "special_i1e": "i1e",
    "special_laguerre_polynomial_l": "laguerre_polynomial_l",
    "special_legendre_polynomial_p": "legendre_polynomial_p", "special_log1p": "log1p",
    "special_log_ndtr": "log_ndtr", "special_log_softmax": "log_softmax", "special_logit": "logit",
    "special_logsumexp": "logsumexp", "special_modified_bessel_i0": "modified_bessel_i0",
    "special_modified_bessel_i1": "modified_bessel_i1",
    "special_modified_bessel_k0": "modified_bessel_k0",
    "special_modified_bessel_k1": "modified_bessel_k1", "special_multigammaln": "multigammaln",
    "special_ndtr": "ndtr", "special_ndtri": "ndtri", "special_polygamma": "polygamma",
    "special_psi": "psi", "special_round": "round",
    "special_scaled_modified_bessel_k0": "scaled_modified_bessel_k0",
    "special_scaled_modified_bessel_k1": "scaled_modified_bessel_k1",
    "special_shifted_chebyshev_polynomial_t": "shifted_chebyshev_polynomial_t",
    "special_shifted_chebyshev_polynomial_u": "shifted_chebyshev_polynomial_u",
    "special_shifted_chebyshev_polynomial_v": "shifted_chebyshev_polynomial_v",
    "special_shifted_chebyshev_polynomial_w": "shifted_chebyshev_polynomial_w",
    "special_sinc": "sinc", "special_softmax": "softmax",
    "special_spherical_bessel_j0": "spherical_bessel_j0", "special_xlog1py": "xlog1py",
    "special_xlogy": "xlogy", "special_zeta": "zeta",
}


def test_namespace_matches_op_table():
    from cinder.ops import OPS
    for row, public in OP_ROWS.items():
        assert getattr(cinder.special, public) is OPS[row].function
    public = {n for n in dir(torch.special) if not n.startswith("_")} - {
        "Tensor", "common_args", "multi_dim_common", "torch"}
    assert sorted(public) == sorted(OP_ROWS.values())
