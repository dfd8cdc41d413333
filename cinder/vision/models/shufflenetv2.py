"""ShuffleNetV2 (Ma et al. 2018): split channels, transform one half, concatenate and shuffle."""

from functools import partial

from ... import nn
from ...ops import FUNCTIONS as _F
from ._api import WeightsEnum, make_builder, weights

__all__ = ["ShuffleNetV2", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5",
           "shufflenet_v2_x2_0"]


def channel_shuffle(x, groups):
    """Interleave the channels of ``groups`` groups, so information crosses the halves."""
    batchsize, num_channels, height, width = x.size()
    x = x.view(batchsize, groups, num_channels // groups, height, width)
    x = _F["transpose"](x, 1, 2).contiguous()
    return x.view(batchsize, num_channels, height, width)


def _depthwise(i, o, kernel_size, stride=1, padding=0, bias=False):
    return nn.Conv2d(i, o, kernel_size, stride, padding, bias=bias, groups=i)


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride):
        super().__init__()
        if not 1 <= stride <= 3:
            raise ValueError("illegal stride value")
        self.stride = stride
        branch = oup // 2
        if self.stride == 1 and inp != branch << 1:
            raise ValueError(f"Invalid combination of stride {stride}, inp {inp} and oup {oup} "
                             "values. If stride == 1 then inp should be equal to oup // 2 << 1.")
        if self.stride > 1:
            self.branch1 = nn.Sequential(
                _depthwise(inp, inp, kernel_size=3, stride=self.stride, padding=1),
                nn.BatchNorm2d(inp),
                nn.Conv2d(inp, branch, kernel_size=1, stride=1, padding=0, bias=False),
                nn.BatchNorm2d(branch), nn.ReLU(inplace=True))
        else:
            self.branch1 = nn.Sequential()
        self.branch2 = nn.Sequential(
            nn.Conv2d(inp if self.stride > 1 else branch, branch, kernel_size=1, stride=1,
                      padding=0, bias=False),
            nn.BatchNorm2d(branch), nn.ReLU(inplace=True),
            _depthwise(branch, branch, kernel_size=3, stride=self.stride, padding=1),
            nn.BatchNorm2d(branch),
            nn.Conv2d(branch, branch, kernel_size=1, stride=1, padding=0, bias=False),
            nn.BatchNorm2d(branch), nn.ReLU(inplace=True))

    depthwise_conv = staticmethod(_depthwise)

    def forward(self, x):
        if self.stride == 1:
            x1, x2 = x.chunk(2, dim=1)
            out = _F["cat"]((x1, self.branch2(x2)), dim=1)
        else:
            out = _F["cat"]((self.branch1(x), self.branch2(x)), dim=1)
        return channel_shuffle(out, 2)


class ShuffleNetV2(nn.Module):
    def __init__(self, stages_repeats, stages_out_channels, num_classes=1000,
                 inverted_residual=InvertedResidual):
        super().__init__()
        if len(stages_repeats) != 3:
            raise ValueError("expected stages_repeats as list of 3 positive ints")
        if len(stages_out_channels) != 5:
            raise ValueError("expected stages_out_channels as list of 5 positive ints")
        self._stage_out_channels = stages_out_channels
        channels = stages_out_channels[0]
        self.conv1 = nn.Sequential(nn.Conv2d(3, channels, 3, 2, 1, bias=False),
                                   nn.BatchNorm2d(channels), nn.ReLU(inplace=True))
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        for name, repeats, out in zip(["stage2", "stage3", "stage4"], stages_repeats,
                                      stages_out_channels[1:]):
            blocks = [inverted_residual(channels, out, 2)]
            blocks += [inverted_residual(out, out, 1) for _ in range(repeats - 1)]
            setattr(self, name, nn.Sequential(*blocks))
            channels = out
        out = stages_out_channels[-1]
        self.conv5 = nn.Sequential(nn.Conv2d(channels, out, 1, 1, 0, bias=False),
                                   nn.BatchNorm2d(out), nn.ReLU(inplace=True))
        self.fc = nn.Linear(out, num_classes)

    def _forward_impl(self, x):
        x = self.maxpool(self.conv1(x))
        x = self.conv5(self.stage4(self.stage3(self.stage2(x))))
        return self.fc(x.mean([2, 3]))          # global average pool

    def forward(self, x):
        return self._forward_impl(x)


_URL = "https://download.pytorch.org/models/"


def _w(name, num_params, resize=256):
    return weights(_URL + name, resize=resize, num_params=num_params, min_size=(1, 1))


class ShuffleNet_V2_X0_5_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("shufflenetv2_x0.5-f707e7126e.pth", 1366792)
    DEFAULT = IMAGENET1K_V1


class ShuffleNet_V2_X1_0_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("shufflenetv2_x1-5666bf0f80.pth", 2278604)
    DEFAULT = IMAGENET1K_V1


class ShuffleNet_V2_X1_5_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("shufflenetv2_x1_5-3c479a10.pth", 3503624, resize=232)
    DEFAULT = IMAGENET1K_V1


class ShuffleNet_V2_X2_0_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("shufflenetv2_x2_0-8be3c8ee.pth", 7393996, resize=232)
    DEFAULT = IMAGENET1K_V1


def _shuffle_builder(name, enum, channels):
    return make_builder(name, enum, partial(ShuffleNetV2, [4, 8, 4], channels),
                        f"ShuffleNetV2 with stage widths {channels}")


shufflenet_v2_x0_5 = _shuffle_builder("shufflenet_v2_x0_5", ShuffleNet_V2_X0_5_Weights,
                                      [24, 48, 96, 192, 1024])
shufflenet_v2_x1_0 = _shuffle_builder("shufflenet_v2_x1_0", ShuffleNet_V2_X1_0_Weights,
                                      [24, 116, 232, 464, 1024])
shufflenet_v2_x1_5 = _shuffle_builder("shufflenet_v2_x1_5", ShuffleNet_V2_X1_5_Weights,
                                      [24, 176, 352, 704, 1024])
shufflenet_v2_x2_0 = _shuffle_builder("shufflenet_v2_x2_0", ShuffleNet_V2_X2_0_Weights,
                                      [24, 244, 488, 976, 2048])
