"""``torch.stft`` / ``torch.istft``: short-time Fourier transforms built on ``cinder.fft``.

``stft`` is a composition of differentiable ops (reflect padding by index_select, framing with
``unfold``, windowing, ``rfft``/``fft``), so its gradient comes from theirs. ``istft``'s
overlap-add is computed with NumPy and has no gradient yet.
"""

import numpy as np

from ._prep import wrap
from ._registry import register
from .fft import fft as _fft, ifft as _ifft, irfft as _irfft, rfft as _rfft


def _padded_window(window, win_length, n_fft, like):
    from .. import ones
    if window is None:
        window = ones(win_length, dtype=like.dtype.to_real() if like.is_complex() else
                      like.dtype, device=like.device)
    if window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"stft: expected a 1D window tensor of size equal to win_length="
                           f"{win_length}, but got window with size {list(window.shape)}")
    if win_length < n_fft:
        from .. import cat, zeros
        left = (n_fft - win_length) // 2
        window = cat([zeros(left, dtype=window.dtype), window,
                      zeros(n_fft - win_length - left, dtype=window.dtype)])
    return window


def _reflect(x, pad):
    from .. import tensor
    n = x.shape[-1]
    if pad >= n:
        raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding "
                           f"input dimension, but got: padding ({pad}, {pad}) at dimension "
                           f"{x.dim() - 1} of input {list(x.shape)}")
    idx = np.concatenate([np.arange(pad, 0, -1), np.arange(n), np.arange(n - 2, n - 2 - pad, -1)])
    return x.index_select(-1, tensor(idx, device=x.device))


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None):
    """Short-time Fourier transform: ``(..., freq, frames)`` complex spectrogram."""
    if return_complex is None:
        raise RuntimeError("stft requires the return_complex parameter be given for real "
                           "inputs, and will further require that return_complex=True in a "
                           "future PyTorch release.")
    if not return_complex:
        raise RuntimeError("stft with return_complex=False is deprecated and not supported "
                           "by cinder; use return_complex=True and torch.view_as_real")
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.dim()}D tensor")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win}")
    x = input
    if center:
        if pad_mode != "reflect":
            raise NotImplementedError(f"stft: pad_mode={pad_mode!r} is not supported yet")
        x = _reflect(x, n_fft // 2)
    if not 0 < n_fft <= x.shape[-1]:
        raise RuntimeError(f"stft: expected 0 < n_fft < {x.shape[-1]}, but got n_fft={n_fft}")
    w = _padded_window(window, win, n_fft, input)
    frames = x.unfold(-1, n_fft, hop) * w.to(x.dtype if x.is_complex() else w.dtype)
    norm = "ortho" if normalized else "backward"
    real = not input.is_complex() and not w.is_complex()
    one = real if onesided is None else onesided
    if one and not real:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    spec = _rfft(frames, dim=-1, norm=norm) if one else _fft(frames, dim=-1, norm=norm)
    return spec.transpose(-1, -2)


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """Inverse of ``stft`` by windowed overlap-add (no gradient yet)."""
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor.")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    norm = "ortho" if normalized else "backward"
    spec = input.detach().transpose(-1, -2)
    one = (spec.shape[-1] != n_fft) if onesided is None else onesided
    frames = _irfft(spec, n=n_fft, dim=-1, norm=norm) if one and not return_complex else \
        _ifft(spec, n=n_fft, dim=-1, norm=norm)
    if not return_complex and frames.is_complex():
        frames = frames.real
    w = _padded_window(window, win, n_fft, frames)
    f = np.asarray(frames.numpy()) * np.asarray(w.detach().numpy())
    n_frames = f.shape[-2]
    total = n_fft + hop * (n_frames - 1)
    y = np.zeros(f.shape[:-2] + (total,), f.dtype)
    env = np.zeros(total)
    w2 = np.asarray(w.detach().numpy()).real ** 2
    for i in range(n_frames):      # one vectorised add per frame (frames overlap)
        y[..., i * hop:i * hop + n_fft] += f[..., i, :]
        env[i * hop:i * hop + n_fft] += w2
    start = n_fft // 2 if center else 0
    end = total - n_fft // 2 if center and length is None else (
        start + length if length is not None else total)
    if np.any(np.abs(env[start:min(end, total)]) < 1e-11):
        raise RuntimeError("istft: window overlap add min: 0 is less than 1e-11 (NOLA "
                           "constraint failed)")
    y = y[..., start:end] / env[start:end]
    if length is not None and y.shape[-1] < length:
        y = np.concatenate([y, np.zeros(y.shape[:-1] + (length - y.shape[-1],), y.dtype)], -1)
    dt = frames._dtype
    return wrap(np.ascontiguousarray(y).astype(dt.numpy_dtype), dt, input._device)


register("stft", stft, family="spectral")
register("istft", istft, family="spectral")
