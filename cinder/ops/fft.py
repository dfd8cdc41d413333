"""torch.fft: discrete Fourier transforms (pocketfft through SciPy on the CPU, cuFFT through
CuPy), built from three differentiable kernels: complex-to-complex over several dims, real-to-
complex (one-sided) and complex-to-real over the last transformed dim. The 2-D/n-D, Hermitian
(hfft/ihfft) forms are compositions of these, so their gradients come for free.

Gradients: the adjoint of a transform with normalisation ``norm`` is the opposite-direction
transform with the dual normalisation (backward <-> forward, ortho <-> ortho), with the zero
padding / cropping of ``n`` undone.
"""


import numpy as np

from .. import _layout, backend
from .. import _dtype as D
from ._layouts import fft_layout, suggested_format
from ._prep import wrap, xp_of
from ._registry import needs_grad, node_class, record, register

DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


_SCIPY_FFT = []


def _fft_module(t):
    if xp_of(t) is np:
        # (scipy.fft: its pocketfft is 2-4x faster than numpy.fft's at 1e6 points here;
        # imported on first use, then kept)
        if not _SCIPY_FFT:
            import scipy.fft
            _SCIPY_FFT.append(scipy.fft)
        return _SCIPY_FFT[0]
    return xp_of(t).fft


def _norm(norm):
    if norm is None:
        return "backward"
    if norm not in DUAL:
        raise RuntimeError(f"Invalid normalization mode: {norm}")
    return norm


def _refuse_half(dt):
    # (PyTorch's CPU FFT (pocketfft) has no float16/bfloat16 kernels)
    if dt in (D.float16, D.bfloat16):
        raise RuntimeError(f"Unsupported dtype {dt.scalar_name}")


def _complex_input(x):
    """Inputs are promoted to the default complex type (ints) or their complex type."""
    dt = x._dtype
    _refuse_half(dt)
    if dt.category == D.COMPLEX:
        return x
    if dt.category != D.FLOATING:
        dt = D.get_default_dtype() if dt.category != D.FLOATING else D.float32
    return x.to(dt.to_complex())


def _real_input(x, fname):
    dt = x._dtype
    if dt.category == D.COMPLEX:
        raise RuntimeError(f"{fname} expects a real input tensor, but got {dt.scalar_name}")
    _refuse_half(dt)
    if dt.category != D.FLOATING:
        return x.to(D.get_default_dtype() if dt.category != D.FLOATING else D.float32)
    return x


def _resize(x, dims, sizes):
    """Crop or zero-pad ``x`` along ``dims`` to ``sizes`` (what ``n``/``s`` do to the input)."""
    for d, n in zip(dims, sizes):
        have = x._data.shape[d]
        if n == have:
            continue
        from .. import cat, zeros
        if n < have:
            x = x.narrow(d, 0, n)
        elif n > have:
            shape = list(x.shape)
            shape[d] = n - have
            fmt = suggested_format(x._data)
            x = cat([x, zeros(shape, dtype=x.dtype, device=x.device)], d)
            if fmt != "contiguous_format":
                # PyTorch pads with constant_pad_nd, which keeps a channels-last layout
                x = x.contiguous(memory_format=getattr(_layout, fmt))
    return x


def _check_n(n, fname):
    if n is not None and n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


# ----------------------------------------------------------------------------------------------
# kernels
# ----------------------------------------------------------------------------------------------

def _c2c_grad(grad, s):
    return _c2c(grad, s.dims, not s.forward, DUAL[s.norm])


C2cNode = node_class("FftC2CBackward0", {"self": _c2c_grad})


def _c2c(x, dims, forward, norm):
    """Complex transform of ``x`` over ``dims`` (no resizing)."""
    mod = _fft_module(x)
    arr = x._data
    cdt = x._dtype.to_complex()
    if not arr.size:
        res = arr.astype(cdt.numpy_dtype)
    elif len(dims) == 1:
        # (the 1-d entry point: the n-d one spends ~2 us more normalising its axes)
        res = (mod.fft if forward else mod.ifft)(arr, axis=dims[0], norm=norm)
    else:
        res = (mod.fftn if forward else mod.ifftn)(arr, axes=dims, norm=norm)
    if arr.ndim > 1:
        res = fft_layout(res, arr, dims)
    result = wrap(res.astype(cdt.numpy_dtype, copy=False), cdt, x._device)
    if needs_grad(x):
        record(C2cNode, (x,), (result,), dims=tuple(dims), forward=forward, norm=norm)
    return result


def _r2c_grad(grad, s):
    # rfft = first half of the full fft: zero-extend the gradient, apply the adjoint, keep Re
    full = _resize(grad, (s.dim,), (s.n,))
    return _c2c(full, (s.dim,), False, DUAL[s.norm]).real


R2cNode = node_class("FftR2CBackward0", {"self": _r2c_grad})


def _r2c(x, dim, norm):
    mod = _fft_module(x)
    arr = x._data
    n = arr.shape[dim]
    res = mod.rfft(arr, axis=dim, norm=norm)
    if arr.ndim > 1:
        res = fft_layout(res, arr, (dim,))
    cdt = x._dtype.to_complex()
    result = wrap(res.astype(cdt.numpy_dtype, copy=False), cdt, x._device)
    if needs_grad(x):
        record(R2cNode, (x,), (result,), dim=dim, n=n, norm=norm)
    return result


