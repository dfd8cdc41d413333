"""``torch.nn.attention``: choosing the kernel behind ``scaled_dot_product_attention``.

PyTorch has several attention kernels (the plain "math" one, FlashAttention, memory-efficient,
cuDNN) and picks among those the ``torch.backends.cuda`` switches allow. cinder computes
attention one way, the math way, whichever is allowed; the switches still decide whether a
call may run: on the CPU PyTorch has the math and flash kernels only, so a call with both
turned off fails with PyTorch's error.
"""

import contextlib
import enum

from ...backends import cuda as _cuda_backends

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

# PyTorch warns about every unfused kernel it takes when this is True; cinder has no fused
# kernels to prefer, so it is kept as the plain flag PyTorch exposes.
WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.Enum):
    """The attention kernels, numbered as PyTorch numbers them."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self):
        return self.value

    __index__ = __int__


# Each backend's switch in torch.backends.cuda (ERROR and OVERRIDEABLE have none).
_SWITCHES = {SDPBackend.MATH: "math", SDPBackend.FLASH_ATTENTION: "flash",
             SDPBackend.EFFICIENT_ATTENTION: "mem_efficient",
             SDPBackend.CUDNN_ATTENTION: "cudnn"}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Allow only ``backends`` (one ``SDPBackend`` or a list) inside the block; the previous
    switches come back afterwards. ``set_priority`` (the list's order as priority) changes
    nothing in cinder, which has one kernel."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend "
                             f"instances, got {type(backends).__name__}")
    chosen = {_SWITCHES.get(b) for b in ([backends] if isinstance(backends, SDPBackend)
                                         else backends)}
    switches = _cuda_backends._sdp_enabled
    previous = dict(switches)
    try:
        for kind in switches:
            switches[kind] = kind in chosen
        yield {}
    finally:
        switches.update(previous)


def _check_allowed(device_type):
    """PyTorch's error when the switches leave no kernel for a call on ``device_type``."""
    switches = _cuda_backends._sdp_enabled
    usable = ("math", "flash") if device_type == "cpu" else tuple(switches)
    if not any(switches[kind] for kind in usable):
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This "
                           "is likely due to turning off both the math kernel and the fused "
                           "kernels.")
