"""``torch.compile`` run eagerly, and the ``OptimizedModule`` it wraps a module in.

PyTorch's ``torch.compile`` traces Python bytecode into graphs and hands them to a compiler
backend (inductor by default, which generates C++/Triton code). cinder runs every op eagerly
in NumPy/CuPy, so there is nothing to trace or generate: ``compile`` checks its arguments as
PyTorch does and returns what PyTorch's ``backend="eager"`` returns, a wrapper whose calls run
the original code unchanged. What a program can observe is kept: a module comes back as an
``OptimizedModule`` holding it as ``_orig_mod`` (so state_dict keys gain the ``_orig_mod.``
prefix that, e.g., nanoGPT strips when it resumes), attribute reads reach the original
module, and a function comes back as a function. The speed is cinder's eager speed.
"""

import functools
import sys

from ..nn.modules.module import Module
from .exc import InvalidBackend

__all__ = ["OptimizedModule", "compile", "list_backends"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")

# PyTorch's registered backend names, by tag (``list_backends`` hides the debug and
# experimental ones unless asked). In cinder every one of them runs the model eagerly.
_BACKENDS = {
    "cudagraphs": (), "inductor": (), "openxla": (), "tvm": (),
    "eager": ("debug",), "aot_eager": ("debug",), "aot_eager_decomp_partition": ("debug",),
    "aot_eager_default_partitioner": ("debug",), "eager_debug": ("debug",),
    "eager_noexcept": ("debug",), "pre_dispatch_eager": ("debug",),
    "openxla_eval": ("experimental",), "aot_ts": ("experimental",), "ts": ("experimental",),
}


def list_backends(exclude_tags=("debug", "experimental")):
    """The names ``torch.compile(backend=...)`` accepts, leaving out those tagged
    ``exclude_tags`` (sorted, as PyTorch lists them)."""
    skip = set(exclude_tags or ())
    return sorted(name for name, tags in _BACKENDS.items() if not skip.intersection(tags))


class OptimizedModule(Module):
    """The module ``torch.compile(module)`` returns: ``_orig_mod`` is the module it wraps,
    calls run it, and any attribute this wrapper lacks is read from it."""

    def __init__(self, mod):
        super().__init__()
        self._orig_mod = mod            # a submodule: parameters appear as _orig_mod.<name>

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    @property
    def training(self):
        return self._orig_mod.training

    @training.setter
    def training(self, value):
        # Module.__init__ sets ``training`` before ``_orig_mod`` exists; after that the flag
        # lives on the original module, so train()/eval() on either agree.
        mod = self.__dict__.get("_modules", {}).get("_orig_mod")
        if mod is not None:
            mod.training = value

    def __getattr__(self, name):
        if name == "_orig_mod":
            return self._modules["_orig_mod"]
        return getattr(self._orig_mod, name)


def _eager_function(fn):
    """``fn`` wrapped as ``torch.compile`` wraps a function: same name, docstring and
    signature, ``_torchdynamo_orig_callable`` pointing back at ``fn``."""
    @functools.wraps(fn)
    def compiled(*args, **kwargs):
        return fn(*args, **kwargs)
    compiled._torchdynamo_orig_callable = fn
    return compiled


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False, **kwargs):
    """Optimise ``model`` (a module or a function) for later calls; in cinder, run it eagerly.

    Takes PyTorch's arguments and raises its errors for bad combinations (``mode`` together
    with ``options``, a model that is not callable). ``disable=True`` returns ``model`` itself;
    called without a model it returns a decorator. A module comes back wrapped in an
    ``OptimizedModule``; a function as a function that calls it. Nothing is compiled:
    ``fullgraph``, ``dynamic``, ``backend`` and the tuning options change no result in PyTorch
    either, only its speed.
    """
    if sys.version_info >= (3, 15):
        raise RuntimeError("torch.compile is not supported on Python 3.15+")
    if model is None:
        def decorate(model):
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                           mode=mode, options=options, disable=disable, **kwargs)
        return decorate
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if isinstance(backend, str) and backend not in _BACKENDS:
        raise InvalidBackend(backend)
    if disable:
        return model
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if isinstance(model, Module):
        return OptimizedModule(model)
    return _eager_function(model)
