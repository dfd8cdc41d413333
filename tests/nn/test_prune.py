"""``torch.nn.utils.prune`` against PyTorch: the same entries cut after the same seed (random,
L1, Ln-structured, custom, global, combined in containers), the same parameters, buffers,
state_dict keys, hooks and outputs, ``remove``/``is_pruned``, and the same errors."""

import importlib

import numpy as np
import pytest
import torch

import cinder


def _run(lib, steps):
    """Build a small net after ``manual_seed(0)``, run the pruning ``steps`` (callables of
    (lib, prune, net)), then report everything pruning changes."""
    prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.Flatten(), lib.nn.Linear(16, 5))
    with lib.no_grad():
        net[0].weight[0, 0, 0, :2] = 0.25           # ties for the L1 choices
        net[0].weight[1, 0, 0, :2] = -0.25
    for step in steps:
        step(lib, prune, net)
    x = lib.linspace(-1, 1, 2 * 3 * 4 * 4).reshape(2, 3, 4, 4)
    out = net(x)
    out.sum().backward()
    report = {"keys": list(net.state_dict().keys()),
              "params": [n for n, _ in net.named_parameters()],
              "buffers": [n for n, _ in net.named_buffers()],
              "hooks": [[type(h).__name__ for h in m._forward_pre_hooks.values()] for m in net],
              "pruned": prune.is_pruned(net),
              "out": out.detach().numpy()}
    for k, v in net.state_dict().items():
        report["sd:" + k] = v.numpy()
    for n, p in net.named_parameters():
        report["grad:" + n] = p.grad.numpy()
    return report


def _same(steps):
    c, t = _run(cinder, steps), _run(torch, steps)
    assert c.keys() == t.keys()
    for k in c:
        if isinstance(c[k], np.ndarray):
            np.testing.assert_allclose(c[k], t[k], rtol=1e-5, atol=1e-6, err_msg=k)
        else:
            assert c[k] == t[k], k


CASES = {
    "identity": [lambda L, P, n: P.identity(n[0], "weight")],
    "random_unstructured": [lambda L, P, n: P.random_unstructured(n[0], "weight", 0.4),
                            lambda L, P, n: P.random_unstructured(n[2], "bias", 2)],
    "l1_unstructured": [lambda L, P, n: P.l1_unstructured(n[0], "weight", amount=0.3)],
    "l1_importance": [lambda L, P, n: P.l1_unstructured(
        n[2], "weight", 7, importance_scores=L.arange(80.).reshape(5, 16).flip(1))],
    "random_structured": [lambda L, P, n: P.random_structured(n[0], "weight", 0.5, dim=0),
                          lambda L, P, n: P.random_structured(n[2], "weight", 3, dim=-1)],
    "ln_structured": [lambda L, P, n: P.ln_structured(n[0], "weight", 0.5, n=2, dim=0),
                      lambda L, P, n: P.ln_structured(n[2], "weight", 2, n=float("inf"), dim=1)],
    "custom": [lambda L, P, n: P.custom_from_mask(n[2], "bias", L.tensor([1., 0, 1, 0, 1]))],
    "container": [lambda L, P, n: P.l1_unstructured(n[0], "weight", 0.2),
                  lambda L, P, n: P.ln_structured(n[0], "weight", 1, n=1, dim=1),
                  lambda L, P, n: P.random_unstructured(n[0], "weight", 5),
                  lambda L, P, n: P.random_structured(n[0], "weight", 1, dim=0)],
    "remove": [lambda L, P, n: P.l1_unstructured(n[2], "weight", 0.5),
               lambda L, P, n: P.random_unstructured(n[2], "weight", 0.1),
               lambda L, P, n: P.remove(n[2], "weight")],
    "global": [lambda L, P, n: P.global_unstructured(
        [(n[0], "weight"), (n[2], "weight"), (n[2], "bias")], P.L1Unstructured, amount=0.6)],
    "global_after_local": [lambda L, P, n: P.random_unstructured(n[2], "weight", 0.5),
                           lambda L, P, n: P.global_unstructured(
                               [(n[0], "weight"), (n[2], "weight")], P.RandomUnstructured,
                               importance_scores={(n[0], "weight"): L.ones(4, 3, 3, 3)},
                               amount=30)],
}


