"""``torch.special``: special functions (implemented in ``cinder/ops/special.py``)."""

from .ops._registry import OPS

__all__ = sorted(name[len("special_"):] for name in OPS if name.startswith("special_"))

for _name in __all__:
    _fn = OPS["special_" + _name].function
    _fn.__name__ = _fn.__qualname__ = "special_" + _name
    _fn.__module__ = "torch._C._special"
    globals()[_name] = _fn
