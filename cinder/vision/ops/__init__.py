"""``torchvision.ops``: box operations, NMS, RoI pooling, losses and shared layers."""

from .misc import (Conv2dNormActivation, Conv3dNormActivation, FrozenBatchNorm2d,  # noqa: F401
                   MLP, SqueezeExcitation, StochasticDepth)
from .stochastic_depth import stochastic_depth  # noqa: F401
