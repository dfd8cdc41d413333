"""ResNet, ResNeXt and Wide ResNet (He et al. 2015; Xie et al. 2016; Zagoruyko & Komodakis
2016), with torchvision's module names, so its checkpoints load unchanged."""

from ... import nn
from ...ops import FUNCTIONS as _F

from ._api import WeightsEnum, make_builder, ovewrite_named_param, weights

__all__ = ["ResNet", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
           "resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d", "wide_resnet50_2",
           "wide_resnet101_2"]


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    """3x3 convolution with 'same' padding and no bias (a norm layer follows)."""
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation,
                     groups=groups, bias=False, dilation=dilation)


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    """Two 3x3 convolutions and a shortcut (ResNet-18/34)."""

    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64,
                 dilation=1, norm_layer=None):
        super().__init__()
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (stride here, as torchvision's "ResNet V1.5"), 1x1 expand by 4."""

    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64,
                 dilation=1, norm_layer=None):
        super().__init__()
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=1000, zero_init_residual=False, groups=1,
                 width_per_group=64, replace_stride_with_dilation=None, norm_layer=None):
        super().__init__()
        self._norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        self.inplanes = 64
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError("replace_stride_with_dilation should be None or a 3-element tuple, "
                             f"got {replace_stride_with_dilation}")
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2,
                                       dilate=replace_stride_with_dilation[0])
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2,
                                       dilate=replace_stride_with_dilation[1])
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2,
                                       dilate=replace_stride_with_dilation[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        self._init_weights(zero_init_residual)

    def _init_weights(self, zero_init_residual):
        # The same re-initialisation, in the same module order, as torchvision.
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        if zero_init_residual:
            # Each residual branch starts as zero, so each block starts as the identity.
            for m in self.modules():
                if isinstance(m, Bottleneck) and m.bn3.weight is not None:
                    nn.init.constant_(m.bn3.weight, 0)
                elif isinstance(m, BasicBlock) and m.bn2.weight is not None:
                    nn.init.constant_(m.bn2.weight, 0)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(conv1x1(self.inplanes, planes * block.expansion, stride),
                                       norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width,
                        previous_dilation, norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups,
                                base_width=self.base_width, dilation=self.dilation,
                                norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def _forward_impl(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = _F["flatten"](self.avgpool(x), 1)
        return self.fc(x)

    def forward(self, x):
        return self._forward_impl(x)


def _w(url, num_params, resize=256, **meta):
    return weights(url, resize=resize, num_params=num_params, min_size=(1, 1),
                   **meta)


_URL = "https://download.pytorch.org/models/"


class ResNet18_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w(_URL + "resnet18-f37072fd.pth", 11689512)
    DEFAULT = IMAGENET1K_V1


class ResNet34_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w(_URL + "resnet34-b627a593.pth", 21797672)
    DEFAULT = IMAGENET1K_V1


class ResNet50_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w(_URL + "resnet50-0676ba61.pth", 25557032)
    IMAGENET1K_V2 = _w(_URL + "resnet50-11ad3fa6.pth", 25557032, resize=232)
    DEFAULT = IMAGENET1K_V2


class ResNet101_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w(_URL + "resnet101-63fe2227.pth", 44549160)
    IMAGENET1K_V2 = _w(_URL + "resnet101-cd907fc2.pth", 44549160, resize=232)
    DEFAULT = IMAGENET1K_V2


class ResNet152_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w(_URL + "resnet152-394f9c45.pth", 60192808)
    IMAGENET1K_V2 = _w(_URL + "resnet152-f82ba261.pth", 60192808, resize=232)
    DEFAULT = IMAGENET1K_V2


class ResNeXt50_32X4D_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w(_URL + "resnext50_32x4d-7cdf4587.pth", 25028904)
    IMAGENET1K_V2 = _w(_URL + "resnext50_32x4d-1a0047aa.pth", 25028904, resize=232)
    DEFAULT = IMAGENET1K_V2


class ResNeXt101_32X8D_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w(_URL + "resnext101_32x8d-8ba56ff5.pth", 88791336)
    IMAGENET1K_V2 = _w(_URL + "resnext101_32x8d-110c445d.pth", 88791336, resize=232)
    DEFAULT = IMAGENET1K_V2


class ResNeXt101_64X4D_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w(_URL + "resnext101_64x4d-173b62eb.pth", 83455272, resize=232)
    DEFAULT = IMAGENET1K_V1


class Wide_ResNet50_2_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w(_URL + "wide_resnet50_2-95faca4d.pth", 68883240)
    IMAGENET1K_V2 = _w(_URL + "wide_resnet50_2-9ba9bcbe.pth", 68883240, resize=232)
    DEFAULT = IMAGENET1K_V2


class Wide_ResNet101_2_Weights(WeightsEnum):
    IMAGENET1K_V1 = _w(_URL + "wide_resnet101_2-32ee1156.pth", 126886696)
    IMAGENET1K_V2 = _w(_URL + "wide_resnet101_2-d733dc28.pth", 126886696, resize=232)
    DEFAULT = IMAGENET1K_V2


def _make_builder(name, enum, block, layers, **fixed):
    """A public builder ``name(*, weights=None, progress=True, **kwargs)``."""
    def make(**kwargs):
        for key, value in fixed.items():
            ovewrite_named_param(kwargs, key, value)
        return ResNet(block, layers, **kwargs)
    return make_builder(name, enum, make, f"{name}: a ResNet of {block.__name__}s {layers}")


resnet18 = _make_builder("resnet18", ResNet18_Weights, BasicBlock, [2, 2, 2, 2])
resnet34 = _make_builder("resnet34", ResNet34_Weights, BasicBlock, [3, 4, 6, 3])
resnet50 = _make_builder("resnet50", ResNet50_Weights, Bottleneck, [3, 4, 6, 3])
resnet101 = _make_builder("resnet101", ResNet101_Weights, Bottleneck, [3, 4, 23, 3])
resnet152 = _make_builder("resnet152", ResNet152_Weights, Bottleneck, [3, 8, 36, 3])
resnext50_32x4d = _make_builder("resnext50_32x4d", ResNeXt50_32X4D_Weights, Bottleneck,
                                [3, 4, 6, 3], groups=32, width_per_group=4)
resnext101_32x8d = _make_builder("resnext101_32x8d", ResNeXt101_32X8D_Weights, Bottleneck,
                                 [3, 4, 23, 3], groups=32, width_per_group=8)
resnext101_64x4d = _make_builder("resnext101_64x4d", ResNeXt101_64X4D_Weights, Bottleneck,
                                 [3, 4, 23, 3], groups=64, width_per_group=4)
wide_resnet50_2 = _make_builder("wide_resnet50_2", Wide_ResNet50_2_Weights, Bottleneck,
                                [3, 4, 6, 3], width_per_group=128)
wide_resnet101_2 = _make_builder("wide_resnet101_2", Wide_ResNet101_2_Weights, Bottleneck,
                                 [3, 4, 23, 3], width_per_group=128)
