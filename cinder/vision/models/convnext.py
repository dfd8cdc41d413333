"""ConvNeXt (Liu et al. 2022): a ResNet modernised after vision transformers — patchify stem,
7x7 depthwise convolutions, LayerNorm, inverted MLPs with GELU and a learnt per-channel layer
scale on each residual branch."""

from collections.abc import Sequence
from functools import partial

from ... import nn
from ...nn import functional as F
from ...ops import FUNCTIONS as _F
from ..ops.misc import Conv2dNormActivation, Permute, StochasticDepth
from ._api import WeightsEnum, make_builder, weights

__all__ = ["ConvNeXt", "ConvNeXt_Tiny_Weights", "ConvNeXt_Small_Weights",
           "ConvNeXt_Base_Weights", "ConvNeXt_Large_Weights", "convnext_tiny", "convnext_small",
           "convnext_base", "convnext_large"]


class LayerNorm2d(nn.LayerNorm):
    """LayerNorm over the channels of an NCHW tensor (normalised in NHWC, returned NCHW)."""

    def forward(self, x):
        x = F.layer_norm(x.permute(0, 2, 3, 1), self.normalized_shape, self.weight, self.bias,
                         self.eps)
        return x.permute(0, 3, 1, 2)


class CNBlock(nn.Module):
    """depthwise 7x7 -> LayerNorm -> Linear(4x) -> GELU -> Linear, scaled per channel by
    ``layer_scale``, through stochastic depth, plus the input."""

    def __init__(self, dim, layer_scale, stochastic_depth_prob, norm_layer=None):
        super().__init__()
        norm_layer = partial(nn.LayerNorm, eps=1e-6) if norm_layer is None else norm_layer
        self.block = nn.Sequential(
            nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim, bias=True),
            Permute([0, 2, 3, 1]), norm_layer(dim),
            nn.Linear(in_features=dim, out_features=4 * dim, bias=True), nn.GELU(),
            nn.Linear(in_features=4 * dim, out_features=dim, bias=True), Permute([0, 3, 1, 2]))
        self.layer_scale = nn.Parameter(_F["ones"](dim, 1, 1) * layer_scale)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")

    def forward(self, input):
        result = self.stochastic_depth(self.layer_scale * self.block(input))
        result += input
        return result


class CNBlockConfig:
    """One stage: its width, the next stage's width (None for the last) and its depth."""

    def __init__(self, input_channels, out_channels, num_layers):
        self.input_channels = input_channels
        self.out_channels = out_channels
        self.num_layers = num_layers

    def __repr__(self):
        return (f"{self.__class__.__name__}(input_channels={self.input_channels}, "
                f"out_channels={self.out_channels}, num_layers={self.num_layers})")


class ConvNeXt(nn.Module):
    """Stem (4x4 stride-4 conv + LayerNorm2d), stages of CNBlocks with downsampling layers
    (LayerNorm2d + 2x2 stride-2 conv) between them, then pool, norm, flatten and linear."""

    def __init__(self, block_setting, stochastic_depth_prob=0.0, layer_scale=1e-6,
                 num_classes=1000, block=None, norm_layer=None, **kwargs):
        super().__init__()
        if not block_setting:
            raise ValueError("The block_setting should not be empty")
        if not (isinstance(block_setting, Sequence) and
                all(isinstance(s, CNBlockConfig) for s in block_setting)):
            raise TypeError("The block_setting should be List[CNBlockConfig]")
        block = CNBlock if block is None else block
        norm_layer = partial(LayerNorm2d, eps=1e-6) if norm_layer is None else norm_layer
        layers = [Conv2dNormActivation(3, block_setting[0].input_channels, kernel_size=4,
                                       stride=4, padding=0, norm_layer=norm_layer,
                                       activation_layer=None, bias=True)]
        total_blocks = sum(cnf.num_layers for cnf in block_setting)
        block_id = 0
        for cnf in block_setting:
            stage = []
            for _ in range(cnf.num_layers):     # drop probability rises linearly to the end
                sd_prob = stochastic_depth_prob * block_id / (total_blocks - 1.0)
                stage.append(block(cnf.input_channels, layer_scale, sd_prob))
                block_id += 1
            layers.append(nn.Sequential(*stage))
            if cnf.out_channels is not None:
                layers.append(nn.Sequential(
                    norm_layer(cnf.input_channels),
                    nn.Conv2d(cnf.input_channels, cnf.out_channels, kernel_size=2, stride=2)))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        last = block_setting[-1]
        last_channels = last.out_channels if last.out_channels is not None \
            else last.input_channels
        self.classifier = nn.Sequential(norm_layer(last_channels), nn.Flatten(1),
                                        nn.Linear(last_channels, num_classes))
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def _forward_impl(self, x):
        return self.classifier(self.avgpool(self.features(x)))

    def forward(self, x):
        return self._forward_impl(x)


_URL = "https://download.pytorch.org/models/"


def _weights(file, resize, num_params):
    return weights(_URL + file, resize=resize, num_params=num_params, min_size=(32, 32))


class ConvNeXt_Tiny_Weights(WeightsEnum):
    IMAGENET1K_V1 = _weights("convnext_tiny-983f1562.pth", 236, 28589128)
    DEFAULT = IMAGENET1K_V1


class ConvNeXt_Small_Weights(WeightsEnum):
    IMAGENET1K_V1 = _weights("convnext_small-0c510722.pth", 230, 50223688)
    DEFAULT = IMAGENET1K_V1


class ConvNeXt_Base_Weights(WeightsEnum):
    IMAGENET1K_V1 = _weights("convnext_base-6075fbad.pth", 232, 88591464)
    DEFAULT = IMAGENET1K_V1


class ConvNeXt_Large_Weights(WeightsEnum):
    IMAGENET1K_V1 = _weights("convnext_large-ea097f82.pth", 232, 197767336)
    DEFAULT = IMAGENET1K_V1


# name: weights enum, (width, next width, depth) per stage, default stochastic depth
_VARIANTS = {
    "convnext_tiny": (ConvNeXt_Tiny_Weights, [(96, 192, 3), (192, 384, 3), (384, 768, 9),
                                              (768, None, 3)], 0.1),
    "convnext_small": (ConvNeXt_Small_Weights, [(96, 192, 3), (192, 384, 3), (384, 768, 27),
                                                (768, None, 3)], 0.4),
    "convnext_base": (ConvNeXt_Base_Weights, [(128, 256, 3), (256, 512, 3), (512, 1024, 27),
                                              (1024, None, 3)], 0.5),
    "convnext_large": (ConvNeXt_Large_Weights, [(192, 384, 3), (384, 768, 3),
                                                (768, 1536, 27), (1536, None, 3)], 0.5),
}


def _make_builder(name):
    enum, stages, sd_default = _VARIANTS[name]

    def make(stochastic_depth_prob=sd_default, **kwargs):
        return ConvNeXt([CNBlockConfig(*stage) for stage in stages],
                        stochastic_depth_prob=stochastic_depth_prob, **kwargs)
    return make_builder(name, enum, make, name)


convnext_tiny = _make_builder("convnext_tiny")
convnext_small = _make_builder("convnext_small")
convnext_base = _make_builder("convnext_base")
convnext_large = _make_builder("convnext_large")
