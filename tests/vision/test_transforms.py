"""cinder.vision.transforms against torchvision 0.28.0: same input, same seed, same output."""

import importlib

import numpy as np
import pytest
import torch
from PIL import Image

import cinder
from cinder.vision import transforms as CT

RNG = np.random.default_rng(0)
RGB = RNG.integers(0, 256, size=(20, 24, 3), dtype=np.uint8)
GRAY = RNG.integers(0, 256, size=(20, 24), dtype=np.uint8)

# (name, args as text evaluated with T = the transforms module, TOL for float tensors)
CASES = [
    ("ToTensor()", 0), ("Resize(12)", 1e-5), ("Resize((10, 30))", 1e-5),
    ("Resize(10, interpolation=T.InterpolationMode.NEAREST)", 0),
    ("Resize((7, 9), antialias=False)", 1e-5), ("CenterCrop(10)", 0), ("CenterCrop(30)", 0),
    ("RandomCrop(16, padding=3)", 0), ("RandomCrop(30, pad_if_needed=True, fill=7)", 0),
    ("RandomCrop(16, padding=(1, 2), padding_mode='reflect')", 0),
    ("RandomCrop(16, padding=2, padding_mode='edge')", 0),
    ("RandomCrop(16, padding=2, padding_mode='symmetric')", 0),
    ("RandomResizedCrop(14)", 1e-5), ("RandomHorizontalFlip()", 0),
    ("RandomVerticalFlip(p=0.9)", 0), ("Pad((1, 2, 3, 4), fill=9)", 0),
    ("ColorJitter(0.4, 0.4, 0.4)", 2e-5), ("ColorJitter(hue=0.2)", 1e-4),
    ("Grayscale(3)", 1e-6), ("RandomGrayscale(p=0.8)", 1e-6),
    ("GaussianBlur(3)", 1e-5), ("RandomInvert(0.9)", 0), ("RandomSolarize(100, p=0.9)", 0),
    ("RandomAdjustSharpness(2.0, p=0.9)", 1e-5), ("RandomAutocontrast(0.9)", 1e-6),
    ("RandomAffine(15, translate=(0.1, 0.1), interpolation=T.InterpolationMode.BILINEAR)", 1e-4),
    ("RandomRotation(30, interpolation=T.InterpolationMode.BILINEAR)", 1e-4),
    ("RandomPerspective(p=1.0)", 1e-3),
    ("Compose([RandomCrop(18, padding=2), RandomHorizontalFlip(), ColorJitter(0.3, 0.3)])", 2e-5),
    ("ElasticTransform(sigma=2.0)", 1e-5),
    ("ElasticTransform(alpha=(30.0, 60.0), sigma=(3.0, 2.0), fill=[0.2, 0.4, 0.6], "
     "interpolation=T.InterpolationMode.NEAREST)", 1e-5),
]
PIL_ONLY_EXACT = ["RandAugment()", "RandAugment(num_ops=3, magnitude=15)",
                  "TrivialAugmentWide()", "TrivialAugmentWide(num_magnitude_bins=11)",
                  "RandomAffine(15, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5)",
                  "RandomRotation(25)", "RandomPosterize(3, p=0.9)", "RandomEqualize(0.9)",
                  "FiveCrop(9)", "TenCrop(9)"]


def _build(lib_transforms, text):
    scope = {n: getattr(lib_transforms, n) for n in dir(lib_transforms) if n[0].isupper()}
    scope["T"] = lib_transforms
    return eval(text, scope)


def _run(lib, transforms, text, img, seed):
    """The output, or (exception type name, message) when the transform refuses the input."""
    lib.manual_seed(seed)
    try:
        return _build(transforms, text)(img)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return (type(e).__name__, str(e))


def _as_numpy(out):
    if isinstance(out, Image.Image):
        return np.asarray(out)
    return np.asarray(out.numpy())


