"""The op table. Importing this package registers every op family (see ``_registry``)."""

from . import creation, conversion, pointwise, reduction, views, shape, linalg, indexing  # noqa
from . import operators, random  # noqa
from . import elementwise, sorting, scatter, diagonal, joining  # noqa: F401
from . import blas, contractions, scan, statistics, sampling, unsupported  # noqa: F401
from . import function_forms  # noqa: F401
from ._registry import FUNCTIONS, OPS  # noqa: F401
