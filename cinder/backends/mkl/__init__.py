"""``torch.backends.mkl``: whether Intel's oneMKL is behind the CPU math. cinder's BLAS and
LAPACK are NumPy's and SciPy's (OpenBLAS), so ``is_available()`` is False, as on a PyTorch
build without MKL, and ``verbose`` has nothing to log."""

from .. import mkldnn as _mkldnn

__all__ = ["VERBOSE_OFF", "VERBOSE_ON", "is_available", "verbose"]

VERBOSE_OFF = 0
VERBOSE_ON = 1


def is_available():
    """Whether oneMKL computes the CPU math: False in cinder."""
    return False


class verbose(_mkldnn.verbose):
    """``with verbose(level):`` around code whose oneMKL calls PyTorch would log; accepted
    here, with nothing to log."""

    def __init__(self, enable):
        super().__init__(enable)
        self.enable = enable
