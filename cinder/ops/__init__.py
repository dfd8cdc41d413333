"""The op table. Importing this package registers every op family (see ``_registry``)."""

from . import creation, conversion, pointwise, unary, reduction, views, shape, linalg  # noqa
from . import indexing  # noqa: F401
from . import operators, random  # noqa
from . import elementwise, sorting, scatter, diagonal, joining  # noqa: F401
from . import blas, contractions, scan, statistics, sampling, unsupported  # noqa: F401
from . import distributions  # noqa: F401  (gamma, dirichlet, poisson, binomial samplers)
from . import function_forms  # noqa: F401
from . import nn  # noqa: F401  (nn kernels: cinder/ops/nn/)
from . import linalg_solve, linalg_decomp, linalg_func  # noqa: F401  (torch.linalg)
from . import fft, special, windows, spectral  # noqa: F401  (fft, special, windows, stft)
from . import tensor_extras, removed, static_ops, buffers  # noqa: F401  (see each file)
from . import linalg_householder, lowrank, histogramdd  # noqa: F401  (see each file)
from . import view_copy  # noqa: F401  (the <view>_copy ops)
from . import sparse_kernels, segment_reduce, lobpcg, hashing  # noqa: F401  (issue 6)
from . import _registry
from ._registry import FUNCTIONS, OPS  # noqa: F401
_registry.publish_core_methods()   # Tensor-core methods through the dispatch point too
