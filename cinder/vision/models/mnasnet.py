"""MNASNet B1 (Tan et al. 2018) at depth multipliers 0.5, 0.75, 1.0 and 1.3."""

import warnings
from functools import partial

from ... import nn
from ._api import WeightsEnum, make_builder, weights

__all__ = ["MNASNet", "mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3"]

# TensorFlow's batch norm decay 0.9997 as a PyTorch momentum.
_BN_MOMENTUM = 1 - 0.9997


class _InvertedResidual(nn.Module):
    def __init__(self, in_ch, out_ch, kernel_size, stride, expansion_factor, bn_momentum=0.1):
        super().__init__()
        if stride not in [1, 2]:
            raise ValueError(f"stride should be 1 or 2 instead of {stride}")
        if kernel_size not in [3, 5]:
            raise ValueError(f"kernel_size should be 3 or 5 instead of {kernel_size}")
        mid_ch = in_ch * expansion_factor
        self.apply_residual = in_ch == out_ch and stride == 1
        self.layers = nn.Sequential(
            nn.Conv2d(in_ch, mid_ch, 1, bias=False),
            nn.BatchNorm2d(mid_ch, momentum=bn_momentum), nn.ReLU(inplace=True),
            nn.Conv2d(mid_ch, mid_ch, kernel_size, padding=kernel_size // 2, stride=stride,
                      groups=mid_ch, bias=False),
            nn.BatchNorm2d(mid_ch, momentum=bn_momentum), nn.ReLU(inplace=True),
            nn.Conv2d(mid_ch, out_ch, 1, bias=False),
            nn.BatchNorm2d(out_ch, momentum=bn_momentum))

    def forward(self, input):
        return self.layers(input) + input if self.apply_residual else self.layers(input)


def _stack(in_ch, out_ch, kernel_size, stride, exp_factor, repeats, bn_momentum):
    """``repeats`` inverted residuals; only the first changes width and stride."""
    if repeats < 1:
        raise ValueError(f"repeats should be >= 1, instead got {repeats}")
    first = _InvertedResidual(in_ch, out_ch, kernel_size, stride, exp_factor,
                              bn_momentum=bn_momentum)
    rest = [_InvertedResidual(out_ch, out_ch, kernel_size, 1, exp_factor,
                              bn_momentum=bn_momentum) for _ in range(1, repeats)]
    return nn.Sequential(first, *rest)


