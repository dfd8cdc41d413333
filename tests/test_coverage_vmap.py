"""``torch.vmap`` / ``torch.func.vmap`` against PyTorch: values, in_dims/out_dims (nested),
keyword arguments, nested vmap, gradients through vmap, randomness modes, and the errors."""

import importlib

import numpy as np
import pytest
import torch

import cinder
from oracle import outcome

LIBS = (torch, cinder)
RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3))
Y = RNG.standard_normal((3, 3))
M = RNG.standard_normal((3, 4))
B3 = RNG.standard_normal((2, 3, 4))
C3 = RNG.standard_normal((2, 3, 4))


def _env(lib):
    t = lib.from_numpy
    return {"x": t(X.copy()), "y": t(Y.copy()), "m": t(M.copy()), "b": t(B3.copy()),
            "c": t(C3.copy())}


def _same(expr):
    """The value (compared numerically) or the exception (type and message start) agree."""
    res = [outcome(expr, lib, _env(lib)) for lib in LIBS]
    if res[0][0] == "raises":
        assert res[1][0] == "raises", (expr, res[1])
        assert res[1][1] == res[0][1], (expr, res)
        # the structure descriptions differ (PyTorch prints its TreeSpec): compare the start
        assert res[1][2][:60] == res[0][2][:60], (expr, res)
        return
    values = []
    for lib in LIBS:
        scope = {"L": lib, "np": np, **_env(lib)}
        values.append(eval(expr, scope))
    _close(values[1], values[0])


def _close(c, t):
    if isinstance(t, (tuple, list)):
        assert type(c).__name__ == type(t).__name__ and len(c) == len(t)
        for a, b in zip(c, t):
            _close(a, b)
    elif isinstance(t, dict):
        assert c.keys() == t.keys()
        for k in t:
            _close(c[k], t[k])
    elif not isinstance(t, torch.Tensor):
        assert c == t
    else:
        assert tuple(c.shape) == tuple(t.shape)
        assert str(c.dtype) == str(t.dtype)
        np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=1e-6,
                                   atol=1e-6)


VALUE_EXPRS = [
    "L.vmap(L.sin)(x)", "L.func.vmap(L.sin)(x)",
    "L.vmap(L.mv, in_dims=(None, 0))(m.T.contiguous(), b[:, :, 0].T.contiguous().T)",
    "L.vmap(lambda a, w: a @ w, in_dims=(0, None))(x, m)",
    "L.vmap(L.dot)(b[:, 0], c[:, 0])",
    "L.vmap(L.vmap(L.dot))(b, c)",
    "L.vmap(L.vmap(L.dot, in_dims=(1, 1)), in_dims=(2, 2))(b, c)",
    "L.vmap(lambda a: a.sum(0), in_dims=1)(x)",
    "L.vmap(lambda a: (a * 2, a.sum()), out_dims=(1, 0))(b)",
    "L.vmap(lambda a: a * 2, out_dims=-1)(b)",
    "L.vmap(lambda d: d['a'] + d['b'])({'a': x, 'b': x})",
    "L.vmap(lambda p: p[0] * p[1], in_dims=((0, 1),))((x, y[:2].T.contiguous()))",
    "L.vmap(lambda a, scale=1.0: a * scale)(x, scale=3.0)",
    "L.vmap(lambda a: {'s': a.sin(), 'c': a.cos()})(x)",
    "L.vmap(lambda a: L.ones(2))(x)",
    "L.vmap(lambda a, n: a * n, in_dims=(0, None))(x, 4)",
    "L.vmap(lambda a: (a, 3), out_dims=(0, None))(x)",
    "L.vmap(L.sin, chunk_size=1)(x)",
    "L.vmap(lambda a: a.max(0))(b)",
]


@pytest.mark.parametrize("expr", VALUE_EXPRS)
def test_vmap_values(expr):
    _same(expr)


