"""Recurrent layers and packed sequences against PyTorch, plus gradcheck of the RNN kernel
(the op ``_rnn_layer``).

(The module table, tests/nn/module_db/rnn.py, covers RNN/GRU and the cells; LSTM returns a
nested ``(output, (h, c))`` and is compared here.)
"""

import warnings

import numpy as np
import pytest
import torch

import cinder
from cinder.ops.nn.rnn import rnn_layer


def _flat(o):
    if isinstance(o, (tuple, list)):
        return [z for e in o for z in _flat(e)]
    return [o]


def _build(name, args, kwargs):
    torch.manual_seed(0)
    t_mod = getattr(torch.nn, name)(*args, **kwargs)
    cinder.manual_seed(0)
    c_mod = getattr(cinder.nn, name)(*args, **kwargs)
    return c_mod, t_mod


def _compare_grads(c_mod, t_mod, c_in, t_in, tol):
    np.testing.assert_allclose(c_in.grad.numpy(), t_in.grad.numpy(), rtol=tol, atol=tol)
    c_params = dict(c_mod.named_parameters())
    for name, tp in t_mod.named_parameters():
        np.testing.assert_allclose(c_params[name].grad.numpy(), tp.grad.numpy(), rtol=tol,
                                   atol=tol, err_msg=name)


LSTMS = [
    ((3, 5), {}, (4, 2, 3)),
    ((3, 5, 2), {"bidirectional": True, "batch_first": True}, (2, 4, 3)),
    ((3, 5, 2), {"proj_size": 2, "bidirectional": True}, (4, 2, 3)),
    ((3, 5), {"bias": False, "proj_size": 3}, (4, 3)),
]


@pytest.mark.parametrize("args,kwargs,shape", LSTMS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lstm_matches_torch(args, kwargs, shape, dtype):
    c_mod, t_mod = _build("LSTM", args, kwargs)
    assert repr(c_mod) == repr(t_mod)
    assert list(c_mod.state_dict()) == list(t_mod.state_dict())
    for (n, cp), (_, tp) in zip(c_mod.named_parameters(), t_mod.named_parameters()):
        assert np.array_equal(cp.detach().numpy(), tp.detach().numpy()), n
    if dtype == "float64":
        c_mod.double()
        t_mod.double()
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    c_in = cinder.from_numpy(x.copy()).requires_grad_()
    t_in = torch.from_numpy(x.copy()).requires_grad_()
    c_out, t_out = _flat(c_mod(c_in)), _flat(t_mod(t_in))
    tol = 1e-5 if dtype == "float32" else 1e-10
    for c, t in zip(c_out, t_out):
        assert tuple(c.shape) == tuple(t.shape)
        np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)
    weights = [np.random.default_rng(i).uniform(0.5, 1.5, tuple(t.shape)).astype(dtype)
               for i, t in enumerate(t_out)]
    sum((t * torch.from_numpy(w)).sum() for t, w in zip(t_out, weights)).backward()
    sum((c * cinder.from_numpy(w)).sum() for c, w in zip(c_out, weights)).backward()
    _compare_grads(c_mod, t_mod, c_in, t_in, 1e-4 if dtype == "float32" else 1e-9)


def test_lstm_initial_state_and_errors():
    c_mod, t_mod = _build("LSTM", (3, 4, 2), {})
    rng = np.random.default_rng(1)
    x, h, c = rng.standard_normal((5, 2, 3)), rng.standard_normal((2, 2, 4)), \
        rng.standard_normal((2, 2, 4))
    c_mod.double()
    t_mod.double()
    t_out = _flat(t_mod(torch.from_numpy(x), (torch.from_numpy(h), torch.from_numpy(c))))
    c_out = _flat(c_mod(cinder.from_numpy(x), (cinder.from_numpy(h), cinder.from_numpy(c))))
    for a, b in zip(c_out, t_out):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10)
    bad = [((x[:, :, :2],), RuntimeError),                                  # input size
           ((x, (cinder.from_numpy(h[:1]), cinder.from_numpy(c))), RuntimeError),
           ((x[0, 0],), ValueError),                                        # 1-d input
           ((x.astype(np.float32),), ValueError)]                           # dtype mismatch
    for args, exc in bad:
        c_args = [cinder.from_numpy(a) if isinstance(a, np.ndarray) else a for a in args]
        t_args = [torch.from_numpy(a) if isinstance(a, np.ndarray) else
                  tuple(torch.from_numpy(z.numpy()) for z in a) for a in args]
        with pytest.raises(exc):
            t_mod(*t_args)
        with pytest.raises(exc):
            c_mod(*c_args)
    with pytest.raises(ValueError):
        cinder.nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError):
        cinder.nn.GRU(3, 4, proj_size=2)


@pytest.mark.parametrize("name,kwargs", [("LSTM", {"num_layers": 2, "bidirectional": True}),
                                         ("GRU", {"batch_first": True}),
                                         ("RNN", {"bidirectional": True, "num_layers": 2})])
