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
