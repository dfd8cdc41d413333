"""cinder.vision.models against torchvision 0.28.0: names, counts, reprs, init, outputs."""

import numpy as np
import pytest
import torch

import cinder
from cinder.vision import models as CM

# Built on both libraries after the same seed. VGG and AlexNet are left out here: building
# their 60-130M parameters through cinder's bit-exact RNG takes from ten seconds to a minute.
NAMES = ["resnet18", "squeezenet1_1", "mobilenet_v2", "mobilenet_v3_small",
         "shufflenet_v2_x0_5"]


def _pair(tv, name, **kwargs):
    cinder.manual_seed(0)
    ours = CM.get_model(name, **kwargs)
    torch.manual_seed(0)
    theirs = tv.models.get_model(name, **kwargs)
    return ours, theirs


@pytest.fixture(scope="module", params=NAMES)
def pair(request, tv):
    return _pair(tv, request.param)


def test_structure_and_init_match(pair):
    ours, theirs = pair
    assert repr(ours) == repr(theirs)
    so, st = ours.state_dict(), theirs.state_dict()
    assert list(so) == list(st)
    assert sum(p.numel() for p in ours.parameters()) == \
        sum(p.numel() for p in theirs.parameters())
    for key in so:                       # the same RNG calls in the same order
        np.testing.assert_array_equal(so[key].numpy(), st[key].numpy(), err_msg=key)


def test_outputs_match_for_the_same_weights(pair):
    ours, theirs = pair
    x = np.random.default_rng(0).standard_normal((2, 3, 64, 64)).astype(np.float32)
    ours.eval()
    theirs.eval()
    with cinder.no_grad():
        a = ours(cinder.from_numpy(x)).numpy()
    with torch.no_grad():
        b = theirs(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)


def test_resnet_train_step_gradients_match(tv):
    # a one-block-per-stage ResNet keeps the test quick; the blocks are resnet18's
    from cinder.vision.models.resnet import BasicBlock, ResNet
    cinder.manual_seed(0)
    ours = ResNet(BasicBlock, [1, 1, 1, 1], num_classes=5)
    torch.manual_seed(0)
    theirs = tv.models.resnet.ResNet(tv.models.resnet.BasicBlock, [1, 1, 1, 1], num_classes=5)
    # batch 4 at 64x64 keeps 16 values per channel in layer4's batch norm (well conditioned)
    x = np.random.default_rng(1).standard_normal((4, 3, 64, 64)).astype(np.float32)
    y = np.array([1, 3, 0, 4])
    cinder.nn.functional.cross_entropy(ours(cinder.from_numpy(x)),
                                       cinder.from_numpy(y)).backward()
    torch.nn.functional.cross_entropy(theirs(torch.from_numpy(x)), torch.from_numpy(y)).backward()
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-3, atol=1e-4,
                                   err_msg=name)
    np.testing.assert_allclose(ours.state_dict()["bn1.running_mean"].numpy(),
                               theirs.state_dict()["bn1.running_mean"].numpy(), atol=1e-6)


def test_registry_and_weights_enums(tv):
    for name in ("resnet18", "resnet50", "resnext50_32x4d", "wide_resnet50_2", "vgg16_bn",
                 "alexnet"):
        assert name in CM.list_models() and name in tv.models.list_models()
        ours, theirs = CM.get_model_weights(name), tv.models.get_model_weights(name)
        assert ours.__name__ == theirs.__name__
        assert [w.url for w in ours] == [w.url for w in theirs]
        assert repr(ours.DEFAULT) == repr(theirs.DEFAULT)
        assert ours.DEFAULT.meta["num_params"] == theirs.DEFAULT.meta["num_params"]
    assert CM.list_models(include="resnet1*") == ["resnet101", "resnet152", "resnet18"]
    w = CM.get_weight("ResNet50_Weights.IMAGENET1K_V2")
    assert w is CM.ResNet50_Weights.DEFAULT
    assert repr(w.transforms()) == repr(tv.models.ResNet50_Weights.DEFAULT.transforms())
    with pytest.raises(ValueError, match="Unknown model nonsense"):
        CM.get_model("nonsense")


def test_weights_preset_matches_torchvision(tv):
    from PIL import Image
    img = Image.fromarray(np.random.default_rng(2).integers(0, 256, (70, 90, 3), np.uint8))
    ours = CM.ResNet18_Weights.DEFAULT.transforms()(img)
    theirs = tv.models.ResNet18_Weights.DEFAULT.transforms()(img)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-5)


def test_weights_load_from_the_torch_hub_cache(tv, tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    with pytest.raises(RuntimeError, match=r"resnet18-f37072fd\.pth is not in .*hub/checkpoints"):
        CM.resnet18(weights=CM.ResNet18_Weights.DEFAULT)
    # what torchvision's download leaves there: torch.save of the state_dict
    torch.manual_seed(3)
    reference = tv.models.resnet18()
    folder = tmp_path / "hub" / "checkpoints"
    folder.mkdir(parents=True)
    torch.save(reference.state_dict(), folder / "resnet18-f37072fd.pth")
    with pytest.warns(UserWarning, match="'pretrained' is deprecated"):
        ours = CM.resnet18(pretrained=True)
    ours.eval()
    reference.eval()
    x = np.random.default_rng(4).standard_normal((1, 3, 48, 48)).astype(np.float32)
    with cinder.no_grad():
        a = ours(cinder.from_numpy(x)).numpy()
    with torch.no_grad():
        b = reference(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)


def test_densenet_old_checkpoint_keys_are_renamed(tv):
    from cinder.vision.models.densenet import _fix_keys
    old = {"features.denseblock1.denselayer1.norm.1.weight": 1,
           "features.denseblock2.denselayer10.conv.2.weight": 2, "classifier.bias": 3}
    assert list(_fix_keys(dict(old))) == ["classifier.bias",
                                         "features.denseblock1.denselayer1.norm1.weight",
                                         "features.denseblock2.denselayer10.conv2.weight"]
    for name in ("densenet121", "densenet161", "densenet169", "densenet201", "squeezenet1_0",
                 "mnasnet0_5", "mnasnet1_3", "shufflenet_v2_x2_0", "googlenet",
                 "mobilenet_v3_large"):
        assert name in CM.list_models()
        assert [w.url for w in CM.get_model_weights(name)] == \
            [w.url for w in tv.models.get_model_weights(name)]


def test_googlenet_outputs_and_aux_heads(tv):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        cinder.manual_seed(0)
        ours = CM.googlenet(init_weights=True)
        torch.manual_seed(0)
        theirs = tv.models.googlenet(init_weights=True)
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == list(theirs.state_dict())
    x = np.random.default_rng(5).standard_normal((2, 3, 64, 64)).astype(np.float32)
    a, b = ours(cinder.from_numpy(x)), theirs(torch.from_numpy(x))     # training: 3 outputs
    assert type(a).__name__ == "GoogLeNetOutputs" and a._fields == b._fields
    for p, q in zip(a, b):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-3, atol=1e-4)
