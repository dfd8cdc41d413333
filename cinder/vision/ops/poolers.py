"""MultiScaleRoIAlign: roi_align over a feature pyramid, each box on the level its size
suits (the FPN paper's level = floor(4 + log2(sqrt(area) / 224)))."""

import math

import numpy as np

from ... import nn
from ...ops import FUNCTIONS as _F
from ..transforms._functional_tensor import arr
from .boxes import box_area
from .roi_align import roi_align


class LevelMapper:
    """Pyramid level (0-based from ``k_min``) for each box of a list of box tensors."""

    def __init__(self, k_min, k_max, canonical_scale=224, canonical_level=4, eps=1e-6):
        self.k_min, self.k_max = k_min, k_max
        self.s0, self.lvl0, self.eps = canonical_scale, canonical_level, eps

    def __call__(self, boxlists):
        s = np.sqrt(np.concatenate([arr(box_area(b)) for b in boxlists]))
        levels = np.floor(self.lvl0 + np.log2(s / self.s0) + np.asarray(self.eps, s.dtype))
        return np.clip(levels, self.k_min, self.k_max).astype(np.int64) - self.k_min


def initLevelMapper(k_min, k_max, canonical_scale=224, canonical_level=4, eps=1e-6):
    return LevelMapper(k_min, k_max, canonical_scale, canonical_level, eps)


def _infer_scale(feature, original_size):
    """The power of two nearest to feature size / image size (height decides)."""
    approx = float(feature.shape[-2]) / float(original_size[0])
    return 2.0 ** round(math.log2(approx))


def _setup_scales(features, image_shapes, canonical_scale, canonical_level):
    if not image_shapes:
        raise ValueError("images list should not be empty")
    original = (max(s[0] for s in image_shapes), max(s[1] for s in image_shapes))
    scales = [_infer_scale(f, original) for f in features]
    lvl_min = -math.log2(scales[0])
    lvl_max = -math.log2(scales[-1])
    return scales, initLevelMapper(int(lvl_min), int(lvl_max), canonical_scale,
                                   canonical_level)


class MultiScaleRoIAlign(nn.Module):
    """Pool boxes (in image coordinates) from the feature maps named ``featmap_names``."""

    def __init__(self, featmap_names, output_size, sampling_ratio, *, canonical_scale=224,
                 canonical_level=4):
        super().__init__()
        if isinstance(output_size, int):
            output_size = (output_size, output_size)
        self.featmap_names = featmap_names
        self.sampling_ratio = sampling_ratio
        self.output_size = tuple(output_size)
        self.scales = None
        self.map_levels = None
        self.canonical_scale, self.canonical_level = canonical_scale, canonical_level

    def forward(self, x, boxes, image_shapes):
        feats = [v for k, v in x.items() if k in self.featmap_names]
        if self.scales is None or self.map_levels is None:
            self.scales, self.map_levels = _setup_scales(feats, image_shapes,
                                                         self.canonical_scale,
                                                         self.canonical_level)
        rois = _F["cat"]([_F["cat"]([_F["full_like"](b[:, :1], i), b], dim=1)
                          for i, b in enumerate(boxes)], dim=0)
        if len(feats) == 1:
            return roi_align(feats[0], rois, self.output_size, self.scales[0],
                             self.sampling_ratio)
        levels = self.map_levels(boxes)
        result = _F["zeros"]((len(rois), feats[0].shape[1]) + self.output_size,
                             dtype=feats[0].dtype, device=feats[0].device)
        for level, (feat, scale) in enumerate(zip(feats, self.scales)):
            idx = np.flatnonzero(levels == level)
            if idx.size:
                chosen = _F["as_tensor"](idx)
                result[chosen] = roi_align(feat, rois[chosen], self.output_size, scale,
                                           self.sampling_ratio).to(result.dtype)
        return result

    def __repr__(self):
        return (f"{self.__class__.__name__}(featmap_names={self.featmap_names}, "
                f"output_size={self.output_size}, sampling_ratio={self.sampling_ratio})")
