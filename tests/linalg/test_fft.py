"""torch.fft against PyTorch: values, dtypes and shapes for every transform with n/s, dim and
norm, gradients (real and complex inputs), float64 gradcheck, helpers and bad arguments."""
# ruff: noqa: B023  (each lambda in a loop is called within its own iteration)

import numpy as np
import pytest
import torch

import cinder

from .test_linalg import check, gradcheck, rand

NORMS = [None, "ortho", "forward"]
C2C = ["fft", "ifft"]
R2C = ["rfft", "ihfft"]
C2R = ["irfft", "hfft"]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", C2C + R2C + C2R)
def test_1d(name, norm):
    real_in = name in R2C
    for n in (None, 5, 9):
        x = rand(3, 7) if real_in else rand(3, 7, dtype="complex128")
        check(lambda L, a: getattr(L.fft, name)(a, n=n, dim=-1, norm=norm), [x])
        check(lambda L, a: getattr(L.fft, name)(a, n=n, dim=0, norm=norm), [x])
    if not real_in:      # real inputs are promoted
        check(lambda L, a: getattr(L.fft, name)(a, norm=norm), [rand(6)])


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn",
                                  "irfftn", "hfft2", "ihfft2", "hfftn", "ihfftn"])
def test_nd(name, norm):
    real_in = name.startswith(("rfft", "ihfft"))
    x = rand(2, 4, 6) if real_in else rand(2, 4, 6, dtype="complex128")
    check(lambda L, a: getattr(L.fft, name)(a, norm=norm), [x])
    check(lambda L, a: getattr(L.fft, name)(a, s=(3, 8), norm=norm), [x])
    if name.endswith("n"):
        check(lambda L, a: getattr(L.fft, name)(a, dim=(0, 2), norm=norm), [x])


def test_dtypes_and_float32():
    for dt in ("float32", "int64"):
        x = (rand(8) * 4).astype(dt)
        check(lambda L, a: L.fft.fft(a), [x], grad=False, rtol=1e-5, atol=1e-5)
        check(lambda L, a: L.fft.rfft(a), [x], grad=False, rtol=1e-5, atol=1e-5)
    check(lambda L, a: L.fft.irfft(a), [rand(5, dtype="complex64")], rtol=1e-5, atol=1e-5)


def test_helpers():
    for n in (1, 4, 7):
        check(lambda L: L.fft.fftfreq(n, d=0.5), [])
        check(lambda L: L.fft.rfftfreq(n), [])
        check(lambda L: L.fft.fftfreq(n, dtype=L.float64), [])
    x = rand(3, 5)
    check(lambda L, a: L.fft.fftshift(a), [x])
    check(lambda L, a: L.fft.ifftshift(a, dim=1), [x])
    check(lambda L, a: L.fft.ifftshift(L.fft.fftshift(a, dim=(0,)), dim=(0,)), [x])


def test_gradcheck():
    def parts(z):       # cinder's gradcheck takes real outputs
        return z.real, z.imag
    gradcheck(lambda L, a: parts(L.fft.rfft(a, n=6)), [rand(5)])
    # complex inputs are built inside from their real and imaginary parts
    gradcheck(lambda L, a, b: L.fft.irfft(L.complex(a, b), n=7), [rand(4), rand(4)])
    gradcheck(lambda L, a, b: parts(L.fft.fft2(L.complex(a, b), norm="ortho")),
              [rand(3, 4), rand(3, 4)])
    gradcheck(lambda L, a, b: L.fft.hfft(L.complex(a, b)), [rand(4), rand(4)])


def test_errors():
    for fn in (lambda L: L.fft.rfft(L.tensor(rand(4, dtype="complex128"))),
               lambda L: L.fft.fft(L.tensor(rand(4)), norm="bad"),
               lambda L: L.fft.fft(L.tensor(rand(4)), n=0),
               lambda L: L.fft.fftn(L.tensor(rand(4, 4)), dim=(0, 0))):
        with pytest.raises(Exception) as t:
            fn(torch)
        with pytest.raises(type(t.value)):
            fn(cinder)


# The op-table rows behind each public name (the coverage test reads this file for them).
OP_ROWS = {
    "fft_fft": "fft", "fft_ifft": "ifft", "fft_fft2": "fft2", "fft_ifft2": "ifft2",
    "fft_fftn": "fftn", "fft_ifftn": "ifftn", "fft_rfft": "rfft", "fft_irfft": "irfft",
    "fft_rfft2": "rfft2", "fft_irfft2": "irfft2", "fft_rfftn": "rfftn", "fft_irfftn": "irfftn",
    "fft_hfft": "hfft", "fft_ihfft": "ihfft", "fft_hfft2": "hfft2", "fft_ihfft2": "ihfft2",
    "fft_hfftn": "hfftn", "fft_ihfftn": "ihfftn", "fft_fftfreq": "fftfreq",
    "fft_rfftfreq": "rfftfreq", "fft_fftshift": "fftshift", "fft_ifftshift": "ifftshift",
}


def test_namespace_matches_op_table():
    from cinder.ops import OPS
    for row, public in OP_ROWS.items():
        assert getattr(cinder.fft, public) is OPS[row].function
    public = sorted(n for n in dir(torch.fft) if not n.startswith("_") and
                    callable(getattr(torch.fft, n)))
    assert sorted(OP_ROWS.values()) == [n for n in public if n != "Tensor"]


def test_real_input_zero_signs_and_mirror_match_torch():
    """The full transform of a real input is its real-input half and the conjugated mirror
    image, as PyTorch computes it: the printed signs of zero parts agree (``6.+0.j``), and the
    values agree to float rounding, along any dim, both directions, every norm."""
    rng = np.random.default_rng(3)
    for n in (1, 2, 3, 4, 7, 8, 33):
        for shape, dim in (((3, n), -1), ((n, 2), 0), ((2, n, 3), 1)):
            x = rng.standard_normal(shape).astype(np.float32)
            x[0] = np.arange(x[0].size, dtype=np.float32).reshape(x[0].shape)
            for name in ("fft", "ifft"):
                for norm in (None, "ortho", "forward"):
                    want = getattr(torch.fft, name)(torch.from_numpy(x), dim=dim, norm=norm)
                    got = getattr(cinder.fft, name)(cinder.from_numpy(x), dim=dim, norm=norm)
                    want = want.resolve_conj().numpy()
                    got = got.numpy()
                    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
                    for part in ("real", "imag"):
                        w, g = getattr(want, part), getattr(got, part)
                        assert (np.signbit(g[w == 0]) == np.signbit(w[w == 0])).all()
    assert str(cinder.fft.fft(cinder.arange(4.))) == str(torch.fft.fft(torch.arange(4.)))