ERROR_EXPRS = [
    "L.vmap(L.add)(x, y)", "L.vmap(L.add, in_dims=(0,))(x, x)", "L.vmap(L.sin, in_dims=3)(x)",
    "L.vmap(L.sin, in_dims=-3)(x)", "L.vmap(L.sin, in_dims=None)(x)",
    "L.vmap(L.sin, in_dims=1.5)(x)", "L.vmap(L.sin, in_dims='a')(x)",
    "L.vmap(lambda a: 3)(x)", "L.vmap(lambda a: (a, 3))(x)",
    "L.vmap(L.sin, out_dims=(0, 1))(x)", "L.vmap(L.sin, out_dims=2)(x)",
    "L.vmap(lambda a: a.sum(), out_dims=1)(x)",
    "L.vmap(lambda a: L.rand(2))(x)", "L.vmap(lambda a: a + L.randn(3))(x)",
    "L.vmap(lambda a: a.clone().normal_())(x)",
    "L.vmap(lambda a: L.nn.functional.dropout(a, 0.5))(x)",
    "L.vmap(lambda a: L.rand(2), randomness='x')(x)", "L.vmap(L.sin, chunk_size=0)(x)",
    "L.vmap(L.sin)(3)", "L.vmap(L.sin)(L.tensor(1.))", "L.vmap(L.sin)()",
    "L.vmap(lambda a: a.item())(x)",
]


@pytest.mark.parametrize("expr", ERROR_EXPRS)
def test_vmap_errors(expr):
    _same(expr)


def test_dropout_off_is_not_random():
    _same("L.vmap(lambda a: L.nn.functional.dropout(a, 0.5, training=False))(x)")


def test_gradients_flow_through_vmap():
    grads = []
    for lib in LIBS:
        env = _env(lib)
        b = env["b"].requires_grad_()
        w = env["m"].requires_grad_()
        out = lib.vmap(lambda a, w=w: (a @ w.T).tanh(), in_dims=0)(b)
        (out * out).sum().backward()
        grads.append((b.grad.numpy(), w.grad.numpy()))
    for c, t in zip(grads[1], grads[0]):
        np.testing.assert_allclose(c, t, rtol=1e-6, atol=1e-8)


def test_randomness_same_gives_one_unbatched_draw():
    draws = []
    for lib in LIBS:
        lib.manual_seed(3)
        out = lib.vmap(lambda a, lib=lib: a + lib.rand(3), randomness="same")(lib.zeros(4, 3))
        after = lib.rand(2)
        draws.append((out.numpy(), after.numpy()))
    np.testing.assert_array_equal(draws[1][0], draws[0][0])
    np.testing.assert_array_equal(draws[1][1], draws[0][1])
    assert (draws[1][0] == draws[1][0][0]).all()


def test_randomness_different_draws_each_element():
    draws = []
    for lib in LIBS:
        lib.manual_seed(3)
        out = lib.vmap(lambda a, lib=lib: a + lib.rand(3), randomness="different")(lib.zeros(4, 3))
        draws.append(out.numpy())
    # rand fills a batch element by element in PyTorch too: the same numbers
    np.testing.assert_array_equal(draws[1], draws[0])
    assert not (draws[1] == draws[1][0]).all()


def test_named_tuples_in_and_out():
    """Named tuples pass through vmap in both directions, with per-field in_dims, and the
    pytree helpers rebuild structseqs such as torch.return_types.max."""
    import collections
    Pair = collections.namedtuple("Pair", "a b")
    got = []
    for lib in LIBS:
        e = _env(lib)
        prod = lib.vmap(lambda p: p.a * p.b)(Pair(e["x"], e["x"]))
        partial = lib.vmap(lambda p: p.a + p.b, in_dims=(Pair(0, None),))(
            Pair(e["y"], e["y"][0]))
        out = lib.vmap(lambda r: Pair(r.sin(), r.cos()))(e["x"])
        mapped = importlib.import_module(f"{lib.__name__}.utils._pytree").tree_map(
            lambda v: v * 2, e["x"].max(0))
        got.append((prod, partial, type(out).__name__, out.b, type(mapped).__name__,
                    mapped.values))
    assert got[0][2] == got[1][2] == "Pair" and got[0][4] == got[1][4] == "max"
    for c, t in zip(got[1], got[0]):
        if not isinstance(t, str):
            _close(c, t)