@pytest.mark.parametrize("case", list(CASES))
def test_pruning_matches_torch(case):
    _same(CASES[case])


def test_training_through_the_mask():
    """The optimizer trains ``weight_orig``; the cut entries of ``weight`` stay zero and
    their ``weight_orig`` gradients are zero."""
    outs = []
    for lib in (cinder, torch):
        prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
        lib.manual_seed(1)
        lin = lib.nn.Linear(6, 3)
        prune.l1_unstructured(lin, "weight", 0.5)
        opt = lib.optim.SGD(lin.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            lin(lib.linspace(-1, 1, 24).reshape(4, 6)).pow(2).sum().backward()
            opt.step()
        outs.append((lin.weight.detach().numpy(), lin.weight_orig.detach().numpy(),
                     lin.weight_orig.grad.numpy(), [n for n, _ in lin.named_parameters()]))
    for c, t in zip(*outs):
        if isinstance(c, list):
            assert c == t
        else:
            np.testing.assert_allclose(c, t, rtol=1e-5, atol=1e-6)


def test_method_objects_and_prune():
    for lib in (cinder, torch):
        prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
        lin = lib.nn.Linear(4, 2)
        method = prune.L1Unstructured.apply(lin, "weight", amount=3)
        assert isinstance(method, prune.L1Unstructured) and method._tensor_name == "weight"
        second = prune.RandomStructured.apply(lin, "weight", amount=1, dim=0)
        assert isinstance(second, prune.PruningContainer) and len(second) == 2
        assert [type(m).__name__ for m in second] == ["L1Unstructured", "RandomStructured"]
        t = lib.tensor([[3., -1., 0.5], [2., -4., 0.1]])
        np.testing.assert_array_equal(prune.L1Unstructured(2).prune(t).numpy(),
                                      [[3., -1, 0], [2, -4, 0]])
        assert issubclass(prune.Identity, prune.BasePruningMethod)


BAD = {
    "amount_type": ("l1_unstructured", "weight", "0.5"),
    "amount_float": ("l1_unstructured", "weight", 1.5),
    "amount_negative": ("random_unstructured", "weight", -1),
    "amount_too_big": ("l1_unstructured", "weight", 50),
    "structured_1d": ("random_structured", "bias", 1, 0),
    "dim_too_big": ("ln_structured", "weight", 1, 2, 5),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_pruning_raises_like_torch(case):
    fn, *args = BAD[case]
    seen = []
    for lib in (cinder, torch):
        prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
        lin = lib.nn.Linear(4, 3)
        with pytest.raises(Exception) as info:
            getattr(prune, fn)(lin, *args)
        # the failed call leaves the module as it was
        seen.append((type(info.value).__name__, str(info.value),
                     [n for n, _ in lin.named_parameters()], len(lin._forward_pre_hooks)))
    assert seen[0] == seen[1]


@pytest.mark.parametrize("expr", [
    "P.remove(L.nn.Linear(2, 2), 'weight')",
    "P.l1_unstructured(L.nn.Linear(2, 2), 'weight', 1, importance_scores=L.ones(3))",
    "P.global_unstructured([(L.nn.Linear(2, 2), 'weight')], P.RandomStructured, amount=1)",
    "P.global_unstructured(5, P.L1Unstructured, amount=1)",
    "P.global_unstructured([], P.L1Unstructured, importance_scores=[1], amount=1)",
    "P.PruningContainer(P.L1Unstructured(1), 3)",
])
def test_errors_like_torch(expr):
    seen = []
    for lib in (cinder, torch):
        prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
        try:
            eval(expr, {"L": lib, "P": prune})
            seen.append(None)
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            message = str(e).split(" of module ")[0].replace(lib.__name__ + ".nn.", "L.nn.")
            seen.append((type(e).__name__, message))
    assert seen[0] == seen[1] and seen[0] is not None
