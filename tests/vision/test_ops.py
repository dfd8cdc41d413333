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


def _c_round(v):
    """C's round(), which torchvision's kernels use: halves go away from zero."""
    return int(math.copysign(math.floor(abs(v) + 0.5), v))


def test_roi_pool():
    feats = RNG.standard_normal((1, 2, 9, 9)).astype(np.float32)
    # 2.5 and 5.5: C's round goes away from zero (3, 6), Python's round to even (2, 6).
    rois = np.array([[0, 0, 0, 8, 8], [0, 2.5, 1.6, 5.5, 7.2]], dtype=np.float32)
    ours = CO.roi_pool(cinder.from_numpy(feats), cinder.from_numpy(rois), (2, 2)).numpy()
    for k, r in enumerate(rois):
        x1, y1, x2, y2 = (_c_round(v) for v in r[1:])
        bh, bw = (y2 - y1 + 1) / 2, (x2 - x1 + 1) / 2
        for i in range(2):
            for j in range(2):
                ys = slice(int(math.floor(i * bh)) + y1, int(math.ceil((i + 1) * bh)) + y1)
                xs = slice(int(math.floor(j * bw)) + x1, int(math.ceil((j + 1) * bw)) + x1)
                np.testing.assert_array_equal(ours[k, :, i, j], feats[0, :, ys, xs].max((1, 2)))


# ------------------------------------------------------------------------------------------------
# Gradients of the RoI ops with respect to the input (torchvision has none for the boxes)
# ------------------------------------------------------------------------------------------------
FEATS64 = RNG.standard_normal((2, 8, 9, 10))
ROIS64 = np.array([[0, 1.3, 2.2, 8.5, 7.9], [1, -2, 0.5, 4, 3], [0, 3, 3, 3.2, 3.1],
                   [1, 2.5, 0.5, 9.5, 8.5], [0, 5, 5, 30, 30]])
GRAD_OUT = RNG.standard_normal((len(ROIS64), 8, 2, 2))


def _linear_reference_grad(reference, shape, rois, grad_out):
    """The input gradient of a map linear in the input and identical for every channel: the
    reference is run on one-hot maps (one per pixel) as channels, which gives its Jacobian."""
    n, c, h, w = shape
    basis = np.broadcast_to(np.eye(h * w).reshape(1, h * w, h, w), (n, h * w, h, w))
    jac = reference(basis, rois)                                  # (K, H*W, h_out, w_out)
    grad = np.zeros((n, c, h * w))
    for k, r in enumerate(rois):
        grad[int(r[0])] += np.einsum("mij,cij->cm", jac[k], grad_out[k])
    return grad.reshape(shape)


def _small_feats(channels=1):
    """A float64 input small enough for gradcheck's finite differences."""
    return cinder.from_numpy(FEATS64[:, :channels, :6, :7].copy()).requires_grad_()


def _input_grad(fn, feats, grad_out):
    x = cinder.from_numpy(feats.copy()).requires_grad_()
    out = fn(x)
    out.backward(cinder.from_numpy(grad_out))
    return out, x


@pytest.mark.parametrize("aligned, ratio", [(False, -1), (True, 2)])
def test_roi_align_input_gradient(aligned, ratio):
    fn = lambda x: CO.roi_align(x, cinder.from_numpy(ROIS64), 2, 0.9, ratio, aligned)  # noqa
    out, x = _input_grad(fn, FEATS64, GRAD_OUT)
    assert out.grad_fn is not None
    expected = _linear_reference_grad(
        lambda f, r: _reference_roi_align(f, r, 2, 0.9, ratio, aligned), FEATS64.shape, ROIS64,
        GRAD_OUT)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-10, atol=1e-12)
    assert cinder.autograd.gradcheck(fn, (_small_feats(),))
    if aligned:                                   # second order: the formulas are cinder ops
        assert cinder.autograd.gradgradcheck(fn, (_small_feats(),))


def test_roi_align_float32_gradient_and_box_lists():
    feats = FEATS64.astype(np.float32)
    boxes = [cinder.from_numpy(ROIS64[ROIS64[:, 0] == i, 1:].astype(np.float32))
             for i in range(2)]
    order = np.argsort(ROIS64[:, 0], kind="stable")
    out, x = _input_grad(lambda x: CO.roi_align(x, boxes, 2, 0.9, 2), feats,
                         GRAD_OUT[order].astype(np.float32))
    assert out.dtype == cinder.float32 and x.grad.dtype == cinder.float32
    expected = _linear_reference_grad(
        lambda f, r: _reference_roi_align(f, r, 2, 0.9, 2, False), FEATS64.shape, ROIS64,
        GRAD_OUT)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-4, atol=1e-5)


def test_roi_pool_input_gradient():
    out, x = _input_grad(lambda x: CO.roi_pool(x, cinder.from_numpy(ROIS64), 2, 0.9),
                         FEATS64, GRAD_OUT)
    expected = np.zeros_like(FEATS64)             # each output's gradient goes to its argmax
    H, W = FEATS64.shape[-2:]
    for k, r in enumerate(ROIS64):
        x1, y1, x2, y2 = (_c_round(v * 0.9) for v in r[1:])
        bh, bw = max(y2 - y1 + 1, 1) / 2, max(x2 - x1 + 1, 1) / 2
        for i in range(2):
            for j in range(2):
                ys = slice(min(max(math.floor(i * bh) + y1, 0), H),
                           min(max(math.ceil((i + 1) * bh) + y1, 0), H))
                xs = slice(min(max(math.floor(j * bw) + x1, 0), W),
                           min(max(math.ceil((j + 1) * bw) + x1, 0), W))
                region = FEATS64[int(r[0]), :, ys, xs]
                if not region.size:
                    assert (out.detach().numpy()[k, :, i, j] == 0).all()
                    continue
                for c in range(FEATS64.shape[1]):
                    y, xx = np.unravel_index(region[c].argmax(), region[c].shape)
                    expected[int(r[0]), c, ys.start + y, xs.start + xx] += GRAD_OUT[k, c, i, j]
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    assert cinder.autograd.gradcheck(
        lambda x: CO.roi_pool(x, cinder.from_numpy(ROIS64), 2, 0.9), (_small_feats(),))


