"""RegNet X and Y (Radosavovic et al. 2020): stages of residual bottleneck blocks with group
convolutions (plus squeeze-excitation in the Y models), their widths and depths generated from
a few design parameters (initial width, slope, log-step)."""

import math
from collections import OrderedDict
from functools import partial

from ... import nn
from ...ops import FUNCTIONS as _F
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ..transforms._presets import InterpolationMode
from ._api import WeightsEnum, make_builder, make_divisible, weights

_SIZES = ["Y_400MF", "Y_800MF", "Y_1_6GF", "Y_3_2GF", "Y_8GF", "Y_16GF", "Y_32GF", "Y_128GF",
          "X_400MF", "X_800MF", "X_1_6GF", "X_3_2GF", "X_8GF", "X_16GF", "X_32GF"]
__all__ = ["RegNet"] + [f"RegNet_{s}_Weights" for s in _SIZES] + \
          [f"regnet_{s.lower()}" for s in _SIZES]


class SimpleStemIN(Conv2dNormActivation):
    """The ImageNet stem: a strided 3x3 conv, norm and activation."""

    def __init__(self, width_in, width_out, norm_layer, activation_layer):
        super().__init__(width_in, width_out, kernel_size=3, stride=2, norm_layer=norm_layer,
                         activation_layer=activation_layer)


class BottleneckTransform(nn.Sequential):
    """1x1 conv ('a'), grouped 3x3 conv ('b'), optional squeeze-excitation ('se'), 1x1 ('c')."""

    def __init__(self, width_in, width_out, stride, norm_layer, activation_layer, group_width,
                 bottleneck_multiplier, se_ratio):
        w_b = int(round(width_out * bottleneck_multiplier))
        layers = OrderedDict()
        layers["a"] = Conv2dNormActivation(width_in, w_b, kernel_size=1, stride=1,
                                           norm_layer=norm_layer,
                                           activation_layer=activation_layer)
        layers["b"] = Conv2dNormActivation(w_b, w_b, kernel_size=3, stride=stride,
                                           groups=w_b // group_width, norm_layer=norm_layer,
                                           activation_layer=activation_layer)
        if se_ratio:
            layers["se"] = SqueezeExcitation(input_channels=w_b,
                                             squeeze_channels=int(round(se_ratio * width_in)),
                                             activation=activation_layer)
        layers["c"] = Conv2dNormActivation(w_b, width_out, kernel_size=1, stride=1,
                                           norm_layer=norm_layer, activation_layer=None)
        super().__init__(layers)


class ResBottleneckBlock(nn.Module):
    """``activation(shortcut(x) + f(x))``; the shortcut is a strided 1x1 projection when the
    width or resolution changes."""

    def __init__(self, width_in, width_out, stride, norm_layer, activation_layer, group_width=1,
                 bottleneck_multiplier=1.0, se_ratio=None):
        super().__init__()
        self.proj = None
        if width_in != width_out or stride != 1:
            self.proj = Conv2dNormActivation(width_in, width_out, kernel_size=1, stride=stride,
                                             norm_layer=norm_layer, activation_layer=None)
        self.f = BottleneckTransform(width_in, width_out, stride, norm_layer, activation_layer,
                                     group_width, bottleneck_multiplier, se_ratio)
        self.activation = activation_layer(inplace=True)

    def forward(self, x):
        shortcut = x if self.proj is None else self.proj(x)
        return self.activation(shortcut + self.f(x))


class AnyStage(nn.Sequential):
    """``depth`` blocks named ``block{stage}-{i}``; only the first changes width and stride."""

    def __init__(self, width_in, width_out, stride, depth, block_constructor, norm_layer,
                 activation_layer, group_width, bottleneck_multiplier, se_ratio=None,
                 stage_index=0):
        super().__init__()
        for i in range(depth):
            block = block_constructor(width_in if i == 0 else width_out, width_out,
                                      stride if i == 0 else 1, norm_layer, activation_layer,
                                      group_width, bottleneck_multiplier, se_ratio)
            self.add_module(f"block{stage_index}-{i}", block)


