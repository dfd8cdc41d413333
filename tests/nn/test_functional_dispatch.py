"""``nn.functional`` at the dispatch point: the same objects as PyTorch (``F.conv2d is
torch.conv2d``), ``TorchFunctionMode`` s and ``__torch_function__`` subclasses see the same
functions, and CPU autocast reaches the ops a model computes through ``nn``."""

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import cinder
import cinder.nn.functional as CF
import cinder.overrides


def _parts(lib):
    if lib is torch:
        return torch, torch.nn, TF, torch.overrides
    return cinder, cinder.nn, CF, cinder.overrides


def _public_functions(module):
    return [n for n in dir(module) if not n.startswith("_") and callable(getattr(module, n))
            and not isinstance(getattr(module, n), type)]


def test_same_objects_as_torch():
    """Where PyTorch's ``F.x is torch.x``, cinder's is ``cinder.x``; where it is not, not."""
    checked = 0
    for name in _public_functions(TF):
        if not hasattr(CF, name):
            continue
        same_t = getattr(torch, name, None) is getattr(TF, name)
        same_c = getattr(cinder, name, None) is getattr(CF, name)
        assert same_c == same_t, name
        if getattr(TF, name).__module__ == "torch.nn.functional":
            assert getattr(CF, name).__module__ == "cinder.nn.functional", name
        checked += 1
    assert checked > 100


def _recorder(lib):
    base = _parts(lib)[3].TorchFunctionMode

    class Recorder(base):
        def __init__(self):
            super().__init__()
            self.names = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.names.append(func.__name__)
            return func(*args, **(kwargs or {}))
    return Recorder


def _small_model(lib):
    """Conv2d + BatchNorm2d + ReLU + MaxPool2d + Linear, weights from NumPy."""
    _, nn, _, _ = _parts(lib)
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(2 * 3 * 3, 4))
    rng = np.random.default_rng(0)
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.5))
    return model


def _recorded_forward(lib, train):
    _, _, F, _ = _parts(lib)
    model = _small_model(lib)
    model.train(train)
    rng = np.random.default_rng(1)
    x = lib.tensor(rng.standard_normal((2, 1, 8, 8)).astype(np.float32))
    y = lib.tensor(np.array([1, 3]))
    with _recorder(lib)() as rec:
        loss = F.cross_entropy(model(x), y)
    return rec.names, float(loss.detach())


@pytest.mark.parametrize("train", [True, False])
def test_mode_sees_the_model_as_torch_does(train):
    names_c, loss_c = _recorded_forward(cinder, train)
    names_t, loss_t = _recorded_forward(torch, train)
    assert names_c == names_t
    assert "conv2d" in names_c and "cross_entropy" in names_c
    assert loss_c == pytest.approx(loss_t, rel=1e-5)


