"""``torch.accelerator`` against PyTorch: the device-agnostic queries scripts use to pick a
device (``torch.accelerator.is_available()`` / ``current_accelerator()``)."""

import pytest
import torch

import cinder
from oracle import check

pytestmark = pytest.mark.skipif(torch.cuda.is_available() or cinder.cuda.is_available(),
                                reason="compares with PyTorch's answers without an accelerator")


@pytest.mark.parametrize("expr", [
    "L.accelerator.is_available()", "L.accelerator.current_accelerator()",
    "L.accelerator.current_accelerator(check_available=True)", "L.accelerator.device_count()",
    "L.accelerator.current_device_index()", "L.accelerator.set_device_index(0)",
    "L.accelerator.synchronize()", "L.accelerator.current_stream()",
    "L.accelerator.empty_cache()", "L.accelerator.memory_allocated()",
    "L.accelerator.max_memory_allocated()", "L.accelerator.memory_reserved()",
    "L.accelerator.reset_peak_memory_stats()", "L.accelerator.memory_stats()",
])
def test_without_an_accelerator(expr):
    check(expr)


def test_device_index_context():
    for lib in (torch, cinder):
        with lib.accelerator.device_index(None):
            pass
        with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
            with lib.accelerator.device_index(0):
                pass


def test_the_examples_device_choice():
    """pytorch/examples' idiom picks the CPU in both libraries here."""
    for lib in (torch, cinder):
        use_accel = lib.accelerator.is_available()
        device = lib.accelerator.current_accelerator() if use_accel else lib.device("cpu")
        assert str(device) == "cpu"
