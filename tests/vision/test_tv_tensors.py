"""cinder.vision.tv_tensors against torchvision 0.28.0's: construction, metadata, reprs, which
operations keep the type, set_return_type, wrap and the errors."""

import copy
import importlib

import numpy as np
import pytest
import torch
from PIL import Image as PILImage

import cinder
from cinder.vision import tv_tensors as CV

BOXES = np.array([[1, 2, 10, 12], [0, 0, 5, 5]], dtype=np.float32)
PIXELS = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)


@pytest.fixture
def TV(tv):
    return importlib.import_module(tv.__name__ + ".tv_tensors")


def _both(TV, make):
    """``make(lib, tv_tensors)`` run on cinder and on torch/torchvision."""
    return make(cinder, CV), make(torch, TV)


def _kind(x):
    return type(x).__name__


@pytest.mark.parametrize("make", [
    lambda L, T: T.BoundingBoxes(L.from_numpy(BOXES.copy()), format="XYXY", canvas_size=(20, 30)),
    lambda L, T: T.BoundingBoxes([3, 4, 5, 6], format=T.BoundingBoxFormat.CXCYWH,
                                 canvas_size=(8, 9), clamping_mode=None),
    lambda L, T: T.Image(L.from_numpy(PIXELS.copy())),
    lambda L, T: T.Image(L.from_numpy(PIXELS[0].copy())),
    lambda L, T: T.Image(PILImage.fromarray(np.stack([PIXELS[0]] * 3, -1))),
    lambda L, T: T.Video(L.zeros(2, 1, 3, 4)),
    lambda L, T: T.Mask(L.from_numpy(PIXELS[0] > 5)),
    lambda L, T: T.Mask(PILImage.fromarray(PIXELS[0])),
])
def test_construction_and_repr(TV, make):
    ours, theirs = _both(TV, make)
    assert repr(ours) == repr(theirs)
    assert _kind(ours) == _kind(theirs) and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("op", [
    lambda b: b + 1, lambda b: b[0], lambda b: b.sum(), lambda b: b * b, lambda b: b.flip(0),
    lambda b: b.clone(), lambda b: b.to(b.dtype), lambda b: b.detach(),
    lambda b: b.requires_grad_(False), lambda b: b.unbind(0), lambda b: b.chunk(2),
])
@pytest.mark.parametrize("mode", ["Tensor", "TVTensor"])
def test_which_operations_keep_the_type(TV, op, mode):
    def run(L, T):
        boxes = T.BoundingBoxes(L.from_numpy(BOXES.copy()), format="XYWH", canvas_size=(20, 30))
        with T.set_return_type(mode):
            out = op(boxes)
        parts = out if isinstance(out, (tuple, list)) else [out]
        return [(_kind(p), repr(p)) for p in parts]
    ours, theirs = _both(TV, run)
    assert ours == theirs


def test_set_return_type_globally_and_errors(TV):
    for L, T in ((cinder, CV), (torch, TV)):
        image = T.Image(L.zeros(1, 2, 2))
        T.set_return_type("tvtensor")
        try:
            assert isinstance(image + 1, T.Image)
        finally:
            T.set_return_type("Tensor")
        assert type(image + 1) is L.Tensor
        with pytest.raises(ValueError, match="return_type must be 'TVTensor' or 'Tensor'"):
            T.set_return_type("array")


def test_wrap_deepcopy_and_metadata(TV):
    def run(L, T):
        boxes = T.BoundingBoxes(L.from_numpy(BOXES.copy()), format="XYXY", canvas_size=(20, 30))
        wrapped = T.wrap(L.ones(1, 4), like=boxes, format="CXCYWH")
        image = T.wrap(L.zeros(1, 2, 2), like=T.Image(L.zeros(1, 2, 2)))
        copied = copy.deepcopy(boxes)
        return [repr(wrapped), repr(image), repr(copied), copied.format.name,
                T.is_rotated_bounding_format("XYWHR"),
                T.is_rotated_bounding_format(T.BoundingBoxFormat.XYXY)]
    ours, theirs = _both(TV, run)
    assert ours == theirs


