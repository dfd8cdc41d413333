"""torch.* nn names beyond what the op runners check: seeded ``native_dropout`` masks and
gradients, running statistics updated by ``instance_norm`` / ``batch_norm_update_stats``,
``native_channel_shuffle``'s missing derivative and the deprecation warnings of
``frobenius_norm`` / ``nuclear_norm``."""

import warnings

import numpy as np
import pytest
import torch

import cinder

LIBS = (torch, cinder)


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("p,train", [(0.3, True), (0.5, None), (0.0, True), (1.0, True),
                                     (0.4, False)])
def test_native_dropout_matches_seeded(p, train):
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    results = []
    for lib in LIBS:
        lib.manual_seed(7)
        t = lib.from_numpy(x.copy()).requires_grad_()
        out, mask = lib.native_dropout(t, p, train)
        (out * lib.arange(20.).view(4, 5)).sum().backward()
        results.append((_np(out), _np(mask), mask.dtype, _np(t.grad), type(out.grad_fn).__name__))
    (co, cm, cd, cg, cn), (to, tm, td, tg, tn) = results[1], results[0]
    np.testing.assert_allclose(co, to, rtol=1e-6)
    np.testing.assert_array_equal(cm, tm)
    np.testing.assert_allclose(cg, tg, rtol=1e-6)
    assert str(cd) == str(td) and cn == tn


def test_native_dropout_empty_input():
    for lib in LIBS:
        out, mask = lib.native_dropout(lib.ones(0, 3), 0.5, True)
        assert tuple(out.shape) == (0, 3) and tuple(mask.shape) == (0, 3)


def _stats_case(lib, fn):
    rng = np.random.default_rng(3)
    x = lib.from_numpy(rng.standard_normal((4, 3, 5)))
    rm = lib.from_numpy(rng.standard_normal(3))
    rv = lib.from_numpy(rng.uniform(0.5, 2, 3))
    out = fn(lib, x, rm, rv)
    return [_np(o) for o in (out if isinstance(out, tuple) else (out,))] + [_np(rm), _np(rv)]


@pytest.mark.parametrize("fn", [
    lambda L, x, rm, rv: L.batch_norm_update_stats(x, rm, rv, 0.3),
    lambda L, x, rm, rv: L.instance_norm(x, None, None, rm, rv, True, 0.2, 1e-5, False),
    lambda L, x, rm, rv: L.instance_norm(x, None, None, rm, rv, False, 0.2, 1e-5, False),
])
def test_running_statistics_are_updated(fn):
    c, t = _stats_case(cinder, fn), _stats_case(torch, fn)
    for a, b in zip(c, t):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_native_channel_shuffle_has_no_derivative():
    for lib in LIBS:
        x = lib.ones(2, 4, 3, requires_grad=True)
        y = lib.native_channel_shuffle(x, 2)
        assert type(y.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::native_channel_shuffle is "
                           "not implemented"):
            y.sum().backward()


@pytest.mark.parametrize("call,advice", [
    (lambda L: L.frobenius_norm(L.ones(2, 3), [0, 1]), "linalg.vector_norm"),
    (lambda L: L.nuclear_norm(L.ones(2, 3)), "linalg.matrix_norm"),
])
def test_deprecated_norms_warn(call, advice):
    for lib in LIBS:
        lib.set_warn_always(True)       # PyTorch warns once per process otherwise
        try:
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                call(lib)
        finally:
            lib.set_warn_always(False)
        assert any(advice in str(w.message) for w in seen), lib.__name__