class BlockParams:
    """Per-stage depths, widths, group widths, bottleneck multipliers and strides."""

    def __init__(self, depths, widths, group_widths, bottleneck_multipliers, strides,
                 se_ratio=None):
        self.depths, self.widths, self.group_widths = depths, widths, group_widths
        self.bottleneck_multipliers, self.strides = bottleneck_multipliers, strides
        self.se_ratio = se_ratio

    @classmethod
    def from_init_params(cls, depth, w_0, w_a, w_m, group_width, bottleneck_multiplier=1.0,
                         se_ratio=None, **kwargs):
        """Generate the stages: block ``j`` would have width ``w_0 + w_a * j``; that width is
        snapped to ``w_0 * w_m**k`` (integer k) and to a multiple of 8, and runs of equal widths
        become stages. Computed in float32 tensors as torchvision does (same roundings)."""
        if w_a < 0 or w_0 <= 0 or w_m <= 1 or w_0 % 8 != 0:
            raise ValueError("Invalid RegNet settings")
        quant = 8
        widths_cont = _F["arange"](depth) * w_a + w_0
        capacity = _F["round"](_F["log"](widths_cont / w_0) / math.log(w_m))
        block_widths = (_F["round"](_F["divide"](w_0 * _F["pow"](w_m, capacity), quant))
                        * quant).int().tolist()
        num_stages = len(set(block_widths))
        # a stage starts wherever the width changes (the sentinel 0s close the last one)
        starts = [w != wp for w, wp in zip(block_widths + [0], [0] + block_widths)]
        stage_widths = [w for w, t in zip(block_widths, starts[:-1]) if t]
        boundaries = [d for d, t in enumerate(starts) if t]
        stage_depths = [b - a for a, b in zip(boundaries, boundaries[1:])]
        multipliers = [bottleneck_multiplier] * num_stages
        stage_widths, group_widths = cls._adjust_widths_groups_compatibilty(
            stage_widths, multipliers, [group_width] * num_stages)
        return cls(depths=stage_depths, widths=stage_widths, group_widths=group_widths,
                   bottleneck_multipliers=multipliers, strides=[2] * num_stages,
                   se_ratio=se_ratio)

    def _get_expanded_params(self):
        return zip(self.widths, self.strides, self.depths, self.group_widths,
                   self.bottleneck_multipliers)

    @staticmethod
    def _adjust_widths_groups_compatibilty(stage_widths, bottleneck_ratios, group_widths):
        """Make each bottleneck width a multiple of its group width (groups no wider than it)."""
        widths = [int(w * b) for w, b in zip(stage_widths, bottleneck_ratios)]
        group_widths_min = [min(g, w_bot) for g, w_bot in zip(group_widths, widths)]
        ws_bot = [make_divisible(w_bot, g) for w_bot, g in zip(widths, group_widths_min)]
        return [int(w_bot / b) for w_bot, b in zip(ws_bot, bottleneck_ratios)], group_widths_min


class RegNet(nn.Module):
    """Stem, the stages of ``block_params`` (``trunk_output``), average pool, linear head."""

    def __init__(self, block_params, num_classes=1000, stem_width=32, stem_type=None,
                 block_type=None, norm_layer=None, activation=None):
        super().__init__()
        stem_type = SimpleStemIN if stem_type is None else stem_type
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        block_type = ResBottleneckBlock if block_type is None else block_type
        activation = nn.ReLU if activation is None else activation
        self.stem = stem_type(3, stem_width, norm_layer, activation)
        width, blocks = stem_width, []
        for i, (width_out, stride, depth, group_width, multiplier) in \
                enumerate(block_params._get_expanded_params()):
            blocks.append((f"block{i + 1}", AnyStage(
                width, width_out, stride, depth, block_type, norm_layer, activation, group_width,
                multiplier, block_params.se_ratio, stage_index=i + 1)))
            width = width_out
        self.trunk_output = nn.Sequential(OrderedDict(blocks))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(in_features=width, out_features=num_classes)
        self._init_weights()

    def _init_weights(self):
        for m in self.modules():
            if isinstance(m, nn.Conv2d):       # He normal over the output fan
                fan_out = m.kernel_size[0] * m.kernel_size[1] * m.out_channels
                nn.init.normal_(m.weight, mean=0.0, std=math.sqrt(2.0 / fan_out))
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0.0, std=0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.avgpool(self.trunk_output(self.stem(x)))
        return self.fc(x.flatten(start_dim=1))