def _ps_pick(full, out):
    """Output channel c, bin (i, j) of a position-sensitive op from channel (c*h + i)*w + j."""
    k, channels = full.shape[:2]
    res = np.zeros((k, channels // (out * out), out, out))
    for c in range(res.shape[1]):
        for i in range(out):
            for j in range(out):
                res[:, c, i, j] = full[:, (c * out + i) * out + j, i, j]
    return res


def _ps_spread(grad_out, channels):
    """The gradient of _ps_pick: each output's gradient back on the channel it read."""
    k, c_out, out = grad_out.shape[:3]
    full = np.zeros((k, channels, out, out))
    for c in range(c_out):
        for i in range(out):
            for j in range(out):
                full[:, (c * out + i) * out + j, i, j] = grad_out[:, c, i, j]
    return full


def test_ps_roi_align_forward_and_input_gradient():
    rois = cinder.from_numpy(ROIS64)
    grad_out = GRAD_OUT[:, :2]
    out, x = _input_grad(lambda x: CO.ps_roi_align(x, rois, 2, 0.9, 2), FEATS64, grad_out)
    reference = lambda f, r: _reference_roi_align(f, r, 2, 0.9, 2, True)  # noqa: E731
    np.testing.assert_allclose(out.detach().numpy(),
                               _ps_pick(reference(FEATS64, ROIS64), 2), rtol=1e-10, atol=1e-12)
    expected = _linear_reference_grad(reference, FEATS64.shape, ROIS64,
                                      _ps_spread(grad_out, FEATS64.shape[1]))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-10, atol=1e-12)
    assert cinder.autograd.gradcheck(lambda x: CO.ps_roi_align(x, rois, 2, 0.9, -1),
                                     (_small_feats(4),))
    with pytest.raises(ValueError):
        CO.ps_roi_align(x, rois, 3)


def _reference_ps_roi_pool_full(feats, rois, out, scale):
    """Every channel mean-pooled over every bin with torchvision's ps_roi_pool rules (rounded
    box, bins clipped to the last row/column, empty bins 0)."""
    H, W = feats.shape[-2:]
    res = np.zeros((len(rois), feats.shape[1], out, out))
    for k, r in enumerate(rois):
        x1, y1, x2, y2 = (_c_round(v * scale) for v in r[1:])
        bh, bw = max(y2 - y1, 1) / out, max(x2 - x1, 1) / out
        for i in range(out):
            hs = min(max(math.floor(i * bh) + y1, 0), H - 1)
            he = min(max(math.ceil((i + 1) * bh) + y1, 0), H - 1)
            for j in range(out):
                ws = min(max(math.floor(j * bw) + x1, 0), W - 1)
                we = min(max(math.ceil((j + 1) * bw) + x1, 0), W - 1)
                if he > hs and we > ws:
                    res[k, :, i, j] = feats[int(r[0]), :, hs:he, ws:we].mean((1, 2))
    return res


def test_ps_roi_pool_forward_and_input_gradient():
    rois = cinder.from_numpy(ROIS64)
    grad_out = GRAD_OUT[:, :2]
    out, x = _input_grad(lambda x: CO.ps_roi_pool(x, rois, 2, 0.9), FEATS64, grad_out)
    reference = lambda f, r: _reference_ps_roi_pool_full(f, r, 2, 0.9)  # noqa: E731
    np.testing.assert_allclose(out.detach().numpy(), _ps_pick(reference(FEATS64, ROIS64), 2),
                               rtol=1e-10, atol=1e-12)
    expected = _linear_reference_grad(reference, FEATS64.shape, ROIS64,
                                      _ps_spread(grad_out, FEATS64.shape[1]))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-10, atol=1e-12)
    assert cinder.autograd.gradcheck(lambda x: CO.ps_roi_pool(x, rois, 2, 0.9),
                                     (_small_feats(4),))


def test_roi_modules_match_torchvision(tv):
    pairs = [("RoIAlign", (2, 0.5, 2)), ("RoIAlign", (3, 1.0, -1, True)), ("RoIPool", (2, 0.25)),
             ("PSRoIAlign", (2, 0.5, 2)), ("PSRoIPool", ((2, 3), 1.0))]
    for name, args in pairs:
        ours, theirs = getattr(CO, name)(*args), getattr(tv.ops, name)(*args)
        assert repr(ours) == repr(theirs)
        assert isinstance(ours, cinder.nn.Module)
    feats, rois = cinder.from_numpy(FEATS64), cinder.from_numpy(ROIS64)
    np.testing.assert_array_equal(CO.RoIAlign(2, 0.9, 2)(feats, rois).numpy(),
                                  CO.roi_align(feats, rois, 2, 0.9, 2).numpy())


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
