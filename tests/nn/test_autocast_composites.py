"""CPU autocast where PyTorch's result dtype comes from an inner matmul/mm/bmm/linear: the
composites (einsum, tensordot, inner, chain_matmul, linalg.multi_dot, matrix_power), the RNN
cells, the projected LSTM and TransformerEncoderLayer's inference fast path. Each case runs in
both libraries under ``autocast("cpu", dtype=bfloat16)``; dtypes must be equal, values equal
to bfloat16's precision (the libraries round at different steps)."""

import warnings

import numpy as np
import pytest
import torch

import cinder


def _arrays():
    rng = np.random.default_rng(0)
    shapes = {
        "a": (4, 3),
        "b": (3, 5),
        "c": (5, 2),
        "v": (3,),
        "x3": (2, 4, 3),
        "y3": (2, 3, 5),
        "m3": (3, 3),
        "w5": (5,),
        "z3": (4, 3, 5),
    }
    return {k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}


ARRAYS = _arrays()
ARRAYS["m3"] = ARRAYS["m3"] + 3 * np.eye(3, dtype=np.float32)  # well conditioned (inverse)

EXPRS = [
    # einsum: bf16 when the last pairwise step sums an index shared by the pair (a bmm)
    "L.einsum('ij,jk->ik', a, b)",
    "L.einsum('bij,bjk->bik', x3, y3)",
    "L.einsum('i,i->', v, v)",
    "L.einsum('ij,j->i', a, v)",
    "L.einsum('ij,kj->', a, a)",
    "L.einsum('bi,bi->b', a, a)",
    "L.einsum('ij,jk->i', a, b)",
    "L.einsum('ij,jk,kl->il', a, b, c)",
    "L.einsum('ij,jk,k->ij', a, b, w5)",
    "L.einsum('...ij,...jk->...ik', x3, y3)",
    "L.einsum('ij,jk->ik', [a, b])",
    "L.einsum('ij,jk', a, b)",
    "L.einsum('ij,jk->ik', a.bfloat16(), b)",
    "L.einsum('ij->ji', a)",
    "L.einsum('ij,ij->ij', a, a)",
    "L.einsum('i,j->ij', v, v)",
    "L.einsum('ij,k->ik', a, v)",
    "L.einsum('i,j,k->ijk', v, v, v)",
    "L.einsum('ii->i', m3)",
    "L.einsum('ij,jk->ik', a.double(), b.double())",
    # tensordot / inner / chains / powers
    "L.tensordot(a, b, dims=1)",
    "L.tensordot(v, v, dims=0)",
    "L.tensordot(z3, a, dims=([0, 1], [0, 1]))",
    "L.tensordot(a.double(), a.double().T, dims=1)",
    "L.inner(a, a)",
    "L.inner(a, v)",
    "L.inner(v, a)",
    "L.inner(x3, a)",
    "L.inner(v, v)",
    "L.inner(L.tensor(1.5), a)",
    "a.inner(a)",
    "L.chain_matmul(a, b, c)",
    "L.chain_matmul(a)",
    "L.linalg.multi_dot([a, b, c])",
    "L.linalg.multi_dot([a, b])",
    "L.linalg.multi_dot([v, b, w5])",
    "L.matrix_power(m3, 2)",
    "L.matrix_power(m3, 3)",
    "m3.matrix_power(2)",
    "L.matrix_power(m3, 1)",
    "L.matrix_power(m3, 0)",
    "L.matrix_power(m3, -2)",
    "L.linalg.matrix_power(m3, 2)",
    # untouched (not products under autocast on the CPU)
    "L.outer(v, v)",
    "L.dot(v, v)",
    "L.mv(a, v)",
    "L.kron(a, a)",
]


def _run(lib, expr):
    env = {k: lib.from_numpy(v.copy()) for k, v in ARRAYS.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autocast("cpu", dtype=lib.bfloat16):
            return eval(expr, {"L": lib, **env})


def _close(c, t, tol):
    assert str(c.dtype) == str(t.dtype), f"{c.dtype} != torch's {t.dtype}"
    assert tuple(c.shape) == tuple(t.shape)
    np.testing.assert_allclose(
        c.detach().double().numpy(), t.detach().double().numpy(), rtol=tol, atol=tol
    )


@pytest.mark.parametrize("expr", EXPRS)
def test_composites(expr):
    t = _run(torch, expr)
    c = _run(cinder, expr)
    _close(c, t, 3e-2 if str(t.dtype) == "torch.bfloat16" else 1e-5)


def test_einsum_bfloat16_outside_autocast():
    """einsum of bfloat16 operands (NumPy has no bfloat16 einsum)."""
    a, b = ARRAYS["a"], ARRAYS["b"]
    t = torch.einsum("ij,jk->ik", torch.from_numpy(a).bfloat16(), torch.from_numpy(b).bfloat16())
    c = cinder.einsum("ij,jk->ik", cinder.from_numpy(a).bfloat16(), cinder.from_numpy(b).bfloat16())
    _close(c, t, 2e-2)


# ----------------------------------------------------------------------------------------------
# Modules
# ----------------------------------------------------------------------------------------------


def _enc(**kw):
    return lambda nn: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kw)


