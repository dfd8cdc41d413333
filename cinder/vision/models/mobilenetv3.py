"""MobileNetV3 large and small (Howard et al. 2019): inverted residuals with optional
squeeze-excitation and hard-swish activations."""

from functools import partial

from ... import nn
from ...ops import FUNCTIONS as _F
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ._api import (WeightsEnum, build_model, builder, init_conv_bn_linear, make_divisible,
                   weights)

__all__ = ["MobileNetV3", "MobileNet_V3_Large_Weights", "MobileNet_V3_Small_Weights",
           "mobilenet_v3_large", "mobilenet_v3_small"]


class InvertedResidualConfig:
    """One block's settings, channel counts scaled by ``width_mult`` (multiples of 8)."""

    def __init__(self, input_channels, kernel, expanded_channels, out_channels, use_se,
                 activation, stride, dilation, width_mult):
        self.input_channels = self.adjust_channels(input_channels, width_mult)
        self.kernel = kernel
        self.expanded_channels = self.adjust_channels(expanded_channels, width_mult)
        self.out_channels = self.adjust_channels(out_channels, width_mult)
        self.use_se = use_se
        self.use_hs = activation == "HS"
        self.stride, self.dilation = stride, dilation

    @staticmethod
    def adjust_channels(channels, width_mult):
        return make_divisible(channels * width_mult, 8)


_SE_LAYER = partial(SqueezeExcitation, scale_activation=nn.Hardsigmoid)


