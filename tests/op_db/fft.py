"""``torch.fft`` (cinder/ops/fft.py) through the generic runners: every transform with
``n``/``s``, ``dim`` and ``norm``, on real, integer and complex inputs, with gradients
(complex too) and float64 gradcheck; the frequency helpers and the shifts."""

from . import COMPLEX, FLOATS, GRAD_C, Dtype, ErrorSample, OpEntry, Sample

FAMILY = "fft"
TOL = {"float32": (1e-5, 1e-5), "complex64": (1e-5, 1e-5)}
# (integer inputs, promoted to float, are run by the other-dtypes runner on the first two
# samples of each entry, as is complex128)
DTYPES = FLOATS + ("complex64",)
_NORMS = ("ortho", "forward")


def _fft(name):
    def call(lib, *args, **kwargs):
        return getattr(lib.fft, name)(*args, **kwargs)
    return call


def _samples_1d(dtype, make):
    x = make((3, 7), low=-2, high=2)
    out = [Sample(x), Sample(x, 5), Sample(x, 9, 0),
           Sample(make((4, 5), low=-2, high=2, layout="transposed"), dim=0)]
    out += [Sample(x, norm=n) for n in _NORMS]
    return out


def _samples_nd(nd):
    def gen(dtype, make):
        x = make((2, 4, 6), low=-2, high=2)
        out = [Sample(x), Sample(x, s=(3, 8)), Sample(x, norm="ortho")]
        if nd:
            out.append(Sample(x, dim=(0, 2)))
            out.append(Sample(x, s=(3, 4), dim=(0, 1)))
        return out
    return gen


def _errors_1d(make):
    return [ErrorSample(Sample(make((4,)), 0)), ErrorSample(Sample(make((4,)), dim=2)),
            ErrorSample(Sample(make((4,)), norm="bad"))]


def _transform(name, samples, errors=None):
    # (check_grad_fn off: for real inputs PyTorch records an R2C node, cinder promotes to
    # complex first and records C2C; the gradients are the same and are compared)
    return OpEntry("fft_" + name, call=_fft(name), samples=samples, dtypes=DTYPES, method=False,
                   grad=True, grad_dtypes=GRAD_C, out=True, tol=TOL, grad_tol=TOL,
                   family=FAMILY, errors=errors, check_grad_fn=False)


def _freq_samples(dtype, make):
    return [Sample(5, dtype=Dtype(dtype)), Sample(4, 0.5, dtype=Dtype(dtype)),
            Sample(1, dtype=Dtype(dtype))]


def _shift_samples(dtype, make):
    x = make((3, 5))
    return [Sample(x), Sample(x, dim=1), Sample(x, dim=(0,)), Sample(make((4,))),
            Sample(x, dim=(0, 1))]


ENTRIES = [
    *(_transform(n, _samples_1d, _errors_1d)
      for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")),
    *(_transform(n, _samples_nd(False)) for n in ("fft2", "ifft2", "rfft2", "irfft2", "hfft2",
                                                  "ihfft2")),
    *(_transform(n, _samples_nd(True)) for n in ("fftn", "ifftn", "rfftn", "irfftn", "hfftn",
                                                 "ihfftn")),
    *(OpEntry("fft_" + n, call=_fft(n), samples=_freq_samples, dtypes=FLOATS, method=False,
              out=True, family=FAMILY) for n in ("fftfreq", "rfftfreq")),
    *(OpEntry("fft_" + n, call=_fft(n), samples=_shift_samples,
              dtypes=FLOATS + COMPLEX + ("int64", "bool"), method=False, grad=True,
              grad_dtypes=GRAD_C, family=FAMILY) for n in ("fftshift", "ifftshift")),
]
