"""The second half of the model zoo against torchvision 0.28.0: Inception3, EfficientNet (v1,
v2), RegNet, ConvNeXt, ViT and Swin. After the same seed both libraries build the same
modules (repr, state_dict keys, parameter counts) with the same initial values, and for the
same weights give the same eval-mode outputs. The large variants are compared by structure
only (their forward passes would dominate the test time)."""

import json
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


_RANDOM_INITS = ("kaiming_uniform_", "kaiming_normal_", "uniform_", "normal_", "trunc_normal_",
                 "xavier_uniform_", "xavier_normal_")


@pytest.fixture
def skip_random_init(monkeypatch):
    """Structure-only builds of the big variants: random init fills are skipped on both sides
    (their values are checked on the small variants); module structure is unchanged."""
    for name in _RANDOM_INITS:
        monkeypatch.setattr(cinder.nn.init, name, lambda tensor, *a, **k: tensor)
        monkeypatch.setattr(torch.nn.init, name, lambda tensor, *a, **k: tensor)


def _same_structure(ours, theirs):
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert sum(p.numel() for p in ours.parameters()) == \
        sum(p.numel() for p in theirs.parameters())


def _same_init(ours, theirs):
    st = theirs.state_dict()
    for key, value in ours.state_dict().items():    # the same RNG calls in the same order
        np.testing.assert_array_equal(value.numpy(), st[key].numpy(), err_msg=key)
        assert str(value.dtype) == str(st[key].dtype), key


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


def test_inception_registry_and_weights(tv, tmp_path, monkeypatch, skip_random_init):
    _same_registry(tv, ["inception_v3"])
    _refuses_missing_file(monkeypatch, tmp_path, CM.inception_v3, CM.Inception_V3_Weights)
    ours = CM.inception_v3(aux_logits=False, transform_input=True, init_weights=False)
    assert ours.AuxLogits is None and ours.transform_input
    with pytest.raises(ValueError, match="length of inception_blocks should be 7"):
        CM.Inception3(inception_blocks=[1, 2], init_weights=False)


# ---------------------------------------------------------------- EfficientNet

def test_efficientnet_b0_init_and_outputs(tv):
    ours, theirs = _build(tv, "efficientnet_b0")
    _same_structure(ours, theirs)
    _same_init(ours, theirs)
    _same_outputs(ours, theirs, 32)


def test_efficientnet_v2_init_and_fused_block_outputs(tv):
    _same_init(*_build(tv, "efficientnet_v2_s"))
    # a short V2-style stack (FusedMBConv with and without expansion, then MBConv) for the
    # forward comparison: efficientnet_v2_s's 40 blocks would take seconds
    def short(lib):
        m = lib.models.efficientnet
        setting = [m.FusedMBConvConfig(1, 3, 1, 24, 24, 2), m.FusedMBConvConfig(4, 3, 2, 24, 48, 2),
                   m.MBConvConfig(4, 3, 2, 48, 64, 2)]
        return m.EfficientNet(setting, 0.2, last_channel=1280, num_classes=10)
    cinder.manual_seed(1)
    torch.manual_seed(1)
    ours, theirs = short(cinder.vision), short(tv)
    _same_structure(ours, theirs)
    _same_init(ours, theirs)
    _same_outputs(ours, theirs, 33)


@pytest.mark.parametrize("name", ["efficientnet_b1", "efficientnet_b2", "efficientnet_b3",
                                  "efficientnet_b4", "efficientnet_b5", "efficientnet_b6",
                                  "efficientnet_b7", "efficientnet_v2_m", "efficientnet_v2_l"])
def test_efficientnet_big_variants_structure(tv, name, skip_random_init):
    _same_structure(*_build(tv, name))


def test_efficientnet_stochastic_depth_and_registry(tv, tmp_path, monkeypatch,
                                                   skip_random_init):
    ours, theirs = _build(tv, "efficientnet_b0", stochastic_depth_prob=0.5, dropout=0.1)
    _same_structure(ours, theirs)
    probs = [m.p for m in ours.modules() if type(m).__name__ == "StochasticDepth"]
    assert probs == [m.p for m in theirs.modules() if type(m).__name__ == "StochasticDepth"]
    _same_registry(tv, [n for n in tv.models.list_models() if n.startswith("efficientnet")])
    _refuses_missing_file(monkeypatch, tmp_path, CM.efficientnet_b1, CM.EfficientNet_B1_Weights)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="efficientnet_b1_rwightman-bac287d4.pth"):
            CM.efficientnet_b1(pretrained=True)     # the legacy flag means IMAGENET1K_V1
    assert "'pretrained' is deprecated" in str(caught[0].message)
    assert "`weights=EfficientNet_B1_Weights.IMAGENET1K_V1`" in str(caught[1].message)
    with pytest.raises(ValueError, match="Unsupported model type"):
        CM.efficientnet._efficientnet_conf("efficientnet_x")