def test_packed_input(name, kwargs):
    """Unsorted lengths through pack -> RNN -> pad, with a given initial state."""
    c_mod, t_mod = _build(name, (3, 4), kwargs)
    c_mod.double()
    t_mod.double()
    bf = kwargs.get("batch_first", False)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 5, 3) if bf else (5, 3, 3))
    dirs = 2 if kwargs.get("bidirectional") else 1
    h0 = rng.standard_normal((kwargs.get("num_layers", 1) * dirs, 3, 4))
    lengths = [3, 5, 2]
    outs, grads = [], []
    for lib, mod in ((cinder, c_mod), (torch, t_mod)):
        xin = lib.from_numpy(x.copy()).requires_grad_()
        packed = lib.nn.utils.rnn.pack_padded_sequence(xin, lengths, batch_first=bf,
                                                        enforce_sorted=False)
        hx = lib.from_numpy(h0.copy())
        hx = (hx, hx * 0.5) if name == "LSTM" else hx
        out, hidden = mod(packed, hx)
        padded, lens = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=bf,
                                                            total_length=6)
        flat = [padded] + _flat(hidden)
        (sum((f * f).sum() for f in flat) + padded.sum()).backward()
        outs.append([packed.data, packed.batch_sizes, lens] + flat)
        grads.append([xin.grad] + [p.grad for p in mod.parameters()])
    for group in (outs, grads):
        for c, t in zip(*group):
            assert tuple(c.shape) == tuple(t.shape)
            np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=1e-9,
                                       atol=1e-10)


def test_sequence_utils():
    rng = np.random.default_rng(3)
    seqs = [rng.standard_normal((n, 2)) for n in (3, 5, 1)]
    U = (cinder.nn.utils.rnn, torch.nn.utils.rnn)
    c_s = [cinder.from_numpy(s) for s in seqs]
    t_s = [torch.from_numpy(s) for s in seqs]
    for side in ("right", "left"):
        for bf in (False, True):
            np.testing.assert_array_equal(
                U[0].pad_sequence(c_s, batch_first=bf, padding_value=-1.0,
                                  padding_side=side).numpy(),
                U[1].pad_sequence(t_s, batch_first=bf, padding_value=-1.0,
                                  padding_side=side).numpy())
    c_p, t_p = U[0].pack_sequence(c_s, enforce_sorted=False), \
        U[1].pack_sequence(t_s, enforce_sorted=False)
    for a, b in zip(c_p, t_p):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert repr(c_p) == repr(t_p)
    for a, b in zip(U[0].unpack_sequence(c_p), U[1].unpack_sequence(t_p)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    padded = rng.standard_normal((5, 3, 2))
    lens = [3, 5, 1]
    for a, b in zip(U[0].unpad_sequence(cinder.from_numpy(padded), cinder.tensor(lens)),
                    U[1].unpad_sequence(torch.from_numpy(padded), torch.tensor(lens))):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(RuntimeError):
        U[0].pack_sequence(c_s)                        # not sorted by length
    with pytest.raises(RuntimeError):
        U[1].pack_sequence(t_s)
    with pytest.raises(ValueError):
        U[0].pad_packed_sequence(c_p, total_length=2)


@pytest.mark.parametrize("mode", ["RNN_TANH", "RNN_RELU", "LSTM", "GRU"])
@pytest.mark.parametrize("reverse", [False, True])
def test_rnn_kernel_gradcheck(mode, reverse):
    """float64 gradcheck of the explicit backward, on packed batch sizes (3, 2, 2, 1)."""
    gates = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}[mode]
    rng = np.random.default_rng(4)
    sizes = [3, 2, 2, 1]
    hs, hout = 3, (2 if mode == "LSTM" else 3)

    def leaf(*shape):
        return cinder.from_numpy(rng.uniform(-0.8, 0.8, shape)).requires_grad_()
    x, h0, w_ih, w_hh = leaf(sum(sizes), 2), leaf(3, hout), leaf(gates * hs, 2), \
        leaf(gates * hs, hout)
    b_ih, b_hh = leaf(gates * hs), leaf(gates * hs)
    c0 = leaf(3, hs) if mode == "LSTM" else None
    w_hr = leaf(hout, hs) if mode == "LSTM" else None
    inputs = [t for t in (x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr) if t is not None]

    def fn(*args):
        it = iter(args)
        vals = [next(it) if t is not None else None
                for t in (x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr)]
        out, h, c = rnn_layer(*vals, mode, sizes, reverse=reverse)
        return (out, h) if c is None else (out, h, c)
    assert cinder.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("packed", [False, True])
def test_projected_lstm_onednn_warning(dtype, packed):
    """PyTorch's CPU LSTM says once that oneDNN has no projections, for float32 sequences
    (not packed ones, which never go to oneDNN); set_warn_always shows it on every call."""
    seen = []
    for lib in (cinder, torch):
        lib.set_warn_always(True)
        try:
            m = lib.nn.LSTM(3, 6, proj_size=2).to(getattr(lib, dtype))
            x = lib.zeros(4, 2, 3, dtype=getattr(lib, dtype))
            if packed:
                x = lib.nn.utils.rnn.pack_padded_sequence(x, [4, 3])
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                m(x)
        finally:
            lib.set_warn_always(False)
        seen.append([str(w.message).split(" (Triggered internally")[0] for w in caught])
    assert seen[0] == seen[1]
