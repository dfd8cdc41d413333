"""``torch.GradScaler`` / ``torch.amp.GradScaler`` against PyTorch on the CPU: scaled losses,
unscaled gradients, skipped steps after inf/NaN gradients, the scale's backoff and growth,
``state_dict`` round trips, the disabled scaler and the errors of a wrong call order."""

import warnings

import numpy as np
import pytest
import torch

import cinder

LIBS = (torch, cinder)


def _setup(lib, **kw):
    lib.manual_seed(0)
    model = lib.nn.Linear(3, 2)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    return model, opt, lib.amp.GradScaler("cpu", **kw)


def _train(lib, poison_steps=(), steps=6, clip=False, **kw):
    """A few steps; at the steps in ``poison_steps`` the loss is multiplied by inf."""
    model, opt, scaler = _setup(lib, **kw)
    x = lib.from_numpy(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    record = []
    for step in range(steps):
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        if step in poison_steps:
            loss = loss * float("inf")
        scaler.scale(loss).backward()
        if clip:
            scaler.unscale_(opt)
            record.append(model.weight.grad.clone().numpy())
        result = scaler.step(opt)
        scaler.update()
        record.append((result, scaler.get_scale(), scaler.state_dict().get("_growth_tracker")))
        record.append(model.weight.detach().clone().numpy())
    return record, scaler.state_dict()


def _compare(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if isinstance(x, np.ndarray):
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-7)
        else:
            assert x == y


@pytest.mark.parametrize("kw", [
    dict(poison_steps=(2,), init_scale=4.0, growth_interval=2),
    dict(poison_steps=(0, 1), init_scale=2.0 ** 16, growth_interval=3, backoff_factor=0.25),
    dict(clip=True, init_scale=8.0, growth_interval=1, growth_factor=3.0),
    dict(poison_steps=(1,), enabled=False),
])
def test_training_loop_matches(kw):
    (t_rec, t_state), (c_rec, c_state) = (_train(lib, **kw) for lib in LIBS)
    _compare(c_rec, t_rec)
    assert c_state == t_state


@pytest.mark.skipif(torch.cuda.is_available(), reason="GradScaler() is enabled on a GPU")
def test_scale_of_structures_and_disabled_cuda_default():
    for lib in LIBS:
        s = lib.amp.GradScaler("cpu", init_scale=2.0)
        a, b = lib.ones(2), lib.full((1,), 3.0)
        out = s.scale([a, (b, a)])
        assert isinstance(out, list) and isinstance(out[1], tuple)
        assert out[1][0].tolist() == [6.0]
        with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable"):
            s.scale(3)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            d = lib.GradScaler()            # device "cuda": no GPU here, so disabled
        assert not d.is_enabled() and d.get_scale() == 1.0 and d.state_dict() == {}
        assert any("CUDA is not available" in str(w.message) for w in seen)


ORDER_ERRORS = [
    ("unscale twice", lambda s, o: (s.unscale_(o), s.unscale_(o)), RuntimeError,
     "unscale_\\(\\) has already been called"),
    ("unscale after step", lambda s, o: (s.step(o), s.unscale_(o)), RuntimeError,
     "unscale_\\(\\) is being called after step"),
    ("step twice", lambda s, o: (s.step(o), s.step(o)), RuntimeError,
     "step\\(\\) has already been called"),
    ("closure", lambda s, o: s.step(o, closure=lambda: 0), RuntimeError,
     "Closure use is not currently supported"),
    ("empty state", lambda s, o: s.load_state_dict({}), RuntimeError,
     "The source state dict is empty"),
]


@pytest.mark.parametrize("name,call,exc,match", ORDER_ERRORS, ids=[e[0] for e in ORDER_ERRORS])
def test_call_order_errors(name, call, exc, match):
    for lib in LIBS:
        model, opt, scaler = _setup(lib)
        scaler.scale(model(lib.ones(1, 3)).sum()).backward()
        with pytest.raises(exc, match=match):
            call(scaler, opt)


def test_update_before_scale_and_fp16_gradients():
    for lib in LIBS:
        model, opt, scaler = _setup(lib)
        with pytest.raises(AssertionError, match="Attempted update but _scale is None"):
            scaler.update()
        half = lib.ones(2, dtype=lib.float16, requires_grad=True)
        half_opt = lib.optim.SGD([half], lr=0.1)
        scaler.scale(half.float().sum()).backward()
        with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
            scaler.unscale_(half_opt)


def test_state_dict_round_trip_and_new_scale():
    states = []
    for lib in LIBS:
        model, opt, scaler = _setup(lib, init_scale=16.0, growth_interval=5)
        scaler.scale(model(lib.ones(1, 3)).sum()).backward()
        scaler.step(opt)
        scaler.update(new_scale=3.0)
        other = lib.amp.GradScaler("cpu")
        other.load_state_dict(scaler.state_dict())
        scaler.scale(model(lib.ones(1, 3)).sum()).backward()
        scaler.step(opt)
        scaler.update(new_scale=lib.tensor(5.0))
        states.append((other.state_dict(), scaler.state_dict(), other.get_growth_interval()))
    assert states[0] == states[1]
