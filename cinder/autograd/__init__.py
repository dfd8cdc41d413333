"""``torch.autograd``: backward, grad, grad modes, graph nodes, custom Functions, gradcheck.

The package has two layers, as PyTorch's autograd has (its graph, engine and grad-mode state
live in ``torch._C``, under the tensor; its user API is Python above the ops):

- below the tensor core: ``grad_mode``, ``anomaly_mode``, ``graph`` (nodes, edges, hooks) and
  ``engine``. The tensor core imports these, so this file imports nothing else at load time;
- above the op table: ``backward``/``grad``, ``Variable``, ``Function``, ``gradcheck`` and
  ``functional``, written in ops. They load on first use (``__getattr__`` below) and at the
  end of ``import cinder`` (``_load_user_api``), once the ops exist.
"""

import importlib

from . import anomaly_mode, engine, graph  # noqa: F401
from .graph import SavedTensor  # noqa: F401  (torch.autograd.SavedTensor)
from .anomaly_mode import detect_anomaly, set_detect_anomaly, is_anomaly_enabled  # noqa: F401
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode,  # noqa: F401
                        is_grad_enabled, is_inference_mode_enabled, set_multithreading_enabled,
                        is_multithreading_enabled, is_view_replay_enabled,
                        enforce_grad_layout_policy)

# The user API: public name -> the module (above the ops) that defines it.
_USER_API = {
    "backward": "_backward", "grad": "_backward",
    "Variable": "variable",
    "Function": "function", "FunctionCtx": "function", "BackwardCFunction": "function",
    "InplaceFunction": "function", "NestedIOFunction": "function",
    "once_differentiable": "function",
    "gradcheck": "gradcheck", "gradgradcheck": "gradcheck",
    "kineto_available": "profiler", "ProfilerActivity": "profiler", "DeviceType": "profiler",
}
_USER_MODULES = ("function", "functional", "gradcheck", "variable", "profiler",
                 "profiler_util")

__all__ = ["Function", "NestedIOFunction", "Variable", "backward", "detect_anomaly", "enable_grad",
           "enforce_grad_layout_policy", "grad", "grad_mode", "gradcheck", "gradgradcheck",
           "inference_mode", "no_grad", "set_detect_anomaly", "set_grad_enabled",
           "set_multithreading_enabled", "variable"]


def __getattr__(name):
    """Load the user API on first use (it imports the op table, which imports this package)."""
    if name in _USER_API:
        value = getattr(importlib.import_module(f"{__name__}.{_USER_API[name]}"), name)
    elif name in _USER_MODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value          # later reads are plain attribute lookups
    return value


def __dir__():
    return sorted(set(globals()) | set(_USER_API) | set(_USER_MODULES))


def _load_user_api():
    """Bind every user-API name (``cinder/__init__`` calls this once the ops are loaded), so
    that ``autograd.gradcheck`` is the function even if its module is imported later."""
    for name in (*_USER_API, *_USER_MODULES):
        __getattr__(name)