_URL = "https://download.pytorch.org/models/"
_SWAG_PRESET = {"interpolation": InterpolationMode.BICUBIC}


def _v1(file, num_params):
    return weights(_URL + file, num_params=num_params, min_size=(1, 1))


def _v2(file, num_params):
    return weights(_URL + file, resize=232, num_params=num_params, min_size=(1, 1))


def _swag(file, num_params, size):
    return weights(_URL + file, crop=size, resize=size, preset=_SWAG_PRESET,
                   num_params=num_params, min_size=(1, 1))


def _enum(name, file_v1, file_v2, num_params, swag=None):
    """A RegNet weights enum: IMAGENET1K_V1/V2 (DEFAULT: V2), plus the SWAG fine-tuned and
    linear-probe weights where ``swag`` names their two files."""
    members = {}
    if file_v1:
        members["IMAGENET1K_V1"] = _v1(file_v1, num_params)
        members["IMAGENET1K_V2"] = _v2(file_v2, num_params)
    if swag:
        members["IMAGENET1K_SWAG_E2E_V1"] = _swag(swag[0], num_params, 384)
        members["IMAGENET1K_SWAG_LINEAR_V1"] = _swag(swag[1], num_params, 224)
    default = "IMAGENET1K_V2" if file_v1 else "IMAGENET1K_SWAG_E2E_V1"
    members["DEFAULT"] = members[default]
    enum = WeightsEnum(name, members)
    enum.__module__ = __name__
    return enum


RegNet_Y_400MF_Weights = _enum("RegNet_Y_400MF_Weights", "regnet_y_400mf-c65dace8.pth",
                               "regnet_y_400mf-e6988f5f.pth", 4344144)
RegNet_Y_800MF_Weights = _enum("RegNet_Y_800MF_Weights", "regnet_y_800mf-1b27b58c.pth",
                               "regnet_y_800mf-58fc7688.pth", 6432512)
RegNet_Y_1_6GF_Weights = _enum("RegNet_Y_1_6GF_Weights", "regnet_y_1_6gf-b11a554e.pth",
                               "regnet_y_1_6gf-0d7bc02a.pth", 11202430)
RegNet_Y_3_2GF_Weights = _enum("RegNet_Y_3_2GF_Weights", "regnet_y_3_2gf-b5a9779c.pth",
                               "regnet_y_3_2gf-9180c971.pth", 19436338)
RegNet_Y_8GF_Weights = _enum("RegNet_Y_8GF_Weights", "regnet_y_8gf-d0d0e4a8.pth",
                             "regnet_y_8gf-dc2b1b54.pth", 39381472)
RegNet_Y_16GF_Weights = _enum("RegNet_Y_16GF_Weights", "regnet_y_16gf-9e6ed7dd.pth",
                              "regnet_y_16gf-3e4a00f9.pth", 83590140,
                              ("regnet_y_16gf_swag-43afe44d.pth",
                               "regnet_y_16gf_lc_swag-f3ec0043.pth"))
RegNet_Y_32GF_Weights = _enum("RegNet_Y_32GF_Weights", "regnet_y_32gf-4dee3f7a.pth",
                              "regnet_y_32gf-8db6d4b5.pth", 145046770,
                              ("regnet_y_32gf_swag-04fdfa75.pth",
                               "regnet_y_32gf_lc_swag-e1583746.pth"))
RegNet_Y_128GF_Weights = _enum("RegNet_Y_128GF_Weights", None, None, 644812894,
                               ("regnet_y_128gf_swag-c8ce3e52.pth",
                                "regnet_y_128gf_lc_swag-cbe8ce12.pth"))
RegNet_X_400MF_Weights = _enum("RegNet_X_400MF_Weights", "regnet_x_400mf-adf1edd5.pth",
                               "regnet_x_400mf-62229a5f.pth", 5495976)
RegNet_X_800MF_Weights = _enum("RegNet_X_800MF_Weights", "regnet_x_800mf-ad17e45c.pth",
                               "regnet_x_800mf-94a99ebd.pth", 7259656)
RegNet_X_1_6GF_Weights = _enum("RegNet_X_1_6GF_Weights", "regnet_x_1_6gf-e3633e7f.pth",
                               "regnet_x_1_6gf-a12f2b72.pth", 9190136)
