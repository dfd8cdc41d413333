"""``torch.nn``: so far the Parameter class (modules, functional and init come next)."""

from .parameter import Parameter  # noqa: F401
from . import functional  # noqa: F401
