"""The Optimizer base class against PyTorch: construction errors, param groups and named
parameters, zero_grad, hooks, state_dict/load_state_dict rules, pickling, tensor lr."""

import importlib
import pickle
import warnings

import numpy as np
import pytest
import torch

import cinder

LIBS = (torch, cinder)


def params(lib, n=2, dtype=np.float32):
    rng = np.random.default_rng(0)
    return [lib.tensor(rng.standard_normal(3).astype(dtype), requires_grad=True)
            for _ in range(n)]


def optimizer_module(lib):
    return importlib.import_module(lib.__name__ + ".optim.optimizer")


def outcome(lib, build):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        try:
            result = build(lib)
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return ("raises", type(e).__name__, str(e).replace("torch.", "cinder."))
    return ("ok", repr(result).replace("torch.", "cinder."),
            [(w.category.__name__, str(w.message)) for w in record])


CONSTRUCTION = {
    "empty": lambda L: L.optim.SGD([], lr=0.1),
    "tensor_not_iterable": lambda L: L.optim.SGD(L.ones(2), lr=0.1),
    "non_leaf": lambda L: L.optim.Adam([L.ones(2, requires_grad=True) * 2]),
    "not_a_tensor": lambda L: L.optim.SGD([1.0], lr=0.1),
    "set_of_params": lambda L: L.optim.SGD({L.ones(2, requires_grad=True)}, lr=0.1),
    "duplicates_warn": lambda L: (lambda p: L.optim.SGD([p, p], lr=0.1))(L.ones(2)),
    "shared_between_groups": lambda L: (lambda p: L.optim.SGD(
        [{"params": [p]}, {"params": [p]}], lr=0.1))(L.ones(2)),
    "named_and_unnamed": lambda L: L.optim.SGD(
        [("a", L.ones(2, requires_grad=True)), L.ones(2, requires_grad=True)], lr=0.1),
    "groups_named_and_unnamed": lambda L: L.optim.SGD(
        [{"params": [("a", L.ones(1))]}, {"params": [L.ones(1)]}], lr=0.1),
    "group_not_dict": lambda L: L.optim.SGD([L.ones(1)], lr=0.1).add_param_group([1]),
    "required_option": lambda L: L.optim.Optimizer(
        [L.ones(1)], {"lr": optimizer_module(L).required}),
    "lbfgs_groups": lambda L: L.optim.LBFGS([{"params": [L.ones(1)]},
                                             {"params": [L.ones(1)]}]),
    "tensor_lr_two_elements": lambda L: L.optim.SGD([L.ones(1)], lr=L.tensor([0.1, 0.2])),
    "muon_needs_matrices": lambda L: L.optim.Muon([L.ones(3, requires_grad=True)]),
    "sparse_adam_complex": lambda L: L.optim.SparseAdam(
        [L.ones(2, dtype=L.complex64, requires_grad=True)]),
    "adam_betas_mixed": lambda L: L.optim.Adam([L.ones(1)], betas=(L.tensor(0.9), 0.99)),
    "named_group_repr": lambda L: L.optim.Adagrad([("w", L.ones(2)), ("b", L.ones(1))]),
    "tensor_lr_repr": lambda L: L.optim.AdamW([L.ones(1)], lr=L.tensor(0.01)),
}


@pytest.mark.parametrize("case", sorted(CONSTRUCTION))
def test_construction_like_pytorch(case):
    build = CONSTRUCTION[case]
    assert outcome(cinder, build) == outcome(torch, build)


def test_named_parameters_in_state_dict():
    dicts = []
    for lib in LIBS:
        w, b = params(lib)
        opt = lib.optim.SGD([{"params": [("w", w)]}, {"params": [("b", b)], "lr": 0.5}],
                            lr=0.1, momentum=0.9)
        for p in (w, b):
            p.grad = lib.ones(3)
        opt.step()
        sd = opt.state_dict()
        dicts.append((sd["param_groups"], list(sd["state"]), list(sd["state"][0])))
    assert dicts[0] == dicts[1]


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    results = []
    for lib in LIBS:
        ps = params(lib)
        opt = lib.optim.SGD(ps, lr=0.1)
        (ps[0] * ps[1]).sum().backward()
        opt.zero_grad(set_to_none=set_to_none)
        results.append([None if p.grad is None else p.grad.tolist() for p in ps])
    assert results[0] == results[1]


def hook_log(lib):
    log = []
    ps = params(lib)
    opt = lib.optim.Adam(ps)
    h1 = opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", type(o).__name__)))
    opt.register_step_post_hook(lambda o, a, k: log.append(("post", len(a), len(k))))
    g = optimizer_module(lib).register_optimizer_step_pre_hook(
        lambda o, a, k: log.append("global-pre"))
    for p in ps:
        p.grad = lib.ones(3)
    opt.step()
    h1.remove()
    g.remove()
    opt.step()
    return log


def test_step_hooks_and_global_hooks():
    logs = [hook_log(lib) for lib in LIBS]
    assert logs[0] == logs[1] and len(logs[0]) == 4


def test_pre_hook_may_replace_arguments_and_bad_result_raises():
    for lib in LIBS:
        ps = params(lib)
        opt = lib.optim.SGD(ps, lr=0.1)
        seen = []
        opt.register_step_pre_hook(
            lambda o, a, k, seen=seen: ((o,), {"closure": lambda: seen.append(1)}))
        opt.step()
        assert seen == [1]
    messages = []
    for lib in LIBS:
        opt = lib.optim.SGD(params(lib), lr=0.1)
        opt.register_step_pre_hook(lambda o, a, k: 5)
        with pytest.raises(RuntimeError) as info:
            opt.step()
        messages.append(str(info.value).split(" must return")[1])
    assert messages[0] == messages[1]


