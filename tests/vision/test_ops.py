"""cinder.vision.ops: box functions against torchvision's (pure PyTorch) versions; nms and the
RoI ops against reference computations written here (torchvision's compiled kernels do not
load beside the CPU torch build)."""

import math

import numpy as np
import pytest
import torch

import cinder
from cinder.vision import ops as CO

RNG = np.random.default_rng(0)


def _boxes(n, seed):
    r = np.random.default_rng(seed)
    xy = r.uniform(0, 40, (n, 2))
    wh = r.uniform(1, 20, (n, 2))
    return np.concatenate([xy, xy + wh], 1).astype(np.float32)


B1, B2 = _boxes(7, 1), _boxes(5, 2)


@pytest.mark.parametrize("fn", ["box_iou", "generalized_box_iou", "distance_box_iou",
                                "complete_box_iou"])
def test_pairwise_box_functions(tv, fn):
    ours = getattr(CO, fn)(cinder.from_numpy(B1), cinder.from_numpy(B2))
    theirs = getattr(tv.ops, fn)(torch.from_numpy(B1), torch.from_numpy(B2))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fmt", [("xyxy", "xywh"), ("xyxy", "cxcywh"), ("xywh", "cxcywh"),
                                 ("cxcywh", "xyxy"), ("xywh", "xyxy")])
def test_box_convert_area_clip_small(tv, fmt):
    ours = CO.box_convert(cinder.from_numpy(B1), *fmt)
    theirs = tv.ops.box_convert(torch.from_numpy(B1), *fmt)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    np.testing.assert_allclose(CO.box_area(cinder.from_numpy(B1)).numpy(),
                               tv.ops.box_area(torch.from_numpy(B1)).numpy(), rtol=1e-6)
    np.testing.assert_array_equal(
        CO.clip_boxes_to_image(cinder.from_numpy(B1), (30, 25)).numpy(),
        tv.ops.clip_boxes_to_image(torch.from_numpy(B1), (30, 25)).numpy())
    np.testing.assert_array_equal(
        CO.remove_small_boxes(cinder.from_numpy(B1), 8.0).numpy(),
        tv.ops.remove_small_boxes(torch.from_numpy(B1), 8.0).numpy())


def _reference_nms(boxes, scores, thr):
    """Textbook greedy NMS, one box at a time."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    keep = []
    for i in order:
        ok = True
        for j in keep:
            xx1, yy1 = max(boxes[i][0], boxes[j][0]), max(boxes[i][1], boxes[j][1])
            xx2, yy2 = min(boxes[i][2], boxes[j][2]), min(boxes[i][3], boxes[j][3])
            inter = max(0.0, xx2 - xx1) * max(0.0, yy2 - yy1)
            area = lambda b: (b[2] - b[0]) * (b[3] - b[1])  # noqa: E731
            if inter / (area(boxes[i]) + area(boxes[j]) - inter) > thr:
                ok = False
                break
        if ok:
            keep.append(i)
    return keep


@pytest.mark.parametrize("thr", [0.1, 0.3, 0.7])
def test_nms_and_batched_nms(thr):
    boxes = _boxes(60, 3)
    scores = RNG.random(60).astype(np.float32)
    keep = CO.nms(cinder.from_numpy(boxes), cinder.from_numpy(scores), thr)
    assert str(keep.dtype) == "torch.int64"
    assert keep.tolist() == _reference_nms(boxes.tolist(), scores.tolist(), thr)
    cats = RNG.integers(0, 3, 60)
    kept = CO.batched_nms(cinder.from_numpy(boxes), cinder.from_numpy(scores),
                          cinder.from_numpy(cats), thr).tolist()
    expected = []
    for c in range(3):
        idx = np.flatnonzero(cats == c)
        expected += [int(idx[k]) for k in _reference_nms(boxes[idx].tolist(),
                                                         scores[idx].tolist(), thr)]
    assert kept == sorted(expected, key=lambda i: -scores[i])


def _bilinear(fmap, y, x):
    """One bilinear sample with roi_align's border rules (scalar reference)."""
    H, W = fmap.shape[-2:]
    if y < -1.0 or y > H or x < -1.0 or x > W:
        return np.zeros(fmap.shape[0])
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= H - 1:
        y0 = y1 = H - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= W - 1:
        x0 = x1 = W - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * fmap[:, y0, x0] + (1 - ly) * lx * fmap[:, y0, x1]
            + ly * (1 - lx) * fmap[:, y1, x0] + ly * lx * fmap[:, y1, x1])


