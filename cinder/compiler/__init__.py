"""``torch.compiler``: the switches and markers code uses around ``torch.compile``.

cinder runs everything eagerly (see ``cinder._dynamo.eval_frame``), so nothing is ever being
compiled: the queries answer False, the markers hand their function back, and ``reset``
has no cache to clear. Code written for PyTorch that asks, marks or resets runs unchanged.
"""

from .._dynamo.eval_frame import compile, list_backends  # noqa: F401

__all__ = ["allow_in_graph", "assume_constant_result", "compile", "disable", "is_compiling",
           "is_dynamo_compiling", "is_exporting", "list_backends", "reset"]


def is_compiling():
    """True while torch.compile traces the calling code; always False in cinder."""
    return False


def is_dynamo_compiling():
    """True while Dynamo traces the calling code; always False in cinder."""
    return False


def is_exporting():
    """True while torch.export traces the calling code; always False in cinder."""
    return False


def reset():
    """Clear torch.compile's caches; cinder keeps none."""


def disable(fn=None, recursive=True, *, reason=None):
    """Keep ``fn`` out of compilation (used bare or as ``@disable(...)``); eagerly, ``fn``."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)
    return fn


def allow_in_graph(fn):
    """Let the compiler put ``fn`` in its graph unexamined; eagerly, ``fn`` itself."""
    return fn


def assume_constant_result(fn):
    """Let the compiler treat ``fn``'s result as a constant; eagerly, ``fn`` itself."""
    return fn
