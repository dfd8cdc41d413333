"""Vision Transformer (Dosovitskiy et al. 2020): the image cut into patches by a strided
convolution, a learnt class token prepended, learnt position embeddings added, a stack of
pre-norm transformer encoder blocks, and a linear head on the class token."""

import math
from collections import OrderedDict
from functools import partial
from typing import Callable, NamedTuple

from ... import nn
from ...nn import functional as F
from ...ops import FUNCTIONS as _F
from ..ops.misc import MLP, Conv2dNormActivation
from ..transforms._presets import InterpolationMode
from ._api import WeightsEnum, builder, handle_legacy, ovewrite_named_param, weights

__all__ = ["VisionTransformer", "ViT_B_16_Weights", "ViT_B_32_Weights", "ViT_L_16_Weights",
           "ViT_L_32_Weights", "ViT_H_14_Weights", "vit_b_16", "vit_b_32", "vit_l_16",
           "vit_l_32", "vit_h_14"]


_LAYER_NORM = partial(nn.LayerNorm, eps=1e-6)      # the default norm layer everywhere


class ConvStemConfig(NamedTuple):
    out_channels: int
    kernel_size: int
    stride: int
    norm_layer: Callable = nn.BatchNorm2d
    activation_layer: Callable = nn.ReLU


def _check(condition, message):
    if not condition:
        raise AssertionError(message)


