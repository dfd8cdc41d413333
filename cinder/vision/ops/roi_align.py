"""roi_align, roi_pool and ps_roi_align: fixed-size features from boxes on a feature map.

All three are differentiable with respect to the input (not the boxes, as in torchvision), and
their gradients come from cinder ops, so higher-order gradients work too:

- roi_align is linear in the input: along each axis a box's bilinear samples, averaged per
  bin, form a small weight matrix, and the output of a box is ``Wy @ feature_map @ Wx.T``.
  The boxes of one image share one pair of batched matrix products.
- roi_pool picks, per bin and channel, the input element holding the maximum (the first one,
  as torchvision's kernel does); the output gathers those elements, so the gradient goes to
  them.
- ps_roi_align is roi_align (half-pixel aligned) read on the diagonal of its bins.
"""

import math

import numpy as np

from ... import nn
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


def _align_weights(roi, out_h, out_w, height, width, scale, ratio, aligned):
    """The (out_h, height) and (out_w, width) matrices of one box: row ``i`` of ``wy`` holds the
    summed bilinear weights of bin row ``i``'s samples, divided by the samples per bin."""
    offset = 0.5 if aligned else 0.0
    x1, y1, x2, y2 = roi[1] * scale - offset, roi[2] * scale - offset, \
        roi[3] * scale - offset, roi[4] * scale - offset
    roi_w, roi_h = x2 - x1, y2 - y1
    if not aligned:
        roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
    grid_h = ratio if ratio > 0 else int(math.ceil(roi_h / out_h))
    grid_w = ratio if ratio > 0 else int(math.ceil(roi_w / out_w))
    count = max(grid_h * grid_w, 1)
    wy = _bilinear_weights(_sample_points(y1, roi_h, out_h, grid_h), height)
    wx = _bilinear_weights(_sample_points(x1, roi_w, out_w, grid_w), width)
    # Sum the samples of each bin: the weight rows of one bin add up.
    wy = wy.reshape(out_h, grid_h, -1).sum(1) if grid_h else np.zeros((out_h, height))
    wx = wx.reshape(out_w, grid_w, -1).sum(1) if grid_w else np.zeros((out_w, width))
    return wy / count, wx


def _weights_tensor(values, like):
    return _F["as_tensor"](values, device=like.device).to(like.dtype)


def _align_image(fmap, wy, wx):
    """Outputs (k, C, h, w) of the k boxes of one image ``fmap`` (C, H, W) whose weight
    matrices are ``wy`` (k, h, H) and ``wx`` (k, w, W)."""
    k, out_h, height = wy.shape
    out_w, width = wx.shape[1:]
    channels = fmap.shape[0]
    rows = _F["matmul"](wy.reshape(k * out_h, height), fmap)          # (C, k*h, W)
    rows = rows.reshape(channels, k, out_h, width).permute(1, 0, 2, 3)
    out = _F["matmul"](rows.reshape(k, channels * out_h, width), wx.transpose(1, 2))
    return out.reshape(k, channels, out_h, out_w)


def _by_image(rois, per_image):
    """Run ``per_image(image_index, positions)`` for the boxes of each image and put the
    results back in the boxes' order."""
    images = rois[:, 0].astype(np.int64)
    order = np.argsort(images, kind="stable")
    parts = [per_image(int(b), np.flatnonzero(images == b)) for b in np.unique(images)]
    out = _F["cat"](parts, dim=0)
    if np.array_equal(order, np.arange(len(order))):
        return out
    return out.index_select(0, _F["as_tensor"](np.argsort(order, kind="stable")))


def roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=False):
    """Average of bilinear samples in each of output_size bins of each box -> (K, C, h, w).

    ``boxes`` is a Tensor[K, 5] (image index, x1, y1, x2, y2) or a list of Tensor[L, 4], one
    per image. Differentiable with respect to ``input``.
    """
    out_h, out_w = _pair(output_size)
    rois = _rois(boxes)
    height, width = input.shape[-2:]
    if not len(rois):
        return _F["zeros"]((0, input.shape[1], out_h, out_w), dtype=input.dtype,
                           device=input.device)
    weights = [_align_weights(roi, out_h, out_w, height, width, spatial_scale,
                              sampling_ratio, aligned) for roi in rois]
    wy = np.stack([w[0] for w in weights])
    wx = np.stack([w[1] for w in weights])

    def per_image(b, ks):
        return _align_image(input[b], _weights_tensor(wy[ks], input),
                            _weights_tensor(wx[ks], input))
    return _by_image(rois, per_image)


def _round_half_away(x):
    """C's ``round`` (half away from zero), which torchvision's kernels use; Python's rounds
    half to even."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def _pool_argmax(fmap, b, roi, out_h, out_w, scale, sizes):
    """Flat input positions (C, h, w) of each bin's maximum for one box, and which bins are
    non-empty (an empty bin outputs 0)."""
    channels, height, width = sizes
    x1, y1 = _round_half_away(roi[1] * scale), _round_half_away(roi[2] * scale)
    x2, y2 = _round_half_away(roi[3] * scale), _round_half_away(roi[4] * scale)
    bin_h = max(y2 - y1 + 1, 1) / out_h
    bin_w = max(x2 - x1 + 1, 1) / out_w
    where = np.zeros((channels, out_h, out_w), dtype=np.int64)
    filled = np.zeros((out_h, out_w), dtype=bool)
    first = (b * channels + np.arange(channels)) * height * width
    for i in range(out_h):               # output bins: out_h * out_w slices per box
        hs = min(max(int(math.floor(i * bin_h)) + y1, 0), height)
        he = min(max(int(math.ceil((i + 1) * bin_h)) + y1, 0), height)
        for j in range(out_w):
            ws = min(max(int(math.floor(j * bin_w)) + x1, 0), width)
            we = min(max(int(math.ceil((j + 1) * bin_w)) + x1, 0), width)
            if he > hs and we > ws:
                best = fmap[:, hs:he, ws:we].reshape(channels, -1).argmax(1)
                where[:, i, j] = first + (hs + best // (we - ws)) * width + ws + best % (we - ws)
                filled[i, j] = True
    return where, filled


def roi_pool(input, boxes, output_size, spatial_scale=1.0):
    """Max over each of output_size bins of each (rounded) box -> (K, C, h, w).

    Differentiable with respect to ``input``: each output's gradient goes to the element that
    held the maximum.
    """
    out_h, out_w = _pair(output_size)
    feats = arr(input)
    rois = _rois(boxes)
    where = np.zeros((len(rois), feats.shape[1], out_h, out_w), dtype=np.int64)
    filled = np.zeros((len(rois), 1, out_h, out_w), dtype=bool)
    for k, roi in enumerate(rois):
        b = int(roi[0])
        where[k], filled[k, 0] = _pool_argmax(feats[b], b, roi, out_h, out_w, spatial_scale,
                                              feats.shape[1:])
    picked = _F["take"](input, _F["as_tensor"](where, device=input.device))
    if filled.all():
        return picked
    return picked * _weights_tensor(filled, picked)


def _position_sensitive(pooled, out_h, out_w):
    """Bin (i, j) of output channel c from input channel ``(c * h + i) * w + j``: the diagonal
    of ``pooled`` (K, C, h, w) once its channels are grouped by bin."""
    k, channels = pooled.shape[:2]
    grouped = pooled.reshape(k, channels // (out_h * out_w), out_h * out_w, out_h * out_w)
    return grouped.diagonal(dim1=2, dim2=3).reshape(k, -1, out_h, out_w)


def _check_position_sensitive(input, out_h, out_w):
    if input.shape[1] % (out_h * out_w):
        raise ValueError("input channels must be a multiple of pooling height * pooling width")


def ps_roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1):
    """Position-sensitive roi_align -> (K, C / (h*w), h, w): bin (i, j) of output channel c
    reads input channel ``(c * h + i) * w + j`` (C must be a multiple of h*w), sampled as in
    roi_align with the half-pixel alignment. Differentiable with respect to ``input``."""
    out_h, out_w = _pair(output_size)
    _check_position_sensitive(input, out_h, out_w)
    full = roi_align(input, boxes, (out_h, out_w), spatial_scale, sampling_ratio, aligned=True)
    return _position_sensitive(full, out_h, out_w)


def _bin_means(start, end, bins, size):
    """(bins, size) averaging rows over each bin's integer interval along one axis, with
    torchvision's ps_roi_pool rules (bins clipped to ``size - 1``; an empty bin gives 0)."""
    length = max(end - start, 1) / bins
    rows = np.zeros((bins, size))
    for i in range(bins):
        lo = min(max(int(math.floor(i * length)) + start, 0), size - 1)
        hi = min(max(int(math.ceil((i + 1) * length)) + start, 0), size - 1)
        if hi > lo:
            rows[i, lo:hi] = 1.0 / (hi - lo)
    return rows


