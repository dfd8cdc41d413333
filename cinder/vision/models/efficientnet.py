"""EfficientNet B0-B7 (Tan & Le 2019) and EfficientNetV2 S/M/L (Tan & Le 2021): stages of
MBConv blocks (depthwise conv + squeeze-excitation) or FusedMBConv blocks (one full conv),
scaled in width and depth, with stochastic depth growing linearly along the network."""

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Callable

from ... import nn
from ...ops import FUNCTIONS as _F
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation, StochasticDepth
from ..transforms._presets import InterpolationMode
from ._api import (WeightsEnum, init_conv_bn_linear, make_builder, make_divisible,
                   weights)

__all__ = ["EfficientNet"] + [f"EfficientNet_{v}_Weights" for v in
                              ("B0", "B1", "B2", "B3", "B4", "B5", "B6", "B7", "V2_S", "V2_M",
                               "V2_L")] + \
          [f"efficientnet_{v}" for v in ("b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "v2_s",
                                         "v2_m", "v2_l")]


@dataclass
class _MBConvConfig:
    expand_ratio: float
    kernel: int
    stride: int
    input_channels: int
    out_channels: int
    num_layers: int
    block: Callable

    @staticmethod
    def adjust_channels(channels, width_mult, min_value=None):
        return make_divisible(channels * width_mult, 8, min_value)


class MBConvConfig(_MBConvConfig):
    """One stage of MBConv blocks, its widths and depth scaled by the model's multipliers."""

    def __init__(self, expand_ratio, kernel, stride, input_channels, out_channels, num_layers,
                 width_mult=1.0, depth_mult=1.0, block=None):
        super().__init__(expand_ratio, kernel, stride,
                         self.adjust_channels(input_channels, width_mult),
                         self.adjust_channels(out_channels, width_mult),
                         self.adjust_depth(num_layers, depth_mult),
                         MBConv if block is None else block)

    @staticmethod
    def adjust_depth(num_layers, depth_mult):
        return int(math.ceil(num_layers * depth_mult))


class FusedMBConvConfig(_MBConvConfig):
    """One stage of FusedMBConv blocks (EfficientNetV2's early stages; never rescaled)."""

    def __init__(self, expand_ratio, kernel, stride, input_channels, out_channels, num_layers,
                 block=None):
        super().__init__(expand_ratio, kernel, stride, input_channels, out_channels, num_layers,
                         FusedMBConv if block is None else block)


class _Residual(nn.Module):
    """``block``, plus the input (through stochastic depth) when the shapes allow."""

    def _finish(self, cnf, layers, stochastic_depth_prob):
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.out_channels = cnf.out_channels

    def forward(self, input):
        result = self.block(input)
        if self.use_res_connect:
            result = self.stochastic_depth(result)
            result += input
        return result


def _check_stride(cnf):
    if not 1 <= cnf.stride <= 2:
        raise ValueError("illegal stride value")
    return cnf.stride == 1 and cnf.input_channels == cnf.out_channels


