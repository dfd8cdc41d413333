"""SqueezeNet 1.0 and 1.1 (Iandola et al. 2016): Fire modules of 1x1 squeeze, then parallel
1x1 and 3x3 expansions."""

from ... import nn
from ...ops import FUNCTIONS as _F
from functools import partial

from ._api import WeightsEnum, make_builder, weights

__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1"]


class Fire(nn.Module):
    def __init__(self, inplanes, squeeze_planes, expand1x1_planes, expand3x3_planes):
        super().__init__()
        self.inplanes = inplanes
        self.squeeze = nn.Conv2d(inplanes, squeeze_planes, kernel_size=1)
        self.squeeze_activation = nn.ReLU(inplace=True)
        self.expand1x1 = nn.Conv2d(squeeze_planes, expand1x1_planes, kernel_size=1)
        self.expand1x1_activation = nn.ReLU(inplace=True)
        self.expand3x3 = nn.Conv2d(squeeze_planes, expand3x3_planes, kernel_size=3, padding=1)
        self.expand3x3_activation = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.squeeze_activation(self.squeeze(x))
        return _F["cat"]([self.expand1x1_activation(self.expand1x1(x)),
                          self.expand3x3_activation(self.expand3x3(x))], 1)


def _pool():
    return nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)


# (squeeze, expand) widths of the Fire modules; "M" is a max pool.
_FIRES = {
    "1_0": [(16, 64), (16, 64), (32, 128), "M", (32, 128), (48, 192), (48, 192), (64, 256), "M",
            (64, 256)],
    "1_1": [(16, 64), (16, 64), "M", (32, 128), (32, 128), "M", (48, 192), (48, 192), (64, 256),
            (64, 256)],
}


class SqueezeNet(nn.Module):
    def __init__(self, version="1_0", num_classes=1000, dropout=0.5):
        super().__init__()
        self.num_classes = num_classes
        if version not in _FIRES:
            raise ValueError(f"Unsupported SqueezeNet version {version}: 1_0 or 1_1 expected")
        stem = nn.Conv2d(3, 96, kernel_size=7, stride=2) if version == "1_0" \
            else nn.Conv2d(3, 64, kernel_size=3, stride=2)
        layers, channels = [stem, nn.ReLU(inplace=True), _pool()], stem.out_channels
        for item in _FIRES[version]:
            if item == "M":
                layers.append(_pool())
                continue
            squeeze, expand = item
            layers.append(Fire(channels, squeeze, expand, expand))
            channels = 2 * expand
        self.features = nn.Sequential(*layers)
        final_conv = nn.Conv2d(512, self.num_classes, kernel_size=1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), final_conv,
                                        nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d((1, 1)))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                if m is final_conv:       # the classifier conv starts small
                    nn.init.normal_(m.weight, mean=0.0, std=0.01)
                else:
                    nn.init.kaiming_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)

    def forward(self, x):
        return _F["flatten"](self.classifier(self.features(x)), 1)


_URL = "https://download.pytorch.org/models/"


class SqueezeNet1_0_Weights(WeightsEnum):
    IMAGENET1K_V1 = weights(_URL + "squeezenet1_0-b66bff10.pth", min_size=(21, 21),
                            num_params=1248424)
    DEFAULT = IMAGENET1K_V1


class SqueezeNet1_1_Weights(WeightsEnum):
    IMAGENET1K_V1 = weights(_URL + "squeezenet1_1-b8a52dc0.pth", min_size=(17, 17),
                            num_params=1235496)
    DEFAULT = IMAGENET1K_V1


def _squeeze_builder(name, version, enum):
    return make_builder(name, enum, partial(SqueezeNet, version), f"SqueezeNet {version}")


squeezenet1_0 = _squeeze_builder("squeezenet1_0", "1_0", SqueezeNet1_0_Weights)
squeezenet1_1 = _squeeze_builder("squeezenet1_1", "1_1", SqueezeNet1_1_Weights)
