"""The op table. Importing this package registers every op family (see ``_registry``)."""

from . import creation, conversion, pointwise, reduction, views, shape, linalg, indexing  # noqa
from . import operators, random  # noqa
from ._registry import FUNCTIONS, OPS  # noqa: F401
from . import nn  # noqa: F401  (nn kernels: cinder/ops/nn/)