class MBConv(_Residual):
    """Expand (1x1), depthwise kxk, squeeze-excite, project (1x1)."""

    def __init__(self, cnf, stochastic_depth_prob, norm_layer, se_layer=SqueezeExcitation):
        super().__init__()
        self.use_res_connect = _check_stride(cnf)
        expanded = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        layers = []
        if expanded != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, expanded, kernel_size=1,
                                               norm_layer=norm_layer, activation_layer=nn.SiLU))
        layers.append(Conv2dNormActivation(expanded, expanded, kernel_size=cnf.kernel,
                                           stride=cnf.stride, groups=expanded,
                                           norm_layer=norm_layer, activation_layer=nn.SiLU))
        layers.append(se_layer(expanded, max(1, cnf.input_channels // 4),
                               activation=partial(nn.SiLU, inplace=True)))
        layers.append(Conv2dNormActivation(expanded, cnf.out_channels, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=None))
        self._finish(cnf, layers, stochastic_depth_prob)


class FusedMBConv(_Residual):
    """A full kxk conv that expands, then a 1x1 projection (just the kxk conv at ratio 1)."""

    def __init__(self, cnf, stochastic_depth_prob, norm_layer):
        super().__init__()
        self.use_res_connect = _check_stride(cnf)
        expanded = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        first_out = expanded if expanded != cnf.input_channels else cnf.out_channels
        layers = [Conv2dNormActivation(cnf.input_channels, first_out, kernel_size=cnf.kernel,
                                       stride=cnf.stride, norm_layer=norm_layer,
                                       activation_layer=nn.SiLU)]
        if expanded != cnf.input_channels:
            layers.append(Conv2dNormActivation(expanded, cnf.out_channels, kernel_size=1,
                                               norm_layer=norm_layer, activation_layer=None))
        self._finish(cnf, layers, stochastic_depth_prob)


class EfficientNet(nn.Module):
    """EfficientNet v1 and v2: stem, one Sequential per stage config, a 1x1 head conv,
    global average pool, dropout and the linear classifier."""

    def __init__(self, inverted_residual_setting, dropout, stochastic_depth_prob=0.2,
                 num_classes=1000, norm_layer=None, last_channel=None):
        super().__init__()
        if not inverted_residual_setting:
            raise ValueError("The inverted_residual_setting should not be empty")
        if not (isinstance(inverted_residual_setting, Sequence) and
                all(isinstance(s, _MBConvConfig) for s in inverted_residual_setting)):
            raise TypeError("The inverted_residual_setting should be List[MBConvConfig]")
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        layers = [Conv2dNormActivation(3, inverted_residual_setting[0].input_channels,
                                       kernel_size=3, stride=2, norm_layer=norm_layer,
                                       activation_layer=nn.SiLU)]
        total_blocks = sum(cnf.num_layers for cnf in inverted_residual_setting)
        block_id = 0
        for cnf in inverted_residual_setting:
            stage = []
            for _ in range(cnf.num_layers):
                block_cnf = copy.copy(cnf)
                if stage:          # only a stage's first block changes width or stride
                    block_cnf.input_channels, block_cnf.stride = block_cnf.out_channels, 1
                sd_prob = stochastic_depth_prob * float(block_id) / total_blocks
                stage.append(block_cnf.block(block_cnf, sd_prob, norm_layer))
                block_id += 1
            layers.append(nn.Sequential(*stage))
        last_in = inverted_residual_setting[-1].out_channels
        last_out = last_channel if last_channel is not None else 4 * last_in
        layers.append(Conv2dNormActivation(last_in, last_out, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=nn.SiLU))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout, inplace=True),
                                        nn.Linear(last_out, num_classes))
        init_conv_bn_linear(self, uniform_linear=True)

    def _forward_impl(self, x):
        return self.classifier(_F["flatten"](self.avgpool(self.features(x)), 1))

    def forward(self, x):
        return self._forward_impl(x)


# expand ratio, kernel, stride, in, out, layers of the B0 stages (scaled for B1-B7)
_V1 = [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3),
       (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1)]
# the V2 stages: F marks FusedMBConv, M MBConv
_V2 = {
    "efficientnet_v2_s": [("F", 1, 3, 1, 24, 24, 2), ("F", 4, 3, 2, 24, 48, 4),
                          ("F", 4, 3, 2, 48, 64, 4), ("M", 4, 3, 2, 64, 128, 6),
                          ("M", 6, 3, 1, 128, 160, 9), ("M", 6, 3, 2, 160, 256, 15)],
    "efficientnet_v2_m": [("F", 1, 3, 1, 24, 24, 3), ("F", 4, 3, 2, 24, 48, 5),
                          ("F", 4, 3, 2, 48, 80, 5), ("M", 4, 3, 2, 80, 160, 7),
                          ("M", 6, 3, 1, 160, 176, 14), ("M", 6, 3, 2, 176, 304, 18),
                          ("M", 6, 3, 1, 304, 512, 5)],
    "efficientnet_v2_l": [("F", 1, 3, 1, 32, 32, 4), ("F", 4, 3, 2, 32, 64, 7),
                          ("F", 4, 3, 2, 64, 96, 7), ("M", 4, 3, 2, 96, 192, 10),
                          ("M", 6, 3, 1, 192, 224, 19), ("M", 6, 3, 2, 224, 384, 25),
                          ("M", 6, 3, 1, 384, 640, 7)],
}


def _efficientnet_conf(arch, **kwargs):
    """The stage configs and the head width (None: four times the last stage's) of ``arch``."""
    if arch.startswith("efficientnet_b"):
        conf = partial(MBConvConfig, width_mult=kwargs.pop("width_mult"),
                       depth_mult=kwargs.pop("depth_mult"))
        return [conf(*row) for row in _V1], None
    for name, rows in _V2.items():
        if arch.startswith(name):
            kinds = {"F": FusedMBConvConfig, "M": MBConvConfig}
            return [kinds[kind](*row) for kind, *row in rows], 1280
    raise ValueError(f"Unsupported model type {arch}")


_URL = "https://download.pytorch.org/models/"
_BICUBIC = {"interpolation": InterpolationMode.BICUBIC}
_BILINEAR = {"interpolation": InterpolationMode.BILINEAR}


def _v1(file, crop, resize, num_params, preset=_BICUBIC):
    return weights(_URL + file, crop=crop, resize=resize, preset=preset, num_params=num_params,
                   min_size=(1, 1))


