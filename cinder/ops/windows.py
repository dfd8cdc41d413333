"""Window functions: ``torch.hann_window`` and friends (periodic by default, as used by
``stft``). Computed in float64 with NumPy, then cast to the requested dtype."""

import numpy as np

from .. import _dtype as D
from ._registry import register


def _window(name, window_length, periodic, dtype, device, requires_grad, values):
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    dt = dtype or D.get_default_dtype()
    if dt.category < D.FLOATING:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dt.scalar_name}")
    n_total = window_length + 1 if periodic else window_length
    return _sampled_window(window_length, n_total, values, dt, device, requires_grad)


def _sampled_window(length, n_total, values, dt, device, requires_grad):
    """The first ``length`` of ``values(n, n_total)`` at n = 0 .. n_total - 1 (a periodic
    window samples one point more than it keeps), as a tensor; all ones for length <= 1.
    Shared with ``torch.signal.windows``."""
    from .. import tensor
    if length <= 1:
        arr = np.ones(length)
    else:
        arr = values(np.arange(n_total, dtype=np.float64), n_total)[:length]
    t = tensor(arr.astype(dt.numpy_dtype), dtype=dt, device=device)
    return t.requires_grad_(True) if requires_grad else t


def _cosine_sum(coeffs):
    """The window ``sum_k (-1)**k coeffs[k] cos(2 pi k n / (N - 1))``."""
    def values(n, total):
        phase = 2 * np.pi * n / (total - 1)
        return sum(c * np.cos(k * phase) * (-1) ** k for k, c in enumerate(coeffs))
    return values


def _triangle(n, total):
    """The Bartlett window: a triangle from 0 up to 1 and back to 0."""
    return 1 - np.abs(2 * n / (total - 1) - 1)


def _kaiser(beta):
    """The Kaiser window ``I0(beta sqrt(1 - (2n/(N-1) - 1)^2)) / I0(beta)``."""
    def values(n, total):
        r = 2 * n / (total - 1) - 1
        return np.i0(beta * np.sqrt(np.clip(1 - r * r, 0, None))) / np.i0(beta)
    return values


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """Hann window ``0.5 - 0.5 cos(2 pi n / (N - 1))``."""
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_sum((0.5, 0.5)))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """Hamming window ``alpha - beta cos(2 pi n / (N - 1))``."""
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_sum((alpha, beta)))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """Blackman window (three cosine terms 0.42, 0.5, 0.08)."""
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_sum((0.42, 0.5, 0.08)))


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """Triangular (Bartlett) window."""
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   _triangle)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """Kaiser window ``I0(beta sqrt(1 - (2n/(N-1) - 1)^2)) / I0(beta)``."""
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad,
                   _kaiser(beta))


for _fn in (hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window):
    register(_fn.__name__, _fn, method=False, family="creation")