# ---------------------------------------------------------------- RegNet

_REGNETS = ["regnet_y_400mf", "regnet_y_800mf", "regnet_y_1_6gf", "regnet_y_3_2gf",
            "regnet_y_8gf", "regnet_y_16gf", "regnet_y_32gf", "regnet_y_128gf", "regnet_x_400mf",
            "regnet_x_800mf", "regnet_x_1_6gf", "regnet_x_3_2gf", "regnet_x_8gf",
            "regnet_x_16gf", "regnet_x_32gf"]


@pytest.mark.parametrize("name", ["regnet_y_400mf", "regnet_x_400mf"])
def test_regnet_init_and_outputs(tv, name):
    ours, theirs = _build(tv, name)
    _same_structure(ours, theirs)
    _same_init(ours, theirs)
    _same_outputs(ours, theirs, 32)


def test_regnet_stage_designs_match(tv, monkeypatch):
    # every builder's generated stages, without building (regnet_y_128gf has 645M parameters)
    captured = {}
    for lib, key in ((CM.regnet, "ours"), (tv.models.regnet, "theirs")):
        def record(params, *args, key=key, **kwargs):
            captured.setdefault(key, []).append(params)
        monkeypatch.setattr(lib, "RegNet", record)
        if key == "theirs":
            monkeypatch.setattr(lib, "_regnet", record)
    for name in _REGNETS:
        getattr(CM, name)()
        getattr(tv.models, name)()
    for a, b in zip(captured["ours"], captured["theirs"], strict=True):
        assert [list(t) for t in a._get_expanded_params()] == \
            [list(t) for t in b._get_expanded_params()]
        assert a.se_ratio == b.se_ratio
    with pytest.raises(ValueError, match="Invalid RegNet settings"):
        CM.regnet.BlockParams.from_init_params(depth=4, w_0=12, w_a=1.0, w_m=2.0, group_width=8)


@pytest.mark.parametrize("name", ["regnet_y_3_2gf", "regnet_x_8gf"])
def test_regnet_bigger_variants_structure(tv, name, skip_random_init):
    _same_structure(*_build(tv, name))


def test_regnet_registry_and_weights(tv, tmp_path, monkeypatch, skip_random_init):
    _same_registry(tv, _REGNETS)
    _refuses_missing_file(monkeypatch, tmp_path, CM.regnet_y_400mf, CM.RegNet_Y_400MF_Weights)
    with pytest.raises(ValueError, match="No weights available"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        CM.regnet_y_128gf(pretrained=True)


# ---------------------------------------------------------------- ConvNeXt

def test_convnext_init_and_outputs(tv):
    # a two-stage ConvNeXt of the same blocks: convnext_tiny's 28M truncated-normal draws take
    # seconds on either library
    def small(lib):
        m = lib.models.convnext
        return m.ConvNeXt([m.CNBlockConfig(16, 32, 1), m.CNBlockConfig(32, None, 2)],
                          stochastic_depth_prob=0.1, layer_scale=0.5, num_classes=10)
    cinder.manual_seed(2)
    torch.manual_seed(2)
    ours, theirs = small(cinder.vision), small(tv)
    _same_structure(ours, theirs)
    _same_init(ours, theirs)
    _same_outputs(ours, theirs, 32)
    assert repr(cinder.vision.models.convnext.CNBlockConfig(96, 192, 3)) == \
        repr(tv.models.convnext.CNBlockConfig(96, 192, 3))


@pytest.mark.parametrize("name", ["convnext_tiny", "convnext_small", "convnext_base",
                                  "convnext_large"])
def test_convnext_variants_structure(tv, name, skip_random_init):
    _same_structure(*_build(tv, name))


def test_convnext_registry_and_weights(tv, tmp_path, monkeypatch, skip_random_init):
    _same_registry(tv, ["convnext_tiny", "convnext_small", "convnext_base", "convnext_large"])
    _refuses_missing_file(monkeypatch, tmp_path, CM.convnext_tiny, CM.ConvNeXt_Tiny_Weights)
    with pytest.raises(ValueError, match="block_setting should not be empty"):
        CM.ConvNeXt([])


# ---------------------------------------------------------------- ViT

@pytest.mark.parametrize("options", [{}, {"representation_size": 24, "num_classes": 7},
                                     "conv_stem"])
def test_vit_init_and_outputs(tv, options):
    # a small ViT of the same classes (vit_b_16's 86M parameters take seconds to draw)
    def small(lib):
        m = lib.models.vision_transformer
        kw = dict(options) if isinstance(options, dict) else {
            "conv_stem_configs": [m.ConvStemConfig(8, 3, 2), m.ConvStemConfig(12, 3, 4)]}
        return m.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                                   hidden_dim=16, mlp_dim=32, **kw)
    cinder.manual_seed(3)
    torch.manual_seed(3)
    ours, theirs = small(cinder.vision), small(tv)
    _same_structure(ours, theirs)
    _same_init(ours, theirs)
    with torch.no_grad():               # the zero-initialised head would hide the encoder
        theirs.heads.head.weight.normal_()
    _same_outputs(ours, theirs, 32)
    with pytest.raises(AssertionError, match="Wrong image height! Expected 32 but got 16!"):
        ours(cinder.zeros(1, 3, 16, 32))


