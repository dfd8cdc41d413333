"""roi_align, roi_pool and ps_roi_align: fixed-size features from boxes on a feature map.

Forward only (their results carry no gradient); each box is sampled with separable weight
matrices, so one box costs two small matrix products over the whole map.
"""

import math

import numpy as np

from ...ops import FUNCTIONS as _F
from ..transforms._functional_tensor import arr


def _pair(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x, x)


def convert_boxes_to_roi_format(boxes):
    """A list of (L_i, 4) box tensors -> one (K, 5) array with the image index first."""
    rows = [np.concatenate([np.full((len(b), 1), i, dtype=np.float64),
                            arr(b).astype(np.float64)], axis=1) for i, b in enumerate(boxes)]
    return np.concatenate(rows, axis=0) if rows else np.zeros((0, 5))


def _rois(boxes):
    if isinstance(boxes, (list, tuple)):
        return convert_boxes_to_roi_format(boxes)
    b = arr(boxes)
    if b.ndim != 2 or b.shape[1] != 5:
        raise ValueError("boxes must be a Tensor[K, 5] or a list of Tensor[L, 4]")
    return b.astype(np.float64)


def _bilinear_weights(coords, size):
    """(len(coords), size) weights of bilinear sampling along one axis, torchvision's rules:
    points beyond one pixel outside give 0; points are clamped into the map otherwise."""
    w = np.zeros((len(coords), size))
    valid = (coords >= -1.0) & (coords <= size)
    c = np.clip(coords, 0, None)
    low = np.floor(c).astype(np.int64)
    at_end = low >= size - 1
    low = np.where(at_end, size - 1, low)
    high = np.where(at_end, size - 1, low + 1)
    c = np.where(at_end, low, c)
    frac = c - low
    rows = np.arange(len(coords))
    np.add.at(w, (rows, low), (1 - frac) * valid)     # len(coords) entries only
    np.add.at(w, (rows, high), frac * valid)
    return w


def _sample_points(start, extent, bins, grid):
    """Sample coordinates: ``grid`` evenly spaced points inside each of ``bins`` bins."""
    bin_size = extent / bins
    offsets = (np.arange(grid) + 0.5) * bin_size / grid
    return (start + np.arange(bins)[:, None] * bin_size + offsets[None, :]).reshape(-1)


def _align_one(feat, roi, out_h, out_w, scale, ratio, aligned):
    offset = 0.5 if aligned else 0.0
    x1, y1, x2, y2 = roi[1] * scale - offset, roi[2] * scale - offset, \
        roi[3] * scale - offset, roi[4] * scale - offset
    roi_w, roi_h = x2 - x1, y2 - y1
    if not aligned:
        roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
    grid_h = ratio if ratio > 0 else int(math.ceil(roi_h / out_h))
    grid_w = ratio if ratio > 0 else int(math.ceil(roi_w / out_w))
    count = max(grid_h * grid_w, 1)
    wy = _bilinear_weights(_sample_points(y1, roi_h, out_h, grid_h), feat.shape[-2])
    wx = _bilinear_weights(_sample_points(x1, roi_w, out_w, grid_w), feat.shape[-1])
    # Sum the samples of each bin first: the weight rows of one bin add up.
    wy = wy.reshape(out_h, grid_h, -1).sum(1) if grid_h else np.zeros((out_h, feat.shape[-2]))
    wx = wx.reshape(out_w, grid_w, -1).sum(1) if grid_w else np.zeros((out_w, feat.shape[-1]))
    return (wy @ feat @ wx.T) / count


def roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=False):
    """Average of bilinear samples in each of output_size bins of each box -> (K, C, h, w)."""
    out_h, out_w = _pair(output_size)
    feats = arr(input).astype(np.float64)
    rois = _rois(boxes)
    out = np.zeros((len(rois), feats.shape[1], out_h, out_w))
    for k, roi in enumerate(rois):            # one pair of matrix products per box
        out[k] = _align_one(feats[int(roi[0])], roi, out_h, out_w, spatial_scale,
                            sampling_ratio, aligned)
    return _F["as_tensor"](out.astype(feats.dtype if input.dtype.itemsize == 8 else np.float32),
                           device=input.device).to(input.dtype)