def ps_roi_pool(input, boxes, output_size, spatial_scale=1.0):
    """Position-sensitive RoI pooling -> (K, C / (h*w), h, w): bin (i, j) of output channel c
    is the mean of input channel ``(c * h + i) * w + j`` over the bin (on the rounded box).
    Differentiable with respect to ``input``."""
    out_h, out_w = _pair(output_size)
    _check_position_sensitive(input, out_h, out_w)
    rois = _rois(boxes)
    height, width = input.shape[-2:]
    if not len(rois):
        return _F["zeros"]((0, input.shape[1] // (out_h * out_w), out_h, out_w),
                           dtype=input.dtype, device=input.device)
    corners = [[_round_half_away(v * spatial_scale) for v in roi[1:]] for roi in rois]
    wy = np.stack([_bin_means(y1, y2, out_h, height) for _, y1, _, y2 in corners])
    wx = np.stack([_bin_means(x1, x2, out_w, width) for x1, _, x2, _ in corners])

    def per_image(b, ks):
        return _align_image(input[b], _weights_tensor(wy[ks], input),
                            _weights_tensor(wx[ks], input))
    return _position_sensitive(_by_image(rois, per_image), out_h, out_w)


class RoIAlign(nn.Module):
    """Module form of :func:`roi_align`."""

    def __init__(self, output_size, spatial_scale, sampling_ratio, aligned=False):
        super().__init__()
        self.output_size, self.spatial_scale = output_size, spatial_scale
        self.sampling_ratio, self.aligned = sampling_ratio, aligned

    def forward(self, input, rois):
        return roi_align(input, rois, self.output_size, self.spatial_scale,
                         self.sampling_ratio, self.aligned)

    def __repr__(self):
        return (f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale="
                f"{self.spatial_scale}, sampling_ratio={self.sampling_ratio}, "
                f"aligned={self.aligned})")


class _PoolModule(nn.Module):
    """What RoIPool and PSRoIPool share: their two settings and their repr."""

    def __init__(self, output_size, spatial_scale):
        super().__init__()
        self.output_size, self.spatial_scale = output_size, spatial_scale

    def __repr__(self):
        return (f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale="
                f"{self.spatial_scale})")


class RoIPool(_PoolModule):
    """Module form of :func:`roi_pool`."""

    def forward(self, input, rois):
        return roi_pool(input, rois, self.output_size, self.spatial_scale)


class PSRoIAlign(nn.Module):
    """Module form of :func:`ps_roi_align`."""

    def __init__(self, output_size, spatial_scale, sampling_ratio):
        super().__init__()
        self.output_size, self.spatial_scale = output_size, spatial_scale
        self.sampling_ratio = sampling_ratio

    def forward(self, input, rois):
        return ps_roi_align(input, rois, self.output_size, self.spatial_scale,
                            self.sampling_ratio)

    def __repr__(self):
        return (f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale="
                f"{self.spatial_scale}, sampling_ratio={self.sampling_ratio})")


class PSRoIPool(_PoolModule):
    """Module form of :func:`ps_roi_pool`."""

    def forward(self, input, rois):
        return ps_roi_pool(input, rois, self.output_size, self.spatial_scale)