def _c2r_grad(grad, s):
    g = _r2c(grad, s.dim, DUAL[s.norm])
    # the interior bins stand for two conjugate bins of the full spectrum
    last = g.shape[s.dim]
    double = s.n - last
    if double > 0:
        scale = xp_of(g).ones(last)      # on the gradient's device, beside its data
        scale[1:1 + double] = 2
        shape = [1] * g.dim()
        shape[s.dim] = last
        g = g * wrap(scale.reshape(shape).astype(g._dtype.to_real().numpy_dtype),
                     g._dtype.to_real(), g._device)
    return _resize(g, (s.dim,), (s.in_size,))


C2rNode = node_class("FftC2RBackward0", {"self": _c2r_grad})


def _c2r(x, dim, n, norm):
    """Complex half-spectrum -> real signal of length ``n`` along ``dim``."""
    mod = _fft_module(x)
    in_size = x.shape[dim]
    x_used = _resize(x, (dim,), (n // 2 + 1,)) if not needs_grad(x) else x
    arr = x_used._data
    res = mod.irfft(arr, n=n, axis=dim, norm=norm)
    if arr.ndim > 1:
        res = fft_layout(res, arr, (dim,))
    rdt = x._dtype.to_real()
    result = wrap(res.astype(rdt.numpy_dtype, copy=False), rdt, x._device)
    if needs_grad(x):
        record(C2rNode, (x,), (result,), dim=dim, n=n, norm=norm, in_size=in_size)
    return result


# ----------------------------------------------------------------------------------------------
# public transforms
# ----------------------------------------------------------------------------------------------

def _dims_sizes(x, s, dim, fname, default_all=True):
    shape = x._data.shape
    nd = len(shape)
    if dim is None:
        dims = list(range(nd)) if s is None else list(range(nd - len(s), nd))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
    dims = [d + nd if d < 0 else d for d in dims]
    for d in dims:
        if not 0 <= d < max(nd, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-nd}, {nd - 1}], but got {d if d < nd else d})")
    if len(set(dims)) != len(dims):
        raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = list(s)
        if len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        sizes = [shape[d] if n == -1 else n for d, n in zip(dims, s)]
    else:
        sizes = [shape[d] for d in dims]
    for n in sizes:
        _check_n(n, fname)
    return dims, sizes


def _out(out, result):
    if out is None:
        return result
    from ._registry import write_out
    return write_out(out, result)


def _cfft(fname, forward):
    def transform(input, s=None, dim=None, norm=None, *, out=None):
        # a real float input without grad goes straight to pocketfft (its real-input path)
        real_fast = input._dtype in (D.float32, D.float64) and not needs_grad(input)
        x = input if real_fast else _complex_input(input)
        dims, sizes = _dims_sizes(x, s, dim, fname)
        x = _resize(x, dims, sizes)
        if real_fast and len(dims) == 1:
            return _out(out, _real_full(x, dims[0], forward, _norm(norm)))
        return _out(out, _c2c(x, dims, forward, _norm(norm)))
    return transform


def _real_full(x, dim, forward, norm):
    """The full (two-sided) transform of a real ``x`` along ``dim``, made as PyTorch makes it:
    the real-input half, then its mirror image conjugated (so, among others, the imaginary
    parts of the zero and Nyquist frequencies are +0, not -0). The inverse transform of a
    real input is the conjugate of the forward one with the inverse scaling."""
    arr = x._data
    half = _fft_module(x).rfft(arr, axis=dim, norm=norm if forward else DUAL[norm])
    cdt = x._dtype.to_complex()
    n, m = arr.shape[dim], half.shape[dim]
    last = (slice(None),) * (dim % arr.ndim)       # the dims before ``dim``
    xp = backend.array_module_of(half)
    full = xp.empty(arr.shape[:dim % arr.ndim] + (n,) +
                                               half.shape[dim % arr.ndim + 1:],
                                               dtype=cdt.numpy_dtype)
    full[last + (slice(0, m),)] = half
    xp.conjugate(half[last + (slice(n - m, 0, -1),)], out=full[last + (slice(m, n),)])
    if not forward:
        xp.conjugate(full, out=full)
    if arr.ndim > 1:
        full = fft_layout(full, arr, (dim,))
    return wrap(full, cdt, x._device)