@pytest.mark.parametrize("make", [
    lambda L, T: T.BoundingBoxes(L.zeros(1, 1, 4), format="XYXY", canvas_size=(2, 2)),
    lambda L, T: T.BoundingBoxes(L.zeros(1, 4), format="XYXY", canvas_size=(2, 2),
                                 clamping_mode="firm"),
    lambda L, T: T.BoundingBoxes(L.zeros(1, 5, dtype=L.int64), format="XYWHR",
                                 canvas_size=(2, 2)),
    lambda L, T: T.BoundingBoxes(L.zeros(1, 4), format="ABCD", canvas_size=(2, 2)),
    lambda L, T: T.Image(L.zeros(3)),
    lambda L, T: T.Video(L.zeros(3, 4, 5)),
    lambda L, T: T.is_rotated_bounding_format(3),
])
def test_errors(TV, make):
    outcomes = []
    for L, T in ((cinder, CV), (torch, TV)):
        with pytest.raises(Exception) as info:
            make(L, T)
        outcomes.append((type(info.value), str(info.value).replace("torch.", "")))
    assert outcomes[0] == outcomes[1]


# ------------------------------------------------------------------------------------------------
# v2 box kernels and flips that dispatch on the type
# ------------------------------------------------------------------------------------------------
@pytest.fixture
def TVF(tv):
    return importlib.import_module(tv.__name__ + ".transforms.v2.functional")


CVF = importlib.import_module("cinder.vision.transforms.v2.functional")
RAW = np.array([[1, 2, 10, 12], [0, 3, 5, 5], [25, 14, 40, 30], [-4, -3, 6, 8]])
FORMATS = ["XYXY", "XYWH", "CXCYWH"]


def _boxes(L, T, fmt, dtype, mode="soft"):
    data = L.from_numpy(RAW.astype(dtype))
    return T.BoundingBoxes(data, format=fmt, canvas_size=(20, 30), clamping_mode=mode)


def _same(ours, theirs):
    ours, theirs = (x if isinstance(x, tuple) else (x,) for x in (ours, theirs))
    for a, b in zip(ours, theirs, strict=True):
        if hasattr(a, "numpy"):
            assert type(a).__name__ == type(b).__name__ and repr(a) == repr(b)
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        else:
            assert a == b


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
@pytest.mark.parametrize("call", [
    lambda F, T, b: F.horizontal_flip(b), lambda F, T, b: F.vertical_flip(b),
    lambda F, T, b: F.clamp_bounding_boxes(b),
    lambda F, T, b: F.convert_bounding_box_format(b, new_format="CXCYWH"),
    lambda F, T, b: F.convert_bounding_box_format(b, new_format=T.BoundingBoxFormat.XYWH),
    lambda F, T, b: F.resize_bounding_boxes(b.as_subclass(type(b).__base__.__base__), (20, 30),
                                            [11, 17], format=b.format),
    lambda F, T, b: F.resize_bounding_boxes(b.as_subclass(type(b).__base__.__base__), (20, 30),
                                            15, max_size=20, format=b.format),
    lambda F, T, b: F.crop_bounding_boxes(b.as_subclass(type(b).__base__.__base__), b.format,
                                          3, -2, 12, 25),
    lambda F, T, b: F.horizontal_flip_bounding_boxes(b.as_subclass(type(b).__base__.__base__),
                                                     b.format, (20, 30)),
])
def test_box_kernels_match_torchvision(TV, TVF, fmt, dtype, call):
    ours = call(CVF, CV, _boxes(cinder, CV, fmt, dtype))
    theirs = call(TVF, TV, _boxes(torch, TV, fmt, dtype))
    _same(ours, theirs)


def test_flips_of_images_masks_and_plain_tensors(TV, TVF):
    for make in (lambda L, T: T.Image(L.from_numpy(PIXELS.copy())),
                 lambda L, T: T.Mask(L.from_numpy(PIXELS[0] > 5)),
                 lambda L, T: L.from_numpy(PIXELS.copy())):
        for name in ("horizontal_flip", "vertical_flip"):
            ours = getattr(CVF, name)(make(cinder, CV))
            theirs = getattr(TVF, name)(make(torch, TV))
            _same(ours, theirs)


