"""Kernels behind ``torch.nn.functional``: one file per family (activation, loss, dropout, ...)."""

from . import activation  # noqa: F401
from . import loss  # noqa: F401
from . import dropout  # noqa: F401
from . import linear  # noqa: F401
from . import conv  # noqa: F401
from . import embedding  # noqa: F401
from . import norm  # noqa: F401
from . import pad  # noqa: F401
from . import pool  # noqa: F401
from . import upsample  # noqa: F401
from . import rnn  # noqa: F401
from . import attention  # noqa: F401
from . import channel_shuffle  # noqa: F401
from . import torch_forms, distance, loss_composite, bilinear, norm_functions  # noqa: F401
from . import rnn_functions, affine_grid  # noqa: F401
from . import grid_sample  # noqa: F401
from . import embedding_bag  # noqa: F401
