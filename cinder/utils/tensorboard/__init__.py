"""``torch.utils.tensorboard``: SummaryWriter (needs ``pip install 'cinder[tensorboard]'``)."""

try:
    import tensorboard  # noqa: F401
except ImportError as e:      # the same advice PyTorch gives
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above") from e

from .writer import FileWriter, SummaryWriter  # noqa: F401,E402
