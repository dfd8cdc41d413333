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
