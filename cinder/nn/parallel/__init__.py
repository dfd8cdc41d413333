"""``torch.nn.parallel``: DataParallel. On one device (or the CPU) it runs the wrapped module
itself, as PyTorch does; splitting a batch across several GPUs is not implemented."""

from .data_parallel import DataParallel, data_parallel  # noqa: F401
