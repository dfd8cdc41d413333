"""``torch.nn.modules``: every layer class, one file per family as in PyTorch."""
# ruff: noqa: F401  (this file re-exports the module classes)

# --- module system ---
from .module import Module
from .container import Container
from .container import ModuleDict
from .container import ModuleList
from .container import ParameterDict
from .container import ParameterList
from .container import Sequential
from .lazy import LazyModuleMixin
from .activation import CELU
from .activation import ELU
from .activation import GELU
from .activation import GLU
from .activation import Hardshrink
from .activation import Hardsigmoid
from .activation import Hardswish
from .activation import Hardtanh
from .activation import LeakyReLU
from .activation import LogSigmoid
from .activation import LogSoftmax
from .activation import Mish
from .activation import MultiheadAttention
from .activation import PReLU
from .activation import ReLU
from .activation import ReLU6
from .activation import RReLU
from .activation import SELU
from .activation import SiLU
from .activation import Sigmoid
from .activation import Softmax
from .activation import Softmax2d
from .activation import Softmin
from .activation import Softplus
from .activation import Softshrink
from .activation import Softsign
from .activation import Tanh
from .activation import Tanhshrink
from .activation import Threshold
from .channelshuffle import ChannelShuffle
from .distance import CosineSimilarity
from .distance import PairwiseDistance
from .dropout import AlphaDropout
from .dropout import Dropout
from .dropout import Dropout1d
from .dropout import Dropout2d
from .dropout import Dropout3d
from .dropout import FeatureAlphaDropout
from .flatten import Flatten
from .flatten import Unflatten
from .linear import Bilinear
from .linear import Identity
from .linear import LazyLinear
from .linear import Linear
from .loss import BCELoss
from .loss import BCEWithLogitsLoss
from .loss import CTCLoss
from .loss import CosineEmbeddingLoss
from .loss import CrossEntropyLoss
from .loss import GaussianNLLLoss
from .loss import HingeEmbeddingLoss
from .loss import HuberLoss
from .loss import KLDivLoss
from .loss import L1Loss
from .loss import MSELoss
from .loss import MarginRankingLoss
from .loss import MultiLabelMarginLoss
from .loss import MultiLabelSoftMarginLoss
from .loss import MultiMarginLoss
from .loss import NLLLoss
from .loss import NLLLoss2d
from .loss import PoissonNLLLoss
from .loss import SmoothL1Loss
from .loss import SoftMarginLoss
from .loss import TripletMarginLoss
from .loss import TripletMarginWithDistanceLoss
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .linear_cross_entropy import LinearCrossEntropyLoss
from .linear_cross_entropy_options import LinearCrossEntropyOptions

# --- layers: conv, pooling, norms, padding, upsampling, embedding, fold, pixel shuffle ---
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
from .rnn import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
