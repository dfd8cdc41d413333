"""The scheduler table: each scheduler (with a grid of options) runs 300 steps next to
PyTorch's; ``get_last_lr()`` (and the cycled momentum / beta1) must agree at every step.
Also: state_dict round trips, chaining and sequencing, and the warnings PyTorch gives."""

import math
import warnings

import numpy as np
import pytest
import torch

import cinder


def _decay(epoch):
    return 0.97 ** epoch


def _half_at_50(epoch):
    return 0.5 if epoch % 50 == 49 else 1.0


class _Warmup:
    """A callable object: its attributes are saved in the state_dict, unlike a function's."""

    def __init__(self, steps):
        self.steps = steps

    def __call__(self, epoch):
        return min(1.0, (epoch + 1) / self.steps)


def _one_over_x(x):
    return 1 / (x + 1)


SCHEDULERS = [
    ("LambdaLR", {"lr_lambda": _decay}, "sgd"),
    ("LambdaLR", {"lr_lambda": [_decay, _Warmup(20)]}, "sgd"),
    ("MultiplicativeLR", {"lr_lambda": _half_at_50}, "sgd"),
    ("StepLR", {"step_size": 30, "gamma": 0.5}, "sgd"),
    ("MultiStepLR", {"milestones": [10, 60, 60, 200], "gamma": 0.3}, "sgd"),
    ("ConstantLR", {"factor": 0.25, "total_iters": 40}, "sgd"),
    ("LinearLR", {"start_factor": 0.1, "end_factor": 0.9, "total_iters": 77}, "sgd"),
    ("ExponentialLR", {"gamma": 0.99}, "adam"),
    ("PolynomialLR", {"total_iters": 150, "power": 2.0}, "sgd"),
    ("CosineAnnealingLR", {"T_max": 40}, "sgd"),
    ("CosineAnnealingLR", {"T_max": 70, "eta_min": 0.001}, "adam"),
    ("CosineAnnealingWarmRestarts", {"T_0": 10}, "sgd"),
    ("CosineAnnealingWarmRestarts", {"T_0": 7, "T_mult": 2, "eta_min": 0.01}, "sgd"),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 23}, "sgd"),
    ("CyclicLR", {"base_lr": [0.01, 0.02], "max_lr": 0.2, "step_size_up": 10,
                  "step_size_down": 30, "mode": "triangular2"}, "sgd"),
    ("CyclicLR", {"base_lr": 0.001, "max_lr": 0.1, "step_size_up": 15, "mode": "exp_range",
                  "gamma": 0.99}, "adam"),
    ("CyclicLR", {"base_lr": 0.001, "max_lr": 0.1, "step_size_up": 15, "scale_fn": _one_over_x,
                  "scale_mode": "iterations", "cycle_momentum": False}, "plain"),
    ("OneCycleLR", {"max_lr": 0.5, "total_steps": 300}, "sgd"),
    ("OneCycleLR", {"max_lr": [0.1, 0.3], "epochs": 10, "steps_per_epoch": 30,
                    "anneal_strategy": "linear", "pct_start": 0.2}, "adam"),
    ("OneCycleLR", {"max_lr": 0.2, "total_steps": 300, "three_phase": True,
                    "base_momentum": 0.7, "max_momentum": 0.9}, "sgd"),
]

STEPS = 300


def make_optimizer(lib, kind):
    rng = np.random.default_rng(0)
    params = [lib.tensor(rng.standard_normal(3).astype(np.float32), requires_grad=True)
              for _ in range(2)]
    groups = [{"params": [params[0]]}, {"params": [params[1]], "lr": 0.05}]
    if kind == "adam":
        return lib.optim.Adam(groups, lr=0.1)
    if kind == "plain":
        return lib.optim.Rprop(groups, lr=0.1)
    return lib.optim.SGD(groups, lr=0.1, momentum=0.9)


def momenta(optimizer):
    return [g["betas"][0] if "betas" in g else g.get("momentum") for g in optimizer.param_groups]


def run(lib, name, kwargs, kind, steps=STEPS):
    optimizer = make_optimizer(lib, kind)
    scheduler = getattr(lib.optim.lr_scheduler, name)(optimizer, **kwargs)
    trace = [(scheduler.get_last_lr(), momenta(optimizer))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(steps):
            optimizer.step()
            scheduler.step()
            trace.append((list(scheduler.get_last_lr()), momenta(optimizer)))
    return trace, scheduler, optimizer


def _same_values(c, t):
    """Equal lists of numbers to 1e-12, where a None (no momentum) must be None on both."""
    return len(c) == len(t) and all(
        b is None and a is None or b is not None and a == pytest.approx(b, rel=1e-12, abs=1e-15)
        for a, b in zip(c, t))


def assert_traces_equal(t_trace, c_trace):
    assert len(c_trace) == len(t_trace)
    for step, (t, c) in enumerate(zip(t_trace, c_trace)):
        assert _same_values(c[0], t[0]), f"lr at step {step}: {c[0]} vs {t[0]}"
        assert _same_values(c[1], t[1]), f"momentum at step {step}: {c[1]} vs {t[1]}"


@pytest.mark.parametrize("name,kwargs,kind", SCHEDULERS,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(SCHEDULERS)])
def test_schedule_matches_pytorch(name, kwargs, kind):
    t_trace, t_sched, _ = run(torch, name, kwargs, kind)
    c_trace, c_sched, _ = run(cinder, name, kwargs, kind)
    assert_traces_equal(t_trace, c_trace)
    t_state, c_state = t_sched.state_dict(), c_sched.state_dict()
    assert list(t_state) == list(c_state)
    assert repr(t_state) == repr(c_state)


