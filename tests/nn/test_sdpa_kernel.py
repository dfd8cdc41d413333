"""``torch.nn.attention``: ``SDPBackend`` and ``sdpa_kernel`` against PyTorch on the CPU:
which backend lists let ``scaled_dot_product_attention`` run (PyTorch's CPU has the math and
flash kernels), the switches inside and after the block, the values, the errors, and the
deprecated ``torch.backends.cuda.sdp_kernel``."""

import warnings

import numpy as np
import pytest
import torch

import cinder

Q = np.random.default_rng(0).standard_normal((1, 2, 3, 4)).astype(np.float32)
NAMES = ["ERROR", "MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION",
         "OVERRIDEABLE"]


def _attend(lib, names):
    A = lib.nn.attention
    backends = [getattr(A.SDPBackend, n) for n in names]
    q = lib.tensor(Q)
    try:
        with A.sdpa_kernel(backends if len(backends) != 1 else backends[0]) as ctx:
            switches = tuple(getattr(lib.backends.cuda, f"{k}_sdp_enabled")()
                             for k in ("math", "flash", "mem_efficient", "cudnn"))
            out = lib.nn.functional.scaled_dot_product_attention(q, q, q).numpy()
        return ("ok", ctx, switches, out)
    except RuntimeError as e:
        return ("raises", str(e))


@pytest.mark.parametrize("names", [[n] for n in NAMES] + [["MATH", "FLASH_ATTENTION"],
                                                          ["EFFICIENT_ATTENTION", "MATH"]])
def test_sdpa_kernel_matches_torch(names):
    got, want = _attend(cinder, names), _attend(torch, names)
    assert got[:2] == want[:2]
    if want[0] == "ok":
        assert got[2] == want[2]
        np.testing.assert_allclose(got[3], want[3], rtol=1e-5, atol=1e-6)
    for lib in (cinder, torch):              # everything allowed again afterwards
        assert lib.backends.cuda.math_sdp_enabled() and lib.backends.cuda.flash_sdp_enabled()


def test_backend_enum_and_bad_arguments():
    for lib in (cinder, torch):
        B = lib.nn.attention.SDPBackend
        assert (repr(B.MATH), str(B.FLASH_ATTENTION), B.ERROR.value, int(B.CUDNN_ATTENTION),
                B.MATH.name) == ("<SDPBackend.MATH: 0>", "SDPBackend.FLASH_ATTENTION", -1, 3,
                                 "MATH")
        with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend"):
            with lib.nn.attention.sdpa_kernel("math"):
                pass
        assert lib.nn.attention.WARN_FOR_UNFUSED_KERNELS is False


def test_deprecated_sdp_kernel():
    for lib in (cinder, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.backends.cuda.sdp_kernel(enable_math=False, enable_flash=False):
                assert not lib.backends.cuda.math_sdp_enabled()
                assert lib.backends.cuda.mem_efficient_sdp_enabled()
        assert any(issubclass(w.category, FutureWarning) and "sdp_kernel()` is deprecated"
                   in str(w.message) for w in caught)
        assert lib.backends.cuda.math_sdp_enabled()
