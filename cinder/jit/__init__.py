"""``torch.jit``: the eager-mode helpers that model code calls outside TorchScript.

Model and library code written to be scriptable asks ``torch.jit.is_scripting()`` to pick a
path, marks methods with ``@torch.jit.ignore`` / ``@torch.jit.unused`` / ``@torch.jit.export``,
and wraps values in ``torch.jit.annotate``. Run eagerly, as in PyTorch, these change nothing:
the checks answer False and the decorators hand the function back. cinder has no TorchScript
compiler, so ``torch.jit.script``, ``trace``, ``save`` and ``load`` are not provided; asking for
them raises an AttributeError that says so.
"""

import functools
import warnings
from typing import Final  # noqa: F401  (torch.jit.Final, for `Final[int]` class constants)

from ..compat import missing_attribute_error
from ..ops._unsupported import family_of, unsupported_message

__all__ = ["Final", "annotate", "export", "ignore", "is_scripting", "is_tracing",
           "script_if_tracing", "unused"]


def is_scripting():
    """True inside TorchScript compilation; always False when running eagerly (cinder)."""
    return False


def is_tracing():
    """True while ``torch.jit.trace`` records a function; always False in cinder."""
    return False


def annotate(the_type, the_value):
    """Give TorchScript the type of ``the_value``; eagerly, just ``the_value``."""
    return the_value


def export(fn):
    """Mark a method to compile as an entry point of a ScriptModule; eagerly, ``fn`` itself."""
    return fn


def unused(fn):
    """Mark a function (or property) for TorchScript to leave out; eagerly, ``fn`` itself."""
    return fn


def ignore(drop=False, **kwargs):
    """Leave a function to Python when compiling; eagerly, the function itself.

    Used bare (``@torch.jit.ignore``) or with arguments (``@torch.jit.ignore(drop=...)``);
    ``drop=True`` and ``drop_on_export=True`` are the deprecated spellings of ``unused`` and
    warn as in PyTorch.
    """
    if callable(drop):
        return drop
    if not isinstance(drop, bool):
        raise RuntimeError(f"Argument to @torch.jit.ignore must be a bool or a function but "
                           f"got {drop}")
    if kwargs.pop("drop_on_export", None):
        warnings.warn("ignore(drop_on_export=True) has been deprecated. TorchScript will now "
                      "drop the function call on compilation. Use torch.jit.unused now. {}",
                      FutureWarning, stacklevel=2)
    elif drop:
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function "
                      "call on compilation. Use torch.jit.unused now. {}", FutureWarning,
                      stacklevel=2)

    def decorator(fn):
        return fn
    return decorator


def script_if_tracing(fn):
    """Compile ``fn`` when called while tracing; cinder never traces, so calls run ``fn``."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    wrapper.__original_fn = fn  # noqa: B010 - PyTorch's attribute name
    return wrapper


def __getattr__(name):
    # script, trace, save, load, ScriptModule...: TorchScript itself is not provided
    if name in _TORCHSCRIPT:
        family, reason = family_of("torch", "ScriptModule")
        raise AttributeError(unsupported_message(f"torch.jit.{name}", family, reason))
    raise missing_attribute_error(__name__, name)


_TORCHSCRIPT = frozenset({"script", "trace", "trace_module", "save", "load", "freeze",
                          "optimize_for_inference", "ScriptModule", "ScriptFunction",
                          "RecursiveScriptModule", "CompilationUnit", "fork", "wait",
                          "interface", "isinstance", "enable_onednn_fusion"})
