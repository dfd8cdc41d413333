"""The optimizer table: every optimizer with a grid of its options, and the bad options each
must refuse. Runners in ``test_optimizers.py`` check every entry against PyTorch.

An entry is ``(optimizer name, constructor kwargs, group options)``. ``group options`` is None
for one parameter group, or a list of per-group option dicts for a run with several groups
(the parameters are split among them in order).
"""

import numpy as np

TWO_GROUPS = "two groups"


def entry(name, kwargs=None, groups=None, tol=None):
    return {"name": name, "kwargs": kwargs or {}, "groups": groups, "tol": tol}


OPTIMIZERS = [
    entry("SGD", {"lr": 0.1}),
    entry("SGD", {"lr": 0.05, "momentum": 0.9}),
    entry("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.1}),
    entry("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "maximize": True}),
    entry("SGD", {"lr": 0.05, "weight_decay": 0.05},
          groups=[{"momentum": 0.5}, {"lr": 0.01, "nesterov": True, "momentum": 0.8}]),
    entry("Adam", {}),
    entry("Adam", {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1}),
    entry("Adam", {"lr": 0.01, "amsgrad": True, "maximize": True}),
    entry("Adam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    entry("Adam", {"lr": 0.01}, groups=[{"amsgrad": True}, {"lr": 0.002, "weight_decay": 0.2}]),
    entry("AdamW", {}),
    entry("AdamW", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1}),
    entry("AdamW", {"lr": 0.01, "maximize": True}, groups=[{}, {"betas": (0.5, 0.9)}]),
    entry("Adamax", {}),
    entry("Adamax", {"lr": 0.01, "weight_decay": 0.1, "maximize": True}),
    entry("NAdam", {}),
    entry("NAdam", {"lr": 0.01, "weight_decay": 0.1, "momentum_decay": 0.01}),
    entry("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True,
                    "maximize": True}),
    entry("RAdam", {}),
    entry("RAdam", {"lr": 0.01, "weight_decay": 0.1}),
    entry("RAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True,
                    "maximize": True}),
    entry("Adagrad", {}),
    entry("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1,
                      "weight_decay": 0.1, "maximize": True}),
    entry("Adagrad", {"lr": 0.05}, groups=[{"lr_decay": 0.1}, {"eps": 1e-5}]),
    entry("Adadelta", {}),
    entry("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1, "maximize": True}),
    entry("RMSprop", {}),
    entry("RMSprop", {"lr": 0.001, "centered": True}),
    entry("RMSprop", {"lr": 0.001, "momentum": 0.9, "weight_decay": 0.1}),
    entry("RMSprop", {"lr": 0.001, "centered": True, "momentum": 0.5, "maximize": True,
                      "alpha": 0.9}),
    entry("Rprop", {}),
    entry("Rprop", {"lr": 0.001, "etas": (0.3, 1.5), "step_sizes": (1e-4, 0.1),
                    "maximize": True}),
    entry("ASGD", {}),
    entry("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 20, "weight_decay": 0.1,
                   "maximize": True}),
    entry("Adafactor", {}),
    entry("Adafactor", {"lr": 0.05, "beta2_decay": -0.5, "eps": (1e-6, 1e-2), "d": 2.0,
                        "weight_decay": 0.1, "maximize": True}),
    # Muon orthogonalises in bfloat16: a one-ulp bfloat16 difference in a matrix product
    # (different summation order) is 0.4%, so its tolerance is bfloat16's, not float32's.
    entry("Muon", {}, tol=2e-3),
    entry("Muon", {"lr": 0.01, "nesterov": False, "adjust_lr_fn": "match_rms_adamw",
                   "weight_decay": 0.0}, tol=2e-3),
]

# Shapes of the parameters each run optimizes (Muon takes matrices only).
SHAPES = {"default": [(5, 4), (7,), (), (2, 3, 4)], "Muon": [(5, 4), (3, 6)]}

# Bad options: (optimizer, kwargs). PyTorch's exception type and text are the expectation.
BAD_OPTIONS = [
    ("SGD", {"lr": -0.1}), ("SGD", {"momentum": -0.5}), ("SGD", {"weight_decay": -1.0}),
    ("SGD", {"nesterov": True}), ("SGD", {"momentum": 0.9, "nesterov": True, "dampening": 0.1}),
    ("SGD", {"lr": 0.1, "fused": True, "differentiable": True}),
    ("SGD", {"lr": 0.1, "foo": 1}),
    ("Adam", {"lr": -1e-3}), ("Adam", {"betas": (1.0, 0.999)}), ("Adam", {"betas": (0.9, -0.1)}),
    ("Adam", {"eps": -1e-8}), ("Adam", {"weight_decay": -0.1}), ("Adam", {"betas": (0.9, 1)}),
    ("Adam", {"unknown": 3}),
    ("AdamW", {"betas": (0.9, 1.5)}), ("AdamW", {"lr": -2.0}),
    ("Adamax", {"betas": (1.2, 0.9)}), ("Adamax", {"eps": -1.0}),
    ("NAdam", {"momentum_decay": -0.1}), ("NAdam", {"betas": (0.9, 1.0)}),
    ("RAdam", {"weight_decay": -0.1}), ("RAdam", {"lr": -0.1}),
    ("Adagrad", {"lr_decay": -0.1}), ("Adagrad", {"initial_accumulator_value": -1.0}),
    ("Adagrad", {"eps": -1.0}),
    ("Adadelta", {"rho": 1.5}), ("Adadelta", {"eps": -1.0}),
    ("RMSprop", {"alpha": -0.1}), ("RMSprop", {"momentum": -0.1}), ("RMSprop", {"eps": -1.0}),
    ("Rprop", {"etas": (1.5, 1.2)}), ("Rprop", {"etas": (0.5, 0.9)}), ("Rprop", {"lr": -1.0}),
    ("ASGD", {"weight_decay": -0.1}),
    ("LBFGS", {"lr": -1.0}),
    ("SparseAdam", {"lr": 0.0}), ("SparseAdam", {"eps": 0.0}),
    ("Adafactor", {"beta2_decay": 0.5}), ("Adafactor", {"d": 0.5}),
    ("Adafactor", {"eps": (-1.0, 1e-3)}), ("Adafactor", {"lr": -0.1}),
    ("Muon", {"momentum": -0.1}), ("Muon", {"adjust_lr_fn": "nope"}),
    ("Muon", {"weight_decay": -1.0}),
]


def entry_id(e):
    groups = "" if e["groups"] is None else f"-{len(e['groups'])}groups"
    opts = ",".join(f"{k}={v}" for k, v in e["kwargs"].items())
    return f"{e['name']}({opts}){groups}"


def initial_arrays(name, dtype, seed=0):
    rng = np.random.default_rng(seed)
    shapes = SHAPES.get(name, SHAPES["default"])
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def gradient_sequence(arrays, steps, seed=1):
    """Random gradients, plus a pull towards zero, so the runs follow a real descent."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        yield [(rng.standard_normal(a.shape) * 0.5).astype(a.dtype) for a in arrays]
