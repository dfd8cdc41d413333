"""Window functions (torch.*_window, torch.signal.windows) against PyTorch."""
# ruff: noqa: B023  (each lambda in a loop is called within its own iteration)

import warnings

import numpy as np
import pytest
import torch

import cinder

from .test_linalg import check

WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]
SIGNAL = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "hamming", "hann",
          "kaiser", "nuttall"]


@pytest.mark.parametrize("name", WINDOWS)
def test_torch_windows(name):
    for n in (0, 1, 2, 7, 8):
        for periodic in (True, False):
            check(lambda L: getattr(L, name)(n, periodic), [], rtol=1e-6, atol=1e-6)
            check(lambda L: getattr(L, name)(n, periodic, dtype=L.float64), [], rtol=1e-12)
    check(lambda L: L.hamming_window(6, True, 0.5, 0.3, dtype=L.float64), [])
    check(lambda L: L.kaiser_window(6, False, 5.0, dtype=L.float64), [])


@pytest.mark.parametrize("name", SIGNAL)
def test_signal_windows(name):
    for n in (0, 1, 6, 9):
        for sym in (True, False):
            check(lambda L: getattr(L.signal.windows, name)(n, sym=sym, dtype=L.float64), [],
                  rtol=1e-10, atol=1e-12)
    check(lambda L: L.signal.windows.general_cosine(7, a=[0.5, 0.3, 0.2], dtype=L.float64), [])
    check(lambda L: L.signal.windows.general_hamming(7, alpha=0.6, sym=False), [])
    check(lambda L: L.signal.windows.gaussian(7, std=2.0), [])
    check(lambda L: L.signal.windows.exponential(7, tau=3.0, center=1.0, sym=False), [])


def test_errors():
    for fn in (lambda L: L.hann_window(-1), lambda L: L.hann_window(4, dtype=L.int64),
               lambda L: L.signal.windows.gaussian(4, std=-1.0)):
        with pytest.raises(Exception) as t:
            fn(torch)
        with pytest.raises(type(t.value)):
            fn(cinder)


def _signal(*shape):
    return np.random.default_rng(5).standard_normal(shape)


@pytest.mark.parametrize("kw", [{}, {"hop_length": 3, "win_length": 6}, {"center": False},
                                {"normalized": True}, {"onesided": False}])
def test_stft(kw):
    x = _signal(2, 40)
    check(lambda L, a: L.stft(a, 16, window=L.hann_window(kw.get("win_length", 16),
                                                           dtype=L.float64),
                              return_complex=True, **kw), [x])
    check(lambda L, a: a.stft(8, return_complex=True), [x[0]])


def test_istft_roundtrip():
    x = _signal(2, 64)
    for kw in ({}, {"hop_length": 4}, {"normalized": True}, {"length": 60}):
        def fn(L, a):
            w = L.hann_window(16, dtype=L.float64)
            spec = L.stft(a, 16, window=w, return_complex=True,
                          **{k: v for k, v in kw.items() if k != "length"})
            return L.istft(spec, 16, window=w, **kw)
        check(fn, [x], grad=False)
    with pytest.raises(RuntimeError):
        cinder.stft(cinder.tensor(x), 16)
    with pytest.raises(RuntimeError):
        torch.stft(torch.tensor(x), 16)


@pytest.mark.parametrize("kw", [{}, {"hop_length": 4}, {"normalized": True}, {"length": 60},
                                {"length": 80}, {"center": False, "hop_length": 4},
                                {"win_length": 12}])
def test_istft_gradient(kw):
    """istft is a composite of differentiable ops: values and gradients (input spectrum and
    window) against PyTorch's."""
    spec = np.random.default_rng(7).standard_normal((2, 9, 17, 2))
    spec = spec[..., 0] + 1j * spec[..., 1]
    win = kw.get("win_length", 16)
    window = 0.5 + 0.4 * np.hanning(win + 2)[1:-1]      # positive: NOLA holds for every hop
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # (length=80 pads: PyTorch warns once)
        check(lambda L, s, w: L.istft(s, 16, window=w, **kw), [spec, window])


@pytest.mark.parametrize("mode", ["reflect", "constant", "replicate", "circular"])
def test_stft_pad_modes_gradient(mode):
    x = _signal(2, 40)
    check(lambda L, a: L.stft(a, 16, window=L.hann_window(16, dtype=L.float64),
                              pad_mode=mode, return_complex=True), [x])


def test_istft_nola_error():
    spec = np.ones((9, 17), np.complex128)
    for lib in (torch, cinder):
        with pytest.raises(RuntimeError, match="window overlap add min"):
            lib.istft(lib.tensor(spec), 16, window=lib.zeros(16, dtype=lib.float64))
