"""VGG 11/13/16/19, with or without batch norm (Simonyan & Zisserman 2014)."""

from ... import nn
from ...ops import FUNCTIONS as _F
from ._api import WeightsEnum, make_builder, weights

__all__ = ["VGG", "vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19",
           "vgg19_bn"]


class VGG(nn.Module):
    def __init__(self, features, num_classes=1000, init_weights=True, dropout=0.5):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes))
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.constant_(m.bias, 0)

    def forward(self, x):
        x = _F["flatten"](self.avgpool(self.features(x)), 1)
        return self.classifier(x)


def make_layers(cfg, batch_norm=False):
    """Convs (3x3, padding 1) for numbers, 2x2 max pools for 'M'."""
    layers, in_channels = [], 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            continue
        conv = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)
        layers += [conv, nn.BatchNorm2d(v), nn.ReLU(inplace=True)] if batch_norm \
            else [conv, nn.ReLU(inplace=True)]
        in_channels = v
    return nn.Sequential(*layers)


cfgs = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512,
          "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512,
          512, 512, 512, "M"],
}

_URL = "https://download.pytorch.org/models/"


def _w(name, num_params):
    return weights(_URL + name, num_params=num_params, min_size=(32, 32))


class VGG11_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg11-8a719046.pth", 132863336)
    DEFAULT = IMAGENET1K_V1


class VGG11_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg11_bn-6002323d.pth", 132868840)
    DEFAULT = IMAGENET1K_V1


class VGG13_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg13-19584684.pth", 133047848)
    DEFAULT = IMAGENET1K_V1


class VGG13_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg13_bn-abd245e5.pth", 133053736)
    DEFAULT = IMAGENET1K_V1


class VGG16_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg16-397923af.pth", 138357544)
    # The feature extractor ported from SSD: no classifier classes, its own mean and a std
    # that only rescales to 0-255.
    IMAGENET1K_FEATURES = weights(
        _URL + "vgg16_features-amdegroot-88682ab5.pth", num_params=138357544, min_size=(32, 32),
        preset={"mean": (0.48235, 0.45882, 0.40784), "std": (1.0 / 255.0,) * 3})
    DEFAULT = IMAGENET1K_V1


class VGG16_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg16_bn-6c64b313.pth", 138365992)
    DEFAULT = IMAGENET1K_V1


class VGG19_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg19-dcbb9e9d.pth", 143667240)
    DEFAULT = IMAGENET1K_V1


class VGG19_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("vgg19_bn-c79401a0.pth", 143678248)
    DEFAULT = IMAGENET1K_V1


def _vgg_builder(name, cfg, batch_norm, enum):
    def make(**kwargs):
        return VGG(make_layers(cfgs[cfg], batch_norm=batch_norm), **kwargs)
    return make_builder(name, enum, make, f"VGG configuration '{cfg}'",
                        when_weighted={"init_weights": False})


vgg11 = _vgg_builder("vgg11", "A", False, VGG11_Weights)
vgg11_bn = _vgg_builder("vgg11_bn", "A", True, VGG11_BN_Weights)
vgg13 = _vgg_builder("vgg13", "B", False, VGG13_Weights)
vgg13_bn = _vgg_builder("vgg13_bn", "B", True, VGG13_BN_Weights)
vgg16 = _vgg_builder("vgg16", "D", False, VGG16_Weights)
vgg16_bn = _vgg_builder("vgg16_bn", "D", True, VGG16_BN_Weights)
vgg19 = _vgg_builder("vgg19", "E", False, VGG19_Weights)
vgg19_bn = _vgg_builder("vgg19_bn", "E", True, VGG19_BN_Weights)