class MLPBlock(MLP):
    """The encoder's feed-forward part: Linear, GELU, Dropout, Linear, Dropout."""

    _version = 2

    def __init__(self, in_dim, mlp_dim, dropout):
        super().__init__(in_dim, [mlp_dim, in_dim], activation_layer=nn.GELU, inplace=None,
                         dropout=dropout)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # checkpoints of version 1 named the two linears linear_1 / linear_2
        version = local_metadata.get("version", None)
        if version is None or version < 2:
            for i in range(2):
                for kind in ("weight", "bias"):
                    old_key = f"{prefix}linear_{i + 1}.{kind}"
                    if old_key in state_dict:
                        state_dict[f"{prefix}{3 * i}.{kind}"] = state_dict.pop(old_key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class EncoderBlock(nn.Module):
    """Pre-norm block: x + attention(LN(x)), then x + MLP(LN(x))."""

    def __init__(self, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout,
                 norm_layer=_LAYER_NORM):
        super().__init__()
        self.num_heads = num_heads
        self.ln_1 = norm_layer(hidden_dim)
        self.self_attention = nn.MultiheadAttention(hidden_dim, num_heads,
                                                    dropout=attention_dropout, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.ln_2 = norm_layer(hidden_dim)
        self.mlp = MLPBlock(hidden_dim, mlp_dim, dropout)

    def forward(self, input):
        _check(input.dim() == 3,
               f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")
        x = self.ln_1(input)
        x, _ = self.self_attention(x, x, x, need_weights=False)
        x = self.dropout(x) + input
        return x + self.mlp(self.ln_2(x))


class Encoder(nn.Module):
    """Position embedding (N(0, 0.02) as BERT), dropout, the blocks, a final LayerNorm."""

    def __init__(self, seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout,
                 attention_dropout, norm_layer=_LAYER_NORM):
        super().__init__()
        self.pos_embedding = nn.Parameter(
            _F["empty"](1, seq_length, hidden_dim).normal_(std=0.02))
        self.dropout = nn.Dropout(dropout)
        layers = OrderedDict()
        for i in range(num_layers):
            layers[f"encoder_layer_{i}"] = EncoderBlock(num_heads, hidden_dim, mlp_dim, dropout,
                                                        attention_dropout, norm_layer)
        self.layers = nn.Sequential(layers)
        self.ln = norm_layer(hidden_dim)

    def forward(self, input):
        _check(input.dim() == 3,
               f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")
        return self.ln(self.layers(self.dropout(input + self.pos_embedding)))


class VisionTransformer(nn.Module):
    """ViT for square ``image_size`` inputs cut into ``patch_size`` patches (or a conv stem
    from ``conv_stem_configs``); the head reads the class token."""

    def __init__(self, image_size, patch_size, num_layers, num_heads, hidden_dim, mlp_dim,
                 dropout=0.0, attention_dropout=0.0, num_classes=1000, representation_size=None,
                 norm_layer=_LAYER_NORM, conv_stem_configs=None):
        super().__init__()
        _check(image_size % patch_size == 0, "Input shape indivisible by patch size!")
        self.image_size, self.patch_size = image_size, patch_size
        self.hidden_dim, self.mlp_dim = hidden_dim, mlp_dim
        self.attention_dropout, self.dropout = attention_dropout, dropout
        self.num_classes, self.representation_size = num_classes, representation_size
        self.norm_layer = norm_layer
        if conv_stem_configs is not None:
            self.conv_proj = self._conv_stem(conv_stem_configs, hidden_dim)
        else:
            self.conv_proj = nn.Conv2d(in_channels=3, out_channels=hidden_dim,
                                       kernel_size=patch_size, stride=patch_size)
        seq_length = (image_size // patch_size) ** 2 + 1          # + the class token
        self.class_token = nn.Parameter(_F["zeros"](1, 1, hidden_dim))
        self.encoder = Encoder(seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout,
                               attention_dropout, norm_layer)
        self.seq_length = seq_length
        heads = OrderedDict()
        if representation_size is None:
            heads["head"] = nn.Linear(hidden_dim, num_classes)
        else:
            heads["pre_logits"] = nn.Linear(hidden_dim, representation_size)
            heads["act"] = nn.Tanh()
            heads["head"] = nn.Linear(representation_size, num_classes)
        self.heads = nn.Sequential(heads)
        self._init_weights()

    @staticmethod
    def _conv_stem(configs, hidden_dim):
        stem, channels = nn.Sequential(), 3
        for i, cfg in enumerate(configs):
            stem.add_module(f"conv_bn_relu_{i}", Conv2dNormActivation(
                in_channels=channels, out_channels=cfg.out_channels,
                kernel_size=cfg.kernel_size, stride=cfg.stride, norm_layer=cfg.norm_layer,
                activation_layer=cfg.activation_layer))
            channels = cfg.out_channels
        stem.add_module("conv_last", nn.Conv2d(in_channels=channels, out_channels=hidden_dim,
                                               kernel_size=1))
        return stem

    def _init_weights(self):
        if isinstance(self.conv_proj, nn.Conv2d):      # LeCun-normal patch embedding
            proj = self.conv_proj
            fan_in = proj.in_channels * proj.kernel_size[0] * proj.kernel_size[1]
            nn.init.trunc_normal_(proj.weight, std=math.sqrt(1 / fan_in))
            if proj.bias is not None:
                nn.init.zeros_(proj.bias)
        elif isinstance(getattr(self.conv_proj, "conv_last", None), nn.Conv2d):
            last = self.conv_proj.conv_last
            nn.init.normal_(last.weight, mean=0.0, std=math.sqrt(2.0 / last.out_channels))
            if last.bias is not None:
                nn.init.zeros_(last.bias)
        if isinstance(getattr(self.heads, "pre_logits", None), nn.Linear):
            pre = self.heads.pre_logits
            nn.init.trunc_normal_(pre.weight, std=math.sqrt(1 / pre.in_features))
            nn.init.zeros_(pre.bias)
        if isinstance(self.heads.head, nn.Linear):      # a zero head: uniform first logits
            nn.init.zeros_(self.heads.head.weight)
            nn.init.zeros_(self.heads.head.bias)

    def _process_input(self, x):
        """(n, 3, h, w) images -> (n, patches, hidden_dim) patch embeddings."""
        n, _, h, w = x.shape
        _check(h == self.image_size,
               f"Wrong image height! Expected {self.image_size} but got {h}!")
        _check(w == self.image_size,
               f"Wrong image width! Expected {self.image_size} but got {w}!")
        patches = (h // self.patch_size) * (w // self.patch_size)
        return self.conv_proj(x).reshape(n, self.hidden_dim, patches).permute(0, 2, 1)

    def forward(self, x):
        x = self._process_input(x)
        class_token = self.class_token.expand(x.shape[0], -1, -1)
        x = self.encoder(_F["cat"]([class_token, x], dim=1))
        return self.heads(x[:, 0])


def interpolate_embeddings(image_size, patch_size, model_state, interpolation_mode="bicubic",
                           reset_heads=False):
    """Resize a checkpoint's position embeddings to another image size (the class token's
    entry kept, the patch grid interpolated); ``reset_heads`` drops the head weights."""
    pos_embedding = model_state["encoder.pos_embedding"]
    n, seq_length, hidden_dim = pos_embedding.shape
    if n != 1:
        raise ValueError(f"Unexpected position embedding shape: {pos_embedding.shape}")
    new_seq_length = (image_size // patch_size) ** 2 + 1
    if new_seq_length == seq_length:
        return model_state
    seq_length, new_seq_length = seq_length - 1, new_seq_length - 1
    side = int(math.sqrt(seq_length))
    if side * side != seq_length:
        raise ValueError("seq_length is not a perfect square! Instead got seq_length_1d * "
                         f"seq_length_1d = {side * side } and seq_length = {seq_length}")
    grid = pos_embedding[:, 1:, :].permute(0, 2, 1).reshape(1, hidden_dim, side, side)
    grid = F.interpolate(grid, size=image_size // patch_size, mode=interpolation_mode,
                         align_corners=True)
    grid = grid.reshape(1, hidden_dim, new_seq_length).permute(0, 2, 1)
    model_state["encoder.pos_embedding"] = _F["cat"]([pos_embedding[:, :1, :], grid], dim=1)
    if reset_heads:
        model_state = OrderedDict((k, v) for k, v in model_state.items()
                                  if not k.startswith("heads"))
    return model_state


_URL = "https://download.pytorch.org/models/"
_BICUBIC = {"interpolation": InterpolationMode.BICUBIC}


def _plain(file, num_params, resize=256):
    return weights(_URL + file, resize=resize, num_params=num_params, min_size=(224, 224))


def _swag(file, num_params, size):
    return weights(_URL + file, crop=size, resize=size, preset=_BICUBIC, num_params=num_params,
                   min_size=(size, size))


class ViT_B_16_Weights(WeightsEnum):
    IMAGENET1K_V1 = _plain("vit_b_16-c867db91.pth", 86567656)
    IMAGENET1K_SWAG_E2E_V1 = _swag("vit_b_16_swag-9ac1b537.pth", 86859496, 384)
    IMAGENET1K_SWAG_LINEAR_V1 = _swag("vit_b_16_lc_swag-4e70ced5.pth", 86567656, 224)
    DEFAULT = IMAGENET1K_V1


class ViT_B_32_Weights(WeightsEnum):
    IMAGENET1K_V1 = _plain("vit_b_32-d86f8d99.pth", 88224232)
    DEFAULT = IMAGENET1K_V1


class ViT_L_16_Weights(WeightsEnum):
    IMAGENET1K_V1 = _plain("vit_l_16-852ce7e3.pth", 304326632, resize=242)
    IMAGENET1K_SWAG_E2E_V1 = _swag("vit_l_16_swag-4f3808c9.pth", 305174504, 512)
    IMAGENET1K_SWAG_LINEAR_V1 = _swag("vit_l_16_lc_swag-4d563306.pth", 304326632, 224)
    DEFAULT = IMAGENET1K_V1


class ViT_L_32_Weights(WeightsEnum):
    IMAGENET1K_V1 = _plain("vit_l_32-c7638314.pth", 306535400)
    DEFAULT = IMAGENET1K_V1


class ViT_H_14_Weights(WeightsEnum):
    IMAGENET1K_SWAG_E2E_V1 = _swag("vit_h_14_swag-80465313.pth", 633470440, 518)
    IMAGENET1K_SWAG_LINEAR_V1 = _swag("vit_h_14_lc_swag-c1eb923e.pth", 632045800, 224)
    DEFAULT = IMAGENET1K_SWAG_E2E_V1


# name: weights enum, patch size, layers, heads, hidden width, MLP width
_VARIANTS = {
    "vit_b_16": (ViT_B_16_Weights, 16, 12, 12, 768, 3072),
    "vit_b_32": (ViT_B_32_Weights, 32, 12, 12, 768, 3072),
    "vit_l_16": (ViT_L_16_Weights, 16, 24, 16, 1024, 4096),
    "vit_l_32": (ViT_L_32_Weights, 32, 24, 16, 1024, 4096),
    "vit_h_14": (ViT_H_14_Weights, 14, 32, 16, 1280, 5120),
}


def _make_builder(name):
    enum, patch_size, num_layers, num_heads, hidden_dim, mlp_dim = _VARIANTS[name]

    def build(*, weights=None, progress=True, **kwargs):
        weights = handle_legacy(enum, weights, kwargs)
        if weights is not None:     # the weights fix the classes and the image size
            ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
            ovewrite_named_param(kwargs, "image_size", weights.meta["min_size"][0])
        model = VisionTransformer(image_size=kwargs.pop("image_size", 224),
                                  patch_size=patch_size, num_layers=num_layers,
                                  num_heads=num_heads, hidden_dim=hidden_dim, mlp_dim=mlp_dim,
                                  **kwargs)
        if weights:
            model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
        return model
    build.__name__ = build.__qualname__ = name
    build.__doc__ = f"{name}; ``weights`` takes {enum.__name__} values."
    return builder(name, enum)(build)


vit_b_16 = _make_builder("vit_b_16")
vit_b_32 = _make_builder("vit_b_32")
vit_l_16 = _make_builder("vit_l_16")
vit_l_32 = _make_builder("vit_l_32")
vit_h_14 = _make_builder("vit_h_14")
