"""Swin Transformer v1 (Liu et al. 2021) and v2 (Liu et al. 2022): self-attention inside
local windows, the windows shifted by half their size every other block (with a mask so that
patches rolled across the border do not attend to each other), relative position biases,
and patch merging between the stages. V2 uses scaled cosine attention, a small MLP for
continuous position biases and post-norm blocks."""

import math
from functools import partial

import numpy as np

from ... import nn
from ...autograd.grad_mode import no_grad
from ...nn import functional as F
from ...ops import FUNCTIONS as _F
from ..ops.misc import MLP, Permute, StochasticDepth
from ..transforms._presets import InterpolationMode
from ._api import WeightsEnum, make_builder, weights

__all__ = ["SwinTransformer", "Swin_T_Weights", "Swin_S_Weights", "Swin_B_Weights",
           "Swin_V2_T_Weights", "Swin_V2_S_Weights", "Swin_V2_B_Weights", "swin_t", "swin_s",
           "swin_b", "swin_v2_t", "swin_v2_s", "swin_v2_b"]


def _patch_merging_pad(x):
    """[..., H, W, C] -> [..., H/2, W/2, 4C]: each 2x2 neighbourhood stacked on channels
    (odd sizes padded with zeros first)."""
    h, w = x.shape[-3], x.shape[-2]
    x = F.pad(x, (0, 0, 0, w % 2, 0, h % 2))
    return _F["cat"]([x[..., 0::2, 0::2, :], x[..., 1::2, 0::2, :], x[..., 0::2, 1::2, :],
                      x[..., 1::2, 1::2, :]], -1)


def _get_relative_position_bias(relative_position_bias_table, relative_position_index,
                                window_size):
    """Gather the (window area)^2 pairwise biases per head: (1, heads, N, N)."""
    n = window_size[0] * window_size[1]
    bias = relative_position_bias_table[relative_position_index].view(n, n, -1)
    return bias.permute(2, 0, 1).contiguous().unsqueeze(0)


class PatchMerging(nn.Module):
    """Downsampling between stages: merge 2x2 patches, LayerNorm(4C), Linear 4C -> 2C."""

    def __init__(self, dim, norm_layer=nn.LayerNorm):
        super().__init__()
        self.dim = dim
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = norm_layer(4 * dim)

    def forward(self, x):
        return self.reduction(self.norm(_patch_merging_pad(x)))


class PatchMergingV2(nn.Module):
    """V2's patch merging: the norm comes after the reduction (LayerNorm(2C))."""

    def __init__(self, dim, norm_layer=nn.LayerNorm):
        super().__init__()
        self.dim = dim
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = norm_layer(2 * dim)

    def forward(self, x):
        return self.norm(self.reduction(_patch_merging_pad(x)))


def _shift_mask(pad_h, pad_w, window_size, shift_size):
    """The additive mask of shifted windows, (windows, N, N): -100 between patches that came
    from different regions of the rolled image, 0 within a region."""
    region = np.zeros((pad_h, pad_w), np.float32)
    h_slices = ((0, -window_size[0]), (-window_size[0], -shift_size[0]), (-shift_size[0], None))
    w_slices = ((0, -window_size[1]), (-window_size[1], -shift_size[1]), (-shift_size[1], None))
    for i, (h0, h1) in enumerate(h_slices):
        for j, (w0, w1) in enumerate(w_slices):
            region[h0:h1, w0:w1] = 3 * i + j
    region = region.reshape(pad_h // window_size[0], window_size[0], pad_w // window_size[1],
                            window_size[1]).transpose(0, 2, 1, 3)
    region = region.reshape(-1, window_size[0] * window_size[1])
    diff = region[:, None, :] - region[:, :, None]
    return np.where(diff != 0, np.float32(-100.0), np.float32(0.0))