@pytest.mark.parametrize("name,kwargs,kind", SCHEDULERS,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(SCHEDULERS)])
def test_state_dict_round_trip(name, kwargs, kind):
    """Stop after 100 steps, load the state into a fresh scheduler (and optimizer), go on:
    the rest of the schedule is PyTorch's."""
    t_trace, _, _ = run(torch, name, kwargs, kind, steps=160)
    _, c_sched, c_opt = run(cinder, name, kwargs, kind, steps=100)
    opt = make_optimizer(cinder, kind)
    sched = getattr(cinder.optim.lr_scheduler, name)(opt, **kwargs)
    opt.load_state_dict(c_opt.state_dict())
    sched.load_state_dict(c_sched.state_dict())
    trace = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(60):
            opt.step()
            sched.step()
            trace.append((list(sched.get_last_lr()), momenta(opt)))
    assert_traces_equal(t_trace[101:], trace)


def test_lambda_state_dict_keeps_callable_objects_only():
    for lib in (torch, cinder):
        opt = make_optimizer(lib, "sgd")
        sched = lib.optim.lr_scheduler.LambdaLR(opt, [_decay, _Warmup(20)])
        assert sched.state_dict()["lr_lambdas"] == [None, {"steps": 20}]


def combined(lib, how):
    optimizer = make_optimizer(lib, "sgd")
    S = lib.optim.lr_scheduler
    if how == "chained":
        scheds = [S.ConstantLR(optimizer, factor=0.5, total_iters=4),
                  S.ExponentialLR(optimizer, gamma=0.9)]
        scheduler = S.ChainedScheduler(scheds)
    elif how == "sequential":
        scheds = [S.LinearLR(optimizer, start_factor=0.1, total_iters=10),
                  S.CosineAnnealingLR(optimizer, T_max=30),
                  S.StepLR(optimizer, step_size=7, gamma=0.5)]
        scheduler = S.SequentialLR(optimizer, scheds, milestones=[10, 50])
    else:  # two independent schedulers on one optimizer, stepped one after the other
        scheduler = [S.MultiStepLR(optimizer, milestones=[5, 20], gamma=0.5),
                     S.CosineAnnealingLR(optimizer, T_max=25)]
    steppers = scheduler if isinstance(scheduler, list) else [scheduler]
    trace = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(120):
            optimizer.step()
            for s in steppers:
                s.step()
            trace.append(([g["lr"] for g in optimizer.param_groups], steppers[-1].get_last_lr()))
    return trace, steppers[-1]


@pytest.mark.parametrize("how", ["chained", "sequential", "stacked"])
def test_chaining_and_sequencing(how):
    t_trace, t_sched = combined(torch, how)
    c_trace, c_sched = combined(cinder, how)
    for t, c in zip(t_trace, c_trace):
        assert c[0] == pytest.approx(t[0], rel=1e-12) and c[1] == pytest.approx(t[1], rel=1e-12)
    assert repr(t_sched.state_dict()).replace("torch.", "") == \
        repr(c_sched.state_dict()).replace("cinder.", "")


PLATEAU = [
    {},
    {"mode": "max", "factor": 0.5, "patience": 2, "threshold": 0.01, "threshold_mode": "abs",
     "cooldown": 3, "min_lr": [0.01, 0.02]},
    {"patience": 0, "factor": 0.3, "min_lr": 0.004, "eps": 1e-3},
    {"mode": "min", "threshold_mode": "abs", "threshold": 0.5, "patience": 1, "cooldown": 1},
]


@pytest.mark.parametrize("kwargs", PLATEAU, ids=range(len(PLATEAU)))
def test_reduce_on_plateau(kwargs):
    metrics = np.concatenate([np.linspace(5, 1, 40), np.ones(60), np.linspace(1, 3, 40),
                              np.abs(np.sin(np.arange(160) / 7.0))])
    traces, states = [], []
    for lib in (torch, cinder):
        opt = make_optimizer(lib, "sgd")
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
        trace = []
        for m in metrics:
            opt.step()
            sched.step(float(m))
            trace.append(list(sched.get_last_lr()))
        traces.append(trace)
        states.append(sched.state_dict())
    np.testing.assert_allclose(traces[1], traces[0], rtol=1e-12)
    assert list(states[0]) == list(states[1]) and repr(states[0]) == repr(states[1])


