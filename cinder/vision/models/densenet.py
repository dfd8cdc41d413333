"""DenseNet 121/161/169/201 (Huang et al. 2016): every layer of a block sees the
concatenated outputs of all earlier layers."""

import re
from collections import OrderedDict
from functools import partial

from ... import nn
from ...nn import functional as F
from ...ops import FUNCTIONS as _F
from ._api import WeightsEnum, make_builder, weights

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201"]


class _DenseLayer(nn.Module):
    """BN-ReLU-1x1 conv (bottleneck to bn_size * growth) then BN-ReLU-3x3 conv (growth)."""

    def __init__(self, num_input_features, growth_rate, bn_size, drop_rate,
                 memory_efficient=False):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(num_input_features)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv1 = nn.Conv2d(num_input_features, bn_size * growth_rate, kernel_size=1,
                               stride=1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth_rate)
        self.relu2 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, stride=1,
                               padding=1, bias=False)
        self.drop_rate = float(drop_rate)
        # Kept for the API; cinder always computes directly (no activation checkpointing).
        self.memory_efficient = memory_efficient

    def bn_function(self, inputs):
        return self.conv1(self.relu1(self.norm1(_F["cat"](inputs, 1))))

    def forward(self, input):
        prev = [input] if not isinstance(input, (list, tuple)) else list(input)
        new = self.conv2(self.relu2(self.norm2(self.bn_function(prev))))
        if self.drop_rate > 0:
            new = F.dropout(new, p=self.drop_rate, training=self.training)
        return new


class _DenseBlock(nn.ModuleDict):
    _version = 2

    def __init__(self, num_layers, num_input_features, bn_size, growth_rate, drop_rate,
                 memory_efficient=False):
        super().__init__()
        for i in range(num_layers):
            self.add_module("denselayer%d" % (i + 1), _DenseLayer(
                num_input_features + i * growth_rate, growth_rate=growth_rate, bn_size=bn_size,
                drop_rate=drop_rate, memory_efficient=memory_efficient))

    def forward(self, init_features):
        features = [init_features]
        for _, layer in self.items():
            features.append(layer(features))
        return _F["cat"](features, 1)


class _Transition(nn.Sequential):
    """Between blocks: BN-ReLU-1x1 conv halving the channels, 2x2 average pool."""

    def __init__(self, num_input_features, num_output_features):
        super().__init__()
        self.norm = nn.BatchNorm2d(num_input_features)
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(num_input_features, num_output_features, kernel_size=1, stride=1,
                              bias=False)
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)


class DenseNet(nn.Module):
    def __init__(self, growth_rate=32, block_config=(6, 12, 24, 16), num_init_features=64,
                 bn_size=4, drop_rate=0, num_classes=1000, memory_efficient=False):
        super().__init__()
        self.features = nn.Sequential(OrderedDict([
            ("conv0", nn.Conv2d(3, num_init_features, kernel_size=7, stride=2, padding=3,
                                bias=False)),
            ("norm0", nn.BatchNorm2d(num_init_features)),
            ("relu0", nn.ReLU(inplace=True)),
            ("pool0", nn.MaxPool2d(kernel_size=3, stride=2, padding=1))]))
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            self.features.add_module("denseblock%d" % (i + 1), _DenseBlock(
                num_layers=num_layers, num_input_features=num_features, bn_size=bn_size,
                growth_rate=growth_rate, drop_rate=drop_rate, memory_efficient=memory_efficient))
            num_features += num_layers * growth_rate
            if i != len(block_config) - 1:
                self.features.add_module("transition%d" % (i + 1), _Transition(
                    num_input_features=num_features, num_output_features=num_features // 2))
                num_features //= 2
        self.features.add_module("norm5", nn.BatchNorm2d(num_features))
        self.classifier = nn.Linear(num_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                nn.init.constant_(m.bias, 0)

    def forward(self, x):
        out = F.adaptive_avg_pool2d(F.relu(self.features(x), inplace=True), (1, 1))
        return self.classifier(_F["flatten"](out, 1))


# Old checkpoints name a dense layer's parts 'norm.1', 'conv.2'...; today they are 'norm1'...
_OLD_KEY = re.compile(
    r"^(.*denselayer\d+\.(?:norm|relu|conv))\.((?:[12])\.(?:weight|bias|running_mean|running_var))$")


def _fix_keys(state_dict):
    for key in list(state_dict):
        match = _OLD_KEY.match(key)
        if match:
            state_dict[match.group(1) + match.group(2)] = state_dict.pop(key)
    return state_dict


_URL = "https://download.pytorch.org/models/"


def _w(name, num_params):
    return weights(_URL + name, num_params=num_params, min_size=(29, 29))


class DenseNet121_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("densenet121-a639ec97.pth", 7978856)
    DEFAULT = IMAGENET1K_V1


class DenseNet161_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("densenet161-8d451a50.pth", 28681000)
    DEFAULT = IMAGENET1K_V1


class DenseNet169_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("densenet169-b2777c0a.pth", 14149480)
    DEFAULT = IMAGENET1K_V1


class DenseNet201_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("densenet201-c1103571.pth", 20013928)
    DEFAULT = IMAGENET1K_V1


def _dense_builder(name, enum, growth_rate, block_config, num_init_features):
    return make_builder(name, enum,
                        partial(DenseNet, growth_rate, block_config, num_init_features),
                        f"DenseNet with growth {growth_rate} and blocks {block_config}",
                        fix_keys=_fix_keys)


densenet121 = _dense_builder("densenet121", DenseNet121_Weights, 32, (6, 12, 24, 16), 64)
densenet161 = _dense_builder("densenet161", DenseNet161_Weights, 48, (6, 12, 36, 24), 96)
densenet169 = _dense_builder("densenet169", DenseNet169_Weights, 32, (6, 12, 32, 32), 64)
densenet201 = _dense_builder("densenet201", DenseNet201_Weights, 32, (6, 12, 48, 32), 64)