def state_dict_hook_log(lib):
    log = []
    opt = lib.optim.SGD(params(lib), lr=0.1)
    opt.register_state_dict_pre_hook(lambda o: log.append("sd-pre"))
    opt.register_state_dict_post_hook(lambda o, sd: dict(sd, extra=1))
    opt.register_state_dict_post_hook(lambda o, sd: log.append(sorted(sd)), prepend=True)
    opt.register_load_state_dict_pre_hook(lambda o, sd: log.append(("ld-pre", sorted(sd))))
    opt.register_load_state_dict_post_hook(lambda o: log.append("ld-post"))
    sd = opt.state_dict()
    log.append(sorted(sd))
    opt.load_state_dict(sd)
    return log


def test_state_dict_and_load_hooks():
    logs = [state_dict_hook_log(lib) for lib in LIBS]
    assert logs[0] == logs[1]


LOAD_ERRORS = {
    "group_count": lambda L, sd: dict(sd, param_groups=sd["param_groups"] * 2),
    "group_size": lambda L, sd: dict(sd, param_groups=[dict(sd["param_groups"][0],
                                                            params=[0])]),
}


@pytest.mark.parametrize("case", sorted(LOAD_ERRORS))
def test_load_state_dict_validates_groups(case):
    def build(L):
        opt = L.optim.SGD(params(L), lr=0.1)
        opt.load_state_dict(LOAD_ERRORS[case](L, opt.state_dict()))
    expected = outcome(torch, build)
    assert expected[0] == "raises"
    assert outcome(cinder, build) == expected


def test_load_casts_state_to_parameter_dtype_but_keeps_step_float32():
    """A float64 checkpoint loaded for float32 parameters: moments become float32, ``step``
    stays as saved (a float32 CPU tensor), as in PyTorch."""
    results = []
    for lib in LIBS:
        p64 = params(lib, 1, np.float64)
        opt64 = lib.optim.Adam(p64)
        p64[0].grad = lib.ones(3, dtype=lib.float64)
        opt64.step()
        p32 = params(lib, 1, np.float32)
        opt32 = lib.optim.Adam(p32)
        opt32.load_state_dict(opt64.state_dict())
        state = opt32.state[p32[0]]
        results.append({k: (str(v.dtype).split(".")[1], str(v.device)) for k, v in state.items()})
        assert opt32.state_dict()["param_groups"] == opt64.state_dict()["param_groups"]
    assert results[0] == results[1]
    assert results[1] == {key: ("float32", "cpu") for key in ("step", "exp_avg", "exp_avg_sq")}


def test_loaded_state_is_a_copy():
    opt = cinder.optim.SGD(params(cinder), lr=0.1, momentum=0.9)
    for p in opt.param_groups[0]["params"]:
        p.grad = cinder.ones(3)
    opt.step()
    sd = opt.state_dict()
    other = cinder.optim.SGD(params(cinder), lr=0.2, momentum=0.9)
    other.load_state_dict(sd)
    sd["param_groups"][0]["lr"] = 5.0
    assert other.param_groups[0]["lr"] == 0.1


def test_pickling_round_trip():
    ps = params(cinder)
    opt = cinder.optim.Adam(ps, lr=0.01, amsgrad=True)
    for p in ps:
        p.grad = cinder.ones(3)
    opt.step()
    clone = pickle.loads(pickle.dumps(opt))
    assert repr(clone) == repr(opt)
    assert [sorted(s) for s in clone.state.values()] == [sorted(s) for s in opt.state.values()]
    assert clone.__getstate__().keys() == {"defaults", "state", "param_groups"}
    for p in clone.param_groups[0]["params"]:
        p.grad = cinder.ones(3)
    clone.step()           # hooks dicts were rebuilt by __setstate__


def test_setstate_fills_options_older_checkpoints_lack():
    for lib in LIBS:
        opt = lib.optim.SGD(params(lib), lr=0.1)
        state = opt.__getstate__()
        for key in ("nesterov", "maximize", "foreach", "differentiable", "fused"):
            del state["param_groups"][0][key]
        opt.__setstate__(state)
        assert sorted(opt.param_groups[0]) == sorted(lib.optim.SGD(params(lib), lr=0.1)
                                                     .param_groups[0])


def test_tensor_lr_steps_like_float_lr():
    final = []
    for lib in LIBS:
        ps = params(lib)
        opt = lib.optim.Adam(ps, lr=lib.tensor(0.01))
        for _ in range(5):
            for p in ps:
                p.grad = p.detach() * 2
            opt.step()
        final.append(np.stack([p.detach().numpy() for p in ps]))
    np.testing.assert_allclose(final[1], final[0], rtol=1e-6)


def closure_run(lib):
    a, b = params(lib)
    opt = lib.optim.SGD([a], lr=0.1, momentum=0.5)
    opt.add_param_group({"params": b, "lr": 0.01})

    def closure():
        opt.zero_grad()
        loss = (a * a).sum() + (b * b * b).sum()
        loss.backward()
        return loss

    losses = [float(opt.step(closure).detach()) for _ in range(3)]
    return losses, repr(opt), a.tolist(), b.tolist()


def test_add_param_group_later_and_closure_loss():
    results = [closure_run(lib) for lib in LIBS]
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-6)
    assert results[1][1] == results[0][1]
    np.testing.assert_allclose(results[1][2:], results[0][2:], rtol=1e-6)


def test_parameters_without_grad_are_skipped():
    for lib in LIBS:
        a, b = params(lib)
        opt = lib.optim.Adam([a, b])
        a.grad = lib.ones(3)
        before = b.tolist()
        opt.step()
        assert b.tolist() == before and len(opt.state) == 1