def roi_pool(input, boxes, output_size, spatial_scale=1.0):
    """Max over each of output_size bins of each (rounded) box -> (K, C, h, w)."""
    out_h, out_w = _pair(output_size)
    feats = arr(input)
    H, W = feats.shape[-2:]
    rois = _rois(boxes)
    out = np.zeros((len(rois), feats.shape[1], out_h, out_w), dtype=feats.dtype)
    for k, roi in enumerate(rois):
        fmap = feats[int(roi[0])]
        x1, y1 = int(round(roi[1] * spatial_scale)), int(round(roi[2] * spatial_scale))
        x2, y2 = int(round(roi[3] * spatial_scale)), int(round(roi[4] * spatial_scale))
        bin_h = max(y2 - y1 + 1, 1) / out_h
        bin_w = max(x2 - x1 + 1, 1) / out_w
        for i in range(out_h):               # output bins: out_h * out_w slices per box
            hs = min(max(int(math.floor(i * bin_h)) + y1, 0), H)
            he = min(max(int(math.ceil((i + 1) * bin_h)) + y1, 0), H)
            for j in range(out_w):
                ws = min(max(int(math.floor(j * bin_w)) + x1, 0), W)
                we = min(max(int(math.ceil((j + 1) * bin_w)) + x1, 0), W)
                if he > hs and we > ws:
                    out[k, :, i, j] = fmap[:, hs:he, ws:we].max(axis=(1, 2))
    return _F["as_tensor"](out, device=input.device)


class RoIAlign:
    """Module form of :func:`roi_align`."""

    def __init__(self, output_size, spatial_scale, sampling_ratio, aligned=False):
        self.output_size, self.spatial_scale = output_size, spatial_scale
        self.sampling_ratio, self.aligned = sampling_ratio, aligned

    def __call__(self, input, rois):
        return roi_align(input, rois, self.output_size, self.spatial_scale,
                         self.sampling_ratio, self.aligned)

    def __repr__(self):
        return (f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale="
                f"{self.spatial_scale}, sampling_ratio={self.sampling_ratio}, "
                f"aligned={self.aligned})")


class RoIPool:
    def __init__(self, output_size, spatial_scale):
        self.output_size, self.spatial_scale = output_size, spatial_scale

    def __call__(self, input, rois):
        return roi_pool(input, rois, self.output_size, self.spatial_scale)

    def __repr__(self):
        return (f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale="
                f"{self.spatial_scale})")


def ps_roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1):
    """Position-sensitive roi_align: bin (i, j) of output channel c reads input channel
    ``(c * h + i) * w + j`` (C must be a multiple of h*w), sampled as in roi_align with the
    half-pixel alignment."""
    out_h, out_w = _pair(output_size)
    feats = arr(input).astype(np.float64)
    channels = feats.shape[1]
    if channels % (out_h * out_w):
        raise ValueError("input channels must be a multiple of output_size's area")
    out_c = channels // (out_h * out_w)
    rois = _rois(boxes)
    out = np.zeros((len(rois), out_c, out_h, out_w))
    for k, roi in enumerate(rois):
        full = _align_one(feats[int(roi[0])], roi, out_h, out_w, spatial_scale, sampling_ratio,
                          aligned=True)
        grouped = full.reshape(out_c, out_h, out_w, out_h, out_w)
        ii, jj = np.arange(out_h)[:, None], np.arange(out_w)[None, :]
        out[k] = grouped[:, ii, jj, ii, jj]
    return _F["as_tensor"](out.astype(np.float32), device=input.device).to(input.dtype)