def shifted_window_attention(input, qkv_weight, proj_weight, relative_position_bias,
                             window_size, num_heads, shift_size, attention_dropout=0.0,
                             dropout=0.0, qkv_bias=None, proj_bias=None, logit_scale=None,
                             training=True):
    """Multi-head self-attention within (optionally shifted) windows of an [N, H, W, C]
    input, plus the relative position bias; ``logit_scale`` selects V2's cosine attention."""
    b, h, w, c = input.shape
    pad_r = (window_size[1] - w % window_size[1]) % window_size[1]
    pad_b = (window_size[0] - h % window_size[0]) % window_size[0]
    x = F.pad(input, (0, 0, 0, pad_r, 0, pad_b))
    _, pad_h, pad_w, _ = x.shape
    shift_size = list(shift_size)
    # a window covering the whole (padded) map has nothing to shift
    if window_size[0] >= pad_h:
        shift_size[0] = 0
    if window_size[1] >= pad_w:
        shift_size[1] = 0
    shifted = sum(shift_size) > 0
    if shifted:
        x = _F["roll"](x, shifts=(-shift_size[0], -shift_size[1]), dims=(1, 2))
    num_windows = (pad_h // window_size[0]) * (pad_w // window_size[1])
    x = x.view(b, pad_h // window_size[0], window_size[0], pad_w // window_size[1],
               window_size[1], c)
    x = x.permute(0, 1, 3, 2, 4, 5).reshape(b * num_windows, window_size[0] * window_size[1], c)
    if logit_scale is not None and qkv_bias is not None:
        length = qkv_bias.numel() // 3                  # V2: keys carry no bias
        qkv_bias = _F["cat"]([qkv_bias[:length], _F["zeros_like"](qkv_bias[length:2 * length]),
                              qkv_bias[2 * length:]])
    qkv = F.linear(x, qkv_weight, qkv_bias)
    qkv = qkv.reshape(x.size(0), x.size(1), 3, num_heads, c // num_heads).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    if logit_scale is not None:
        attn = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
        attn = attn * _F["clamp"](logit_scale, max=math.log(100.0)).exp()
    else:
        attn = (q * (c // num_heads) ** -0.5).matmul(k.transpose(-2, -1))
    attn = attn + relative_position_bias
    if shifted:
        mask = x.new_tensor(_shift_mask(pad_h, pad_w, window_size, shift_size))
        attn = attn.view(x.size(0) // num_windows, num_windows, num_heads, x.size(1), x.size(1))
        attn = (attn + mask.unsqueeze(1).unsqueeze(0)).view(-1, num_heads, x.size(1), x.size(1))
    attn = F.dropout(F.softmax(attn, dim=-1), p=attention_dropout, training=training)
    x = attn.matmul(v).transpose(1, 2).reshape(x.size(0), x.size(1), c)
    x = F.dropout(F.linear(x, proj_weight, proj_bias), p=dropout, training=training)
    x = x.view(b, pad_h // window_size[0], pad_w // window_size[1], window_size[0],
               window_size[1], c)
    x = x.permute(0, 1, 3, 2, 4, 5).reshape(b, pad_h, pad_w, c)
    if shifted:
        x = _F["roll"](x, shifts=(shift_size[0], shift_size[1]), dims=(1, 2))
    return x[:, :h, :w, :].contiguous()


class ShiftedWindowAttention(nn.Module):
    """Window attention with a learnt table of relative position biases."""

    def __init__(self, dim, window_size, shift_size, num_heads, qkv_bias=True, proj_bias=True,
                 attention_dropout=0.0, dropout=0.0):
        super().__init__()
        if len(window_size) != 2 or len(shift_size) != 2:
            raise ValueError("window_size and shift_size must be of length 2")
        self.window_size, self.shift_size, self.num_heads = window_size, shift_size, num_heads
        self.attention_dropout, self.dropout = attention_dropout, dropout
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim, bias=proj_bias)
        self.define_relative_position_bias_table()
        self.define_relative_position_index()

    def define_relative_position_bias_table(self):
        wh, ww = self.window_size
        self.relative_position_bias_table = nn.Parameter(
            _F["zeros"]((2 * wh - 1) * (2 * ww - 1), self.num_heads))
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)

    def define_relative_position_index(self):
        """For each pair of window positions, the row of its offset in the bias table."""
        wh, ww = self.window_size
        coords = np.stack(np.meshgrid(np.arange(wh), np.arange(ww), indexing="ij")).reshape(2, -1)
        rel = (coords[:, :, None] - coords[:, None, :]).transpose(1, 2, 0)
        index = (rel[:, :, 0] + wh - 1) * (2 * ww - 1) + (rel[:, :, 1] + ww - 1)
        self.register_buffer("relative_position_index",
                             _F["tensor"](index.reshape(-1).astype(np.int64)))

    def get_relative_position_bias(self):
        return _get_relative_position_bias(self.relative_position_bias_table,
                                           self.relative_position_index, self.window_size)

    def _attend(self, x, logit_scale=None):
        return shifted_window_attention(
            x, self.qkv.weight, self.proj.weight, self.get_relative_position_bias(),
            self.window_size, self.num_heads, shift_size=self.shift_size,
            attention_dropout=self.attention_dropout, dropout=self.dropout,
            qkv_bias=self.qkv.bias, proj_bias=self.proj.bias, logit_scale=logit_scale,
            training=self.training)

    def forward(self, x):
        return self._attend(x)


class ShiftedWindowAttentionV2(ShiftedWindowAttention):
    """V2 window attention: cosine similarity with a learnt per-head temperature, and biases
    produced by a small MLP from log-spaced relative coordinates."""

    def __init__(self, dim, window_size, shift_size, num_heads, qkv_bias=True, proj_bias=True,
                 attention_dropout=0.0, dropout=0.0):
        super().__init__(dim, window_size, shift_size, num_heads, qkv_bias=qkv_bias,
                         proj_bias=proj_bias, attention_dropout=attention_dropout,
                         dropout=dropout)
        self.logit_scale = nn.Parameter(_F["log"](10 * _F["ones"]((num_heads, 1, 1))))
        self.cpb_mlp = nn.Sequential(nn.Linear(2, 512, bias=True), nn.ReLU(inplace=True),
                                     nn.Linear(512, num_heads, bias=False))
        if qkv_bias:
            length = self.qkv.bias.numel() // 3
            with no_grad():
                self.qkv.bias[length:2 * length].zero_()

    def define_relative_position_bias_table(self):
        wh, ww = self.window_size
        dh = np.arange(-(wh - 1), wh, dtype=np.float32)
        dw = np.arange(-(ww - 1), ww, dtype=np.float32)
        table = np.stack(np.meshgrid(dh, dw, indexing="ij")).transpose(1, 2, 0)[None].copy()
        table[..., 0] /= wh - 1
        table[..., 1] /= ww - 1
        table *= 8                                    # offsets scaled to [-8, 8], then log-spaced
        table = np.sign(table) * np.log2(np.abs(table) + np.float32(1.0)) / np.float32(3.0)
        self.register_buffer("relative_coords_table", _F["tensor"](table.astype(np.float32)))

    def get_relative_position_bias(self):
        bias = _get_relative_position_bias(
            self.cpb_mlp(self.relative_coords_table).view(-1, self.num_heads),
            self.relative_position_index, self.window_size)
        return 16 * _F["sigmoid"](bias)

    def forward(self, x):
        return self._attend(x, self.logit_scale)


class SwinTransformerBlock(nn.Module):
    """Pre-norm block: x + drop(attn(norm1(x))), then x + drop(mlp(norm2(x)))."""

    def __init__(self, dim, num_heads, window_size, shift_size, mlp_ratio=4.0, dropout=0.0,
                 attention_dropout=0.0, stochastic_depth_prob=0.0, norm_layer=nn.LayerNorm,
                 attn_layer=ShiftedWindowAttention):
        super().__init__()
        self.norm1 = norm_layer(dim)
        self.attn = attn_layer(dim, window_size, shift_size, num_heads,
                               attention_dropout=attention_dropout, dropout=dropout)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.norm2 = norm_layer(dim)
        self.mlp = MLP(dim, [int(dim * mlp_ratio), dim], activation_layer=nn.GELU, inplace=None,
                       dropout=dropout)
        for m in self.mlp.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)

    def forward(self, x):
        x = x + self.stochastic_depth(self.attn(self.norm1(x)))
        return x + self.stochastic_depth(self.mlp(self.norm2(x)))


class SwinTransformerBlockV2(SwinTransformerBlock):
    """Post-norm block: x + drop(norm1(attn(x))), then x + drop(norm2(mlp(x)))."""

    def __init__(self, dim, num_heads, window_size, shift_size, mlp_ratio=4.0, dropout=0.0,
                 attention_dropout=0.0, stochastic_depth_prob=0.0, norm_layer=nn.LayerNorm,
                 attn_layer=ShiftedWindowAttentionV2):
        super().__init__(dim, num_heads, window_size, shift_size, mlp_ratio=mlp_ratio,
                         dropout=dropout, attention_dropout=attention_dropout,
                         stochastic_depth_prob=stochastic_depth_prob, norm_layer=norm_layer,
                         attn_layer=attn_layer)

    def forward(self, x):
        x = x + self.stochastic_depth(self.norm1(self.attn(x)))
        return x + self.stochastic_depth(self.norm2(self.mlp(x)))


class SwinTransformer(nn.Module):
    """Patch embedding (strided conv, NHWC, norm), stages of blocks with alternating window
    shifts and patch merging between them, then norm, average pool and the linear head."""

    def __init__(self, patch_size, embed_dim, depths, num_heads, window_size, mlp_ratio=4.0,
                 dropout=0.0, attention_dropout=0.0, stochastic_depth_prob=0.1,
                 num_classes=1000, norm_layer=None, block=None, downsample_layer=PatchMerging):
        super().__init__()
        self.num_classes = num_classes
        block = SwinTransformerBlock if block is None else block
        norm_layer = partial(nn.LayerNorm, eps=1e-5) if norm_layer is None else norm_layer
        patch = (patch_size[0], patch_size[1])
        layers = [nn.Sequential(nn.Conv2d(3, embed_dim, kernel_size=patch, stride=patch),
                                Permute([0, 2, 3, 1]), norm_layer(embed_dim))]
        total_blocks, block_id = sum(depths), 0
        for i_stage, depth in enumerate(depths):
            dim, stage = embed_dim * 2 ** i_stage, []
            for i_layer in range(depth):
                sd_prob = stochastic_depth_prob * float(block_id) / (total_blocks - 1)
                stage.append(block(dim, num_heads[i_stage], window_size=window_size,
                                   shift_size=[0 if i_layer % 2 == 0 else w // 2
                                               for w in window_size],
                                   mlp_ratio=mlp_ratio, dropout=dropout,
                                   attention_dropout=attention_dropout,
                                   stochastic_depth_prob=sd_prob, norm_layer=norm_layer))
                block_id += 1
            layers.append(nn.Sequential(*stage))
            if i_stage < len(depths) - 1:
                layers.append(downsample_layer(dim, norm_layer))
        self.features = nn.Sequential(*layers)
        num_features = embed_dim * 2 ** (len(depths) - 1)
        self.norm = norm_layer(num_features)
        self.permute = Permute([0, 3, 1, 2])             # NHWC -> NCHW for the pooling
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten(1)
        self.head = nn.Linear(num_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.avgpool(self.permute(self.norm(self.features(x))))
        return self.head(self.flatten(x))


_URL = "https://download.pytorch.org/models/"
_BICUBIC = {"interpolation": InterpolationMode.BICUBIC}


def _weights(file, crop, resize, num_params):
    return weights(_URL + file, crop=crop, resize=resize, preset=_BICUBIC,
                   num_params=num_params, min_size=(crop, crop))


class Swin_T_Weights(WeightsEnum):
    IMAGENET1K_V1 = _weights("swin_t-704ceda3.pth", 224, 232, 28288354)
    DEFAULT = IMAGENET1K_V1


class Swin_S_Weights(WeightsEnum):
    IMAGENET1K_V1 = _weights("swin_s-5e29d889.pth", 224, 246, 49606258)
    DEFAULT = IMAGENET1K_V1


class Swin_B_Weights(WeightsEnum):
    IMAGENET1K_V1 = _weights("swin_b-68c6b09e.pth", 224, 238, 87768224)
    DEFAULT = IMAGENET1K_V1


class Swin_V2_T_Weights(WeightsEnum):
    IMAGENET1K_V1 = _weights("swin_v2_t-b137f0e2.pth", 256, 260, 28351570)
    DEFAULT = IMAGENET1K_V1


class Swin_V2_S_Weights(WeightsEnum):
    IMAGENET1K_V1 = _weights("swin_v2_s-637d8ceb.pth", 256, 260, 49737442)
    DEFAULT = IMAGENET1K_V1


class Swin_V2_B_Weights(WeightsEnum):
    IMAGENET1K_V1 = _weights("swin_v2_b-781e5279.pth", 256, 272, 87930848)
    DEFAULT = IMAGENET1K_V1


_T = dict(embed_dim=96, depths=[2, 2, 6, 2], num_heads=[3, 6, 12, 24])
_S = dict(embed_dim=96, depths=[2, 2, 18, 2], num_heads=[3, 6, 12, 24])
_B = dict(embed_dim=128, depths=[2, 2, 18, 2], num_heads=[4, 8, 16, 32])
_V2 = dict(block=SwinTransformerBlockV2, downsample_layer=PatchMergingV2)
# name: weights enum, window, default stochastic depth, the rest of the design
_VARIANTS = {
    "swin_t": (Swin_T_Weights, 7, 0.2, _T), "swin_s": (Swin_S_Weights, 7, 0.3, _S),
    "swin_b": (Swin_B_Weights, 7, 0.5, _B),
    "swin_v2_t": (Swin_V2_T_Weights, 8, 0.2, dict(_T, **_V2)),
    "swin_v2_s": (Swin_V2_S_Weights, 8, 0.3, dict(_S, **_V2)),
    "swin_v2_b": (Swin_V2_B_Weights, 8, 0.5, dict(_B, **_V2)),
}


def _make_builder(name):
    enum, window, sd_default, design = _VARIANTS[name]

    def make(**kwargs):
        defaults = dict(patch_size=[4, 4], window_size=[window, window],
                        stochastic_depth_prob=sd_default, **design)
        return SwinTransformer(**dict(defaults, **kwargs))      # kwargs override the defaults
    return make_builder(name, enum, make, name)


swin_t = _make_builder("swin_t")
swin_s = _make_builder("swin_s")
swin_b = _make_builder("swin_b")
swin_v2_t = _make_builder("swin_v2_t")
swin_v2_s = _make_builder("swin_v2_s")
swin_v2_b = _make_builder("swin_v2_b")