def _compare(a, b, tol):
    if isinstance(a, tuple) and isinstance(a[0], str) or isinstance(b, tuple) and \
            isinstance(b[0], str):
        assert a == b
        return
    if isinstance(a, (tuple, list)):
        for x, y in zip(a, b, strict=True):
            _compare(x, y, tol)
        return
    a, b = _as_numpy(a), _as_numpy(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    if tol == 0 or a.dtype == np.uint8:
        diff = np.abs(a.astype(np.int64) - b.astype(np.int64))
        # integer results round a float; allow a rare 1-step tie only where tol > 0
        assert diff.max() <= (1 if tol else 0), diff.max()
    else:
        np.testing.assert_allclose(a, b, atol=tol, rtol=0)


@pytest.mark.parametrize("text", [c[0] for c in CASES] + PIL_ONLY_EXACT)
@pytest.mark.parametrize("seed", [0, 7])
def test_pil_input(tv, text, seed):
    img = Image.fromarray(RGB)
    ours = _run(cinder, CT, text, img, seed)
    theirs = _run(torch, tv.transforms, text, img, seed)
    _compare(ours, theirs, 0)


@pytest.mark.parametrize("text,tol", [c for c in CASES if c[0] != "ToTensor()"])
@pytest.mark.parametrize("seed", [0, 7])
def test_float_tensor_input(tv, text, tol, seed):
    x = RGB.transpose(2, 0, 1).astype(np.float32) / 255
    ours = _run(cinder, CT, text, cinder.from_numpy(x.copy()), seed)
    theirs = _run(torch, tv.transforms, text, torch.from_numpy(x.copy()), seed)
    _compare(ours, theirs, tol)


@pytest.mark.parametrize("text,tol", [c for c in CASES if c[0] != "ToTensor()"])
def test_uint8_tensor_input(tv, text, tol):
    x = RGB.transpose(2, 0, 1).copy()
    ours = _run(cinder, CT, text, cinder.from_numpy(x.copy()), 3)
    theirs = _run(torch, tv.transforms, text, torch.from_numpy(x.copy()), 3)
    _compare(ours, theirs, tol)


@pytest.mark.parametrize("text", [c[0] for c in CASES] + PIL_ONLY_EXACT)
def test_repr(tv, text):
    assert repr(_build(CT, text)) == repr(_build(tv.transforms, text))


def test_to_tensor_and_back(tv):
    for arr in (RGB, GRAY):
        img = Image.fromarray(arr)
        ours, theirs = CT.ToTensor()(img), tv.transforms.ToTensor()(img)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        assert str(ours.dtype) == str(theirs.dtype)
        back_ours = CT.ToPILImage()(ours)
        back_theirs = tv.transforms.ToPILImage()(theirs)
        assert back_ours.mode == back_theirs.mode
        np.testing.assert_array_equal(np.asarray(back_ours), np.asarray(back_theirs))
    ours = CT.PILToTensor()(Image.fromarray(RGB))
    assert str(ours.dtype) == "torch.uint8" and ours.shape == (3, 20, 24)


def test_normalize_and_errors(tv):
    x = RGB.transpose(2, 0, 1).astype(np.float32) / 255
    args = ((0.5, 0.4, 0.3), (0.2, 0.25, 0.3))
    ours = CT.Normalize(*args)(cinder.from_numpy(x.copy()))
    theirs = tv.transforms.Normalize(*args)(torch.from_numpy(x.copy()))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-6)
    for lib, mod in ((cinder, CT), (torch, tv.transforms)):
        with pytest.raises(ValueError, match="std evaluated to zero"):
            mod.Normalize((0.5,), (0.0,))(lib.ones(1, 2, 2))
        with pytest.raises(TypeError, match="Input tensor should be a float tensor"):
            mod.Normalize((0.5,), (1.0,))(lib.ones(1, 2, 2, dtype=lib.uint8))
        with pytest.raises(TypeError, match="pic should be PIL Image or ndarray"):
            mod.ToTensor()([1, 2])


def test_normalize_is_differentiable():
    x = cinder.rand(1, 2, 2, requires_grad=True)
    CT.Normalize((0.5,), (0.5,))(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((1, 2, 2), 2.0))


@pytest.mark.parametrize("seed", range(12))
def test_autoaugment_family_on_uint8_tensors(tv, seed):
    x = RGB.transpose(2, 0, 1).copy()
    for text in ("RandAugment()", "TrivialAugmentWide()"):
        ours = _run(cinder, CT, text, cinder.from_numpy(x.copy()), seed)
        theirs = _run(torch, tv.transforms, text, torch.from_numpy(x.copy()), seed)
        _compare(ours, theirs, 1e-4)


