"""``torch.func``: ``functional_call`` and ``vmap``."""

from ..nn.utils.stateless import _functional_call as functional_call  # noqa: F401
from .._functorch.vmap import vmap  # noqa: F401,E402