def _round_to_multiple_of(val, divisor, round_up_bias=0.9):
    """Nearest multiple of ``divisor``, rounding up when rounding would lose over 10%."""
    if not 0.0 < round_up_bias < 1.0:
        raise ValueError("round_up_bias should be greater than 0.0 and smaller than 1.0 "
                         f"instead of {round_up_bias}")
    new_val = max(divisor, int(val + divisor / 2) // divisor * divisor)
    return new_val if new_val >= round_up_bias * val else new_val + divisor


def _get_depths(alpha):
    return [_round_to_multiple_of(d * alpha, 8) for d in [32, 16, 24, 40, 80, 96, 192, 320]]


def _stem(c0, c1):
    """The first eight layers: strided conv, depthwise conv, projection."""
    return [nn.Conv2d(3, c0, 3, padding=1, stride=2, bias=False),
            nn.BatchNorm2d(c0, momentum=_BN_MOMENTUM), nn.ReLU(inplace=True),
            nn.Conv2d(c0, c0, 3, padding=1, stride=1, groups=c0, bias=False),
            nn.BatchNorm2d(c0, momentum=_BN_MOMENTUM), nn.ReLU(inplace=True),
            nn.Conv2d(c0, c1, 1, padding=0, stride=1, bias=False),
            nn.BatchNorm2d(c1, momentum=_BN_MOMENTUM)]


class MNASNet(nn.Module):
    _version = 2

    def __init__(self, alpha, num_classes=1000, dropout=0.2):
        super().__init__()
        if alpha <= 0.0:
            raise ValueError(f"alpha should be greater than 0.0 instead of {alpha}")
        self.alpha, self.num_classes = alpha, num_classes
        d = _get_depths(alpha)
        m = _BN_MOMENTUM
        layers = _stem(d[0], d[1]) + [
            _stack(d[1], d[2], 3, 2, 3, 3, m), _stack(d[2], d[3], 5, 2, 3, 3, m),
            _stack(d[3], d[4], 5, 2, 6, 3, m), _stack(d[4], d[5], 3, 1, 6, 2, m),
            _stack(d[5], d[6], 5, 2, 6, 4, m), _stack(d[6], d[7], 3, 1, 6, 1, m),
            nn.Conv2d(d[7], 1280, 1, padding=0, stride=1, bias=False),
            nn.BatchNorm2d(1280, momentum=m), nn.ReLU(inplace=True)]
        self.layers = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout, inplace=True),
                                        nn.Linear(1280, num_classes))
        for mod in self.modules():
            if isinstance(mod, nn.Conv2d):
                nn.init.kaiming_normal_(mod.weight, mode="fan_out", nonlinearity="relu")
                if mod.bias is not None:
                    nn.init.zeros_(mod.bias)
            elif isinstance(mod, nn.BatchNorm2d):
                nn.init.ones_(mod.weight)
                nn.init.zeros_(mod.bias)
            elif isinstance(mod, nn.Linear):
                nn.init.kaiming_uniform_(mod.weight, mode="fan_out", nonlinearity="sigmoid")
                nn.init.zeros_(mod.bias)

    def forward(self, x):
        return self.classifier(self.layers(x).mean([2, 3]))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # Version-1 checkpoints had a stem of fixed width (32/16); rebuild it to match them.
        version = local_metadata.get("version", None)
        if version not in [1, 2]:
            raise ValueError(f"version should be set to 1 or 2 instead of {version}")
        if version == 1 and not self.alpha == 1.0:
            depths = _get_depths(self.alpha)
            v1 = _stem(32, 16) + [_stack(16, depths[2], 3, 2, 3, 3, _BN_MOMENTUM)]
            for idx, layer in enumerate(v1):
                self.layers[idx] = layer
            self._version = 1
            warnings.warn("A new version of MNASNet model has been implemented. Your checkpoint "
                          "was saved using the previous version. This checkpoint will load and "
                          "work as before, but you may want to upgrade by training a newer "
                          "model or transfer learning from an updated ImageNet checkpoint.",
                          UserWarning, stacklevel=2)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


_URL = "https://download.pytorch.org/models/"


def _w(name, num_params, resize=256):
    return weights(_URL + name, resize=resize, num_params=num_params, min_size=(1, 1))


class MNASNet0_5_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("mnasnet0.5_top1_67.823-3ffadce67e.pth", 2218512)
    DEFAULT = IMAGENET1K_V1


class MNASNet0_75_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("mnasnet0_75-7090bc5f.pth", 3170208, resize=232)
    DEFAULT = IMAGENET1K_V1


class MNASNet1_0_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("mnasnet1.0_top1_73.512-f206786ef8.pth", 4383312)
    DEFAULT = IMAGENET1K_V1


class MNASNet1_3_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w("mnasnet1_3-a4c69d6f.pth", 6282256, resize=232)
    DEFAULT = IMAGENET1K_V1


def _mnas_builder(name, enum, alpha):
    return make_builder(name, enum, partial(MNASNet, alpha),
                        f"MNASNet with depth multiplier {alpha}")


mnasnet0_5 = _mnas_builder("mnasnet0_5", MNASNet0_5_Weights, 0.5)
mnasnet0_75 = _mnas_builder("mnasnet0_75", MNASNet0_75_Weights, 0.75)
mnasnet1_0 = _mnas_builder("mnasnet1_0", MNASNet1_0_Weights, 1.0)
mnasnet1_3 = _mnas_builder("mnasnet1_3", MNASNet1_3_Weights, 1.3)
