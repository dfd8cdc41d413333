"""``torch.backends.cudnn``: the cuDNN switches scripts set (``benchmark``, ``deterministic``...).

cinder's CUDA kernels come from CuPy and do not go through cuDNN's autotuner, so ``is_available()``
is False and ``version()`` is None, as on a PyTorch build without cuDNN; the switches keep the
values a script gives them, with PyTorch's defaults, so code that saves and restores them works.
"""

from contextlib import contextmanager

__all__ = ["allow_tf32", "benchmark", "benchmark_limit", "deterministic", "enabled", "flags",
           "is_available", "version"]

enabled = True
benchmark = False
benchmark_limit = None          # (PyTorch: None without cuDNN, else 10)
deterministic = False
allow_tf32 = True


def is_available():
    """Whether cuDNN can be used: never in cinder (its GPU kernels are CuPy's)."""
    return False


def version():
    """cuDNN's version number, or None when it is not available (always None in cinder)."""
    return None


@contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True):
    """Set the switches for the duration of a ``with`` block, then put the old values back.

    ``benchmark_limit`` is accepted and left alone: it only applies where cuDNN is available.
    """
    names = ("enabled", "benchmark", "deterministic", "allow_tf32")
    module = globals()
    saved = {name: module[name] for name in names}
    module.update(enabled=enabled, benchmark=benchmark, deterministic=deterministic,
                  allow_tf32=allow_tf32)
    try:
        yield
    finally:
        module.update(saved)
