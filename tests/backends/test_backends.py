"""``torch.backends`` (cuda, cudnn, mps) and ``torch.cuda.amp`` against PyTorch's CPU build."""

import warnings

import pytest
import torch

import cinder
from oracle import check, outcome

NO_GPU = pytest.mark.skipif(torch.cuda.is_available() or cinder.cuda.is_available(),
                            reason="compares with PyTorch's answers on a machine without CUDA")


@pytest.fixture
def restore_switches():
    """Put back the switches a test changes (they are process-wide, in both libraries)."""
    saved = [(lib, lib.get_float32_matmul_precision(), lib.backends.cudnn.benchmark,
              lib.backends.cudnn.deterministic) for lib in (torch, cinder)]
    yield
    for lib, precision, benchmark, deterministic in saved:
        lib.set_float32_matmul_precision(precision)
        lib.backends.cudnn.benchmark = benchmark
        lib.backends.cudnn.deterministic = deterministic


@pytest.mark.parametrize("expr", [
    "L.backends.cuda.matmul.allow_tf32",
    "L.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
    "L.backends.cuda.matmul.allow_bf16_reduced_precision_reduction",
    "L.backends.cuda.matmul.no_such_switch",
    "setattr(L.backends.cuda.matmul, 'no_such_switch', 1)",
    "L.backends.cuda.flash_sdp_enabled()", "L.backends.cuda.mem_efficient_sdp_enabled()",
    "L.backends.cuda.math_sdp_enabled()", "L.backends.cuda.cudnn_sdp_enabled()",
    "L.backends.cudnn.enabled", "L.backends.cudnn.benchmark", "L.backends.cudnn.deterministic",
    "L.backends.cudnn.allow_tf32", "L.backends.cudnn.benchmark_limit",
    "L.backends.mps.is_available()", "L.backends.mps.is_built()",
])
def test_defaults_and_unknown_names(expr):
    if expr.endswith("benchmark_limit") and torch.backends.cudnn.is_available():
        pytest.skip("PyTorch's limit is 10 where cuDNN loads; cinder has no cuDNN (None)")
    check(expr)


@NO_GPU
@pytest.mark.parametrize("expr", ["L.backends.cudnn.is_available()", "L.backends.cudnn.version()",
                                  "L.backends.cuda.is_built()",
                                  "L.cuda.amp.amp_definitely_not_available()",
                                  "L.cuda.is_bf16_supported()",
                                  "L.cuda.is_bf16_supported(including_emulation=False)"])
def test_without_a_gpu(expr):
    check(expr)


def test_allow_tf32_is_the_float32_matmul_precision(restore_switches):
    for lib in (torch, cinder):
        lib.backends.cuda.matmul.allow_tf32 = True
        assert lib.get_float32_matmul_precision() == "high"
        lib.backends.cuda.matmul.allow_tf32 = False
        assert lib.get_float32_matmul_precision() == "highest"
        lib.set_float32_matmul_precision("medium")
        assert lib.backends.cuda.matmul.allow_tf32 is True


def test_cudnn_switches_keep_what_scripts_set(restore_switches):
    for lib in (torch, cinder):
        lib.backends.cudnn.benchmark = True
        lib.backends.cudnn.deterministic = True
        assert (lib.backends.cudnn.benchmark, lib.backends.cudnn.deterministic) == (True, True)
        with lib.backends.cudnn.flags(enabled=False, benchmark=False, deterministic=False):
            assert lib.backends.cudnn.enabled is False
            assert lib.backends.cudnn.benchmark is False
            # None where cuDNN is absent: always for cinder, for PyTorch on a CPU build.
            assert (lib.backends.cudnn.benchmark_limit is None) is (
                not lib.backends.cudnn.is_available())
        assert (lib.backends.cudnn.enabled, lib.backends.cudnn.benchmark) == (True, True)


@pytest.mark.parametrize("expr", [
    "L.cuda.amp.GradScaler(enabled=False).is_enabled()",
    "L.cuda.amp.GradScaler(enabled=False).scale(L.tensor(2.0))",
    "L.cuda.amp.GradScaler(init_scale=8.0, enabled=False).get_scale()",
    "L.cuda.amp.GradScaler(enabled=False).state_dict()",
    "type(L.cuda.amp.autocast(enabled=False)).__mro__[1].__name__",
    "L.cuda.amp.autocast(enabled=False).device",
])
def test_cuda_amp_deprecated_spellings(expr):
    check(expr)


@pytest.mark.parametrize("make", ["GradScaler(enabled=False)", "autocast(enabled=False)"])
def test_cuda_amp_warns_it_is_deprecated(make):
    messages = []
    for lib in (torch, cinder):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            eval("L.cuda.amp." + make, {"L": lib})
        messages.append([(w.category, str(w.message)) for w in caught])
    assert messages[0] == messages[1] and messages[0][0][0] is FutureWarning


def test_a_disabled_scaler_steps_like_plain_training():
    """nanoGPT's float32 path: scale/unscale_/step/update pass through to the optimizer."""
    results = []
    for lib in (torch, cinder):
        w = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
        opt = lib.optim.SGD([w], lr=0.5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scaler = lib.cuda.amp.GradScaler(enabled=False)
        scaler.scale((w * w).sum()).backward()
        scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
        results.append(w.detach().tolist())
    assert results[0] == results[1]
    assert outcome("1", cinder) == outcome("1", torch)
