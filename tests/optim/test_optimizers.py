"""Generic runners over the optimizer table (``optim_db.py``), each against PyTorch:

- 100 steps from the same weights with the same gradients: every parameter and every state
  entry equal within float rounding after every step (float32 and float64);
- ``state_dict()`` with PyTorch's structure and values;
- a PyTorch state_dict loaded into cinder continues identically, and the reverse;
- ``repr`` equal; bad options raise PyTorch's exception type and text.
"""

import numpy as np
import pytest
import torch

import cinder

from .optim_db import BAD_OPTIONS, OPTIMIZERS, entry_id, gradient_sequence, initial_arrays

LIBS = (torch, cinder)


def tolerance(entry, dtype):
    if entry["tol"] is not None:
        return entry["tol"]
    return 2e-5 if dtype == np.float32 else 1e-11


def make_params(lib, arrays):
    return [lib.tensor(a.copy(), requires_grad=True) for a in arrays]


def make_optimizer(lib, entry, params):
    cls = getattr(lib.optim, entry["name"])
    if entry["groups"] is None:
        return cls(params, **entry["kwargs"])
    groups = [dict(options, params=[]) for options in entry["groups"]]
    for i, p in enumerate(params):
        groups[i % len(groups)]["params"].append(p)
    return cls(groups, **entry["kwargs"])


def to_numpy(value):
    if isinstance(value, (torch.Tensor, cinder.Tensor)):
        return value.detach().numpy()
    return value


def assert_close(actual, expected, tol, what=""):
    """Values within ``tol`` (relative and absolute); the fast check runs every step, numpy's
    detailed report only on failure."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if not np.all(np.abs(actual - expected) <= tol + tol * np.abs(expected)):
        np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol, err_msg=what)


def assert_state_equal(t_state, c_state, tol):
    """Same keys in the same order; tensors with the same dtype, shape and values."""
    assert list(t_state) == list(c_state)
    for key, t_value in t_state.items():
        c_value = c_state[key]
        if isinstance(t_value, torch.Tensor):
            assert isinstance(c_value, cinder.Tensor), key
            assert str(t_value.dtype) == str(c_value.dtype), key
            assert tuple(t_value.shape) == tuple(c_value.shape), key
            assert_close(to_numpy(c_value), to_numpy(t_value), tol, key)
        elif isinstance(t_value, (dict, list, tuple)):
            assert type(t_value) is type(c_value), key
        else:
            assert t_value == pytest.approx(c_value, rel=tol, abs=tol), key


def assert_same_run(t_params, c_params, t_opt, c_opt, tol):
    for t_p, c_p in zip(t_params, c_params):
        assert_close(to_numpy(c_p), to_numpy(t_p), tol)
    for t_p, c_p in zip(t_params, c_params):
        assert_state_equal(t_opt.state[t_p], c_opt.state[c_p], tol)


def step_both(pairs, grads):
    for lib, params, opt in pairs:
        for p, g in zip(params, grads):
            p.grad = lib.tensor(g)
        opt.step()


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("entry", OPTIMIZERS, ids=entry_id)
def test_hundred_steps_match(entry, dtype):
    arrays = initial_arrays(entry["name"], dtype)
    t_params, c_params = make_params(torch, arrays), make_params(cinder, arrays)
    t_opt = make_optimizer(torch, entry, t_params)
    c_opt = make_optimizer(cinder, entry, c_params)
    tol = tolerance(entry, dtype)
    for grads in gradient_sequence(arrays, 100):
        step_both([(torch, t_params, t_opt), (cinder, c_params, c_opt)], grads)
        assert_same_run(t_params, c_params, t_opt, c_opt, tol)


def assert_state_dicts_equal(t_sd, c_sd, tol):
    assert list(t_sd) == list(c_sd) == ["state", "param_groups"]
    assert t_sd["param_groups"] == c_sd["param_groups"]
    assert list(t_sd["state"]) == list(c_sd["state"])
    for key in t_sd["state"]:
        assert_state_equal(t_sd["state"][key], c_sd["state"][key], tol)


@pytest.mark.parametrize("entry", OPTIMIZERS, ids=entry_id)
def test_state_dict_layout(entry):
    arrays = initial_arrays(entry["name"], np.float32)
    t_params, c_params = make_params(torch, arrays), make_params(cinder, arrays)
    t_opt, c_opt = make_optimizer(torch, entry, t_params), make_optimizer(cinder, entry, c_params)
    for grads in gradient_sequence(arrays, 3):
        step_both([(torch, t_params, t_opt), (cinder, c_params, c_opt)], grads)
    assert_state_dicts_equal(t_opt.state_dict(), c_opt.state_dict(), tolerance(entry, np.float32))
    assert repr(t_opt) == repr(c_opt)


def convert(value, lib):
    """A state_dict with every tensor rebuilt in ``lib`` (same dtype and values)."""
    if isinstance(value, (torch.Tensor, cinder.Tensor)):
        return lib.tensor(to_numpy(value).copy())
    if isinstance(value, dict):
        return {k: convert(v, lib) for k, v in value.items()}
    if isinstance(value, list):
        return [convert(v, lib) for v in value]
    return value


@pytest.mark.parametrize("source", LIBS, ids=["torch_to_cinder", "cinder_to_torch"])
@pytest.mark.parametrize("entry", OPTIMIZERS, ids=entry_id)
def test_state_dict_moves_between_libraries(entry, source):
    """Train 5 steps in ``source``, move weights and optimizer state to the other library,
    and continue 5 steps in both: the runs stay together."""
    target = cinder if source is torch else torch
    arrays = initial_arrays(entry["name"], np.float32)
    grads = list(gradient_sequence(arrays, 10))
    s_params = make_params(source, arrays)
    s_opt = make_optimizer(source, entry, s_params)
    for g in grads[:5]:
        step_both([(source, s_params, s_opt)], g)
    t_params = make_params(target, [to_numpy(p) for p in s_params])
    t_opt = make_optimizer(target, entry, t_params)
    t_opt.load_state_dict(convert(s_opt.state_dict(), target))
    for g in grads[5:]:
        step_both([(source, s_params, s_opt), (target, t_params, t_opt)], g)
    pairs = (s_params, t_params, s_opt, t_opt) if source is torch else \
        (t_params, s_params, t_opt, s_opt)
    assert_same_run(*pairs, tolerance(entry, np.float32))


def outcome(lib, name, kwargs):
    params = [lib.tensor(np.ones((2, 2), np.float32), requires_grad=True)]
    try:
        getattr(lib.optim, name)(params, **kwargs)
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("name,kwargs", BAD_OPTIONS,
                         ids=[f"{n}-{k}" for n, k in BAD_OPTIONS])
def test_bad_options_raise_like_pytorch(name, kwargs):
    expected = outcome(torch, name, kwargs)
    assert expected is not None, "the table lists an option PyTorch accepts"
    assert outcome(cinder, name, kwargs) == expected