def _subclass_calls(lib):
    """F functions called on a Tensor subclass with a recording ``__torch_function__``."""
    _, _, F, _ = _parts(lib)
    seen = []

    class Logged(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    rng = np.random.default_rng(2)

    def t(*shape):
        return lib.tensor(rng.standard_normal(shape).astype(np.float32))

    x = t(2, 3, 5, 5).as_subclass(Logged)
    outs = [F.relu(x), F.conv2d(x, t(4, 3, 3, 3), t(4)),
            F.linear(t(2, 6).as_subclass(Logged), t(4, 6), t(4)),
            F.cross_entropy(t(2, 4).as_subclass(Logged), lib.tensor(np.array([0, 3])))]
    kinds = [type(o).__name__ for o in outs]
    values = [o.as_subclass(lib.Tensor).detach().numpy() for o in outs]
    return seen, kinds, values


def test_subclass_sees_the_functions_torch_passes():
    seen_c, kinds_c, values_c = _subclass_calls(cinder)
    seen_t, kinds_t, values_t = _subclass_calls(torch)
    assert seen_c == seen_t
    assert seen_c[:4] == ["relu", "conv2d", "linear", "cross_entropy"]
    assert kinds_c == kinds_t == ["Logged"] * 4
    for vc, vt in zip(values_c, values_t):
        np.testing.assert_allclose(vc, vt, rtol=1e-5, atol=1e-5)


def _autocast_model(lib):
    _, nn, F, _ = _parts(lib)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.fc = nn.Linear(4 * 4 * 4, 8)
            self.ln = nn.LayerNorm(8)
            self.mha = nn.MultiheadAttention(8, 2, batch_first=True)

        def forward(self, x, y):
            seen = {}
            h = seen["conv"] = self.conv(x)
            h = seen["bn"] = self.bn(h)
            h = seen["relu"] = F.relu(h)
            h = seen["fc"] = self.fc(h.flatten(1))
            h = seen["ln"] = self.ln(h)
            q = h.view(2, 2, 4).repeat(1, 1, 2)
            seen["mha"], seen["mha_weights"] = self.mha(q, q, q)
            seen["softmax"] = F.softmax(h, dim=1)
            seen["loss"] = F.cross_entropy(h, y)
            return seen

    model = Model()
    rng = np.random.default_rng(3)
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
    x = lib.tensor(rng.standard_normal((2, 2, 4, 4)).astype(np.float32))
    y = lib.tensor(np.array([1, 5]))
    with lib.autocast("cpu", dtype=lib.bfloat16):
        seen = model(x, y)
    return {k: (str(v.dtype), tuple(v.shape), v.detach().float().numpy()) for k, v in
            seen.items()}


def test_autocast_reaches_nn_models():
    got, want = _autocast_model(cinder), _autocast_model(torch)
    assert list(got) == list(want)
    for key in want:
        assert got[key][:2] == want[key][:2], key
        np.testing.assert_allclose(got[key][2], want[key][2], rtol=3e-2, atol=3e-2,
                                   err_msg=key)
    assert want["conv"][0] == "torch.bfloat16" and want["loss"][0] == "torch.float32"


@pytest.mark.parametrize("size", [(2, 3, 1, 4), (2, 3, 4, 1), (2, 1, 1, 1, 3), (2, 1, 3, 1, 2)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_unit_dims_sit_at_zero(size, align_corners):
    """A size-1 spatial dim has its one coordinate at 0, as PyTorch's kernel puts it."""
    nd = len(size) - 2
    theta = np.random.default_rng(4).standard_normal((2, nd, nd + 1)).astype(np.float32)
    got, warned_c = _with_warnings(
        lambda: CF.affine_grid(cinder.tensor(theta), size, align_corners=align_corners))
    want, warned_t = _with_warnings(
        lambda: TF.affine_grid(torch.tensor(theta), size, align_corners=align_corners))
    assert warned_c == warned_t
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-6)


def _with_warnings(call):
    """``call()``'s result and the messages of the warnings it gave."""
    result, caught = _with_warning_records(call)
    return result, [str(w.message) for w in caught]


_REFLECT_CASES = [((2, 3), (3, 3)), ((1, 3, 3), (1, 1, 3, 3)), ((1, 2, 3, 3), (1, 1, 3, 1)),
                  ((1, 2, 3, 3), (3, 3, 3, 3)), ((1, 1, 2, 2, 2), (1, 1, 2, 2, 1, 1)),
                  ((1, 1, 2, 2, 2), (1, 1, 1, 1, 2, 0)), ((1, 1, 2, 2, 2), (2, 2, 2, 2, 2, 2))]


@pytest.mark.parametrize("shape,pad", _REFLECT_CASES)
def test_reflect_pad_errors_name_torchs_argument(shape, pad):
    with pytest.raises(RuntimeError) as want:
        TF.pad(torch.zeros(shape), pad, mode="reflect")
    with pytest.raises(RuntimeError) as got:
        CF.pad(cinder.zeros(shape), pad, mode="reflect")
    assert str(got.value) == str(want.value)


def _legacy_losses(lib):
    """The losses whose math is the op's, with F's own argument handling around it."""
    F = _parts(lib)[2]
    rng = np.random.default_rng(5)

    def t(*shape, positive=False):
        a = rng.standard_normal(shape).astype(np.float32)
        return lib.tensor(np.abs(a) + 0.1 if positive else a)

    sign = lib.tensor(np.array([1.0, -1.0, 1.0], dtype=np.float32))
    x, y = t(3, 4), t(3, 4)
    out = [F.kl_div(x, t(3, 4, positive=True), reduction="batchmean"),
           F.kl_div(x, y, reduction="sum", log_target=True),
           F.poisson_nll_loss(x, t(3, 4, positive=True), full=True),
           F.poisson_nll_loss(t(3, 4, positive=True), y, log_input=False, reduction="none"),
           F.margin_ranking_loss(t(3), t(3), sign, margin=0.2, size_average=False),
           F.hinge_embedding_loss(x, lib.ones(3, 4) * -1, reduce=False),
           F.cosine_embedding_loss(x, y, sign, margin=0.1),
           F.triplet_margin_loss(x, y, t(3, 4), swap=True, reduction="sum"),
           F.instance_norm(t(2, 3, 5), weight=t(3), bias=t(3)),
           F.bilinear(t(3, 2), t(3, 4), t(5, 2, 4), t(5)),
           F.pairwise_distance(x, y), F.cosine_similarity(x, y), F.pdist(x)]
    return [o.detach().numpy() for o in out]


def test_losses_through_their_ops_match_torch():
    got, warned_c = _with_warnings(lambda: _legacy_losses(cinder))
    want, warned_t = _with_warnings(lambda: _legacy_losses(torch))
    assert warned_c == warned_t and warned_t    # the legacy size_average/reduce warnings
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def _warning_sites(lib):
    """Where each F warning points: this file's line (True) or elsewhere (False)."""
    F = _parts(lib)[2]
    x = lib.tensor(np.ones((2, 3), dtype=np.float32))
    image = lib.tensor(np.ones((1, 1, 2, 2), dtype=np.float32))
    calls = [lambda: F.kl_div(x, x), lambda: F.softmax(x),
             lambda: F.affine_grid(lib.tensor(np.ones((1, 2, 3), np.float32)), (1, 1, 2, 2)),
             lambda: F.upsample(image, scale_factor=2), lambda: F.dropout2d(x),
             lambda: F.mse_loss(x, x[0])]
    sites = []
    for call in calls:
        _, caught = _with_warning_records(call)
        sites.append([w.filename == __file__ for w in caught])
    return sites


def _with_warning_records(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, caught


def test_warnings_point_at_the_callers_line():
    """The dispatch wrapper around F functions is not counted in ``stacklevel``."""
    got, want = _warning_sites(cinder), _warning_sites(torch)
    assert got == want
    assert all(s == [True] for s in want)


def _autocast_functions(lib):
    """Result dtypes of F functions on PyTorch's CPU autocast lists, bfloat16 inputs."""
    F = _parts(lib)[2]
    rng = np.random.default_rng(6)

    def t(*shape):
        return lib.tensor(rng.standard_normal(shape).astype(np.float32)).bfloat16()

    x, y = t(3, 4), t(3, 4)
    prob = lib.tensor(np.full((3, 4), 0.3, np.float32)).bfloat16()
    idx = lib.tensor(np.array([0, 2, 1]))
    sign = lib.tensor(np.array([1.0, -1.0, 1.0], np.float32)).bfloat16()
    calls = [lambda: F.l1_loss(x, y), lambda: F.mse_loss(x, y), lambda: F.huber_loss(x, y),
             lambda: F.binary_cross_entropy(prob, prob), lambda: F.nll_loss(x, idx),
             lambda: F.cross_entropy(x, idx), lambda: F.kl_div(x, y, reduction="sum"),
             lambda: F.cosine_embedding_loss(x, y, sign), lambda: F.soft_margin_loss(x, y),
             lambda: F.triplet_margin_loss(x, y, x * 2), lambda: F.linear(x.float(), t(2, 4)),
             lambda: F.conv1d(t(1, 2, 5).float(), t(3, 2, 2)), lambda: F.prelu(x, t(1)),
             lambda: F.max_pool3d(t(1, 1, 2, 2, 2), 2),
             lambda: F.grid_sample(t(1, 1, 3, 3), t(1, 2, 2, 2), align_corners=False),
             lambda: F.scaled_dot_product_attention(x.float()[None], y.float()[None],
                                                    y.float()[None]),
             lambda: F.softmax(x, 1), lambda: F.layer_norm(x.float(), (4,)),
             lambda: F.fractional_max_pool2d(t(1, 1, 4, 4), 2, output_size=2),
             lambda: F.max_unpool2d(*F.max_pool2d(t(1, 1, 4, 4), 2, return_indices=True), 2),
             lambda: F.ctc_loss(t(5, 2, 4).float().log_softmax(2).bfloat16(),
                                lib.tensor(np.array([[1, 2], [1, 1]])),
                                lib.tensor(np.array([5, 5])), lib.tensor(np.array([2, 2])))]
    with lib.autocast("cpu", dtype=lib.bfloat16):
        return [str(call().dtype) for call in calls]


def test_autocast_policies_of_functional_match_torch():
    assert _autocast_functions(cinder) == _autocast_functions(torch)


def _declined_messages(lib):
    """The TypeErrors when a subclass's ``__torch_function__`` declines every F call."""
    F = _parts(lib)[2]

    class Declines(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    x = lib.tensor(np.ones(3, np.float32)).as_subclass(Declines)
    plain = lib.tensor(np.ones((1, 1, 3), np.float32))
    messages = []
    for call in (lambda: F.relu(x), lambda: F.softmax(x, 0), lambda: F.cross_entropy(x, x),
                 lambda: F.conv1d(x.as_subclass(lib.Tensor).view(1, 1, 3).as_subclass(Declines),
                                  plain)):
        with pytest.raises(TypeError) as info:
            call()
        messages.append(str(info.value).replace("cinder", "torch"))
    return messages


def test_declining_handlers_raise_torchs_error():
    assert _declined_messages(cinder) == _declined_messages(torch)
