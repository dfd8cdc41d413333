"""``torchvision.models``: the classification architectures, their weights enums, and the
registry (``get_model``, ``list_models``, ``get_model_weights``, ``get_weight``)."""

from ._api import (Weights, WeightsEnum, get_model, get_model_builder,  # noqa: F401
                   get_model_weights, get_weight, list_models)
from .alexnet import *  # noqa: F401,F403
from .alexnet import AlexNet_Weights  # noqa: F401
from .resnet import *  # noqa: F401,F403
from .resnet import (ResNet18_Weights, ResNet34_Weights, ResNet50_Weights,  # noqa: F401
                     ResNet101_Weights, ResNet152_Weights, ResNeXt50_32X4D_Weights,
                     ResNeXt101_32X8D_Weights, ResNeXt101_64X4D_Weights,
                     Wide_ResNet50_2_Weights, Wide_ResNet101_2_Weights)
from .vgg import *  # noqa: F401,F403
from .vgg import (VGG11_Weights, VGG11_BN_Weights, VGG13_Weights,  # noqa: F401
                  VGG13_BN_Weights, VGG16_Weights, VGG16_BN_Weights, VGG19_Weights,
                  VGG19_BN_Weights)
from .mobilenetv2 import *  # noqa: F401,F403,E402
from .squeezenet import *  # noqa: F401,F403,E402
from .squeezenet import SqueezeNet1_0_Weights, SqueezeNet1_1_Weights  # noqa: F401,E402
from .mobilenetv3 import *  # noqa: F401,F403,E402
from .densenet import *  # noqa: F401,F403,E402
from .densenet import (DenseNet121_Weights, DenseNet161_Weights,  # noqa: F401,E402
                       DenseNet169_Weights, DenseNet201_Weights)
from .shufflenetv2 import *  # noqa: F401,F403,E402
from .mnasnet import *  # noqa: F401,F403,E402
from .googlenet import *  # noqa: F401,F403,E402
from .inception import *  # noqa: F401,F403,E402
from .efficientnet import *  # noqa: F401,F403,E402
from .regnet import *  # noqa: F401,F403,E402
from .convnext import *  # noqa: F401,F403,E402
from .vision_transformer import *  # noqa: F401,F403,E402
from .swin_transformer import *  # noqa: F401,F403,E402
from .maxvit import *  # noqa: F401,F403,E402
