"""``torch.nn.parallel``: single-process data parallelism over several GPUs (DataParallel and
its four steps: replicate, scatter, parallel_apply, gather). Without CUDA, DataParallel is the
wrapped module itself, as in PyTorch."""

from . import comm  # noqa: F401
from .data_parallel import DataParallel, data_parallel  # noqa: F401
from .parallel_apply import parallel_apply  # noqa: F401
from .replicate import replicate  # noqa: F401
from .scatter_gather import gather, scatter  # noqa: F401

__all__ = ["replicate", "scatter", "parallel_apply", "gather", "data_parallel", "DataParallel"]
