"""``torch.func``: so far ``functional_call``."""

from ..nn.utils.stateless import _functional_call as functional_call  # noqa: F401
