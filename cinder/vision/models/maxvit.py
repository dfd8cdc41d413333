"""MaxViT (Tu et al. 2022): stages of MBConv blocks each followed by two attention layers,
one within local windows ("block" attention) and one across a sparse grid spanning the whole
image ("grid" attention), both with learnt relative position biases."""

import math
from collections import OrderedDict
from functools import partial

import numpy as np

from ... import nn
from ...nn import functional as F
from ...ops import FUNCTIONS as _F
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation, StochasticDepth
from ..transforms._presets import InterpolationMode
from ._api import WeightsEnum, builder, handle_legacy, ovewrite_named_param, weights

__all__ = ["MaxVit", "MaxVit_T_Weights", "maxvit_t"]


def _get_conv_output_shape(input_size, kernel_size, stride, padding):
    return ((input_size[0] - kernel_size + 2 * padding) // stride + 1,
            (input_size[1] - kernel_size + 2 * padding) // stride + 1)


def _make_block_input_shapes(input_size, n_blocks):
    """The feature-map size each block sees (after the stem and each stride-2 block)."""
    shapes, shape = [], _get_conv_output_shape(input_size, 3, 2, 1)
    for _ in range(n_blocks):
        shape = _get_conv_output_shape(shape, 3, 2, 1)
        shapes.append(shape)
    return shapes


def _get_relative_position_index(height, width):
    """(hw, hw) indices into the (2h-1)(2w-1) table of relative offsets."""
    coords = np.stack(np.meshgrid(np.arange(height), np.arange(width), indexing="ij"))
    coords = coords.reshape(2, -1)
    rel = (coords[:, :, None] - coords[:, None, :]).transpose(1, 2, 0)
    index = (rel[:, :, 0] + height - 1) * (2 * width - 1) + (rel[:, :, 1] + width - 1)
    return _F["tensor"](index.astype(np.int64))


class MBConv(nn.Module):
    """Pre-norm inverted bottleneck: norm, 1x1 expand, depthwise 3x3 (the stride), SE, 1x1
    project; the shortcut is pooled and projected when the shape changes."""

    def __init__(self, in_channels, out_channels, expansion_ratio, squeeze_ratio, stride,
                 activation_layer, norm_layer, p_stochastic_dropout=0.0):
        super().__init__()
        if stride != 1 or in_channels != out_channels:
            proj = [nn.Conv2d(in_channels, out_channels, kernel_size=1, stride=1, bias=True)]
            if stride == 2:
                proj = [nn.AvgPool2d(kernel_size=3, stride=stride, padding=1)] + proj
            self.proj = nn.Sequential(*proj)
        else:
            self.proj = nn.Identity()
        mid_channels = int(out_channels * expansion_ratio)
        sqz_channels = int(out_channels * squeeze_ratio)
        self.stochastic_depth = StochasticDepth(p_stochastic_dropout, mode="row") \
            if p_stochastic_dropout else nn.Identity()
        layers = OrderedDict()
        layers["pre_norm"] = norm_layer(in_channels)
        layers["conv_a"] = Conv2dNormActivation(in_channels, mid_channels, kernel_size=1,
                                                stride=1, padding=0,
                                                activation_layer=activation_layer,
                                                norm_layer=norm_layer, inplace=None)
        layers["conv_b"] = Conv2dNormActivation(mid_channels, mid_channels, kernel_size=3,
                                                stride=stride, padding=1,
                                                activation_layer=activation_layer,
                                                norm_layer=norm_layer, groups=mid_channels,
                                                inplace=None)
        layers["squeeze_excitation"] = SqueezeExcitation(mid_channels, sqz_channels,
                                                         activation=nn.SiLU)
        layers["conv_c"] = nn.Conv2d(in_channels=mid_channels, out_channels=out_channels,
                                     kernel_size=1, bias=True)
        self.layers = nn.Sequential(layers)

    def forward(self, x):
        return self.proj(x) + self.stochastic_depth(self.layers(x))


class RelativePositionalMultiHeadAttention(nn.Module):
    """Attention within each group of P = size^2 positions of a [B, G, P, D] input, plus a
    learnt bias per relative offset and head."""

    def __init__(self, feat_dim, head_dim, max_seq_len):
        super().__init__()
        if feat_dim % head_dim != 0:
            raise ValueError(f"feat_dim: {feat_dim} must be divisible by head_dim: {head_dim}")
        self.n_heads = feat_dim // head_dim
        self.head_dim = head_dim
        self.size = int(math.sqrt(max_seq_len))
        self.max_seq_len = max_seq_len
        self.to_qkv = nn.Linear(feat_dim, self.n_heads * self.head_dim * 3)
        self.scale_factor = feat_dim ** -0.5
        self.merge = nn.Linear(self.head_dim * self.n_heads, feat_dim)
        self.relative_position_bias_table = nn.Parameter(
            _F["empty"]((2 * self.size - 1) * (2 * self.size - 1), self.n_heads))
        self.register_buffer("relative_position_index",
                             _get_relative_position_index(self.size, self.size))
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)

    def get_relative_positional_bias(self):
        index = self.relative_position_index.view(-1)
        bias = self.relative_position_bias_table[index].view(self.max_seq_len,
                                                             self.max_seq_len, -1)
        return bias.permute(2, 0, 1).contiguous().unsqueeze(0)

    def forward(self, x):
        b, g, p, d = x.shape
        heads, head_dim = self.n_heads, self.head_dim
        q, k, v = _F["chunk"](self.to_qkv(x), 3, dim=-1)
        q, k, v = (t.reshape(b, g, p, heads, head_dim).permute(0, 1, 3, 2, 4) for t in (q, k, v))
        k = k * self.scale_factor             # the keys carry the scale (as torchvision)
        attn = F.softmax(q @ k.transpose(-2, -1) + self.get_relative_positional_bias(), dim=-1)
        out = (attn @ v).permute(0, 1, 3, 2, 4).reshape(b, g, p, d)
        return self.merge(out)


