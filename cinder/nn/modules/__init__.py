"""``torch.nn.modules``: every layer class, one file per family as in PyTorch."""

# --- module system (h/nncore) ---
from .module import Module
from .container import Container
from .container import ModuleDict
from .container import ModuleList
from .container import ParameterDict
from .container import ParameterList
from .container import Sequential
from .lazy import LazyModuleMixin

# --- layers (h/nnlayers) ---
from .batchnorm import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