def test_cosine_annealing_recursive_form_is_pytorchs():
    """The chainable cosine differs from the closed form after T_max (it keeps cycling from
    the current lr); the exact recursive values are what PyTorch prints."""
    t_trace, _, _ = run(torch, "CosineAnnealingLR", {"T_max": 10, "eta_min": 0.01}, "sgd", 50)
    c_trace, _, _ = run(cinder, "CosineAnnealingLR", {"T_max": 10, "eta_min": 0.01}, "sgd", 50)
    assert [lr for lr, _ in c_trace] == [lr for lr, _ in t_trace]   # bit for bit


def test_warm_restarts_fractional_epochs():
    traces = []
    for lib in (torch, cinder):
        opt = make_optimizer(lib, "sgd")
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
        trace = []
        for epoch in np.arange(0, 40, 0.25):
            opt.step()
            sched.step(float(epoch))
            trace.append((list(sched.get_last_lr()), sched.T_cur, sched.T_i, sched.last_epoch))
        traces.append(trace)
    assert traces[0] == traces[1]


def caught(lib, code):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        opt = make_optimizer(lib, "sgd")
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
        code(opt, sched)
    return [(w.category.__name__, str(w.message)) for w in record]


@pytest.mark.parametrize("case", ["scheduler_first", "epoch_argument", "get_lr_outside",
                                  "in_order", "step_replaced"])
def test_warnings_like_pytorch(case):
    def scheduler_first(opt, sched):
        sched.step()
        opt.step()

    def epoch_argument(opt, sched):
        opt.step()
        sched.step(3)

    def get_lr_outside(opt, sched):
        sched.get_lr()

    def in_order(opt, sched):
        opt.step()
        sched.step()

    def step_replaced(opt, sched):
        opt.step = lambda closure=None: None
        opt.step()
        sched.step()

    code = locals()[case]
    expected = caught(torch, code)
    assert caught(cinder, code) == expected
    assert (len(expected) > 0) == (case != "in_order")


BAD = [
    ("ConstantLR", {"factor": 1.5}), ("LinearLR", {"start_factor": 0}),
    ("LinearLR", {"end_factor": 2.0}), ("ReduceLROnPlateau", {"factor": 1.0}),
    ("ReduceLROnPlateau", {"mode": "avg"}), ("ReduceLROnPlateau", {"threshold_mode": "x"}),
    ("ReduceLROnPlateau", {"min_lr": [0.1]}), ("CyclicLR", {"base_lr": 0.1, "max_lr": 1,
                                                             "mode": "bad"}),
    ("CyclicLR", {"base_lr": [0.1], "max_lr": 1}),
    ("OneCycleLR", {"max_lr": 0.1}), ("OneCycleLR", {"max_lr": 0.1, "total_steps": 0}),
    ("OneCycleLR", {"max_lr": 0.1, "total_steps": 10, "pct_start": 1}),
    ("OneCycleLR", {"max_lr": 0.1, "total_steps": 10, "anneal_strategy": "exp"}),
    ("OneCycleLR", {"max_lr": 0.1, "epochs": 0, "steps_per_epoch": 3}),
    ("CosineAnnealingWarmRestarts", {"T_0": 0}), ("CosineAnnealingWarmRestarts",
                                                  {"T_0": 2, "T_mult": 1.5}),
    ("CosineAnnealingWarmRestarts", {"T_0": 2, "eta_min": "0"}),
    ("LambdaLR", {"lr_lambda": [_decay]}), ("MultiplicativeLR", {"lr_lambda": 3}),
    ("StepLR", {"step_size": 3, "last_epoch": 4}),
]


@pytest.mark.parametrize("name,kwargs", BAD, ids=[f"{n}-{i}" for i, (n, _) in enumerate(BAD)])
def test_bad_arguments_raise_like_pytorch(name, kwargs):
    def outcome(lib):
        try:
            getattr(lib.optim.lr_scheduler, name)(make_optimizer(lib, "plain"), **kwargs)
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return type(e).__name__, str(e)
        return None

    expected = outcome(torch)
    assert expected is not None
    assert outcome(cinder) == expected


def test_combining_schedulers_refuses_plateau_and_foreign_optimizers():
    def outcome(lib, which):
        S = lib.optim.lr_scheduler
        opt, other = make_optimizer(lib, "sgd"), make_optimizer(lib, "sgd")
        try:
            if which == "plateau":
                S.ChainedScheduler([S.ReduceLROnPlateau(opt)])
            elif which == "foreign":
                S.SequentialLR(opt, [S.StepLR(opt, 2), S.StepLR(other, 2)], milestones=[3])
            else:
                S.SequentialLR(opt, [S.StepLR(opt, 2)], milestones=[3])
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e).replace("torch.", "").split(" has ")[0]
        return None

    for which in ("plateau", "foreign", "milestones"):
        assert outcome(cinder, which) == outcome(torch, which) is not None


def test_tensor_lr_is_filled_in_place():
    for lib in (torch, cinder):
        p = lib.tensor(np.ones(2, np.float32), requires_grad=True)
        lr = lib.tensor(0.1)
        opt = lib.optim.SGD([p], lr=lr)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        opt.step()
        sched.step()
        assert opt.param_groups[0]["lr"] is lr
        assert math.isclose(float(lr), 0.05, rel_tol=1e-6)
