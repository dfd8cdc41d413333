"""``torch.signal.windows``: SciPy-style windows (``sym=True`` gives the symmetric window,
``sym=False`` the periodic one used for spectral analysis)."""


import numpy as np

from ... import _dtype as D
from ...ops.windows import _cosine_sum, _kaiser, _sampled_window, _triangle


def _make(name, M, sym, dtype, device, requires_grad, values):
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    dt = dtype or D.get_default_dtype()
    if dt.category != D.FLOATING:
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dt}")
    return _sampled_window(M, M if sym else M + 1, values, dt, device, requires_grad)


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None,
                   requires_grad=False):
    """Sum of cosines with coefficients ``a`` (alternating signs)."""
    return _make("general_cosine", M, sym, dtype, device, requires_grad, _cosine_sum(a))


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """``alpha - (1 - alpha) cos(2 pi n / (M - 1))``."""
    return _make("general_hamming", M, sym, dtype, device, requires_grad,
                 _cosine_sum((alpha, 1 - alpha)))


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Hann window."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, device=device,
                           requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Hamming window."""
    return general_hamming(M, sym=sym, dtype=dtype, device=device, requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Blackman window."""
    return general_cosine(M, a=(0.42, 0.5, 0.08), sym=sym, dtype=dtype, device=device,
                          requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Nuttall's minimum 4-term Blackman-Harris window."""
    return general_cosine(M, a=(0.3635819, 0.4891775, 0.1365995, 0.0106411), sym=sym,
                          dtype=dtype, device=device, requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Triangular window reaching zero at both ends."""
    return _make("bartlett", M, sym, dtype, device, requires_grad,
                 _triangle)


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Sine window ``sin(pi (n + 0.5) / M)``."""
    return _make("cosine", M, sym, dtype, device, requires_grad,
                 lambda n, total: np.sin(np.pi * (n + 0.5) / total))


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None,
             requires_grad=False):
    """Gaussian window of standard deviation ``std`` samples."""
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    return _make("gaussian", M, sym, dtype, device, requires_grad,
                 lambda n, total: np.exp(-((n - (total - 1) / 2) ** 2) / (2 * std * std)))


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
                requires_grad=False):
    """Exponential (Poisson) window ``exp(-|n - center| / tau)``."""
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")

    def values(n, total):
        c = (total - 1) / 2 if center is None else center
        return np.exp(-np.abs(n - c) / tau)
    return _make("exponential", M, sym, dtype, device, requires_grad, values)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None,
           requires_grad=False):
    """Kaiser window with shape parameter ``beta``."""
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    return _make("kaiser", M, sym, dtype, device, requires_grad, _kaiser(beta))


