"""``torch.backends.cuda``: cuBLAS matmul switches and the scaled-dot-product-attention kernels.

``matmul.allow_tf32`` reads and writes the float32 matmul precision (True is "high", False is
"highest"), as in PyTorch. The attention-kernel switches (flash, memory-efficient, math, cuDNN)
do not choose a kernel (cinder's ``F.scaled_dot_product_attention`` has a single
implementation); they decide whether a call may run at all (``torch.nn.attention``).
"""

import contextlib
import warnings

from ... import backend
from ..._runtime import get_float32_matmul_precision, set_float32_matmul_precision

__all__ = ["cudnn_sdp_enabled", "enable_cudnn_sdp", "enable_flash_sdp", "enable_math_sdp",
           "enable_mem_efficient_sdp", "flash_sdp_enabled", "is_built", "math_sdp_enabled",
           "matmul", "mem_efficient_sdp_enabled", "sdp_kernel"]


def is_built():
    """Whether cinder can run on CUDA here (CuPy importable and a GPU present)."""
    return backend.cuda_is_available()


class cuBLASModule:  # noqa: N801 - PyTorch's name
    """The object behind ``torch.backends.cuda.matmul``: three switches, nothing else.

    Reading or setting any other name raises ``AttributeError("Unknown attribute <name>")``.
    """

    _reduced_precision = {"allow_fp16_reduced_precision_reduction": True,
                          "allow_bf16_reduced_precision_reduction": True}

    def __getattr__(self, name):
        if name == "allow_tf32":
            return get_float32_matmul_precision() != "highest"
        if name in self._reduced_precision:
            return self._reduced_precision[name]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            set_float32_matmul_precision("high" if value else "highest")
        elif name in self._reduced_precision:
            self._reduced_precision[name] = bool(value)
        else:
            raise AttributeError("Unknown attribute " + name)


matmul = cuBLASModule()

# Which attention kernels PyTorch may pick; all allowed by default.
_sdp_enabled = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def _sdp_switch(kind):
    """The ``<kind>_sdp_enabled()`` query and ``enable_<kind>_sdp(enabled)`` setter."""
    def enabled():
        return _sdp_enabled[kind]

    def enable(enabled):
        _sdp_enabled[kind] = bool(enabled)

    enabled.__name__, enable.__name__ = f"{kind}_sdp_enabled", f"enable_{kind}_sdp"
    enabled.__doc__ = f"Whether the {kind} attention kernel may be chosen (a recorded switch)."
    enable.__doc__ = f"Allow or forbid the {kind} attention kernel (recorded only)."
    return enabled, enable


flash_sdp_enabled, enable_flash_sdp = _sdp_switch("flash")
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _sdp_switch("mem_efficient")
math_sdp_enabled, enable_math_sdp = _sdp_switch("math")
cudnn_sdp_enabled, enable_cudnn_sdp = _sdp_switch("cudnn")


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True,
               enable_cudnn=True):
    """Deprecated form of ``torch.nn.attention.sdpa_kernel``: the backends whose flag is
    True are allowed inside the block."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context "
                  "manager will be removed. Please see `torch.nn.attention.sdpa_kernel()` for the "
                  "new context manager, with updated signature.", FutureWarning, stacklevel=3)
    from ...nn.attention import SDPBackend, sdpa_kernel
    chosen = [b for b, on in ((SDPBackend.FLASH_ATTENTION, enable_flash),
                              (SDPBackend.EFFICIENT_ATTENTION, enable_mem_efficient),
                              (SDPBackend.MATH, enable_math),
                              (SDPBackend.CUDNN_ATTENTION, enable_cudnn)) if on]
    with sdpa_kernel(chosen) as context:
        yield context
