"""``torch.fft``: discrete Fourier transforms (implemented in ``cinder/ops/fft.py``)."""
# ruff: noqa: F822  (the names in __all__ are bound from the op table by the loop below)

from .ops._registry import OPS

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

for _name in __all__:
    _fn = OPS["fft_" + _name].function
    _fn.__name__ = _fn.__qualname__ = "fft_" + _name
    _fn.__module__ = "torch._C._fft"
    globals()[_name] = _fn
