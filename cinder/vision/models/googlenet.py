"""GoogLeNet, Inception v1 (Szegedy et al. 2014), with its two auxiliary classifiers."""

import warnings
from collections import namedtuple

from ... import nn
from ...nn import functional as F
from ...ops import FUNCTIONS as _F
from ._api import WeightsEnum, build_with_aux_heads, builder, handle_legacy, weights

__all__ = ["GoogLeNet", "GoogLeNetOutputs", "_GoogLeNetOutputs", "GoogLeNet_Weights",
           "googlenet"]

GoogLeNetOutputs = namedtuple("GoogLeNetOutputs", ["logits", "aux_logits2", "aux_logits1"])
_GoogLeNetOutputs = GoogLeNetOutputs


def _truncated_normal_init(model, default_std):
    """torchvision's init of GoogLeNet and Inception v3: conv and linear weights from a normal
    truncated to [-2, 2], of std ``default_std`` unless the layer carries its own ``stddev``;
    batch norms at weight 1, bias 0."""
    for m in model.modules():
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            std = float(getattr(m, "stddev", default_std))
            nn.init.trunc_normal_(m.weight, mean=0.0, std=std, a=-2, b=2)
        elif isinstance(m, nn.BatchNorm2d):
            nn.init.constant_(m.weight, 1)
            nn.init.constant_(m.bias, 0)


def _renormalize_input(x):
    """Inputs normalised for ImageNet, re-normalised to the mean-0.5, std-0.5 scaling the
    ported weights expect (``transform_input=True``)."""
    mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    chans = [_F["unsqueeze"](x[:, c], 1) * (std[c] / 0.5) + (mean[c] - 0.5) / 0.5
             for c in range(3)]
    return _F["cat"](chans, 1)


class BasicConv2d(nn.Module):
    """Conv (no bias), batch norm (eps 0.001), ReLU."""

    def __init__(self, in_channels, out_channels, **kwargs):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, bias=False, **kwargs)
        self.bn = nn.BatchNorm2d(out_channels, eps=0.001)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)), inplace=True)


class Inception(nn.Module):
    """Four parallel branches: 1x1; 1x1 then 3x3; 1x1 then 3x3 (torchvision's "5x5");
    3x3 max pool then 1x1 — concatenated along channels."""

    def __init__(self, in_channels, ch1x1, ch3x3red, ch3x3, ch5x5red, ch5x5, pool_proj,
                 conv_block=None):
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.branch1 = conv(in_channels, ch1x1, kernel_size=1)
        self.branch2 = nn.Sequential(conv(in_channels, ch3x3red, kernel_size=1),
                                     conv(ch3x3red, ch3x3, kernel_size=3, padding=1))
        self.branch3 = nn.Sequential(conv(in_channels, ch5x5red, kernel_size=1),
                                     conv(ch5x5red, ch5x5, kernel_size=3, padding=1))
        self.branch4 = nn.Sequential(nn.MaxPool2d(kernel_size=3, stride=1, padding=1,
                                                  ceil_mode=True),
                                     conv(in_channels, pool_proj, kernel_size=1))

    def _forward(self, x):
        return [self.branch1(x), self.branch2(x), self.branch3(x), self.branch4(x)]

    def forward(self, x):
        return _F["cat"](self._forward(x), 1)


class InceptionAux(nn.Module):
    """An auxiliary classifier on an intermediate feature map (training only)."""

    def __init__(self, in_channels, num_classes, conv_block=None, dropout=0.7):
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.conv = conv(in_channels, 128, kernel_size=1)
        self.fc1 = nn.Linear(2048, 1024)
        self.fc2 = nn.Linear(1024, num_classes)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, x):
        x = _F["flatten"](self.conv(F.adaptive_avg_pool2d(x, (4, 4))), 1)
        return self.fc2(self.dropout(F.relu(self.fc1(x), inplace=True)))


# in, 1x1, 3x3 reduce, 3x3, "5x5" reduce, "5x5", pool projection
_BLOCKS = {"3a": (192, 64, 96, 128, 16, 32, 32), "3b": (256, 128, 128, 192, 32, 96, 64),
           "4a": (480, 192, 96, 208, 16, 48, 64), "4b": (512, 160, 112, 224, 24, 64, 64),
           "4c": (512, 128, 128, 256, 24, 64, 64), "4d": (512, 112, 144, 288, 32, 64, 64),
           "4e": (528, 256, 160, 320, 32, 128, 128), "5a": (832, 256, 160, 320, 32, 128, 128),
           "5b": (832, 384, 192, 384, 48, 128, 128)}


