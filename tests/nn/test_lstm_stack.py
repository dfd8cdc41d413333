"""A stack of unidirectional LSTM layers as one op and one graph node (``_lstm_stack``,
``cinder/ops/nn/rnn_stack.py``) and both directions of a bidirectional layer as one kernel
(``_lstm_pair``, ``rnn_pair.py``) against PyTorch: outputs, final states, every gradient, the
printed node names, double backward, the functional ``lstm``; and the cases left to the
per-layer nodes (dropout while training) still matching PyTorch."""

import numpy as np
import pytest
import torch

import cinder
from cinder.ops import OPS
from cinder.ops.nn import rnn_pair, rnn_stack

TOL = {"float32": 2e-5, "float64": 1e-10}


def _model(lib, layers, dtype, **kwargs):
    lib.manual_seed(0)
    m = lib.nn.LSTM(5, 7, num_layers=layers, **kwargs)
    return m.double() if dtype == "float64" else m


def _run(lib, m, dtype, states=True, batch_first=False):
    """Outputs, states, every gradient and the node names of one forward/backward of ``m``."""
    rng = np.random.default_rng(1)
    nstates = m.num_layers * (2 if m.bidirectional else 1)
    shape = (3, 6, 5) if batch_first else (6, 3, 5)
    x, h0, c0 = (lib.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True)
                 for s in (shape, (nstates, 3, 7), (nstates, 3, 7)))
    out, (h, c) = m(x, (h0, c0)) if states else m(x)
    w = lib.tensor(rng.standard_normal(tuple(out.shape)).astype(dtype))
    ((out * w).sum() + (out ** 2).sum() + (h * 2).sum() + (c * c).sum()).backward()
    tensors = [out, h, c, x.grad] + ([h0.grad, c0.grad] if states else [])
    names = (type(out.grad_fn).__name__, type(h.grad_fn).__name__, type(c.grad_fn).__name__)
    return tensors + [p.grad for p in m.parameters()], names


def _compare(c_res, t_res, dtype):
    (c_vals, c_names), (t_vals, t_names) = c_res, t_res
    assert c_names == t_names
    assert len(c_vals) == len(t_vals)
    for a, b in zip(c_vals, t_vals):
        assert a.dtype == getattr(cinder, dtype) and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=TOL[dtype],
                                   atol=TOL[dtype])


@pytest.mark.parametrize("layers", [1, 2, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
def test_stack_matches_pytorch(layers, dtype, bias, monkeypatch):
    taken = []
    fits = rnn_stack.stack_fits
    monkeypatch.setattr(rnn_stack, "stack_fits", lambda *a: taken.append(fits(*a)) or taken[-1])
    c_res = _run(cinder, _model(cinder, layers, dtype, bias=bias), dtype)
    assert taken == [True]                  # the one-node kernel ran
    _compare(c_res, _run(torch, _model(torch, layers, dtype, bias=bias), dtype), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_stack_batch_first_default_states_eval_dropout(dtype):
    """batch_first, no initial states, and dropout in eval mode (no masks: the kernel runs)."""
    c_m, t_m = (_model(lib, 3, dtype, batch_first=True, dropout=0.3) for lib in (cinder, torch))
    c_m.eval()
    t_m.eval()
    _compare(_run(cinder, c_m, dtype, states=False, batch_first=True),
             _run(torch, t_m, dtype, states=False, batch_first=True), dtype)


def test_stack_equals_per_layer_kernel(monkeypatch):
    """One node gives the per-layer nodes' numbers (up to float64 rounding)."""
    fast = _run(cinder, _model(cinder, 3, "float64"), "float64")[0]
    monkeypatch.setattr(rnn_stack, "stack_fits", lambda *args: False)
    slow = _run(cinder, _model(cinder, 3, "float64"), "float64")[0]
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12,
                                   atol=1e-12)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_per_layer_cases_still_match(bidirectional):
    """A 3-layer LSTM with dropout while training (the layers as separate nodes, masks drawn
    per layer output in PyTorch's order), one- and bidirectional, keeps PyTorch's numbers."""
    dtype = "float64"
    c_m, t_m = (_model(lib, 3, dtype, dropout=0.4, bidirectional=bidirectional)
                for lib in (cinder, torch))
    for lib in (cinder, torch):
        lib.manual_seed(5)
    _compare(_run(cinder, c_m, dtype), _run(torch, t_m, dtype), dtype)
    c_m.dropout = t_m.dropout = 0.0
    _compare(_run(cinder, c_m, dtype), _run(torch, t_m, dtype), dtype)


def _double_backward(layers, bidirectional, second, bias):
    """Values of a create_graph=True gradient and of its own backward, cinder vs PyTorch."""
    results = []
    for lib in (cinder, torch):
        m = _model(lib, layers, "float64", bidirectional=bidirectional)
        x = lib.tensor(np.random.default_rng(2).standard_normal((4, 2, 5)), requires_grad=True)
        out, (h, c) = m(x)
        loss = (out ** 2).sum() + h.sum() + (c ** 2).sum()
        gx, gw = lib.autograd.grad(loss, (x, getattr(m, second)), create_graph=True)
        ((gx ** 2).sum() + (gw ** 2).sum()).backward()
        results.append([gx, gw, x.grad, m.weight_ih_l0.grad, getattr(m, bias).grad])
    for a, b in zip(*results):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-9,
                                   atol=1e-10)


def test_double_backward_matches_pytorch():
    """create_graph=True: the gradients are differentiable (through ``_layer_ops``)."""
    _double_backward(2, False, "weight_hh_l1", "bias_hh_l1")


def test_functional_lstm_and_freed_graph():
    """``torch.lstm`` (padded form) runs the kernel too; a second backward through the freed
    graph raises as in PyTorch."""
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s) for s in ((5, 2, 3), (2, 2, 4), (2, 2, 4), (16, 3),
                                               (16, 4), (16,), (16,), (16, 4), (16, 4),
                                               (16,), (16,))]
    results = []
    for lib in (cinder, torch):
        x, h0, c0, *params = [lib.tensor(a, requires_grad=True) for a in arrays]
        out, h, c = lib.lstm(x, (h0, c0), params, True, 2, 0.0, True, False, False)
        loss = out.sum() + (h * c).sum()
        loss.backward(retain_graph=False)
        with pytest.raises(RuntimeError):
            loss.backward()
        results.append([out, h, c, x.grad, h0.grad, c0.grad] + [p.grad for p in params])
    for a, b in zip(*results):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)


