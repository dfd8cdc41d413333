"""``torch.backends.mkldnn``: the oneDNN switches of PyTorch's CPU build.

cinder has no oneDNN, but it reproduces what PyTorch's x86 build shows of it: an LSTM on a
float32 CPU sequence (bfloat16 too, on processors oneDNN runs bfloat16 on) records
``MkldnnRnnLayerBackward0``, runs in the autocast dtype, and warns that oneDNN has no
projections. ``enabled`` switches that off as it switches oneDNN off in PyTorch (the LSTM then
records ``StackBackward0`` and stays float32 under autocast); ``is_available()`` is True for the
same reason. Not here: oneDNN's own layout (``Tensor.to_mkldnn``), its verbose log (``verbose``
is accepted and prints nothing), and the per-operation ``matmul``/``conv``/``rnn`` precision
objects; ``fp32_precision`` is kept for this module alone.
"""

import sys
import types
import warnings
from contextlib import contextmanager

from ... import _dtype as D
from ..cpu import _cpu_features

__all__ = ["VERBOSE_OFF", "VERBOSE_ON", "VERBOSE_ON_CREATION", "flags", "is_acl_available",
           "is_available", "set_flags", "verbose"]

VERBOSE_OFF = 0
VERBOSE_ON = 1
VERBOSE_ON_CREATION = 2

_PRECISIONS = ("ieee", "tf32", "bf16", "none")
_state = {"enabled": True, "deterministic": False, "fp32_precision": "none"}


def is_available():
    """Whether the oneDNN behaviours of PyTorch's CPU build are reproduced: True."""
    return True


def is_acl_available():
    """Whether oneDNN runs on the Arm Compute Library: False."""
    return False


def _takes(dtype, grad_enabled):
    """Whether PyTorch's CPU LSTM would hand a sequence of this dtype to oneDNN here: float32
    always, bfloat16 on AVX-512 (BW, VL, DQ) processors, float16 only without autograd and
    on processors with AVX-512 FP16 arithmetic."""
    if not _state["enabled"]:
        return False
    if dtype is D.float32:
        return True
    if dtype is D.bfloat16:
        return all(_cpu_features().get(f, False) for f in ("AVX512BW", "AVX512VL", "AVX512DQ"))
    if dtype is D.float16:
        return not grad_enabled and _cpu_features().get("AVX512FP16", False)
    return False


def _warn_tf32():
    warnings.warn("TF32 acceleration on top of oneDNN is available for Intel GPUs. The current "
                  "Torch version does not have Intel GPU Support.", stacklevel=4)


def _set_precision(value):
    if value not in _PRECISIONS:
        raise RuntimeError(f"Unknown precision: {value}")
    _state["fp32_precision"] = value


class verbose:
    """``with verbose(level):`` around code whose oneDNN calls PyTorch would log; cinder
    makes no oneDNN calls, so there is nothing to log."""

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        return None if self.level == VERBOSE_OFF else self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None, _fp32_precision="none"):
    """Set the switches given (None leaves one alone); returns the old values, TF32's as
    None (PyTorch has TF32 on oneDNN for Intel GPUs only, and warns when it is set)."""
    old = (_state["enabled"], _state["deterministic"], None, _state["fp32_precision"])
    if _enabled is not None:
        _state["enabled"] = _enabled
    if _deterministic is not None:
        _state["deterministic"] = _deterministic
    if _allow_tf32 is not None:
        _warn_tf32()
    if _fp32_precision is not None:
        _set_precision(_fp32_precision)
    return old


@contextmanager
def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    """The switches set for the duration of a ``with`` block (PyTorch's defaults for the
    arguments: the block turns oneDNN off unless told otherwise)."""
    old = set_flags(enabled, deterministic, allow_tf32, fp32_precision)
    try:
        yield
    finally:
        set_flags(*old)


class _MkldnnModule(types.ModuleType):
    """The module's switches as properties, so that assigning one goes through its check."""

    enabled = property(lambda self: _state["enabled"],
                       lambda self, value: _state.__setitem__("enabled", value))
    deterministic = property(lambda self: _state["deterministic"],
                             lambda self, value: _state.__setitem__("deterministic", value))
    allow_tf32 = property(lambda self: None, lambda self, value: _warn_tf32())
    fp32_precision = property(lambda self: _state["fp32_precision"],
                              lambda self, value: _set_precision(value))


sys.modules[__name__].__class__ = _MkldnnModule