class InvertedResidual(nn.Module):
    def __init__(self, cnf, norm_layer, se_layer=_SE_LAYER):
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        act = nn.Hardswish if cnf.use_hs else nn.ReLU
        layers = []
        if cnf.expanded_channels != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, cnf.expanded_channels,
                                               kernel_size=1, norm_layer=norm_layer,
                                               activation_layer=act))
        layers.append(Conv2dNormActivation(
            cnf.expanded_channels, cnf.expanded_channels, kernel_size=cnf.kernel,
            stride=1 if cnf.dilation > 1 else cnf.stride, dilation=cnf.dilation,
            groups=cnf.expanded_channels, norm_layer=norm_layer, activation_layer=act))
        if cnf.use_se:
            layers.append(se_layer(cnf.expanded_channels,
                                   make_divisible(cnf.expanded_channels // 4, 8)))
        layers.append(Conv2dNormActivation(cnf.expanded_channels, cnf.out_channels,
                                           kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.out_channels = cnf.out_channels
        self._is_cn = cnf.stride > 1

    def forward(self, input):
        result = self.block(input)
        return result + input if self.use_res_connect else result


class MobileNetV3(nn.Module):
    def __init__(self, inverted_residual_setting, last_channel, num_classes=1000, block=None,
                 norm_layer=None, dropout=0.2, **kwargs):
        super().__init__()
        if not inverted_residual_setting:
            raise ValueError("The inverted_residual_setting should not be empty")
        if not all(isinstance(s, InvertedResidualConfig) for s in inverted_residual_setting):
            raise TypeError("The inverted_residual_setting should be "
                            "List[InvertedResidualConfig]")
        block = InvertedResidual if block is None else block
        if norm_layer is None:
            norm_layer = partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)
        first = inverted_residual_setting[0].input_channels
        layers = [Conv2dNormActivation(3, first, kernel_size=3, stride=2, norm_layer=norm_layer,
                                       activation_layer=nn.Hardswish)]
        layers += [block(cnf, norm_layer) for cnf in inverted_residual_setting]
        last_in = inverted_residual_setting[-1].out_channels
        last_out = 6 * last_in
        layers.append(Conv2dNormActivation(last_in, last_out, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(
            nn.Linear(last_out, last_channel), nn.Hardswish(inplace=True),
            nn.Dropout(p=dropout, inplace=True), nn.Linear(last_channel, num_classes))
        init_conv_bn_linear(self)

    def _forward_impl(self, x):
        return self.classifier(_F["flatten"](self.avgpool(self.features(x)), 1))

    def forward(self, x):
        return self._forward_impl(x)


# kernel, expanded, out, SE, activation, stride for each block after the stem (16 channels in)
_LARGE = [(3, 16, 16, False, "RE", 1), (3, 64, 24, False, "RE", 2), (3, 72, 24, False, "RE", 1),
          (5, 72, 40, True, "RE", 2), (5, 120, 40, True, "RE", 1), (5, 120, 40, True, "RE", 1),
          (3, 240, 80, False, "HS", 2), (3, 200, 80, False, "HS", 1),
          (3, 184, 80, False, "HS", 1), (3, 184, 80, False, "HS", 1),
          (3, 480, 112, True, "HS", 1), (3, 672, 112, True, "HS", 1),
          (5, 672, 160, True, "HS", 2), (5, 960, 160, True, "HS", 1),
          (5, 960, 160, True, "HS", 1)]
_SMALL = [(3, 16, 16, True, "RE", 2), (3, 72, 24, False, "RE", 2), (3, 88, 24, False, "RE", 1),
          (5, 96, 40, True, "HS", 2), (5, 240, 40, True, "HS", 1), (5, 240, 40, True, "HS", 1),
          (5, 120, 48, True, "HS", 1), (5, 144, 48, True, "HS", 1), (5, 288, 96, True, "HS", 2),
          (5, 576, 96, True, "HS", 1), (5, 576, 96, True, "HS", 1)]


def _mobilenet_v3_conf(arch, width_mult=1.0, reduced_tail=False, dilated=False, **kwargs):
    """Block configs and the classifier width; the last three blocks (C4 onwards) may be
    halved (``reduced_tail``) and dilated (``dilated``) for segmentation backbones."""
    table, last = {"mobilenet_v3_large": (_LARGE, 1280),
                   "mobilenet_v3_small": (_SMALL, 1024)}.get(arch, (None, None))
    if table is None:
        raise ValueError(f"Unsupported model type {arch}")
    divider = 2 if reduced_tail else 1
    tail = len(table) - 3
    configs, channels = [], 16
    for i, (k, exp, out, se, act, stride) in enumerate(table):
        if i >= tail:
            exp = exp // divider if i > tail else exp
            out = out // divider
        configs.append(InvertedResidualConfig(channels, k, exp, out, se, act, stride,
                                              2 if dilated and i >= tail else 1, width_mult))
        channels = out
    return configs, InvertedResidualConfig.adjust_channels(last // divider, width_mult)


_URL = "https://download.pytorch.org/models/"


class MobileNet_V3_Large_Weights(WeightsEnum):
    IMAGENET1K_V1 = weights(_URL + "mobilenet_v3_large-8738ca79.pth", num_params=5483032,
                            min_size=(1, 1))
    IMAGENET1K_V2 = weights(_URL + "mobilenet_v3_large-5c1a4163.pth", resize=232,
                            num_params=5483032, min_size=(1, 1))
    DEFAULT = IMAGENET1K_V2


class MobileNet_V3_Small_Weights(WeightsEnum):
    IMAGENET1K_V1 = weights(_URL + "mobilenet_v3_small-047dcff4.pth", num_params=2542856,
                            min_size=(1, 1))
    DEFAULT = IMAGENET1K_V1


def _v3_builder(name, enum):
    def build(*, weights=None, progress=True, **kwargs):
        setting, last_channel = _mobilenet_v3_conf(name, **kwargs)
        for key in ("width_mult", "reduced_tail", "dilated"):
            kwargs.pop(key, None)
        return build_model(partial(MobileNetV3, setting, last_channel), enum, weights, progress,
                           kwargs)
    build.__name__ = build.__qualname__ = name
    build.__doc__ = f"{name}; ``weights`` takes {enum.__name__} values."
    return builder(name, enum)(build)


mobilenet_v3_large = _v3_builder("mobilenet_v3_large", MobileNet_V3_Large_Weights)
mobilenet_v3_small = _v3_builder("mobilenet_v3_small", MobileNet_V3_Small_Weights)