fftn = _cfft("fftn", True)
ifftn = _cfft("ifftn", False)
fftn.__doc__ = "N-dimensional discrete Fourier transform."
ifftn.__doc__ = "N-dimensional inverse discrete Fourier transform."
# (the 1-d forms call these undispatched implementations: one op entry per user call, as
# PyTorch's ``__torch_function__`` modes see it, and no second dispatch to pay)
_fftn, _ifftn = fftn, ifftn


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """One-dimensional discrete Fourier transform along ``dim``."""
    return _fftn(input, None if n is None else [n], [dim], norm, out=out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """One-dimensional inverse discrete Fourier transform along ``dim``."""
    return _ifftn(input, None if n is None else [n], [dim], norm, out=out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional discrete Fourier transform."""
    return fftn(input, s, dim, norm, out=out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional inverse discrete Fourier transform."""
    return ifftn(input, s, dim, norm, out=out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """N-dimensional transform of a real input, keeping the non-negative last-dim frequencies."""
    return _out(out, _r2c_then_c2c(input, s, dim, norm, "rfftn", True))


def _r2c_then_c2c(input, s, dim, norm, fname, one_transform):
    """The real-input half transform along the last of the dims, then the complex one along
    the others. ``one_transform``: lay the result out as PyTorch's single multi-dim
    real-to-complex transform does (rfftn), else as its two steps do (ihfftn)."""
    x = _real_input(input, fname)
    dims, sizes = _dims_sizes(x, s, dim, fname)
    norm = _norm(norm)
    x = _resize(x, dims, sizes)
    y = _r2c(x, dims[-1], norm)
    if len(dims) > 1:
        y = _c2c(y, dims[:-1], True, norm)
        if one_transform and x._data.ndim > 1:
            y._data = fft_layout(y._data, x._data, dims, exclude_last=True)
    return y


_rfftn = rfftn


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """Inverse of ``rfftn``: a real signal whose last transformed dim has size ``s[-1]``
    (default ``2 * (m - 1)``)."""
    x = _complex_input(input)
    dims, sizes = _dims_sizes(x, s, dim, "irfftn")
    norm = _norm(norm)
    last = sizes[-1] if s is not None else 2 * (x.shape[dims[-1]] - 1)
    _check_n(last, "irfftn")
    if len(dims) > 1:
        x = _resize(x, dims[:-1], sizes[:-1])
        x = _c2c(x, dims[:-1], False, norm)
    return _out(out, _c2r(x, dims[-1], last, norm))


_irfftn = irfftn


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """One-dimensional transform of a real input (the ``n // 2 + 1`` non-negative
    frequencies)."""
    return _rfftn(input, None if n is None else [n], [dim], norm, out=out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Inverse of ``rfft``: a real signal of length ``n`` (default ``2 * (m - 1)``)."""
    return _irfftn(input, None if n is None else [n], [dim], norm, out=out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional ``rfftn``."""
    return rfftn(input, s, dim, norm, out=out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional ``irfftn``."""
    return irfftn(input, s, dim, norm, out=out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """Transform of a Hermitian-symmetric signal given by its half: a real spectrum."""
    return _out(out, irfftn(_complex_input(input).conj(), s, dim, DUAL[_norm(norm)]))


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """Inverse of ``hfftn`` for a real input: the one-sided Hermitian spectrum."""
    half = _r2c_then_c2c(input, s, dim, DUAL[_norm(norm)], "rfftn", False)
    return _out(out, half.conj().resolve_conj())


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """One-dimensional ``hfftn``."""
    return hfftn(input, None if n is None else [n], [dim], norm, out=out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """One-dimensional ``ihfftn``."""
    return ihfftn(input, None if n is None else [n], [dim], norm, out=out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional ``hfftn``."""
    return hfftn(input, s, dim, norm, out=out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional ``ihfftn``."""
    return ihfftn(input, s, dim, norm, out=out)


# ----------------------------------------------------------------------------------------------
# helpers: frequencies and shifts
# ----------------------------------------------------------------------------------------------

def _freq(values, n, d, dtype, device, requires_grad, fname):
    from .. import tensor
    dt = dtype or D.get_default_dtype()
    if dt.category == D.COMPLEX:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dt.scalar_name}'")
    if dt.category != D.FLOATING:
        raise RuntimeError(f"{fname} requires a floating point or complex dtype")
    t = tensor((values / (d * n)).astype(dt.numpy_dtype), dtype=dt, device=device)
    return t.requires_grad_(requires_grad) if requires_grad else t


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Sample frequencies of an ``n``-point transform: ``[0, 1, ..., -1] / (d * n)``."""
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return _out(out, _freq(k.astype(np.float64), n, d, dtype, device, requires_grad,
                           "fftfreq"))


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Non-negative sample frequencies of an ``n``-point real transform."""
    return _out(out, _freq(np.arange(n // 2 + 1, dtype=np.float64), n, d, dtype, device,
                           requires_grad, "rfftfreq"))


def _shift(input, dim, sign):
    if dim is None:
        dim = list(range(input.dim()))
    dims = [dim] if isinstance(dim, int) else list(dim)
    shifts = [sign * (input.shape[d] // 2) if sign > 0 else -(input.shape[d] // 2)
              for d in dims]
    return input.roll(shifts, dims)


def fftshift(input, dim=None):
    """Move the zero frequency to the centre (``roll`` by half the length)."""
    return _shift(input, dim, 1)


def ifftshift(input, dim=None):
    """Inverse of ``fftshift``."""
    return _shift(input, dim, -1)


__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

for _name in __all__:
    globals()[_name] = register("fft_" + _name, globals()[_name], method=False,
                                function_too=False, family="fft")
