"""``torch.backends.opt_einsum``: whether ``einsum`` asks the opt_einsum package for its
contraction order. cinder's ``einsum`` lets NumPy plan the order and never uses opt_einsum,
so this module answers as PyTorch does where opt_einsum is not installed: not available,
not enabled, no strategy, and turning it on is the same ValueError."""

from contextlib import contextmanager

__all__ = ["enabled", "flags", "get_opt_einsum", "is_available", "set_flags", "strategy"]

enabled = False
strategy = None


def is_available():
    """Whether einsum can use opt_einsum: False in cinder."""
    return False


def get_opt_einsum():
    """The opt_einsum package einsum uses, or None (always None in cinder)."""
    return None


def _check_enabled(value):
    if value:
        raise ValueError(
            f"opt_einsum is not available, so setting `enabled` to {value} will not reap the "
            "benefits of calculating an optimal path for einsum. torch.einsum will fall back "
            "to contracting from left to right. To enable this optimal path calculation, "
            "please install opt-einsum.")


def _check_strategy(value):
    raise ValueError(
        f"opt_einsum is not available, so setting `strategy` to {value} will not be "
        "meaningful. torch.einsum will bypass path calculation and simply contract from left "
        "to right. Please install opt_einsum or unset `strategy`.")


def set_flags(_enabled=None, _strategy=None):
    """Set ``enabled``/``strategy`` (None leaves one alone); returns the old values. Only
    ``enabled=False`` is accepted, since opt_einsum is never available here."""
    global enabled
    old = (enabled, None)
    if _enabled is not None:
        _check_enabled(_enabled)
        enabled = _enabled
    if _strategy is not None:
        _check_strategy(_strategy)
    return old


@contextmanager
def flags(enabled=None, strategy=None):
    """The flags set for the duration of a ``with`` block."""
    old = set_flags(enabled, strategy)
    try:
        yield
    finally:
        set_flags(*old)
