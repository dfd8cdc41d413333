"""``torch.backends.mha``: the switch for PyTorch's inference fast path of
``MultiheadAttention`` and ``TransformerEncoder``. cinder runs those layers on one path, so
the switch is kept for scripts that set and read it and changes no result."""

__all__ = ["get_fastpath_enabled", "set_fastpath_enabled"]

_fastpath_enabled = True


def get_fastpath_enabled():
    """Whether the fast path is allowed (True unless set off)."""
    return _fastpath_enabled


def set_fastpath_enabled(value):
    """Allow or forbid the fast path."""
    global _fastpath_enabled
    _fastpath_enabled = value