class SwapAxes(nn.Module):
    """Swap two dimensions (grid attention swaps groups and positions)."""

    def __init__(self, a, b):
        super().__init__()
        self.a, self.b = a, b

    def forward(self, x):
        return _F["swapaxes"](x, self.a, self.b)


class WindowPartition(nn.Module):
    """[B, C, H, W] -> [B, (H/p)(W/p), p*p, C]: non-overlapping p x p windows."""

    def forward(self, x, p):
        b, c, h, w = x.shape
        x = x.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 3, 5, 1)
        return x.reshape(b, (h // p) * (w // p), p * p, c)


class WindowDepartition(nn.Module):
    """The inverse of WindowPartition."""

    def forward(self, x, p, h_partitions, w_partitions):
        b, _, _, c = x.shape
        x = x.reshape(b, h_partitions, w_partitions, p, p, c).permute(0, 5, 1, 3, 2, 4)
        return x.reshape(b, c, h_partitions * p, w_partitions * p)


class PartitionAttentionLayer(nn.Module):
    """Window ('window') or grid ('grid') partition, pre-norm attention and MLP (each through
    stochastic depth), and back to [B, C, H, W]."""

    def __init__(self, in_channels, head_dim, partition_size, partition_type, grid_size,
                 mlp_ratio, activation_layer, norm_layer, attention_dropout, mlp_dropout,
                 p_stochastic_dropout):
        super().__init__()
        self.n_heads = in_channels // head_dim
        self.head_dim = head_dim
        self.n_partitions = grid_size[0] // partition_size
        self.partition_type = partition_type
        self.grid_size = grid_size
        if partition_type not in ["grid", "window"]:
            raise ValueError("partition_type must be either 'grid' or 'window'")
        if partition_type == "window":
            self.p, self.g = partition_size, self.n_partitions
        else:
            self.p, self.g = self.n_partitions, partition_size
        self.partition_op = WindowPartition()
        self.departition_op = WindowDepartition()
        grid = partition_type == "grid"
        self.partition_swap = SwapAxes(-2, -3) if grid else nn.Identity()
        self.departition_swap = SwapAxes(-2, -3) if grid else nn.Identity()
        self.attn_layer = nn.Sequential(
            norm_layer(in_channels),
            RelativePositionalMultiHeadAttention(in_channels, head_dim, partition_size ** 2),
            nn.Dropout(attention_dropout))
        self.mlp_layer = nn.Sequential(
            nn.LayerNorm(in_channels), nn.Linear(in_channels, in_channels * mlp_ratio),
            activation_layer(), nn.Linear(in_channels * mlp_ratio, in_channels),
            nn.Dropout(mlp_dropout))
        self.stochastic_dropout = StochasticDepth(p_stochastic_dropout, mode="row")

    def forward(self, x):
        gh, gw = self.grid_size[0] // self.p, self.grid_size[1] // self.p
        if self.grid_size[0] % self.p != 0 or self.grid_size[1] % self.p != 0:
            raise AssertionError("Grid size must be divisible by partition size. Got grid size "
                                 f"of {self.grid_size} and partition size of {self.p}")
        x = self.partition_swap(self.partition_op(x, self.p))
        x = x + self.stochastic_dropout(self.attn_layer(x))
        x = x + self.stochastic_dropout(self.mlp_layer(x))
        return self.departition_op(self.departition_swap(x), self.p, gh, gw)


class MaxVitLayer(nn.Module):
    """MBConv, window attention, grid attention."""

    def __init__(self, in_channels, out_channels, squeeze_ratio, expansion_ratio, stride,
                 norm_layer, activation_layer, head_dim, mlp_ratio, mlp_dropout,
                 attention_dropout, p_stochastic_dropout, partition_size, grid_size):
        super().__init__()
        layers = OrderedDict()
        layers["MBconv"] = MBConv(in_channels=in_channels, out_channels=out_channels,
                                  expansion_ratio=expansion_ratio, squeeze_ratio=squeeze_ratio,
                                  stride=stride, activation_layer=activation_layer,
                                  norm_layer=norm_layer,
                                  p_stochastic_dropout=p_stochastic_dropout)
        for kind in ("window", "grid"):
            layers[f"{kind}_attention"] = PartitionAttentionLayer(
                in_channels=out_channels, head_dim=head_dim, partition_size=partition_size,
                partition_type=kind, grid_size=grid_size, mlp_ratio=mlp_ratio,
                activation_layer=activation_layer, norm_layer=nn.LayerNorm,
                attention_dropout=attention_dropout, mlp_dropout=mlp_dropout,
                p_stochastic_dropout=p_stochastic_dropout)
        self.layers = nn.Sequential(layers)

    def forward(self, x):
        return self.layers(x)


class MaxVitBlock(nn.Module):
    """``n_layers`` MaxVitLayers; the first halves the resolution."""

    def __init__(self, in_channels, out_channels, squeeze_ratio, expansion_ratio, norm_layer,
                 activation_layer, head_dim, mlp_ratio, mlp_dropout, attention_dropout,
                 partition_size, input_grid_size, n_layers, p_stochastic):
        super().__init__()
        if not len(p_stochastic) == n_layers:
            raise ValueError(f"p_stochastic must have length n_layers={n_layers}, got "
                             f"p_stochastic={p_stochastic}.")
        self.layers = nn.ModuleList()
        self.grid_size = _get_conv_output_shape(input_grid_size, kernel_size=3, stride=2,
                                                padding=1)
        for idx, p in enumerate(p_stochastic):
            self.layers += [MaxVitLayer(
                in_channels=in_channels if idx == 0 else out_channels,
                out_channels=out_channels, squeeze_ratio=squeeze_ratio,
                expansion_ratio=expansion_ratio, stride=2 if idx == 0 else 1,
                norm_layer=norm_layer, activation_layer=activation_layer, head_dim=head_dim,
                mlp_ratio=mlp_ratio, mlp_dropout=mlp_dropout,
                attention_dropout=attention_dropout, partition_size=partition_size,
                grid_size=self.grid_size, p_stochastic_dropout=p)]

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class MaxVit(nn.Module):
    """Two-conv stem, MaxVitBlocks, then pool, LayerNorm, Linear + Tanh and the head."""

    def __init__(self, input_size, stem_channels, partition_size, block_channels, block_layers,
                 head_dim, stochastic_depth_prob, norm_layer=None, activation_layer=nn.GELU,
                 squeeze_ratio=0.25, expansion_ratio=4, mlp_ratio=4, mlp_dropout=0.0,
                 attention_dropout=0.0, num_classes=1000):
        super().__init__()
        if norm_layer is None:
            norm_layer = partial(nn.BatchNorm2d, eps=1e-3, momentum=0.01)
        shapes = _make_block_input_shapes(input_size, len(block_channels))
        for idx, shape in enumerate(shapes):
            if shape[0] % partition_size != 0 or shape[1] % partition_size != 0:
                raise ValueError(
                    f"Input size {shape} of block {idx} is not divisible by partition size "
                    f"{partition_size}. Consider changing the partition size or the input "
                    f"size.\nCurrent configuration yields the following block input sizes: "
                    f"{shapes}.")
        self.stem = nn.Sequential(
            Conv2dNormActivation(3, stem_channels, 3, stride=2, norm_layer=norm_layer,
                                 activation_layer=activation_layer, bias=False, inplace=None),
            Conv2dNormActivation(stem_channels, stem_channels, 3, stride=1, norm_layer=None,
                                 activation_layer=None, bias=True))
        input_size = _get_conv_output_shape(input_size, kernel_size=3, stride=2, padding=1)
        self.partition_size = partition_size
        self.blocks = nn.ModuleList()
        in_channels = [stem_channels] + block_channels[:-1]
        p_stochastic = np.linspace(0, stochastic_depth_prob, sum(block_layers)).tolist()
        p_idx = 0
        for in_channel, out_channel, num_layers in zip(in_channels, block_channels,
                                                       block_layers):
            self.blocks.append(MaxVitBlock(
                in_channels=in_channel, out_channels=out_channel, squeeze_ratio=squeeze_ratio,
                expansion_ratio=expansion_ratio, norm_layer=norm_layer,
                activation_layer=activation_layer, head_dim=head_dim, mlp_ratio=mlp_ratio,
                mlp_dropout=mlp_dropout, attention_dropout=attention_dropout,
                partition_size=partition_size, input_grid_size=input_size,
                n_layers=num_layers, p_stochastic=p_stochastic[p_idx:p_idx + num_layers]))
            input_size = self.blocks[-1].grid_size
            p_idx += num_layers
        self.classifier = nn.Sequential(
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.LayerNorm(block_channels[-1]),
            nn.Linear(block_channels[-1], block_channels[-1]), nn.Tanh(),
            nn.Linear(block_channels[-1], num_classes, bias=False))
        self._init_weights()

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return self.classifier(x)

    def _init_weights(self):
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)


class MaxVit_T_Weights(WeightsEnum):
    IMAGENET1K_V1 = weights("https://download.pytorch.org/models/maxvit_t-bc5ab103.pth",
                            crop=224, resize=224,
                            preset={"interpolation": InterpolationMode.BICUBIC},
                            num_params=30919624, min_size=(224, 224))
    DEFAULT = IMAGENET1K_V1


@builder("maxvit_t", MaxVit_T_Weights)
def maxvit_t(*, weights=None, progress=True, **kwargs):
    """MaxViT-T; ``weights`` takes MaxVit_T_Weights values (they fix the input size)."""
    weights = handle_legacy(MaxVit_T_Weights, weights, kwargs)
    if weights is not None:
        ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
        ovewrite_named_param(kwargs, "input_size", weights.meta["min_size"])
    model = MaxVit(stem_channels=64, block_channels=[64, 128, 256, 512],
                   block_layers=[2, 2, 5, 2], head_dim=32, stochastic_depth_prob=0.2,
                   partition_size=7, input_size=kwargs.pop("input_size", (224, 224)), **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model