def test_v2_names(tv):
    from cinder.vision.transforms import v2
    x = RGB.transpose(2, 0, 1).copy()
    out = v2.Compose([v2.ToImage(), v2.ToDtype(cinder.float32, scale=True)])(Image.fromarray(RGB))
    np.testing.assert_allclose(out.numpy(), x / 255.0, atol=1e-7)
    assert v2.RandomCrop is not None and v2.RandomAffine is not None


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
@pytest.mark.parametrize("mode", ["BILINEAR", "BICUBIC", "NEAREST"])
@pytest.mark.parametrize("antialias", [True, False])
def test_tensor_resize_dtypes_and_batches(tv, dtype, mode, antialias):
    x = np.stack([RGB, RGB[::-1]]).transpose(0, 3, 1, 2).astype(dtype)
    if dtype != np.uint8:
        x /= 255
    args = dict(size=[7, 31], antialias=antialias)
    ours = CT.functional.resize(cinder.from_numpy(x.copy()),
                                interpolation=getattr(CT.InterpolationMode, mode), **args)
    theirs = tv.transforms.functional.resize(
        torch.from_numpy(x.copy()), interpolation=getattr(tv.transforms.InterpolationMode, mode),
        **args)
    _compare(ours, theirs, 1e-5 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("mode", ["NEAREST", "BILINEAR"])
@pytest.mark.parametrize("fill", [None, (0.3, 0.6, 0.9)])
def test_tensor_rotate_and_perspective_with_fill(tv, dtype, mode, fill):
    x = np.stack([RGB, RGB[::-1]]).transpose(0, 3, 1, 2).astype(dtype)
    if dtype == np.uint8:
        fill = fill and [round(v * 255) for v in fill]
    else:
        x /= 255
    corners = [[0, 0], [23, 0], [23, 19], [0, 19]], [[2, 1], [20, 3], [22, 18], [1, 17]]

    def warps(lib, transforms):
        img, how = lib.from_numpy(x.copy()), getattr(transforms.InterpolationMode, mode)
        return (transforms.functional.rotate(img, 33, how, fill=fill),
                transforms.functional.perspective(img, *corners, how, fill=fill))

    _compare(warps(cinder, CT), warps(torch, tv.transforms), 1e-5)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("kernel,sigma", [([3, 3], [0.8, 0.8]), ([7, 5], [1.5, 0.7])])
def test_tensor_gaussian_blur_batched(tv, dtype, kernel, sigma):
    x = np.stack([RGB, RGB[::-1]]).transpose(0, 3, 1, 2).astype(dtype)
    if dtype != np.uint8:
        x /= 255
    ours = CT.functional.gaussian_blur(cinder.from_numpy(x.copy()), kernel, sigma)
    theirs = tv.transforms.functional.gaussian_blur(torch.from_numpy(x.copy()), kernel, sigma)
    _compare(ours, theirs, 1e-6)


# ------------------------------------------------------------------------------------------------
# AutoAugment's learned policies and AugMix
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("policy", ["IMAGENET", "CIFAR10", "SVHN"])
def test_autoaugment_policies(tv, policy):
    """Same sub-policy, probabilities, signs and magnitudes as torchvision for the same seed, on
    PIL images and uint8 tensors (seeds chosen so that many sub-policies get exercised)."""
    text = f"AutoAugment(T.AutoAugmentPolicy.{policy})"
    ours_t, theirs_t = _build(CT, text), _build(tv.transforms, text)
    assert repr(ours_t) == repr(theirs_t)
    assert [tuple(p) for p in ours_t.policies] == [tuple(p) for p in theirs_t.policies]
    x = RGB.transpose(2, 0, 1).copy()
    for seed in range(8):
        _compare(_run(cinder, CT, text, Image.fromarray(RGB), seed),
                 _run(torch, tv.transforms, text, Image.fromarray(RGB), seed), 0)
        _compare(_run(cinder, CT, text, cinder.from_numpy(x.copy()), seed),
                 _run(torch, tv.transforms, text, torch.from_numpy(x.copy()), seed), 1e-4)
    with pytest.raises(ValueError, match="is not recognized"):
        CT.AutoAugment("imagenet")


def _fixed_dirichlet(lib):
    """A deterministic stand-in for _sample_dirichlet (torchvision's own tests swap it the same
    way): the concentrations normalised, scaled differently per column."""
    def sample(self, params):
        ramp = lib.arange(1, params.shape[-1] + 1, dtype=params.dtype)
        w = params * ramp
        return w / w.sum(-1, keepdim=True)
    return sample


@pytest.mark.parametrize("text", ["AugMix()", "AugMix(severity=7, mixture_width=2, "
                                  "chain_depth=2, all_ops=False, fill=[10, 20, 30])"])
def test_augmix_chains_match(tv, monkeypatch, text):
    monkeypatch.setattr(CT.AugMix, "_sample_dirichlet", _fixed_dirichlet(cinder))
    monkeypatch.setattr(tv.transforms.AugMix, "_sample_dirichlet", _fixed_dirichlet(torch))
    assert repr(_build(CT, text)) == repr(_build(tv.transforms, text))
    x = RGB.transpose(2, 0, 1).copy()
    for seed in range(4):
        _compare(_run(cinder, CT, text, Image.fromarray(RGB), seed),
                 _run(torch, tv.transforms, text, Image.fromarray(RGB), seed), 1e-4)
        _compare(_run(cinder, CT, text, cinder.from_numpy(x.copy()), seed),
                 _run(torch, tv.transforms, text, torch.from_numpy(x.copy()), seed), 1e-4)
    for lib in (CT, tv.transforms):
        with pytest.raises(ValueError, match="severity must be between"):
            lib.AugMix(severity=11)


def test_augmix_with_pytorchs_dirichlet_draws(tv):
    if not hasattr(cinder, "_sample_dirichlet"):
        pytest.skip("cinder._sample_dirichlet (PyTorch's Dirichlet sampler) is not in this tree")
    x = RGB.transpose(2, 0, 1).copy()
    for seed in range(3):
        _compare(_run(cinder, CT, "AugMix()", cinder.from_numpy(x.copy()), seed),
                 _run(torch, tv.transforms, "AugMix()", torch.from_numpy(x.copy()), seed), 1e-4)


def test_elastic_transform_functional_and_errors(tv):
    field = RNG.uniform(-0.2, 0.2, (1, 20, 24, 2)).astype(np.float32)
    x = RGB.transpose(2, 0, 1).copy()
    for mode in ("BILINEAR", "NEAREST"):
        outs = [transforms.functional.elastic_transform(
            lib.from_numpy(x.copy()), lib.from_numpy(field.copy()),
            getattr(transforms.InterpolationMode, mode), fill=[9.0])
            for lib, transforms in ((cinder, CT), (torch, tv.transforms))]
        _compare(*outs, 1e-5)
    for lib, transforms in ((cinder, CT), (torch, tv.transforms)):
        with pytest.raises(ValueError, match="displacement shape should be"):
            transforms.functional.elastic_transform(lib.from_numpy(x.copy()), lib.zeros(1, 2, 2, 2))
        with pytest.raises(TypeError, match="displacement should be a Tensor"):
            transforms.functional.elastic_transform(lib.from_numpy(x.copy()), field)
    for bad in ("ElasticTransform(alpha=3)", "ElasticTransform(sigma=(1.0, 2.0, 3.0))",
                "ElasticTransform(alpha=(1.0, 2))", "ElasticTransform(fill='x')"):
        ours, theirs = (_run(lib, t, bad, None, 0) for lib, t in ((cinder, CT),
                                                                   (torch, tv.transforms)))
        assert isinstance(ours, tuple) and ours == theirs


def test_v2_names_include_the_augmentations(tv):
    from cinder.vision.transforms import v2
    tv_v2 = importlib.import_module(tv.__name__ + ".transforms.v2")
    for name in ("AutoAugment", "AutoAugmentPolicy", "AugMix", "ElasticTransform",
                 "RandAugment", "TrivialAugmentWide"):
        assert getattr(v2, name) is getattr(CT, name)
        assert hasattr(tv_v2, name)
