"""The CPU side of ``torch.backends`` (cpu, mkldnn, mkl, openmp, opt_einsum, mha) against
PyTorch's x86 CPU build, and the LSTM behaviours that follow ``mkldnn.enabled``."""

import warnings

import numpy as np
import pytest
import torch

import cinder
from oracle import check


@pytest.fixture
def restore_mkldnn():
    saved = [(lib, lib.backends.mkldnn.enabled, lib.backends.mkldnn.deterministic,
              lib.backends.mha.get_fastpath_enabled()) for lib in (torch, cinder)]
    yield
    for lib, enabled, deterministic, fastpath in saved:
        lib.backends.mkldnn.enabled = enabled
        lib.backends.mkldnn.deterministic = deterministic
        lib.backends.mha.set_fastpath_enabled(fastpath)


@pytest.mark.parametrize("expr", [
    "L.backends.cpu.get_cpu_capability()",
    "L.backends.mkldnn.is_available()", "L.backends.mkldnn.is_acl_available()",
    "(L.backends.mkldnn.enabled, L.backends.mkldnn.deterministic)",
    "L.backends.mkldnn.allow_tf32", "L.backends.mkldnn.fp32_precision",
    "L.backends.mkldnn.VERBOSE_ON_CREATION", "L.backends.mkl.VERBOSE_ON",
    "(L.backends.opt_einsum.is_available(), L.backends.opt_einsum.enabled, "
    "L.backends.opt_einsum.strategy, L.backends.opt_einsum.get_opt_einsum())",
    "L.backends.opt_einsum.set_flags(True)", "L.backends.opt_einsum.set_flags(None, 'greedy')",
    "L.backends.opt_einsum.set_flags(False)",
    "L.backends.mha.get_fastpath_enabled()",
])
def test_answers_as_pytorch(expr):
    check(expr)


def test_mkl_and_openmp_are_not_behind_cinder():
    """The answers that differ on purpose: cinder's BLAS is OpenBLAS, not oneMKL, and its
    CPU ops run no OpenMP loops."""
    assert torch.backends.mkl.is_available() and not cinder.backends.mkl.is_available()
    assert torch.backends.openmp.is_available() and not cinder.backends.openmp.is_available()


def test_switches_and_flags(restore_mkldnn):
    for lib in (torch, cinder):
        mk = lib.backends.mkldnn
        assert mk.set_flags(None, None, None, None) == (True, False, None, "none")
        with mk.flags(deterministic=True):
            assert (mk.enabled, mk.deterministic) == (False, True)
        assert (mk.enabled, mk.deterministic) == (True, False)
        with pytest.raises(RuntimeError, match="Unknown precision: xyz"):
            mk.fp32_precision = "xyz"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            mk.allow_tf32 = True
        assert any(str(w.message).startswith("TF32 acceleration on top of oneDNN is available "
                                             "for Intel GPUs") for w in caught)
        with mk.verbose(mk.VERBOSE_ON), lib.backends.mkl.verbose(lib.backends.mkl.VERBOSE_ON):
            pass
        lib.backends.mha.set_fastpath_enabled(False)
        assert lib.backends.mha.get_fastpath_enabled() is False


def test_cpu_capability_can_be_lowered(monkeypatch):
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")
    assert cinder.backends.cpu.get_cpu_capability() == "DEFAULT"
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "nonsense")
    assert cinder.backends.cpu.get_cpu_capability() == torch.backends.cpu.get_cpu_capability()


def _lstm_facts(lib, dtype, proj, enabled, autocast):
    lib.backends.mkldnn.enabled = enabled
    lib.manual_seed(0)
    m = lib.nn.LSTM(3, 4, proj_size=proj).to(getattr(lib, dtype))
    x = lib.from_numpy(np.linspace(-1, 1, 30, dtype=np.float32).reshape(5, 2, 3))
    x = x.to(getattr(lib, dtype))
    lib.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autocast("cpu", dtype=lib.bfloat16, enabled=autocast):
                out, (h, c) = m(x)
    finally:
        lib.set_warn_always(False)
    said = [str(w.message).split(" (Triggered internally")[0] for w in caught]
    return out.grad_fn.name(), h.grad_fn.name(), str(out.dtype)[6:], str(c.dtype)[6:], said


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("dtype,proj,autocast", [
    ("float32", 0, False), ("float32", 2, False), ("float32", 0, True),
    ("bfloat16", 0, False), ("float16", 0, False), ("float64", 2, False)])
def test_lstm_follows_mkldnn_switch(restore_mkldnn, enabled, dtype, proj, autocast):
    """Node names, autocast dtypes and the projection warning of a CPU LSTM, with oneDNN on
    and off (bfloat16 depends on the processor, in both libraries alike)."""
    assert _lstm_facts(cinder, dtype, proj, enabled, autocast) == \
        _lstm_facts(torch, dtype, proj, enabled, autocast)