def _mask(lib):
    return lib.tensor([[False] * 4 + [True], [False] * 5])


MODULES = {
    # TransformerEncoderLayer: the fused inference path (eval, batch_first, no grad needed...)
    "enc_eval_nograd": (_enc(batch_first=True), lambda L, m, x: m(x), False, False),
    "enc_eval_grad": (_enc(batch_first=True), lambda L, m, x: m(x), True, False),
    "enc_train_nograd": (_enc(batch_first=True), lambda L, m, x: m(x), False, True),
    "enc_not_batch_first": (_enc(), lambda L, m, x: m(x), False, False),
    "enc_norm_first": (_enc(batch_first=True, norm_first=True), lambda L, m, x: m(x), False, False),
    "enc_gelu": (_enc(batch_first=True, activation="gelu"), lambda L, m, x: m(x), False, False),
    "enc_padding_mask": (
        _enc(batch_first=True),
        lambda L, m, x: m(x, src_key_padding_mask=_mask(L)),
        False,
        False,
    ),
    "enc_odd_heads": (
        lambda nn: nn.TransformerEncoderLayer(9, 3, 16, dropout=0.0, batch_first=True),
        lambda L, m, x: m(L.cat([x, x[..., :1]], -1)),
        False,
        False,
    ),
    "encoder_stack": (
        lambda nn: nn.TransformerEncoder(
            nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
            2,
            enable_nested_tensor=False,
        ),
        lambda L, m, x: m(x),
        False,
        False,
    ),
    "mha": (
        lambda nn: nn.MultiheadAttention(8, 2, batch_first=True),
        lambda L, m, x: m(x, x, x),
        True,
        False,
    ),
    # recurrent: the projected LSTM's output and h in bf16 (c float32), the RNN cells in bf16
    "lstm_proj": (
        lambda nn: nn.LSTM(8, 6, proj_size=3, batch_first=True),
        lambda L, m, x: m(x),
        True,
        False,
    ),
    "lstm_proj_2layers_bidir": (
        lambda nn: nn.LSTM(8, 6, proj_size=3, num_layers=2, bidirectional=True),
        lambda L, m, x: m(x),
        True,
        False,
    ),
    "lstm": (lambda nn: nn.LSTM(8, 6), lambda L, m, x: m(x), True, False),
    "rnn_cell": (lambda nn: nn.RNNCell(8, 6), lambda L, m, x: m(x[0]), True, False),
    "rnn_cell_relu": (
        lambda nn: nn.RNNCell(8, 6, nonlinearity="relu"),
        lambda L, m, x: m(x[0]),
        True,
        False,
    ),
    "lstm_cell": (lambda nn: nn.LSTMCell(8, 6), lambda L, m, x: m(x[0]), True, False),
    "gru_cell": (lambda nn: nn.GRUCell(8, 6), lambda L, m, x: m(x[0]), True, False),
    "rnn_tanh_cell_fn": (
        lambda nn: nn.RNNCell(8, 6),
        lambda L, m, x: L.rnn_tanh_cell(
            x[0], L.zeros(5, 6), m.weight_ih, m.weight_hh, m.bias_ih, m.bias_hh
        ),
        True,
        False,
    ),
}


def _flat(r):
    if isinstance(r, (tuple, list)):
        return [z for q in r for z in _flat(q)]
    return [] if r is None else [r]


def _module_run(lib, case):
    build, call, grad, train = MODULES[case]
    lib.manual_seed(0)
    m = build(lib.nn)
    m.train(train)
    x = lib.from_numpy(np.random.default_rng(1).standard_normal((2, 5, 8)).astype(np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autocast("cpu", dtype=lib.bfloat16):
            if grad:
                out = call(lib, m, x)
            else:
                with lib.no_grad():
                    out = call(lib, m, x)
    return _flat(out), m, grad


@pytest.mark.parametrize("case", list(MODULES))
def test_modules(case):
    t_out, t_mod, grad = _module_run(torch, case)
    c_out, c_mod, _ = _module_run(cinder, case)
    assert [str(o.dtype) for o in c_out] == [str(o.dtype) for o in t_out]
    for c, t in zip(c_out, t_out):
        _close(c, t, 6e-2 if str(t.dtype) == "torch.bfloat16" else 1e-2)
    if grad:
        # gradients reach the float32 parameters, in float32
        t_out[0].float().sum().backward()
        c_out[0].float().sum().backward()
        for (name, tp), cp in zip(t_mod.named_parameters(), c_mod.parameters()):
            assert (tp.grad is None) == (cp.grad is None), name
            if tp.grad is not None:
                assert str(cp.grad.dtype) == str(tp.grad.dtype), name
                np.testing.assert_allclose(
                    cp.grad.numpy(), tp.grad.numpy(), rtol=0.1, atol=0.1, err_msg=name
                )
