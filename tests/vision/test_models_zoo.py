"""The second half of the model zoo against torchvision 0.28.0: Inception3, EfficientNet (v1,
v2), RegNet, ConvNeXt, ViT and Swin. After the same seed both libraries build the same
modules (repr, state_dict keys, parameter counts) with the same initial values, and for the
same weights give the same eval-mode outputs. The large variants are compared by structure
only (their forward passes would dominate the test time)."""

import warnings

import numpy as np
import pytest
import torch

import cinder
from cinder.vision import models as CM


def _build(tv, name, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        cinder.manual_seed(0)
        ours = CM.get_model(name, **kwargs)
        torch.manual_seed(0)
        theirs = tv.models.get_model(name, **kwargs)
    return ours, theirs


def _same_structure(ours, theirs):
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert sum(p.numel() for p in ours.parameters()) == \
        sum(p.numel() for p in theirs.parameters())


def _same_init(ours, theirs):
    st = theirs.state_dict()
    for key, value in ours.state_dict().items():    # the same RNG calls in the same order
        np.testing.assert_array_equal(value.numpy(), st[key].numpy(), err_msg=key)


def _same_outputs(ours, theirs, size, rtol=1e-4, atol=1e-4):
    """Eval-mode outputs for the same weights: torchvision's copied into ours."""
    ours.load_state_dict({k: cinder.from_numpy(v.numpy().copy())
                          for k, v in theirs.state_dict().items()})
    ours.eval()
    theirs.eval()
    x = np.random.default_rng(0).standard_normal((2, 3, size, size)).astype(np.float32)
    with cinder.no_grad():
        a = ours(cinder.from_numpy(x)).numpy()
    with torch.no_grad():
        b = theirs(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _same_registry(tv, names):
    for name in names:
        assert name in CM.list_models() and name in tv.models.list_models(), name
        ours, theirs = CM.get_model_weights(name), tv.models.get_model_weights(name)
        assert ours.__name__ == theirs.__name__
        assert [repr(w) for w in ours] == [repr(w) for w in theirs]
        assert [w.url for w in ours] == [w.url for w in theirs]
        for a, b in zip(ours, theirs):
            assert a.meta["num_params"] == b.meta["num_params"], repr(a)
            assert a.meta["min_size"] == b.meta["min_size"], repr(a)
            assert repr(a.transforms()) == repr(b.transforms()), repr(a)


def _refuses_missing_file(monkeypatch, tmp_path, builder, enum):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    file_name = enum.DEFAULT.url.rsplit("/", 1)[1]
    with pytest.raises(RuntimeError, match=file_name.replace(".", r"\.") + " is not in"):
        builder(weights=enum.DEFAULT)


# ---------------------------------------------------------------- Inception3

@pytest.fixture(scope="module")
def inception(tv):
    return _build(tv, "inception_v3")


def test_inception_structure_and_init(inception):
    _same_structure(*inception)
    _same_init(*inception)


def test_inception_outputs_and_aux_head(inception):
    ours, theirs = inception
    _same_outputs(ours, theirs, 75, rtol=2e-3)   # logits in the hundreds (std 0.1 init)
    # the auxiliary head needs Mixed_6e's 17x17 grid (a 299x299 input): run it on its own
    x = np.random.default_rng(1).standard_normal((2, 768, 17, 17)).astype(np.float32)
    with cinder.no_grad():
        a = ours.AuxLogits(cinder.from_numpy(x)).numpy()
    with torch.no_grad():
        b = theirs.AuxLogits(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)
    assert CM.InceptionOutputs._fields == ("logits", "aux_logits")


def test_inception_registry_and_weights(tv, tmp_path, monkeypatch):
    _same_registry(tv, ["inception_v3"])
    _refuses_missing_file(monkeypatch, tmp_path, CM.inception_v3, CM.Inception_V3_Weights)
    ours = CM.inception_v3(aux_logits=False, transform_input=True, init_weights=False)
    assert ours.AuxLogits is None and ours.transform_input
    with pytest.raises(ValueError, match="length of inception_blocks should be 7"):
        CM.Inception3(inception_blocks=[1, 2], init_weights=False)
