"""``nn.functional`` at the dispatch point: the same objects as PyTorch (``F.conv2d is
torch.conv2d``), ``TorchFunctionMode`` s and ``__torch_function__`` subclasses see the same
functions, and CPU autocast reaches the ops a model computes through ``nn``."""

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