class GoogLeNet(nn.Module):
    __constants__ = ["aux_logits", "transform_input"]

    def __init__(self, num_classes=1000, aux_logits=True, transform_input=False,
                 init_weights=None, blocks=None, dropout=0.2, dropout_aux=0.7):
        super().__init__()
        blocks = [BasicConv2d, Inception, InceptionAux] if blocks is None else blocks
        if init_weights is None:
            warnings.warn("The default weight initialization of GoogleNet will be changed in "
                          "future releases of torchvision. If you wish to keep the old behavior "
                          "(which leads to long initialization times due to scipy/scipy#11299), "
                          "please set init_weights=True.", FutureWarning, stacklevel=2)
            init_weights = True
        if len(blocks) != 3:
            raise ValueError(f"blocks length should be 3 instead of {len(blocks)}")
        conv, inception, aux = blocks
        self.aux_logits, self.transform_input = aux_logits, transform_input
        self.conv1 = conv(3, 64, kernel_size=7, stride=2, padding=3)
        self.maxpool1 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.conv2 = conv(64, 64, kernel_size=1)
        self.conv3 = conv(64, 192, kernel_size=3, padding=1)
        self.maxpool2 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        for name in ("3a", "3b"):
            setattr(self, "inception" + name, inception(*_BLOCKS[name]))
        self.maxpool3 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        for name in ("4a", "4b", "4c", "4d", "4e"):
            setattr(self, "inception" + name, inception(*_BLOCKS[name]))
        self.maxpool4 = nn.MaxPool2d(2, stride=2, ceil_mode=True)
        for name in ("5a", "5b"):
            setattr(self, "inception" + name, inception(*_BLOCKS[name]))
        if aux_logits:
            self.aux1 = aux(512, num_classes, dropout=dropout_aux)
            self.aux2 = aux(528, num_classes, dropout=dropout_aux)
        else:
            self.aux1 = self.aux2 = None
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(p=dropout)
        self.fc = nn.Linear(1024, num_classes)
        if init_weights:
            _truncated_normal_init(self, 0.01)

    def _transform_input(self, x):
        return _renormalize_input(x) if self.transform_input else x

    def _forward(self, x):
        x = self.maxpool1(self.conv1(x))
        x = self.maxpool2(self.conv3(self.conv2(x)))
        x = self.maxpool3(self.inception3b(self.inception3a(x)))
        x = self.inception4a(x)
        aux1 = self.aux1(x) if self.aux1 is not None and self.training else None
        x = self.inception4d(self.inception4c(self.inception4b(x)))
        aux2 = self.aux2(x) if self.aux2 is not None and self.training else None
        x = self.maxpool4(self.inception4e(x))
        x = self.avgpool(self.inception5b(self.inception5a(x)))
        return self.fc(self.dropout(_F["flatten"](x, 1))), aux2, aux1

    def eager_outputs(self, x, aux2, aux1):
        if self.training and self.aux_logits:
            return _GoogLeNetOutputs(x, aux2, aux1)
        return x

    def forward(self, x):
        x, aux2, aux1 = self._forward(self._transform_input(x))
        return self.eager_outputs(x, aux2, aux1)


class GoogLeNet_Weights(WeightsEnum):
    IMAGENET1K_V1 = weights("https://download.pytorch.org/models/googlenet-1378be20.pth",
                            num_params=6624904, min_size=(15, 15))
    DEFAULT = IMAGENET1K_V1


@builder("googlenet", GoogLeNet_Weights)
def googlenet(*, weights=None, progress=True, **kwargs):
    """GoogLeNet; ``weights`` takes GoogLeNet_Weights values (the auxiliary heads are then
    dropped unless ``aux_logits=True``: they were not trained)."""
    weights = handle_legacy(GoogLeNet_Weights, weights, kwargs)
    original_aux_logits = kwargs.get("aux_logits", False)
    model = build_with_aux_heads(GoogLeNet, weights, progress, kwargs)
    if weights is not None:
        if not original_aux_logits:
            model.aux_logits = False
            model.aux1 = model.aux2 = None
        else:
            warnings.warn("auxiliary heads in the pretrained googlenet model are NOT pretrained, "
                          "so make sure to train them", stacklevel=2)
    return model
