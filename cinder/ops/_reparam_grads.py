"""Implicit reparameterization gradients of gamma and Dirichlet draws, as PyTorch approximates
them (``standard_gamma_grad_one`` and ``dirichlet_grad_one`` in ATen's ``Distributions.h``).

For a draw ``x ~ Gamma(alpha)``, ``dx/dalpha = -(dF/dalpha)(x; alpha) / f(x; alpha)`` with ``F``
the CDF and ``f`` the density. There is no closed form, so PyTorch pieces it together: a
Taylor series for small ``x``, a Rice saddle-point expansion for large ``alpha`` and a fitted
rational function elsewhere; the Dirichlet (Beta) version likewise. These functions are the
same approximations, vectorised over NumPy arrays: each region is evaluated on the elements
that fall in it.
"""

import numpy as np


_PSI_10 = 2.25175258906672110764
_PSI_ASYMPTOTIC = (8.33333333333333333333E-2, -2.10927960927960927961E-2,
                   7.57575757575757575758E-3, -4.16666666666666666667E-3,
                   3.96825396825396825397E-3, -8.33333333333333333333E-3,
                   8.33333333333333333333E-2)


def _digamma(x):
    """ATen's ``digamma_one`` for positive ``x``, in ``x``'s dtype: the recurrence steps
    ``x += 1`` run in that dtype (float32 rounding matters where the series cancel), the
    sums in double."""
    zero = x == 0
    x = np.where(zero, 1, x)
    result = np.zeros(x.shape, dtype=np.float64)
    low = x < 10
    while low.any():
        result[low] -= (1 / x[low]).astype(np.float64)
        x[low] += 1
        low = x < 10
    xd = x.astype(np.float64)
    z = 1.0 / (xd * xd)
    poly = np.full(x.shape, _PSI_ASYMPTOTIC[0])
    for coeff in _PSI_ASYMPTOTIC[1:]:
        poly = poly * z + coeff
    y = np.where(xd < 1e17, z * poly, 0.0)
    tail = np.log(x).astype(np.float64) - (0.5 / x).astype(np.float64) - y
    out = result + np.where(x == 10, _PSI_10, tail)
    return np.where(zero, np.inf, out).astype(x.dtype)


def _pick(shape, regions):
    """Fill an array of ``shape`` region by region: ``regions`` is a list of
    ``(mask, fn)`` with ``fn(index)`` computing the values where ``mask`` holds."""
    out = np.zeros(shape, dtype=np.float64)
    taken = np.zeros(shape, dtype=bool)
    for mask, fn in regions:
        where = mask & ~taken
        if where.any():
            with np.errstate(all="ignore"):
                out[where] = fn(where)
        taken |= where
    return out


# ----------------------------------------------------------------------------------------------
# d x / d alpha for x ~ Gamma(alpha, 1)
# ----------------------------------------------------------------------------------------------

def _gamma_small_x(x, alpha):
    """Taylor series of the regularised incomplete gamma function in ``x`` (x < 0.8)."""
    numer = np.ones_like(x)
    denom = alpha.copy()
    series1 = numer / denom
    series2 = numer / (denom * denom)
    for i in range(1, 6):
        numer = numer * (-x / i)
        denom = denom + 1
        series1 = series1 + numer / denom
        series2 = series2 + numer / (denom * denom)
    pow_x_alpha = x ** alpha
    gamma_pdf = x ** (alpha - 1) * np.exp(-x)
    gamma_cdf = pow_x_alpha * series1
    gamma_cdf_alpha = (np.log(x) - _digamma(alpha)) * gamma_cdf - pow_x_alpha * series2
    result = -gamma_cdf_alpha / gamma_pdf
    return np.where(np.isnan(result), 0.0, result)


def _gamma_near_mean(x, alpha):
    """Rice saddle point expansion for alpha > 8 where x is within 10 % of alpha."""
    numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
    numer_2 = (1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha
               + alpha * (107 + 3600 * x))
    denom = 1244160 * (alpha * alpha) * (alpha * alpha)
    return numer_1 * numer_2 / denom


def _gamma_large_alpha(x, alpha):
    """Rice saddle point expansion for alpha > 8 away from the mean."""
    denom = np.sqrt(8 * alpha)
    term2 = denom / (alpha - x)
    term3 = (x - alpha - alpha * np.log(x / alpha)) ** -1.5
    term23 = np.where(x < alpha, term2 - term3, term2 + term3)
    term1 = (np.log(x / alpha) * term23
             - np.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x)))
    stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
    return -stirling * x * term1 / denom


_GAMMA_UV = np.array([
    [0.16009398, -0.094634809, 0.025146376, -0.0030648343,
     1, 0.32668115, 0.10406089, 0.0014179084],
    [0.53487893, 0.1298071, 0.065735949, -0.0015649758,
     0.16639465, 0.020070113, -0.0035938915, -0.00058392623],
    [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
     0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07]])


def _gamma_rational(x, alpha):
    """A bivariate rational function of log(x / alpha) and log(alpha) fitted to the gradient."""
    u = np.log(x / alpha)[:, None]
    v = np.log(alpha)
    coef = _GAMMA_UV[0] + u * (_GAMMA_UV[1] + u * _GAMMA_UV[2])    # (n, 8)
    p = coef[:, 0] + v * (coef[:, 1] + v * (coef[:, 2] + v * coef[:, 3]))
    q = coef[:, 4] + v * (coef[:, 5] + v * (coef[:, 6] + v * coef[:, 7]))
    return np.exp(p / q)


