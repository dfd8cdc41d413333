"""Box utilities and non-maximum suppression. Boxes are (x1, y1, x2, y2) unless stated."""

import numpy as np

from ... import _dtype
from ...ops import FUNCTIONS as _F
from ..transforms._functional_tensor import arr
from ...autograd.grad_mode import no_grad


def _index_tensor(indices, like):
    return _F["as_tensor"](np.asarray(indices, dtype=np.int64), device=like.device)


def _nms_indices(b, s, iou_threshold):
    """Greedy NMS on arrays: indices kept, by decreasing score (stable for ties)."""
    order = np.argsort(-s, kind="stable")
    areas = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    keep = []
    while order.size:
        i = order[0]
        keep.append(i)
        rest = order[1:]
        w = np.clip(np.minimum(b[i, 2], b[rest, 2]) - np.maximum(b[i, 0], b[rest, 0]), 0, None)
        h = np.clip(np.minimum(b[i, 3], b[rest, 3]) - np.maximum(b[i, 1], b[rest, 1]), 0, None)
        inter = w * h
        iou = inter / (areas[i] + areas[rest] - inter)
        order = rest[~(iou > iou_threshold)]     # NaN IoU (empty boxes) never suppresses
    return np.asarray(keep, dtype=np.int64)


def nms(boxes, scores, iou_threshold):
    """Indices of the boxes kept by greedy non-maximum suppression, highest score first:
    a box is dropped when its IoU with a kept, higher-scoring box exceeds ``iou_threshold``."""
    return _index_tensor(_nms_indices(arr(boxes), arr(scores), iou_threshold), boxes)


def batched_nms(boxes, scores, idxs, iou_threshold):
    """NMS within each category of ``idxs`` separately; kept indices sorted by score."""
    if boxes.numel() == 0:
        return _F["empty"]((0,), dtype=_dtype.int64, device=boxes.device)
    b, s, cat = arr(boxes), arr(scores), arr(idxs)
    # Shift each category far apart so boxes of different categories never overlap.
    offsets = cat.astype(b.dtype) * (b.max() + 1)
    keep = _nms_indices(b + offsets[:, None], s, iou_threshold)
    keep = keep[np.argsort(-s[keep], kind="stable")]
    return _index_tensor(keep, boxes)


def remove_small_boxes(boxes, min_size):
    """Indices of boxes whose width and height are both at least ``min_size``."""
    b = arr(boxes)
    ws, hs = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    return _index_tensor(np.flatnonzero((ws >= min_size) & (hs >= min_size)), boxes)


def clip_boxes_to_image(boxes, size):
    """Clamp coordinates into an image of ``size`` = (height, width)."""
    height, width = size
    x = boxes[..., 0::2].clamp(min=0, max=width)
    y = boxes[..., 1::2].clamp(min=0, max=height)
    return _F["stack"]((x, y), dim=boxes.dim()).reshape(boxes.shape)


def box_area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def _box_inter_union(boxes1, boxes2):
    area1, area2 = box_area(boxes1), box_area(boxes2)
    lt = _F["max"](boxes1[:, None, :2], boxes2[:, :2])
    rb = _F["min"](boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    return inter, area1[:, None] + area2 - inter


def box_iou(boxes1, boxes2):
    """(N, M) matrix of intersection over union."""
    inter, union = _box_inter_union(boxes1, boxes2)
    return inter / union


def _enclosing_diag_and_center_dist(boxes1, boxes2, eps):
    lti = _F["min"](boxes1[:, None, :2], boxes2[:, :2])
    rbi = _F["max"](boxes1[:, None, 2:], boxes2[:, 2:])
    whi = (rbi - lti).clamp(min=0)
    diag = whi[:, :, 0] ** 2 + whi[:, :, 1] ** 2 + eps
    c1 = (boxes1[:, :2] + boxes1[:, 2:]) / 2
    c2 = (boxes2[:, :2] + boxes2[:, 2:]) / 2
    dist = (c1[:, None, 0] - c2[None, :, 0]) ** 2 + (c1[:, None, 1] - c2[None, :, 1]) ** 2
    return diag, dist


def generalized_box_iou(boxes1, boxes2):
    """IoU minus the share of the enclosing box that neither box covers."""
    inter, union = _box_inter_union(boxes1, boxes2)
    iou = inter / union
    lti = _F["min"](boxes1[:, None, :2], boxes2[:, :2])
    rbi = _F["max"](boxes1[:, None, 2:], boxes2[:, 2:])
    whi = (rbi - lti).clamp(min=0)
    areai = whi[:, :, 0] * whi[:, :, 1]
    return iou - (areai - union) / areai


def distance_box_iou(boxes1, boxes2, eps=1e-7):
    """IoU minus the squared centre distance over the enclosing box's squared diagonal."""
    iou = box_iou(boxes1, boxes2)
    diag, dist = _enclosing_diag_and_center_dist(boxes1, boxes2, eps)
    return iou - dist / diag


def complete_box_iou(boxes1, boxes2, eps=1e-7):
    """Distance IoU minus an aspect-ratio consistency term."""
    iou = box_iou(boxes1, boxes2)
    diag, dist = _enclosing_diag_and_center_dist(boxes1, boxes2, eps)
    diou = iou - dist / diag
    w1, h1 = boxes1[:, None, 2] - boxes1[:, None, 0], boxes1[:, None, 3] - boxes1[:, None, 1]
    w2, h2 = boxes2[:, 2] - boxes2[:, 0], boxes2[:, 3] - boxes2[:, 1]
    v = (4 / (np.pi ** 2)) * (_F["atan"](w2 / h2) - _F["atan"](w1 / h1)) ** 2
    with _no_grad():
        alpha = v / (1 - iou + v + eps)
    return diou - alpha * v


def _no_grad():
    return no_grad()


def box_convert(boxes, in_fmt, out_fmt):
    """Convert between 'xyxy', 'xywh' (corner + size) and 'cxcywh' (centre + size)."""
    allowed = ("xyxy", "xywh", "cxcywh")
    if in_fmt not in allowed or out_fmt not in allowed:
        raise ValueError("Unsupported Bounding Box Conversions for given in_fmt and out_fmt")
    if in_fmt == out_fmt:
        return boxes.clone()
    a, b, c, d = boxes.unbind(-1)
    if in_fmt == "xywh":
        a, b, c, d = a, b, a + c, b + d
    elif in_fmt == "cxcywh":
        a, b, c, d = a - 0.5 * c, b - 0.5 * d, a + 0.5 * c, b + 0.5 * d
    if out_fmt == "xywh":
        a, b, c, d = a, b, c - a, d - b
    elif out_fmt == "cxcywh":
        a, b, c, d = (a + c) / 2, (b + d) / 2, c - a, d - b
    return _F["stack"]((a, b, c, d), dim=-1)


def masks_to_boxes(masks):
    """The tight (x1, y1, x2, y2) box of each boolean mask in (N, H, W)."""
    m = arr(masks).astype(bool)
    out = np.zeros((m.shape[0], 4), dtype=np.float32)
    for i, mask in enumerate(m):          # one argwhere per mask
        ys, xs = np.nonzero(mask)
        out[i] = [xs.min(), ys.min(), xs.max(), ys.max()]
    return _F["as_tensor"](out, device=masks.device)