def test_op_entry():
    """``_lstm_stack`` is in the op table, returning each layer's final states."""
    assert OPS["_lstm_stack"].family == "nn.rnn"
    m = _model(cinder, 2, "float32")
    x = cinder.randn(3, 2, 5)
    zeros = cinder.zeros(2, 2, 7)
    res = rnn_stack.lstm_stack(x, zeros, zeros, m._flat_weights, True, 2)
    out, (h, c) = m(x)
    assert len(res) == 5
    np.testing.assert_array_equal(res[0].detach().numpy(), out.detach().numpy())
    np.testing.assert_array_equal(res[2].detach().numpy(), h[1].detach().numpy())
    np.testing.assert_array_equal(res[4].detach().numpy(), c[1].detach().numpy())


def test_unbatched_and_no_grad():
    """An unbatched (T, I) input runs the kernel too; under no_grad nothing is recorded."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((5, 5)).astype("float32")
    outs = []
    for lib in (cinder, torch):
        m = _model(lib, 2, "float32")
        out, (h, c) = m(lib.tensor(x))
        with lib.no_grad():
            out2, _ = m(lib.tensor(x))
        assert out2.grad_fn is None and out.grad_fn is not None
        outs.append([out, h, c, out2])
    for a, b in zip(*outs):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=2e-5,
                                   atol=2e-5)


def _counting(monkeypatch, module, name):
    """Replace ``module.name`` by a wrapper recording what it answered."""
    answers, real = [], getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a: answers.append(real(*a)) or answers[-1])
    return answers


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dropout", [0.0, 0.4])
def test_pair_matches_pytorch(dtype, dropout, monkeypatch):
    """A 3-layer bidirectional LSTM, with and without dropout between layers while training
    (PyTorch's masks, drawn after each layer): every layer runs as one ``_lstm_pair``."""
    taken = _counting(monkeypatch, rnn_pair, "pair_fits")
    c_m, t_m = (_model(lib, 3, dtype, dropout=dropout, bidirectional=True)
                for lib in (cinder, torch))
    for lib in (cinder, torch):
        lib.manual_seed(5)
    _compare(_run(cinder, c_m, dtype), _run(torch, t_m, dtype), dtype)
    assert taken == [True] * 3


def test_pair_equals_per_direction_kernels(monkeypatch):
    """Both directions in one kernel give the per-direction kernels' numbers."""
    fast = _run(cinder, _model(cinder, 2, "float64", bidirectional=True), "float64")[0]
    monkeypatch.setattr(rnn_pair, "pair_fits", lambda *args: False)
    slow = _run(cinder, _model(cinder, 2, "float64", bidirectional=True), "float64")[0]
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12,
                                   atol=1e-12)


def test_pair_double_backward_and_op_entry():
    """create_graph=True through ``_lstm_pair`` matches PyTorch; the op is in the table."""
    assert OPS["_lstm_pair"].family == "nn.rnn"
    _double_backward(1, True, "weight_hh_l0_reverse", "bias_hh_l0_reverse")


def test_functional_bidirectional_pair(monkeypatch):
    """``torch.lstm`` with bidirectional=True and batch_first runs each layer as one
    ``_lstm_pair`` and matches PyTorch."""
    taken = _counting(monkeypatch, rnn_pair, "pair_fits")
    rng = np.random.default_rng(7)
    shapes = [(2, 5, 3), (4, 2, 4), (4, 2, 4)]
    for lay in range(2):
        for _ in range(2):
            shapes += [(16, 3 if lay == 0 else 8), (16, 4), (16,), (16,)]
    arrays = [rng.standard_normal(s) for s in shapes]
    results = []
    for lib in (cinder, torch):
        x, h0, c0, *params = [lib.tensor(a, requires_grad=True) for a in arrays]
        out, h, c = lib.lstm(x, (h0, c0), params, True, 2, 0.0, True, True, True)
        (out.sum() + (h * c).sum()).backward()
        results.append([out, h, c, x.grad, h0.grad, c0.grad] + [p.grad for p in params])
    assert taken == [True, True]
    for a, b in zip(*results):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