@pytest.mark.parametrize("name", ["vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32"])
def test_vit_variants_structure(tv, name, skip_random_init):
    _same_structure(*_build(tv, name))


def test_vit_registry_weights_and_embeddings(tv, tmp_path, monkeypatch, skip_random_init):
    names = ["vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "vit_h_14"]
    _same_registry(tv, names)
    _refuses_missing_file(monkeypatch, tmp_path, CM.vit_b_32, CM.ViT_B_32_Weights)
    with pytest.raises(ValueError, match="image_size"):     # SWAG weights fix the size
        CM.vit_b_16(weights=CM.ViT_B_16_Weights.IMAGENET1K_SWAG_E2E_V1, image_size=224)
    pos = np.random.default_rng(4).standard_normal((1, 17, 8)).astype(np.float32)
    state = {"encoder.pos_embedding": pos, "heads.head.weight": np.ones((3, 8), np.float32)}
    ours = CM.vision_transformer.interpolate_embeddings(
        48, 8, {k: cinder.from_numpy(v) for k, v in state.items()}, reset_heads=True)
    theirs = tv.models.vision_transformer.interpolate_embeddings(
        48, 8, {k: torch.from_numpy(v) for k, v in state.items()}, reset_heads=True)
    assert list(ours) == list(theirs) == ["encoder.pos_embedding"]
    np.testing.assert_allclose(ours["encoder.pos_embedding"].numpy(),
                               theirs["encoder.pos_embedding"].numpy(), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- Swin

@pytest.mark.parametrize("version", ["v1", "v2"])
def test_swin_init_and_outputs(tv, version):
    # two small stages; a 40x40 input gives 10x10 then 5x5 patch maps, so the windows of 4
    # need padding and the shifted blocks need their masks in both stages
    def small(lib):
        m = lib.models.swin_transformer
        extra = {} if version == "v1" else {"block": m.SwinTransformerBlockV2,
                                            "downsample_layer": m.PatchMergingV2}
        return m.SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2],
                                 num_heads=[2, 4], window_size=[4, 4], num_classes=10, **extra)
    cinder.manual_seed(5)
    torch.manual_seed(5)
    ours, theirs = small(cinder.vision), small(tv)
    _same_structure(ours, theirs)
    _same_init(ours, theirs)
    _same_outputs(ours, theirs, 40)


def test_swin_attention_gradients(tv):
    cinder.manual_seed(6)
    ours = CM.swin_transformer.ShiftedWindowAttentionV2(8, [4, 4], [2, 2], 2)
    theirs = tv.models.swin_transformer.ShiftedWindowAttentionV2(8, [4, 4], [2, 2], 2)
    theirs.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()})
    x = np.random.default_rng(6).standard_normal((2, 6, 7, 8)).astype(np.float32)
    a, b = cinder.from_numpy(x).requires_grad_(), torch.from_numpy(x).requires_grad_()
    ours(a).square().sum().backward()
    theirs(b).square().sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-3, atol=1e-4)
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-3, atol=1e-4,
                                   err_msg=name)


@pytest.mark.parametrize("name", ["swin_t", "swin_s", "swin_b", "swin_v2_t", "swin_v2_s",
                                  "swin_v2_b"])
def test_swin_variants_structure(tv, name, skip_random_init):
    _same_structure(*_build(tv, name))


