"""``torch.stft`` / ``torch.istft``: short-time Fourier transforms built on ``cinder.fft``.

Both are compositions of differentiable ops, so their gradients come from those ops (as in
PyTorch, whose stft/istft are composites too). ``stft``: padding through the ``pad`` ops
(reflect/replicate/circular/constant, ``nn/pad.py``), framing with ``unfold``, windowing,
``rfft``/``fft``. ``istft``: ``irfft``/``ifft`` of every frame, windowing, then overlap-add of
the frames and of the squared window with ``index_add`` (each output sample sums the frames
that cover it), divided by that window envelope.
"""

import numpy as np

from .._runtime import warn_once
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


def _center_pad(x, pad, mode):
    """``x`` padded by ``pad`` samples at both ends of its last dim with ``mode``."""
    from .nn.pad import constant_pad_nd, index_pad
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"stft: pad_mode={mode!r} is not supported")
    if mode == "constant":
        return constant_pad_nd(x, [pad, pad])
    return index_pad(x, [pad, pad], mode)


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
        x = _center_pad(x, n_fft // 2, pad_mode)
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
    """Inverse of ``stft``: each frame's inverse FFT, windowed and overlap-added, divided by
    the overlap-added squared window (the least-squares estimate of the signal)."""
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor.")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    norm = "ortho" if normalized else "backward"
    spec = input.transpose(-1, -2)
    one = (spec.shape[-1] != n_fft) if onesided is None else onesided
    frames = _irfft(spec, n=n_fft, dim=-1, norm=norm) if one and not return_complex else \
        _ifft(spec, n=n_fft, dim=-1, norm=norm)
    if not return_complex and frames.is_complex():
        frames = frames.real
    w = _padded_window(window, win, n_fft, frames)
    n_frames = frames.shape[-2]
    total = n_fft + hop * (n_frames - 1)
    y = _overlap_add(frames * w, hop, total)
    envelope = _overlap_add((w * w).expand(n_frames, n_fft), hop, total)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (total - n_fft // 2 if center else total)
    y, envelope = y[..., start:end], envelope[start:end]
    if bool((envelope.abs() < 1e-11).any()):
        raise RuntimeError("istft: window overlap add min: 0 is less than 1e-11 (NOLA "
                           "constraint failed)")
    y = y / envelope
    if end > total:
        warn_once("istft_padding",
                  "The length of signal is shorter than the length parameter. Result is being "
                  "padded with zeros in the tail. Please check your center and hop_length "
                  "settings.")
        from .nn.pad import constant_pad_nd
        y = constant_pad_nd(y, [0, end - total])
    return y


def _overlap_add(frames, hop, total):
    """Sum of ``frames`` (..., n_frames, n_fft), frame i placed at offset ``i * hop`` of a
    signal of length ``total``."""
    from .. import tensor, zeros
    n_frames, n_fft = frames.shape[-2:]
    starts = np.arange(n_frames)[:, None] * hop
    where = tensor((starts + np.arange(n_fft)).reshape(-1), device=frames.device)
    out = zeros(tuple(frames.shape[:-2]) + (total,), dtype=frames.dtype, device=frames.device)
    return out.index_add(-1, where, frames.flatten(-2))


register("stft", stft, family="spectral")
register("istft", istft, family="spectral")
