"""Samplers PyTorch implements as ATen kernels (gamma, poisson, binomial) that cinder's op
table does not have. They draw from cinder's global random stream and are vectorised over
elements (loops only over rejection rounds), so seeded runs are reproducible, but their values
are NOT PyTorch's bit for bit: PyTorch's kernels consume the stream element by element.
"""

import numpy as np

import cinder


def _uniform(n, dtype=cinder.float64):
    return cinder.rand(n, dtype=dtype).numpy().astype(np.float64)


def _normal(n):
    return cinder.randn(n, dtype=cinder.float64).numpy()


def standard_gamma(concentration):
    """Gamma(concentration, 1) draws of ``concentration``'s shape (Marsaglia and Tsang)."""
    if concentration.requires_grad and cinder.is_grad_enabled():
        # PyTorch differentiates the draw implicitly (_standard_gamma_grad); cinder has no
        # such op, so say so instead of failing inside numpy() or dropping the gradient
        raise NotImplementedError(
            "rsample of a gamma-based distribution whose concentration requires grad: the "
            "implicit reparameterization gradient (_standard_gamma_grad) is not implemented")
    alpha = concentration.detach().numpy().astype(np.float64).reshape(-1)
    small = alpha < 1  # boost: Gamma(a) = Gamma(a + 1) * U ** (1 / a)
    a = np.where(small, alpha + 1, alpha)
    d = a - 1.0 / 3
    c = 1.0 / np.sqrt(9 * d)
    out = np.empty_like(a)
    todo = np.arange(a.size)
    while todo.size:
        z = _normal(todo.size)
        u = _uniform(todo.size)
        v = (1 + c[todo] * z) ** 3
        with np.errstate(invalid="ignore", divide="ignore"):
            ok = (v > 0) & (np.log(u) < 0.5 * z * z + d[todo] - d[todo] * v
                            + d[todo] * np.log(np.where(v > 0, v, 1)))
        out[todo[ok]] = d[todo[ok]] * v[ok]
        todo = todo[~ok]
    if small.any():
        out[small] *= _uniform(int(small.sum())) ** (1 / alpha[small])
    tiny = np.finfo(concentration.numpy().dtype).tiny
    out = np.maximum(out, tiny)
    return cinder.tensor(out.reshape(concentration.shape), dtype=concentration.dtype)


def poisson(rate):
    """Poisson draws of ``rate``'s shape: inversion for small rates, Hormann's transformed
    rejection (PTRS) for rates of 10 and more."""
    lam = rate.detach().numpy().astype(np.float64).reshape(-1)
    out = np.zeros_like(lam)
    small = np.nonzero(lam < 10)[0]
    if small.size:
        u = _uniform(small.size)
        p = np.exp(-lam[small])
        cdf = p.copy()
        k = np.zeros(small.size)
        active = u > cdf
        while active.any():
            k[active] += 1
            p[active] *= lam[small][active] / k[active]
            cdf[active] += p[active]
            active &= (u > cdf) & (p > 0)
        out[small] = k
    big = np.nonzero(lam >= 10)[0]
    if big.size:
        out[big] = _ptrs(lam[big])
    return cinder.tensor(out.reshape(rate.shape), dtype=rate.dtype)


def _ptrs(lam):
    slam, loglam = np.sqrt(lam), np.log(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2)
    out = np.empty_like(lam)
    todo = np.arange(lam.size)
    while todo.size:
        u = _uniform(todo.size) - 0.5
        v = _uniform(todo.size)
        us = 0.5 - np.abs(u)
        bt, at = b[todo], a[todo]
        k = np.floor((2 * at / us + bt) * u + lam[todo] + 0.43)
        quick = (us >= 0.07) & (v <= vr[todo])
        with np.errstate(invalid="ignore", divide="ignore"):
            lhs = np.log(v * inv_alpha[todo] / (at / (us * us) + bt))
            log_k_fact = cinder.tensor(np.maximum(k, 0) + 1).lgamma().numpy()
            rhs = -lam[todo] + k * loglam[todo] - log_k_fact
        ok = quick | ((k >= 0) & ~((us < 0.013) & (v > us)) & (lhs <= rhs))
        out[todo[ok]] = k[ok]
        todo = todo[~ok]
    return out


def binomial(count, probs):
    """Binomial draws: the number of uniforms below ``probs`` among ``count`` trials."""
    n = count.detach().numpy().astype(np.int64).reshape(-1)
    p = probs.detach().numpy().astype(np.float64).reshape(-1)
    top = int(n.max()) if n.size else 0
    if top == 0:
        return cinder.zeros(count.shape, dtype=probs.dtype)
    u = _uniform(top * n.size).reshape(top, n.size)
    hits = (u < p) & (np.arange(top)[:, None] < n)
    return cinder.tensor(hits.sum(0).astype(np.float64).reshape(count.shape), dtype=probs.dtype)