def test_swin_registry_and_weights(tv, tmp_path, monkeypatch, skip_random_init):
    _same_registry(tv, ["swin_t", "swin_s", "swin_b", "swin_v2_t", "swin_v2_s", "swin_v2_b"])
    _refuses_missing_file(monkeypatch, tmp_path, CM.swin_t, CM.Swin_T_Weights)
    with pytest.raises(ValueError, match="window_size and shift_size must be of length 2"):
        CM.swin_transformer.ShiftedWindowAttention(8, [4], [0, 0], 2)


# ---------------------------------------------------------------- MaxViT

def test_maxvit_init_and_outputs(tv):
    # two small blocks: 32x32 inputs give 8x8 and 4x4 maps, partitions of 2 (window and grid)
    def small(lib):
        return lib.models.maxvit.MaxVit(input_size=(32, 32), stem_channels=8, partition_size=2,
                                        block_channels=[8, 16], block_layers=[1, 2],
                                        head_dim=4, stochastic_depth_prob=0.2, num_classes=10)
    cinder.manual_seed(7)
    torch.manual_seed(7)
    ours, theirs = small(cinder.vision), small(tv)
    _same_structure(ours, theirs)
    _same_init(ours, theirs)
    _same_outputs(ours, theirs, 32)
    with pytest.raises(ValueError, match="is not divisible by partition size 3"):
        CM.maxvit.MaxVit(input_size=(32, 32), stem_channels=8, partition_size=3,
                         block_channels=[8], block_layers=[1], head_dim=4,
                         stochastic_depth_prob=0.0)


def test_maxvit_t_structure_and_registry(tv, tmp_path, monkeypatch, skip_random_init):
    _same_structure(*_build(tv, "maxvit_t"))
    _same_registry(tv, ["maxvit_t"])
    _refuses_missing_file(monkeypatch, tmp_path, CM.maxvit_t, CM.MaxVit_T_Weights)


def test_the_classification_zoo_is_complete(tv):
    # every classification builder torchvision registers
    assert set(tv.models.list_models(module=tv.models)) == set(CM.list_models())


def test_a_torchvision_checkpoint_loads_through_weights(tv, tmp_path, monkeypatch):
    # what torchvision's download leaves in $TORCH_HOME: torch.save of the state_dict
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    torch.manual_seed(8)
    reference = tv.models.regnet_y_400mf()
    folder = tmp_path / "hub" / "checkpoints"
    folder.mkdir(parents=True)
    torch.save(reference.state_dict(), folder / "regnet_y_400mf-e6988f5f.pth")
    ours = CM.regnet_y_400mf(weights="IMAGENET1K_V2")
    for key, value in ours.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), reference.state_dict()[key].numpy())


def test_vit_mlp_block_renames_version_1_keys(tv):
    ours = CM.vision_transformer.MLPBlock(4, 8, 0.0)
    old = {"linear_1.weight": np.ones((8, 4), np.float32), "linear_1.bias": np.ones(8, np.float32),
           "linear_2.weight": np.ones((4, 8), np.float32), "linear_2.bias": np.ones(4, np.float32)}
    state = {k: cinder.from_numpy(v) for k, v in old.items()}     # no _metadata: version 1
    ours.load_state_dict(state)
    assert list(ours.state_dict()) == list(tv.models.vision_transformer.MLPBlock(4, 8, 0.0)
                                           .state_dict()) == ["0.weight", "0.bias", "3.weight",
                                                              "3.bias"]
    assert float(ours.state_dict()["3.bias"].sum()) == 4.0


def test_every_weights_meta_matches_torchvision(tv):
    """All of torchvision's published metadata (class names, accuracies, GFLOPs, file sizes,
    recipe links) is in ``weights.meta``; only torchvision's ``_docs`` prose is left out."""
    names = tv.models.list_models(module=tv.models)
    assert sorted(names) == sorted(CM.list_models())
    for name in names:
        ours, theirs = CM.get_model_weights(name), tv.models.get_model_weights(name)
        for a, b in zip(ours, theirs, strict=True):
            expected = {k: v for k, v in b.meta.items() if k != "_docs"}
            # through JSON: a NaN accuracy (VGG16's feature weights) compares equal there
            assert json.dumps(a.meta, sort_keys=True) == json.dumps(expected, sort_keys=True), a
            assert repr(a.transforms()) == repr(b.transforms()), repr(a)
    assert CM.ResNet18_Weights.DEFAULT.meta["categories"][:2] == ["tench", "goldfish"]
