"""``torch.backends.openmp``: cinder parallelises nothing through OpenMP (NumPy's BLAS
brings its own threads), so ``is_available()`` is False, as on a PyTorch build without it."""

__all__ = ["is_available"]


def is_available():
    """Whether cinder's CPU ops run OpenMP loops: False."""
    return False
