"""Exception types PyTorch publishes on ``torch``: ``OutOfMemoryError`` (an allocation failed),
``AcceleratorError`` (an error reported by the accelerator's runtime) and ``FatalError`` (an
unrecoverable internal error). Code that catches them works unchanged; cinder's own allocations
still fail with NumPy's ``MemoryError`` / CuPy's ``OutOfMemoryError``, which do not derive from
these."""

__all__ = ["AcceleratorError", "FatalError", "OutOfMemoryError"]


class OutOfMemoryError(RuntimeError):
    """A device ran out of memory while allocating a tensor."""


class AcceleratorError(RuntimeError):
    """An error reported by an accelerator (CUDA) runtime call."""


class FatalError(Exception):
    """An unrecoverable internal error."""


for _cls in (OutOfMemoryError, AcceleratorError, FatalError):
    _cls.__module__ = "torch"
