"""The optimizers that do not fit the generic table: LBFGS (closures, evaluation counts, both
line-search settings), SparseAdam (sparse gradients only), and ``differentiable=True``."""

import numpy as np
import pytest
import torch

import cinder

LIBS = (torch, cinder)


def rosenbrock_run(lib, line_search, history, dtype, steps=6, max_iter=5):
    x = lib.tensor(np.array([-1.2, 1.0, -0.5, 0.8], dtype=dtype), requires_grad=True)
    opt = lib.optim.LBFGS([x], lr=1, max_iter=max_iter, history_size=history,
                          line_search_fn=line_search)
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
        loss.backward()
        return loss

    losses = [float(opt.step(closure).detach()) for _ in range(steps)]
    state = opt.state[x]
    return {"losses": np.array(losses), "x": x.detach().numpy().copy(), "calls": len(calls),
            "func_evals": state["func_evals"], "n_iter": state["n_iter"], "keys": list(state),
            "history": len(state["old_dirs"])}


@pytest.mark.parametrize("history", [100, 2])
@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_float64_follows_pytorch_exactly(line_search, history):
    t = rosenbrock_run(torch, line_search, history, np.float64)
    c = rosenbrock_run(cinder, line_search, history, np.float64)
    for key in ("calls", "func_evals", "n_iter", "keys", "history"):
        assert c[key] == t[key], key
    np.testing.assert_allclose(c["losses"], t["losses"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(c["x"], t["x"], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_float32_same_evaluations(line_search):
    t = rosenbrock_run(torch, line_search, 100, np.float32, steps=3)
    c = rosenbrock_run(cinder, line_search, 100, np.float32, steps=3)
    assert (c["calls"], c["func_evals"], c["n_iter"]) == (t["calls"], t["func_evals"],
                                                         t["n_iter"])
    np.testing.assert_allclose(c["x"], t["x"], rtol=1e-3, atol=1e-4)


def square_closure(opt, x):
    def closure():
        opt.zero_grad()
        loss = (x * x).sum()
        loss.backward()
        return loss
    return closure


def test_lbfgs_stops_at_a_minimum_and_refuses_unknown_line_search():
    for lib in LIBS:
        x = lib.tensor(np.zeros(3, np.float32), requires_grad=True)
        opt = lib.optim.LBFGS([x])
        opt.step(square_closure(opt, x))
        assert opt.state[x]["func_evals"] == 1 and "d" not in opt.state[x]
    messages = []
    for lib in LIBS:
        x = lib.tensor(np.ones(3, np.float32), requires_grad=True)
        opt = lib.optim.LBFGS([x], line_search_fn="armijo")
        with pytest.raises(RuntimeError) as info:
            opt.step(square_closure(opt, x))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_lbfgs_repr_and_state_dict():
    for lib in LIBS:
        x = lib.tensor(np.ones(2, np.float32), requires_grad=True)
        opt = lib.optim.LBFGS([x], history_size=7, line_search_fn="strong_wolfe")
        assert opt.param_groups[0]["max_eval"] == 25
    assert repr(torch.optim.LBFGS([torch.ones(1, requires_grad=True)])) == \
        repr(cinder.optim.LBFGS([cinder.ones(1, requires_grad=True)]))


class _CooGrad:
    """A COO gradient for cinder's SparseAdam (cinder has no sparse tensor type yet): the
    interface the update reads, built from the same indices and values as a torch sparse
    gradient."""

    is_sparse = True

    def __init__(self, indices, values):
        self.indices, self.values = cinder.tensor(indices), cinder.tensor(values)

    def coalesce(self):
        return self

    def _indices(self):
        return self.indices

    def _values(self):
        return self.values


@pytest.mark.filterwarnings("ignore:Sparse invariant checks")
@pytest.mark.parametrize("maximize", [False, True])
def test_sparse_adam_matches_pytorch_on_sparse_rows(maximize):
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((6, 3)).astype(np.float32)
    t_w = torch.tensor(weight, requires_grad=True)
    c_w = cinder.tensor(weight, requires_grad=True)
    t_opt = torch.optim.SparseAdam([t_w], lr=0.01, maximize=maximize)
    c_opt = cinder.optim.SparseAdam([c_w], lr=0.01, maximize=maximize)
    for _ in range(20):
        rows = np.unique(rng.integers(0, 6, 3))
        values = rng.standard_normal((len(rows), 3)).astype(np.float32)
        t_w.grad = torch.sparse_coo_tensor(rows[None], torch.tensor(values), (6, 3))
        c_w.grad = None
        c_w._grad = _CooGrad(rows[None], values)     # bypasses the dense-only grad setter
        t_opt.step()
        c_opt.step()
        np.testing.assert_allclose(c_w.detach().numpy(), t_w.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
    t_state, c_state = t_opt.state[t_w], c_opt.state[c_w]
    assert list(t_state) == list(c_state) and t_state["step"] == c_state["step"] == 20
    np.testing.assert_allclose(c_state["exp_avg_sq"].numpy(), t_state["exp_avg_sq"].numpy(),
                               rtol=1e-5, atol=1e-7)


def test_sparse_adam_refuses_dense_gradients():
    messages = []
    for lib in LIBS:
        w = lib.ones(3, requires_grad=True)
        opt = lib.optim.SparseAdam([w])
        w.grad = lib.ones(3)
        with pytest.raises(RuntimeError) as info:
            opt.step()
        messages.append(str(info.value))
    assert messages[0] == messages[1]


DIFFERENTIABLE = [
    ("SGD", {"lr": 0.1}), ("SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "maximize": True}),
    ("Adam", {"lr": 0.1}), ("Adam", {"lr": 0.1, "amsgrad": True, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.1, "maximize": True}),
    ("RMSprop", {"lr": 0.1}), ("RMSprop", {"lr": 0.1, "centered": True, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.1, "momentum": 0.9, "maximize": True}),
    ("Adagrad", {"lr": 0.1}), ("Adagrad", {"lr": 0.1, "lr_decay": 0.1, "weight_decay": 0.2,
                                           "maximize": True}),
    ("Adamax", {"lr": 0.1}), ("Adamax", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {"lr": 0.1}), ("NAdam", {"lr": 0.1, "weight_decay": 0.1,
                                       "decoupled_weight_decay": True, "maximize": True}),
    ("NAdam", {"lr": 0.1, "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.1}), ("RAdam", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("RAdam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("Adadelta", {"lr": 0.5}), ("Adadelta", {"weight_decay": 0.1, "maximize": True}),
    ("ASGD", {"lr": 0.1}), ("ASGD", {"lr": 0.1, "t0": 0, "weight_decay": 0.1, "maximize": True}),
    ("Rprop", {"lr": 0.1}), ("Rprop", {"lr": 0.1, "maximize": True}),
]


@pytest.mark.parametrize("name,kwargs", DIFFERENTIABLE,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(DIFFERENTIABLE)])
def test_differentiable_step_is_in_the_graph(name, kwargs):
    """Gradients flow through an optimizer step back to the weights and to the gradient fed
    in, as in PyTorch. (PyTorch's own in-place state updates allow one recorded step per
    backward.)"""
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal(4)
    grads = [rng.standard_normal(4)]
    results = []
    for lib in LIBS:
        leaf = lib.tensor(w0, requires_grad=True)
        p = leaf.clone()
        opt = getattr(lib.optim, name)([p], differentiable=True, **kwargs)
        fed = [lib.tensor(g, requires_grad=True) for g in grads]
        for g in fed:
            p.grad = g.clone()
            opt.step()
        (p * p).sum().backward()
        results.append([p.detach().numpy(), leaf.grad.numpy()]
                       + [None if g.grad is None else g.grad.numpy() for g in fed])
    for c, t in zip(results[1], results[0]):
        assert (c is None) == (t is None)
        if t is not None:
            np.testing.assert_allclose(c, t, rtol=1e-9, atol=1e-12)


COMPLEX = [("Adam", {"lr": 0.1, "amsgrad": True}), ("SGD", {"lr": 0.1, "momentum": 0.9}),
           ("RMSprop", {"centered": True}), ("Adagrad", {}), ("AdamW", {"lr": 0.05}),
           ("NAdam", {}), ("RAdam", {}), ("Adadelta", {}), ("ASGD", {}), ("Adamax", {}),
           ("Rprop", {})]


@pytest.mark.parametrize("name,kwargs", COMPLEX, ids=[n for n, _ in COMPLEX])
def test_complex_parameters_update_as_real_pairs(name, kwargs):
    """Complex parameters are optimized as their (real, imag) pairs, as PyTorch does."""
    rng = np.random.default_rng(0)
    start = (rng.standard_normal(5) + 1j * rng.standard_normal(5)).astype(np.complex64)
    params = [lib.tensor(start, requires_grad=True) for lib in LIBS]
    opts = [getattr(lib.optim, name)([p], **kwargs) for lib, p in zip(LIBS, params)]
    for _ in range(20):
        g = (rng.standard_normal(5) + 1j * rng.standard_normal(5)).astype(np.complex64)
        for lib, p, opt in zip(LIBS, params, opts):
            p.grad = lib.tensor(g)
            opt.step()
    np.testing.assert_allclose(params[1].detach().numpy(), params[0].detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def custom_optimizer_run(lib):
    """A user-defined optimizer, written the way the API notes describe (12.3)."""

    class SignSGD(lib.optim.Optimizer):
        def __init__(self, params, lr=0.01):
            super().__init__(params, {"lr": lr})

        @lib.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.add_(p.grad.sign(), alpha=-group["lr"])
                        self.state[p]["steps"] = self.state[p].get("steps", 0) + 1

    w = lib.tensor(np.array([1.0, -2.0, 0.5], np.float32), requires_grad=True)
    opt = SignSGD([w], lr=0.1)
    calls = []
    opt.register_step_post_hook(lambda o, a, k: calls.append(len(a)))
    for _ in range(3):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    return w.tolist(), repr(opt), opt.state_dict()["state"], calls


def test_user_defined_optimizer():
    assert custom_optimizer_run(cinder) == custom_optimizer_run(torch)