def _reference_roi_align(feats, rois, out, scale, ratio, aligned):
    res = np.zeros((len(rois), feats.shape[1], out, out))
    off = 0.5 if aligned else 0.0
    for k, r in enumerate(rois):
        x1, y1, x2, y2 = (v * scale - off for v in r[1:])
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        gh = ratio if ratio > 0 else math.ceil(rh / out)
        gw = ratio if ratio > 0 else math.ceil(rw / out)
        for i in range(out):
            for j in range(out):
                acc = np.zeros(feats.shape[1])
                for iy in range(gh):
                    for ix in range(gw):
                        y = y1 + i * rh / out + (iy + 0.5) * rh / out / gh
                        x = x1 + j * rw / out + (ix + 0.5) * rw / out / gw
                        acc += _bilinear(feats[int(r[0])], y, x)
                res[k, :, i, j] = acc / max(gh * gw, 1)
    return res


@pytest.mark.parametrize("aligned", [False, True])
@pytest.mark.parametrize("ratio", [-1, 2])
def test_roi_align(aligned, ratio):
    feats = RNG.standard_normal((2, 3, 12, 10)).astype(np.float32)
    rois = np.array([[0, 1.3, 2.2, 8.5, 9.9], [1, -2, 0.5, 4, 3], [1, 5, 5, 30, 30],
                     [0, 3, 3, 3.2, 3.1]], dtype=np.float32)
    ours = CO.roi_align(cinder.from_numpy(feats), cinder.from_numpy(rois), 3, 0.9, ratio,
                        aligned)
    expected = _reference_roi_align(feats, rois.astype(np.float64), 3, 0.9, ratio, aligned)
    np.testing.assert_allclose(ours.numpy(), expected, rtol=1e-5, atol=1e-5)
    as_list = CO.roi_align(cinder.from_numpy(feats), [cinder.from_numpy(rois[rois[:, 0] == 0,
                                                                              1:]),
                                                       cinder.from_numpy(rois[rois[:, 0] == 1,
                                                                              1:])],
                           3, 0.9, ratio, aligned)
    order = np.argsort(rois[:, 0], kind="stable")
    np.testing.assert_allclose(as_list.numpy(), expected[order], rtol=1e-5, atol=1e-5)


def test_roi_pool():
    feats = RNG.standard_normal((1, 2, 9, 9)).astype(np.float32)
    rois = np.array([[0, 0, 0, 8, 8], [0, 2.4, 1.6, 5.5, 7.2]], dtype=np.float32)
    ours = CO.roi_pool(cinder.from_numpy(feats), cinder.from_numpy(rois), (2, 2)).numpy()
    for k, r in enumerate(rois):
        x1, y1, x2, y2 = (int(round(v)) for v in r[1:])
        bh, bw = (y2 - y1 + 1) / 2, (x2 - x1 + 1) / 2
        for i in range(2):
            for j in range(2):
                ys = slice(int(math.floor(i * bh)) + y1, int(math.ceil((i + 1) * bh)) + y1)
                xs = slice(int(math.floor(j * bw)) + x1, int(math.ceil((j + 1) * bw)) + x1)
                np.testing.assert_array_equal(ours[k, :, i, j], feats[0, :, ys, xs].max((1, 2)))