def test_box_kernel_errors(TV, TVF):
    calls = [
        lambda F, T, L: F.convert_bounding_box_format(L.zeros(1, 4), new_format="XYWH"),
        lambda F, T, L: F.convert_bounding_box_format(_boxes(L, T, "XYXY", np.float32),
                                                      old_format="XYXY", new_format="XYWH"),
        lambda F, T, L: F.convert_bounding_box_format(_boxes(L, T, "XYXY", np.float32)),
        lambda F, T, L: F.convert_bounding_box_format(L.zeros(1, 4), old_format="XYXY",
                                                      new_format="XYWHR"),
        lambda F, T, L: F.clamp_bounding_boxes(L.zeros(1, 4)),
        lambda F, T, L: F.clamp_bounding_boxes(_boxes(L, T, "XYXY", np.float32),
                                               clamping_mode="firm"),
        lambda F, T, L: F.clamp_bounding_boxes(_boxes(L, T, "XYXY", np.float32),
                                               format="XYXY"),
        lambda F, T, L: F.clamp_bounding_boxes([1, 2, 3, 4], format="XYXY",
                                               canvas_size=(2, 2), clamping_mode="soft"),
    ]
    for call in calls:
        outcomes = []
        for L, T, F in ((cinder, CV, CVF), (torch, TV, TVF)):
            with pytest.raises(Exception) as info:
                call(F, T, L)
            outcomes.append((type(info.value), str(info.value)))
        assert outcomes[0][0] == outcomes[1][0]
        assert outcomes[0][1] == outcomes[1][1] or "list" in outcomes[0][1]


def _sample(L, T):
    """A detection sample: image, boxes, mask, a label and a plain tensor that passes through."""
    return {"image": T.Image(L.from_numpy(PIXELS.copy())),
            "boxes": T.BoundingBoxes(L.from_numpy(RAW[:2].astype(np.float32)), format="XYWH",
                                     canvas_size=(3, 4)),
            "masks": T.Mask(L.from_numpy(PIXELS > 10)), "label": 7,
            "extra": [L.from_numpy(PIXELS[0].copy()), "name"]}


@pytest.mark.parametrize("name", ["RandomHorizontalFlip", "RandomVerticalFlip"])
def test_v2_flips_move_the_whole_sample(tv, TV, name):
    tv_v2 = importlib.import_module(tv.__name__ + ".transforms.v2")
    from cinder.vision.transforms import v2
    assert repr(getattr(v2, name)(0.3)) == repr(getattr(tv_v2, name)(0.3))
    for seed in range(4):
        outs = []
        for L, T, lib in ((cinder, CV, v2), (torch, TV, tv_v2)):
            L.manual_seed(seed)
            outs.append(getattr(lib, name)()(_sample(L, T)))
        for key in ("image", "boxes", "masks"):
            _same(outs[0][key], outs[1][key])
        assert outs[0]["label"] == outs[1]["label"] == 7
        _same(outs[0]["extra"][0], outs[1]["extra"][0])    # passed through untouched
        assert outs[0]["extra"][1] == "name"
    # with no Image in the sample, the first plain tensor is the image
    for L, lib in ((cinder, v2), (torch, tv_v2)):
        pair = (L.from_numpy(PIXELS.copy()), L.from_numpy(PIXELS.copy()))
        first, second = getattr(lib, name)(1.0)(pair)
        assert not first.equal(pair[0]) and second.equal(pair[1])
    with pytest.raises(ValueError, match="`p` should be a floating point value"):
        v2.RandomHorizontalFlip(1.5)


@pytest.mark.parametrize("args", [dict(size=2), dict(size=[5, 7]),
                                  dict(size=[3], interpolation="nearest"),
                                  dict(size=4, max_size=6, antialias=False)])
def test_v2_resize_moves_the_whole_sample(tv, TV, args):
    tv_v2 = importlib.import_module(tv.__name__ + ".transforms.v2")
    from cinder.vision.transforms import v2

    def sample(L, T):
        out = _sample(L, T)
        out["masks"] = T.Mask(L.from_numpy((PIXELS[0] % 3).astype(np.uint8)))  # 2-D, labels
        out["pil"] = PILImage.fromarray(np.stack([PIXELS[0]] * 3, -1))
        return out
    ours = v2.Resize(**args)(sample(cinder, CV))
    theirs = tv_v2.Resize(**args)(sample(torch, TV))
    assert repr(v2.Resize(**args)) == repr(tv_v2.Resize(**args))
    for key in ("boxes", "masks"):
        _same(ours[key], theirs[key])
    # uint8 images: v2 interpolates uint8 natively, cinder through float; rounding may differ
    assert type(ours["image"]).__name__ == "Image" and ours["image"].shape == theirs["image"].shape
    diff = ours["image"].numpy().astype(int) - theirs["image"].numpy().astype(int)
    assert np.abs(diff).max() <= 1
    np.testing.assert_array_equal(np.asarray(ours["pil"]), np.asarray(theirs["pil"]))
    for bad in (dict(size=[1, 2, 3]), dict(size=None)):
        outcomes = []
        for lib in (v2, tv_v2):
            with pytest.raises(ValueError) as info:
                lib.Resize(**bad)
            outcomes.append(str(info.value))
        assert outcomes[0] == outcomes[1]
