"""The LSTM's per-layer loop for padded sequences (every step has the whole batch, run in
the gate-major layout) gives the general packed-row loop's results within float32 rounding
(the two sum their GEMMs in different orders, the bias inside the input GEMM) and
PyTorch's, in both directions; an empty batch runs forward and backward as in PyTorch.
(The unidirectional stack otherwise runs as one node, ``rnn_stack``, and a bidirectional
layer's two directions as one kernel, ``rnn_pair``: both switched off here, tested in
``test_lstm_stack.py``.)"""

import numpy as np
import pytest
import torch

import cinder
from cinder.ops.nn import rnn, rnn_pair, rnn_stack


def _model(lib, bidirectional):
    lib.manual_seed(0)
    return lib.nn.LSTM(5, 7, num_layers=2, bidirectional=bidirectional)


def _run(lib, m):
    """Outputs, states and every gradient of one forward/backward of ``m`` on fixed data."""
    rng = np.random.default_rng(1)
    states = 4 if m.bidirectional else 2
    x, h0, c0 = (lib.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)
                 for shape in ((6, 3, 5), (states, 3, 7), (states, 3, 7)))
    out, (h, c) = m(x, (h0, c0))
    (out.sum() + (h * 2).sum() + (c * 3).sum()).backward()
    return [out, h, c, x.grad, h0.grad, c0.grad] + [p.grad for p in m.parameters()]


@pytest.mark.parametrize("bidirectional", [False, True])
def test_padded_loop_equals_general_loop(bidirectional, monkeypatch):
    monkeypatch.setattr(rnn_stack, "stack_fits", lambda *args: False)
    monkeypatch.setattr(rnn_pair, "pair_fits", lambda *args: False)
    fast = _run(cinder, _model(cinder, bidirectional))
    monkeypatch.setattr(rnn, "_uniform", lambda batch_sizes: False)
    general = _run(cinder, _model(cinder, bidirectional))
    for a, b in zip(fast, general):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_padded_loop_matches_pytorch(bidirectional):
    tm, cm = _model(torch, bidirectional), _model(cinder, bidirectional)
    cm.load_state_dict({k: cinder.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    for a, b in zip(_run(cinder, cm), _run(torch, tm)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-4,
                                   atol=1e-5)


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_empty_batch(mode):
    shapes = []
    for lib in (cinder, torch):
        lib.manual_seed(0)
        m = getattr(lib.nn, mode)(4, 3, num_layers=2, bidirectional=True)
        x = lib.zeros(5, 0, 4, requires_grad=True)
        out = m(x)[0]
        out.sum().backward()
        shapes.append((tuple(out.shape), tuple(x.grad.shape),
                       float(m.weight_hh_l0.grad.abs().sum())))
    assert shapes[0] == shapes[1]


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("bias", [False, True])
def test_gate_major_kernel_gradcheck(reverse, bias):
    """float64 gradcheck of the padded (gate-major) LSTM kernel's explicit backward."""
    rng = np.random.default_rng(5)
    steps, batch, hs, n_in = 4, 3, 2, 3

    def leaf(*shape):
        return cinder.from_numpy(rng.uniform(-0.8, 0.8, shape)).requires_grad_()
    x, h0, c0 = leaf(steps * batch, n_in), leaf(batch, hs), leaf(batch, hs)
    w_ih, w_hh = leaf(4 * hs, n_in), leaf(4 * hs, hs)
    biases = [leaf(4 * hs), leaf(4 * hs)] if bias else []

    def fn(x, h0, c0, w_ih, w_hh, *b):
        b_ih, b_hh = b if b else (None, None)
        return rnn.rnn_layer(x, h0, c0, w_ih, w_hh, b_ih, b_hh, None, "LSTM", [batch] * steps,
                             reverse=reverse)
    assert cinder.autograd.gradcheck(fn, [x, h0, c0, w_ih, w_hh, *biases], eps=1e-6,
                                     atol=1e-6)