def _v2(file, size, num_params, preset=_BILINEAR):
    return weights(_URL + file, crop=size, resize=size, preset=preset, num_params=num_params,
                   min_size=(33, 33))


class EfficientNet_B0_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v1("efficientnet_b0_rwightman-7f5810bc.pth", 224, 256, 5288548)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B1_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v1("efficientnet_b1_rwightman-bac287d4.pth", 240, 256, 7794184)
    IMAGENET1K_V2 = _v1("efficientnet_b1-c27df63c.pth", 240, 255, 7794184, _BILINEAR)
    DEFAULT = IMAGENET1K_V2


class EfficientNet_B2_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v1("efficientnet_b2_rwightman-c35c1473.pth", 288, 288, 9109994)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B3_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v1("efficientnet_b3_rwightman-b3899882.pth", 300, 320, 12233232)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B4_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v1("efficientnet_b4_rwightman-23ab8bcd.pth", 380, 384, 19341616)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B5_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v1("efficientnet_b5_lukemelas-1a07897c.pth", 456, 456, 30389784)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B6_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v1("efficientnet_b6_lukemelas-24a108a5.pth", 528, 528, 43040704)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B7_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v1("efficientnet_b7_lukemelas-c5b4e57e.pth", 600, 600, 66347960)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_V2_S_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v2("efficientnet_v2_s-dd5fe13b.pth", 384, 21458488)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_V2_M_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v2("efficientnet_v2_m-dc08266a.pth", 480, 54139356)
    DEFAULT = IMAGENET1K_V1


class EfficientNet_V2_L_Weights(WeightsEnum):
    IMAGENET1K_V1 = _v2("efficientnet_v2_l-59c71312.pth", 480, 118515272,
                        dict(_BICUBIC, mean=(0.5, 0.5, 0.5), std=(0.5, 0.5, 0.5)))
    DEFAULT = IMAGENET1K_V1


_BN_B5 = partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)
_BN_V2 = partial(nn.BatchNorm2d, eps=1e-03)

# name: weights enum, conf keywords, default dropout, norm layer (None: plain BatchNorm2d)
_VARIANTS = {
    "efficientnet_b0": (EfficientNet_B0_Weights, dict(width_mult=1.0, depth_mult=1.0), 0.2, None),
    "efficientnet_b1": (EfficientNet_B1_Weights, dict(width_mult=1.0, depth_mult=1.1), 0.2, None),
    "efficientnet_b2": (EfficientNet_B2_Weights, dict(width_mult=1.1, depth_mult=1.2), 0.3, None),
    "efficientnet_b3": (EfficientNet_B3_Weights, dict(width_mult=1.2, depth_mult=1.4), 0.3, None),
    "efficientnet_b4": (EfficientNet_B4_Weights, dict(width_mult=1.4, depth_mult=1.8), 0.4, None),
    "efficientnet_b5": (EfficientNet_B5_Weights, dict(width_mult=1.6, depth_mult=2.2), 0.4,
                        _BN_B5),
    "efficientnet_b6": (EfficientNet_B6_Weights, dict(width_mult=1.8, depth_mult=2.6), 0.5,
                        _BN_B5),
    "efficientnet_b7": (EfficientNet_B7_Weights, dict(width_mult=2.0, depth_mult=3.1), 0.5,
                        _BN_B5),
    "efficientnet_v2_s": (EfficientNet_V2_S_Weights, {}, 0.2, _BN_V2),
    "efficientnet_v2_m": (EfficientNet_V2_M_Weights, {}, 0.3, _BN_V2),
    "efficientnet_v2_l": (EfficientNet_V2_L_Weights, {}, 0.4, _BN_V2),
}


def _make_builder(name):
    enum, conf, default_dropout, norm_layer = _VARIANTS[name]

    def make(dropout=default_dropout, **kwargs):
        setting, last_channel = _efficientnet_conf(name, **conf)
        if norm_layer is not None:
            kwargs["norm_layer"] = norm_layer
        return EfficientNet(setting, dropout, last_channel=last_channel, **kwargs)
    return make_builder(name, enum, make, name)


efficientnet_b0 = _make_builder("efficientnet_b0")
efficientnet_b1 = _make_builder("efficientnet_b1")
efficientnet_b2 = _make_builder("efficientnet_b2")
efficientnet_b3 = _make_builder("efficientnet_b3")
efficientnet_b4 = _make_builder("efficientnet_b4")
efficientnet_b5 = _make_builder("efficientnet_b5")
efficientnet_b6 = _make_builder("efficientnet_b6")
efficientnet_b7 = _make_builder("efficientnet_b7")
efficientnet_v2_s = _make_builder("efficientnet_v2_s")
efficientnet_v2_m = _make_builder("efficientnet_v2_m")
efficientnet_v2_l = _make_builder("efficientnet_v2_l")