def test_sigmoid_focal_loss_and_gradient(tv):
    x = RNG.standard_normal((6, 4)).astype(np.float32)
    t = (RNG.random((6, 4)) > 0.5).astype(np.float32)
    for reduction in ("none", "mean", "sum"):
        xc = cinder.from_numpy(x.copy()).requires_grad_()
        xt = torch.from_numpy(x.copy()).requires_grad_()
        a = CO.sigmoid_focal_loss(xc, cinder.from_numpy(t), reduction=reduction)
        b = tv.ops.sigmoid_focal_loss(xt, torch.from_numpy(t), reduction=reduction)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-7)
        a.sum().backward()
        b.sum().backward()
        np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_misc_layers_match(tv):
    cinder.manual_seed(0)
    ours = CO.Conv2dNormActivation(3, 8, 3, stride=2)
    torch.manual_seed(0)
    theirs = tv.ops.Conv2dNormActivation(3, 8, 3, stride=2)
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == list(theirs.state_dict())
    cinder.manual_seed(1)
    se = CO.SqueezeExcitation(8, 2)
    torch.manual_seed(1)
    se_t = tv.ops.SqueezeExcitation(8, 2)
    x = RNG.standard_normal((2, 8, 5, 5)).astype(np.float32)
    np.testing.assert_allclose(se(cinder.from_numpy(x)).detach().numpy(),
                               se_t(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    fb, fb_t = CO.FrozenBatchNorm2d(8), tv.ops.FrozenBatchNorm2d(8)
    assert repr(fb) == repr(fb_t)
    np.testing.assert_allclose(fb(cinder.from_numpy(x)).numpy(), fb_t(torch.from_numpy(x)).numpy(),
                               rtol=1e-5, atol=1e-6)
    assert repr(CO.MLP(4, [8, 3])) == repr(tv.ops.MLP(4, [8, 3]))
    assert repr(CO.StochasticDepth(0.2, "row")) == repr(tv.ops.StochasticDepth(0.2, "row"))


def test_multiscale_roi_align_levels_and_pooling(tv):
    from collections import OrderedDict
    feats = {name: RNG.standard_normal((2, 3, s, s)).astype(np.float32)
             for name, s in (("p2", 32), ("p3", 16), ("p4", 8))}
    boxes = [np.array([[0, 0, 20, 30], [10, 10, 120, 110]], np.float32),
             np.array([[5, 5, 60, 50], [0, 0, 127, 127], [3, 4, 9, 8]], np.float32)]
    ours = CO.MultiScaleRoIAlign(["p2", "p4"], 2, 2)
    theirs = tv.ops.MultiScaleRoIAlign(["p2", "p4"], 2, 2)
    assert repr(ours) == repr(theirs)
    out = ours(OrderedDict((k, cinder.from_numpy(v)) for k, v in feats.items()),
               [cinder.from_numpy(b) for b in boxes], [(128, 128), (120, 128)])
    # the same scales and level assignment as torchvision's (pure PyTorch) helpers
    scales, mapper = tv.ops.poolers._setup_scales(
        [torch.from_numpy(feats["p2"]), torch.from_numpy(feats["p4"])], [(128, 128), (120, 128)],
        224, 4)
    assert ours.scales == scales
    levels = mapper([torch.from_numpy(b) for b in boxes]).numpy()
    np.testing.assert_array_equal(ours.map_levels([cinder.from_numpy(b) for b in boxes]), levels)
    rois = np.concatenate([np.concatenate([np.full((len(b), 1), i, np.float32), b], 1)
                           for i, b in enumerate(boxes)])
    for k, level in enumerate(levels):
        name, scale = ("p2", "p4")[level], scales[level]
        expected = CO.roi_align(cinder.from_numpy(feats[name]), cinder.from_numpy(rois[k:k + 1]),
                                2, scale, 2)
        np.testing.assert_allclose(out.numpy()[k], expected.numpy()[0], rtol=1e-6, atol=1e-6)
