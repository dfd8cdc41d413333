"""swa_utils against PyTorch: AveragedModel (SWA running mean, EMA through avg_fn and
multi_avg_fn, use_buffers), SWALR schedules, and update_bn on BatchNorm statistics."""

import warnings

import numpy as np
import pytest
import torch

import cinder

LIBS = (torch, cinder)


def model(lib):
    """The same small network in both libraries (weights copied from NumPy)."""
    nn = lib.nn
    net = nn.Sequential(nn.Linear(4, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Linear(5, 2))
    rng = np.random.default_rng(0)
    with lib.no_grad():
        for p in net.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    return net


def perturb(lib, net, k):
    rng = np.random.default_rng(100 + k)
    with lib.no_grad():
        for p in net.parameters():
            p.add_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
        for b in net.buffers():
            if b.is_floating_point():
                b.add_(0.5)


def averaging_kinds(lib):
    S = lib.optim.swa_utils
    return {
        "swa": {},
        "ema_multi": {"multi_avg_fn": S.get_ema_multi_avg_fn(0.9)},
        "ema_avg_fn": {"avg_fn": S.get_ema_avg_fn(0.8)},
        "swa_multi_buffers": {"multi_avg_fn": S.get_swa_multi_avg_fn(), "use_buffers": True},
        "swa_avg_fn_buffers": {"avg_fn": S.get_swa_avg_fn(), "use_buffers": True},
    }


@pytest.mark.parametrize("kind", ["swa", "ema_multi", "ema_avg_fn", "swa_multi_buffers",
                                  "swa_avg_fn_buffers"])
def test_averaged_model_matches_pytorch(kind):
    states = []
    for lib in LIBS:
        net = model(lib)
        avg = lib.optim.swa_utils.AveragedModel(net, **averaging_kinds(lib)[kind])
        try:
            for k in range(5):
                perturb(lib, net, k)
                avg.update_parameters(net)
        except RuntimeError as e:
            # PyTorch's multi-tensor SWA cannot average the integer num_batches_tracked.
            states.append(str(e))
            continue
        states.append({k: v.detach().numpy().copy() for k, v in avg.state_dict().items()})
        # Two different rows: train-mode BatchNorm over identical rows divides rounding noise
        # by sqrt(eps), which no two libraries agree on.
        x = lib.tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
        out = avg(x).detach().numpy()
        states[-1]["output"] = out
    if isinstance(states[0], str):
        assert states[0] == states[1] and kind == "swa_multi_buffers"
        return
    assert list(states[0]) == list(states[1])
    for key in states[0]:
        np.testing.assert_allclose(states[1][key], states[0][key], rtol=1e-5, atol=1e-6,
                                   err_msg=key)


def refusals(lib):
    S = lib.optim.swa_utils
    builds = (lambda: S.AveragedModel(model(lib), avg_fn=S.get_swa_avg_fn(),
                                      multi_avg_fn=S.get_swa_multi_avg_fn()),
              lambda: S.get_ema_avg_fn(1.5), lambda: S.get_ema_multi_avg_fn(-0.1))
    row = []
    for build in builds:
        try:
            build()
            row.append(None)
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            row.append((type(e).__name__, str(e)))
    return row


def test_averaged_model_refuses_two_averaging_functions_and_bad_decay():
    outcomes = [refusals(lib) for lib in LIBS]
    assert outcomes[0] == outcomes[1] and None not in outcomes[0]


@pytest.mark.parametrize("kwargs", [{"swa_lr": 0.05}, {"swa_lr": [0.01, 0.02],
                                                        "anneal_epochs": 5,
                                                        "anneal_strategy": "linear"},
                                    {"swa_lr": 0.3, "anneal_epochs": 0}])
def test_swalr_matches_pytorch(kwargs):
    traces = []
    for lib in LIBS:
        w = [lib.ones(2, requires_grad=True) for _ in range(2)]
        opt = lib.optim.SGD([{"params": [w[0]]}, {"params": [w[1]], "lr": 0.2}], lr=0.5)
        sched = lib.optim.swa_utils.SWALR(opt, **kwargs)
        trace = [sched.get_last_lr()]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(20):
                opt.step()
                sched.step()
                trace.append(sched.get_last_lr())
        state = sched.state_dict()
        traces.append((trace, list(state), state["_anneal_strategy"]))
    assert traces[0][1:] == traces[1][1:]
    np.testing.assert_allclose(traces[1][0], traces[0][0], rtol=1e-12)


def test_swalr_bad_arguments():
    outcomes = []
    for lib in LIBS:
        opt = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1)
        row = []
        for kwargs in ({"swa_lr": 0.1, "anneal_strategy": "exp"},
                       {"swa_lr": 0.1, "anneal_epochs": -1}, {"swa_lr": [0.1, 0.2]}):
            try:
                lib.optim.swa_utils.SWALR(opt, **kwargs)
                row.append(None)
            except ValueError as e:
                row.append(str(e))
        outcomes.append(row)
    assert outcomes[0] == outcomes[1] and None not in outcomes[0]


def test_update_bn_recomputes_running_statistics():
    rng = np.random.default_rng(3)
    batches = [rng.standard_normal((6, 4)).astype(np.float32) for _ in range(4)]
    results = []
    for lib in LIBS:
        net = model(lib)
        net.eval()
        loader = [(lib.tensor(b), lib.zeros(6)) for b in batches]
        lib.optim.swa_utils.update_bn(loader, net)
        bn = net[1]
        results.append((bn.running_mean.numpy().copy(), bn.running_var.numpy().copy(),
                        int(bn.num_batches_tracked), bn.momentum, net.training))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-5, atol=1e-6)
    assert results[1][2:] == results[0][2:]
