"""``make_tensor``: a tensor of random values for tests, in PyTorch's default ranges."""

import math

import numpy as np

from .. import _dtype as D


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A tensor of ``shape`` filled with uniform values in ``[low, high)`` (defaults: -9..9 for
    numbers, 0..10 for uint8; bool is random True/False), drawn from cinder's default generator.
    ``exclude_zero`` replaces zeros by the dtype's smallest positive step; ``noncontiguous``
    returns a strided view."""
    import cinder
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = tuple(int(s) for s in shape)
    if low is not None and high is not None and low > high:
        raise ValueError(f"low must be less than or equal to high, but got low={low} and "
                         f"high={high}")
    if dtype is D.bool:
        t = cinder.randint(0, 2, shape, device=device).to(D.bool)
    elif dtype.category == D.INTEGRAL:
        lo = 0 if dtype is D.uint8 and low is None else (-9 if low is None else math.ceil(low))
        hi = 10 if high is None else math.ceil(high) + (1 if high == int(high) else 0)
        hi = max(hi, lo + 1)
        t = cinder.randint(lo, hi, shape, dtype=dtype, device=device)
    else:
        lo = -9.0 if low is None else float(low)
        hi = 9.0 if high is None else float(high)
        real = dtype.to_real() if dtype.category == D.COMPLEX else dtype
        t = cinder.empty(shape, dtype=real, device=device).uniform_(lo, hi)
        if dtype.category == D.COMPLEX:
            im = cinder.empty(shape, dtype=real, device=device).uniform_(lo, hi)
            t = cinder.complex(t, im)
    if exclude_zero:
        tiny = 1 if dtype.category <= D.INTEGRAL else float(np.finfo(np.float32).tiny
                                                            if dtype.itemsize < 8 else
                                                            np.finfo(np.float64).tiny)
        t = cinder.where(t == 0, cinder.full_like(t, tiny), t)
    if noncontiguous and t.numel() > 1:
        doubled = cinder.repeat_interleave(t.reshape(-1), 2).reshape(shape[:-1] +
                                                                    (2 * shape[-1],))
        t = doubled[..., ::2]
    if requires_grad:
        t.requires_grad_(True)
    return t
