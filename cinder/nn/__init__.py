"""``torch.nn``: modules, functional, init, utils."""

from .parameter import Buffer  # noqa: F401
from .parameter import Parameter  # noqa: F401
from .parameter import UninitializedBuffer  # noqa: F401
from .parameter import UninitializedParameter  # noqa: F401
from .modules import *  # noqa: F401,F403
from . import modules  # noqa: F401
from . import functional  # noqa: F401
from . import init  # noqa: F401
from . import utils  # noqa: F401
from . import parallel  # noqa: F401
from .parallel import DataParallel  # noqa: F401
from . import grad  # noqa: F401


def factory_kwargs(kwargs):
    """The ``device``/``dtype``/``memory_format`` keywords of ``kwargs`` as one dict to pass to
    a factory (``torch.empty(3, **nn.factory_kwargs(kwargs))``), merged with those given under
    the key ``factory_kwargs``; any other key, or one given both ways, is a TypeError."""
    if kwargs is None:
        return {}
    simple = {"device", "dtype", "memory_format"}
    unexpected = kwargs.keys() - simple - {"factory_kwargs"}
    if unexpected:
        raise TypeError(f"unexpected kwargs {unexpected}")
    merged = dict(kwargs.get("factory_kwargs", {}))
    for key in simple & kwargs.keys():
        if key in merged:
            raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
        merged[key] = kwargs[key]
    return merged
