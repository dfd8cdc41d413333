"""``torch.version``: what this build is, for scripts that print or branch on it.

``__version__`` is cinder's own version (``cinder.__version__``); ``cuda`` is the version of the
CUDA runtime cinder reaches through CuPy ("12.4"), or None where there is no usable GPU (as on
PyTorch's CPU build). cinder is never built for ROCm or XPU, so ``hip``, ``rocm`` and ``xpu``
are None.
"""

from . import __version__  # noqa: F401  (set before cinder imports any submodule)
from . import backend

__all__ = ["__version__", "debug", "git_version", "hip", "rocm", "xpu"]   # and `cuda`, below

debug = False
git_version = "unknown"       # cinder is not built from a git checkout of PyTorch
hip = None
rocm = None
xpu = None


def __getattr__(name):
    # ``cuda`` is looked up on first use: finding the CUDA runtime imports CuPy.
    if name == "cuda":
        return backend.cuda.runtime_version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
