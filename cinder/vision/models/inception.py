"""Inception v3 (Szegedy et al. 2015): factorised convolutions (1xn then nx1), grid-size
reduction blocks, and one auxiliary classifier on the 17x17 grid."""

import warnings
from collections import namedtuple

from ... import nn
from ...nn import functional as F
from ...ops import FUNCTIONS as _F
from ._api import WeightsEnum, build_with_aux_heads, builder, handle_legacy, weights
from .googlenet import BasicConv2d, _renormalize_input, _truncated_normal_init

__all__ = ["Inception3", "InceptionOutputs", "_InceptionOutputs", "Inception_V3_Weights",
           "inception_v3"]

InceptionOutputs = namedtuple("InceptionOutputs", ["logits", "aux_logits"])
_InceptionOutputs = InceptionOutputs


def _cat(branches):
    return _F["cat"](branches, 1)


def _avg3(x):
    """The 3x3 stride-1 average pool in front of each block's pool projection."""
    return F.avg_pool2d(x, kernel_size=3, stride=1, padding=1)


class InceptionA(nn.Module):
    """35x35 block: 1x1, 1x1 -> 5x5, 1x1 -> 3x3 -> 3x3, avg pool -> 1x1."""

    def __init__(self, in_channels, pool_features, conv_block=None):
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.branch1x1 = conv(in_channels, 64, kernel_size=1)
        self.branch5x5_1 = conv(in_channels, 48, kernel_size=1)
        self.branch5x5_2 = conv(48, 64, kernel_size=5, padding=2)
        self.branch3x3dbl_1 = conv(in_channels, 64, kernel_size=1)
        self.branch3x3dbl_2 = conv(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = conv(96, 96, kernel_size=3, padding=1)
        self.branch_pool = conv(in_channels, pool_features, kernel_size=1)

    def _forward(self, x):
        b5 = self.branch5x5_2(self.branch5x5_1(x))
        b3 = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        return [self.branch1x1(x), b5, b3, self.branch_pool(_avg3(x))]

    def forward(self, x):
        return _cat(self._forward(x))


class InceptionB(nn.Module):
    """35x35 -> 17x17 reduction: strided 3x3, 1x1 -> 3x3 -> strided 3x3, max pool."""

    def __init__(self, in_channels, conv_block=None):
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.branch3x3 = conv(in_channels, 384, kernel_size=3, stride=2)
        self.branch3x3dbl_1 = conv(in_channels, 64, kernel_size=1)
        self.branch3x3dbl_2 = conv(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = conv(96, 96, kernel_size=3, stride=2)

    def _forward(self, x):
        b3 = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        return [self.branch3x3(x), b3, F.max_pool2d(x, kernel_size=3, stride=2)]

    def forward(self, x):
        return _cat(self._forward(x))


class InceptionC(nn.Module):
    """17x17 block with 7x7 convolutions factorised into 1x7 and 7x1."""

    def __init__(self, in_channels, channels_7x7, conv_block=None):
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        c7 = channels_7x7
        row, col = dict(kernel_size=(1, 7), padding=(0, 3)), dict(kernel_size=(7, 1),
                                                                  padding=(3, 0))
        self.branch1x1 = conv(in_channels, 192, kernel_size=1)
        self.branch7x7_1 = conv(in_channels, c7, kernel_size=1)
        self.branch7x7_2 = conv(c7, c7, **row)
        self.branch7x7_3 = conv(c7, 192, **col)
        self.branch7x7dbl_1 = conv(in_channels, c7, kernel_size=1)
        self.branch7x7dbl_2 = conv(c7, c7, **col)
        self.branch7x7dbl_3 = conv(c7, c7, **row)
        self.branch7x7dbl_4 = conv(c7, c7, **col)
        self.branch7x7dbl_5 = conv(c7, 192, **row)
        self.branch_pool = conv(in_channels, 192, kernel_size=1)

    def _forward(self, x):
        b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        d = self.branch7x7dbl_1(x)
        for layer in (self.branch7x7dbl_2, self.branch7x7dbl_3, self.branch7x7dbl_4,
                      self.branch7x7dbl_5):
            d = layer(d)
        return [self.branch1x1(x), b7, d, self.branch_pool(_avg3(x))]

    def forward(self, x):
        return _cat(self._forward(x))


class InceptionD(nn.Module):
    """17x17 -> 8x8 reduction."""

    def __init__(self, in_channels, conv_block=None):
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.branch3x3_1 = conv(in_channels, 192, kernel_size=1)
        self.branch3x3_2 = conv(192, 320, kernel_size=3, stride=2)
        self.branch7x7x3_1 = conv(in_channels, 192, kernel_size=1)
        self.branch7x7x3_2 = conv(192, 192, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7x3_3 = conv(192, 192, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7x3_4 = conv(192, 192, kernel_size=3, stride=2)

    def _forward(self, x):
        b3 = self.branch3x3_2(self.branch3x3_1(x))
        b7 = x
        for layer in (self.branch7x7x3_1, self.branch7x7x3_2, self.branch7x7x3_3,
                      self.branch7x7x3_4):
            b7 = layer(b7)
        return [b3, b7, F.max_pool2d(x, kernel_size=3, stride=2)]

    def forward(self, x):
        return _cat(self._forward(x))


class InceptionE(nn.Module):
    """8x8 block whose 3x3 branches split into parallel 1x3 and 3x1 convolutions."""

    def __init__(self, in_channels, conv_block=None):
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        row, col = dict(kernel_size=(1, 3), padding=(0, 1)), dict(kernel_size=(3, 1),
                                                                  padding=(1, 0))
        self.branch1x1 = conv(in_channels, 320, kernel_size=1)
        self.branch3x3_1 = conv(in_channels, 384, kernel_size=1)
        self.branch3x3_2a = conv(384, 384, **row)
        self.branch3x3_2b = conv(384, 384, **col)
        self.branch3x3dbl_1 = conv(in_channels, 448, kernel_size=1)
        self.branch3x3dbl_2 = conv(448, 384, kernel_size=3, padding=1)
        self.branch3x3dbl_3a = conv(384, 384, **row)
        self.branch3x3dbl_3b = conv(384, 384, **col)
        self.branch_pool = conv(in_channels, 192, kernel_size=1)

    def _forward(self, x):
        b3 = self.branch3x3_1(x)
        b3 = _cat([self.branch3x3_2a(b3), self.branch3x3_2b(b3)])
        d = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        d = _cat([self.branch3x3dbl_3a(d), self.branch3x3dbl_3b(d)])
        return [self.branch1x1(x), b3, d, self.branch_pool(_avg3(x))]

    def forward(self, x):
        return _cat(self._forward(x))


class InceptionAux(nn.Module):
    """The auxiliary classifier on Mixed_6e's output (used in training only)."""

    def __init__(self, in_channels, num_classes, conv_block=None):
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.conv0 = conv(in_channels, 128, kernel_size=1)
        self.conv1 = conv(128, 768, kernel_size=5)
        self.conv1.stddev = 0.01        # read by Inception3's init (as torchvision)
        self.fc = nn.Linear(768, num_classes)
        self.fc.stddev = 0.001

    def forward(self, x):
        x = self.conv1(self.conv0(F.avg_pool2d(x, kernel_size=5, stride=3)))
        return self.fc(_F["flatten"](F.adaptive_avg_pool2d(x, (1, 1)), 1))


class Inception3(nn.Module):
    """Inception v3 for 299x299 inputs; returns InceptionOutputs(logits, aux_logits) in
    training mode when ``aux_logits`` is on, the logits otherwise."""

    def __init__(self, num_classes=1000, aux_logits=True, transform_input=False,
                 inception_blocks=None, init_weights=None, dropout=0.5):
        super().__init__()
        if inception_blocks is None:
            inception_blocks = [BasicConv2d, InceptionA, InceptionB, InceptionC, InceptionD,
                                InceptionE, InceptionAux]
        if init_weights is None:
            warnings.warn("The default weight initialization of inception_v3 will be changed in "
                          "future releases of torchvision. If you wish to keep the old behavior "
                          "(which leads to long initialization times due to scipy/scipy#11299), "
                          "please set init_weights=True.", FutureWarning, stacklevel=2)
            init_weights = True
        if len(inception_blocks) != 7:
            raise ValueError("length of inception_blocks should be 7 instead of "
                             f"{len(inception_blocks)}")
        conv, block_a, block_b, block_c, block_d, block_e, aux = inception_blocks
        self.aux_logits, self.transform_input = aux_logits, transform_input
        self.Conv2d_1a_3x3 = conv(3, 32, kernel_size=3, stride=2)
        self.Conv2d_2a_3x3 = conv(32, 32, kernel_size=3)
        self.Conv2d_2b_3x3 = conv(32, 64, kernel_size=3, padding=1)
        self.maxpool1 = nn.MaxPool2d(kernel_size=3, stride=2)
        self.Conv2d_3b_1x1 = conv(64, 80, kernel_size=1)
        self.Conv2d_4a_3x3 = conv(80, 192, kernel_size=3)
        self.maxpool2 = nn.MaxPool2d(kernel_size=3, stride=2)
        self.Mixed_5b = block_a(192, pool_features=32)
        self.Mixed_5c = block_a(256, pool_features=64)
        self.Mixed_5d = block_a(288, pool_features=64)
        self.Mixed_6a = block_b(288)
        self.Mixed_6b = block_c(768, channels_7x7=128)
        self.Mixed_6c = block_c(768, channels_7x7=160)
        self.Mixed_6d = block_c(768, channels_7x7=160)
        self.Mixed_6e = block_c(768, channels_7x7=192)
        self.AuxLogits = aux(768, num_classes) if aux_logits else None
        self.Mixed_7a = block_d(768)
        self.Mixed_7b = block_e(1280)
        self.Mixed_7c = block_e(2048)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(p=dropout)
        self.fc = nn.Linear(2048, num_classes)
        if init_weights:
            _truncated_normal_init(self, 0.1)   # the aux head's layers carry their own stddev

    def _transform_input(self, x):
        return _renormalize_input(x) if self.transform_input else x

    def _forward(self, x):
        for name in ("Conv2d_1a_3x3", "Conv2d_2a_3x3", "Conv2d_2b_3x3", "maxpool1",
                     "Conv2d_3b_1x1", "Conv2d_4a_3x3", "maxpool2", "Mixed_5b", "Mixed_5c",
                     "Mixed_5d", "Mixed_6a", "Mixed_6b", "Mixed_6c", "Mixed_6d", "Mixed_6e"):
            x = getattr(self, name)(x)
        aux = self.AuxLogits(x) if self.AuxLogits is not None and self.training else None
        x = self.avgpool(self.Mixed_7c(self.Mixed_7b(self.Mixed_7a(x))))
        return self.fc(_F["flatten"](self.dropout(x), 1)), aux

    def eager_outputs(self, x, aux):
        if self.training and self.aux_logits:
            return InceptionOutputs(x, aux)
        return x

    def forward(self, x):
        x, aux = self._forward(self._transform_input(x))
        return self.eager_outputs(x, aux)


class Inception_V3_Weights(WeightsEnum):
    IMAGENET1K_V1 = weights("https://download.pytorch.org/models/inception_v3_google-0cc3c7bd.pth",
                            crop=299, resize=342, num_params=27161264, min_size=(75, 75))
    DEFAULT = IMAGENET1K_V1


@builder("inception_v3", Inception_V3_Weights)
def inception_v3(*, weights=None, progress=True, **kwargs):
    """Inception v3; ``weights`` takes Inception_V3_Weights values (the auxiliary head is
    loaded, then dropped unless ``aux_logits=True``)."""
    weights = handle_legacy(Inception_V3_Weights, weights, kwargs)
    original_aux_logits = kwargs.get("aux_logits", True)
    model = build_with_aux_heads(Inception3, weights, progress, kwargs)
    if weights is not None and not original_aux_logits:
        model.aux_logits = False
        model.AuxLogits = None
    return model