def standard_gamma_grad(alpha, x):
    """``_standard_gamma_grad(alpha, x)``: dx/dalpha, computed in double, of ``x``'s shape."""
    shape = np.broadcast_shapes(alpha.shape, x.shape)
    a = np.broadcast_to(alpha, shape).astype(np.float64).ravel()
    xs = np.broadcast_to(x, shape).astype(np.float64).ravel()
    big = a > 8.0
    near = big & (0.9 * a <= xs) & (xs <= 1.1 * a)
    out = _pick(a.shape, [
        (xs < 0.8, lambda w: _gamma_small_x(xs[w], a[w])),
        (near, lambda w: _gamma_near_mean(xs[w], a[w])),
        (big, lambda w: _gamma_large_alpha(xs[w], a[w])),
        (np.ones_like(big), lambda w: _gamma_rational(xs[w], a[w])),
    ])
    return out.reshape(shape)


# ----------------------------------------------------------------------------------------------
# Dirichlet: d x / d alpha of one coordinate, written for Beta(alpha, total - alpha)
# ----------------------------------------------------------------------------------------------

def _beta_alpha_small(x, alpha, beta):
    """Taylor expansion in x for x near 0 (computed in the element type, as in PyTorch)."""
    factor = _digamma(alpha) - _digamma(alpha + beta) - np.log(x)
    numer = np.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * ((i - beta) * x / i)
        denom = alpha + i
        series = series + numer / denom * (factor + 1 / denom)
    result = x * (1 - x) ** -beta * series
    return np.where(np.isnan(result), 0, result)


def _beta_beta_small(x, alpha, beta):
    """Taylor expansion of the gradient with respect to beta, for x near 0."""
    factor = _digamma(alpha + beta) - _digamma(beta)
    numer = np.ones_like(x)
    betas = np.ones_like(x)
    dbetas = np.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    result = -(1 - x) ** (1 - beta) * series
    return np.where(np.isnan(result), 0, result)


def _beta_alpha_mid(x, alpha, beta):
    """Rice saddle point expansion when alpha and beta are both large (double precision)."""
    total = alpha + beta
    mean = alpha / total
    std = np.sqrt(alpha * beta / (total + 1)) / total
    near = (mean - 0.1 * std <= x) & (x <= mean + 0.1 * std)
    poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
            3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                    8 * (1 - x) * (135 * beta - 11)))))
    prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
    prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
    at_mean = prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / np.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
                * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_den = np.sqrt(2 * alpha / beta) * total ** 1.5 * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * np.log(alpha / (total * x))
    term3 = np.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4_base = (beta * np.log(beta / (total * (1 - x)))
                  + alpha * np.log(alpha / (total * x)))
    term4 = term4_base ** -1.5
    term1234 = term1 + term2 * (term3 + np.where(x < mean, term4, -term4))
    return np.where(near, at_mean, stirling * prefactor * term1234)


_DIRICHLET_C = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]]])


def _dirichlet_rational(x, alpha, total):
    """A rational correction (fitted coefficients) to an analytic approximation."""
    u = np.log(x)
    a = np.log(alpha) - u
    b = np.log(total) - a
    pow_u = np.stack([np.ones_like(u), u, u * u])       # (3, n)
    pow_a = np.stack([np.ones_like(a), a, a * a])
    # cubic in b for every (numerator/denominator, i, j): shape (2, 3, 3, n)
    c = _DIRICHLET_C[..., None]
    cubic = c[..., 0, :] + b * (c[..., 1, :] + b * (c[..., 2, :] + b * c[..., 3, :]))
    weights = pow_u[:, None, :] * pow_a[None, :, :]        # (3, 3, n)
    p = (weights * cubic[0]).sum((0, 1))
    q = (weights * cubic[1]).sum((0, 1))
    approx = x * (_digamma(total) - _digamma(alpha)) / (total - alpha)
    return p / q * approx


def dirichlet_grad(x, alpha, total):
    """``_dirichlet_grad(x, alpha, total)`` (scaled dx/dalpha of a Beta(alpha, total - alpha)
    draw) on arrays of one shape; the near-0/near-1 series run in ``x``'s dtype."""
    shape = np.broadcast_shapes(x.shape, alpha.shape, total.shape)
    dt = x.dtype
    xs, al, tot = (np.broadcast_to(v, shape).astype(dt).ravel() for v in (x, alpha, total))
    beta = tot - al
    boundary = tot * xs * (1 - xs)
    xd, ad, td = (v.astype(np.float64) for v in (xs, al, tot))
    out = _pick(xs.shape, [
        ((xs <= 0.5) & (boundary < 2.5), lambda w: _beta_alpha_small(xs[w], al[w], beta[w])),
        ((xs >= 0.5) & (boundary < 0.75),
         lambda w: -_beta_beta_small(1 - xs[w], beta[w], al[w])),
        ((al > 6) & (beta > 6), lambda w: _beta_alpha_mid(xd[w], ad[w], td[w] - ad[w])),
        (np.ones_like(beta, dtype=bool), lambda w: _dirichlet_rational(xd[w], ad[w], td[w])),
    ])
    return out.reshape(shape)