RegNet_X_3_2GF_Weights = _enum("RegNet_X_3_2GF_Weights", "regnet_x_3_2gf-f342aeae.pth",
                               "regnet_x_3_2gf-7071aa85.pth", 15296552)
RegNet_X_8GF_Weights = _enum("RegNet_X_8GF_Weights", "regnet_x_8gf-03ceed89.pth",
                             "regnet_x_8gf-2b70d774.pth", 39572648)
RegNet_X_16GF_Weights = _enum("RegNet_X_16GF_Weights", "regnet_x_16gf-2007eb11.pth",
                              "regnet_x_16gf-ba3796d7.pth", 54278536)
RegNet_X_32GF_Weights = _enum("RegNet_X_32GF_Weights", "regnet_x_32gf-9d47f8d0.pth",
                              "regnet_x_32gf-6eb8fdc6.pth", 107811560)

# the design parameters of each model (Y models add squeeze-excitation, ratio 0.25)
_DESIGNS = {
    "Y_400MF": dict(depth=16, w_0=48, w_a=27.89, w_m=2.09, group_width=8),
    "Y_800MF": dict(depth=14, w_0=56, w_a=38.84, w_m=2.4, group_width=16),
    "Y_1_6GF": dict(depth=27, w_0=48, w_a=20.71, w_m=2.65, group_width=24),
    "Y_3_2GF": dict(depth=21, w_0=80, w_a=42.63, w_m=2.66, group_width=24),
    "Y_8GF": dict(depth=17, w_0=192, w_a=76.82, w_m=2.19, group_width=56),
    "Y_16GF": dict(depth=18, w_0=200, w_a=106.23, w_m=2.48, group_width=112),
    "Y_32GF": dict(depth=20, w_0=232, w_a=115.89, w_m=2.53, group_width=232),
    "Y_128GF": dict(depth=27, w_0=456, w_a=160.83, w_m=2.52, group_width=264),
    "X_400MF": dict(depth=22, w_0=24, w_a=24.48, w_m=2.54, group_width=16),
    "X_800MF": dict(depth=16, w_0=56, w_a=35.73, w_m=2.28, group_width=16),
    "X_1_6GF": dict(depth=18, w_0=80, w_a=34.01, w_m=2.25, group_width=24),
    "X_3_2GF": dict(depth=25, w_0=88, w_a=26.31, w_m=2.25, group_width=48),
    "X_8GF": dict(depth=23, w_0=80, w_a=49.56, w_m=2.88, group_width=120),
    "X_16GF": dict(depth=22, w_0=216, w_a=55.59, w_m=2.1, group_width=128),
    "X_32GF": dict(depth=23, w_0=320, w_a=69.86, w_m=2.0, group_width=168),
}


def _make_builder(size):
    name, enum = f"regnet_{size.lower()}", globals()[f"RegNet_{size}_Weights"]
    design = dict(_DESIGNS[size], **({"se_ratio": 0.25} if size.startswith("Y") else {}))

    def make(**kwargs):
        params = BlockParams.from_init_params(**design, **kwargs)
        kwargs.setdefault("norm_layer", partial(nn.BatchNorm2d, eps=1e-05, momentum=0.1))
        return RegNet(params, **kwargs)
    return make_builder(name, enum, make, f"RegNet {size}")


regnet_y_400mf = _make_builder("Y_400MF")
regnet_y_800mf = _make_builder("Y_800MF")
regnet_y_1_6gf = _make_builder("Y_1_6GF")
regnet_y_3_2gf = _make_builder("Y_3_2GF")
regnet_y_8gf = _make_builder("Y_8GF")
regnet_y_16gf = _make_builder("Y_16GF")
regnet_y_32gf = _make_builder("Y_32GF")
regnet_y_128gf = _make_builder("Y_128GF")
regnet_x_400mf = _make_builder("X_400MF")
regnet_x_800mf = _make_builder("X_800MF")
regnet_x_1_6gf = _make_builder("X_1_6GF")
regnet_x_3_2gf = _make_builder("X_3_2GF")
regnet_x_8gf = _make_builder("X_8GF")
regnet_x_16gf = _make_builder("X_16GF")
regnet_x_32gf = _make_builder("X_32GF")
