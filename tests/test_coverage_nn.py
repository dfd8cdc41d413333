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


# SyncBatchNorm's building blocks run only on CUDA in PyTorch (its CPU build raises
# NotImplementedError), so cinder's are checked against what they stand for in PyTorch:
# torch.var_mean statistics, F.batch_norm outputs, running-statistic updates and gradients.

def _bn_case(lib):
    rng = np.random.default_rng(5)
    x = lib.from_numpy(rng.standard_normal((6, 3, 4)))
    w = lib.from_numpy(rng.uniform(0.5, 1.5, 3))
    b = lib.from_numpy(rng.standard_normal(3))
    g = lib.from_numpy(rng.standard_normal((6, 3, 4)))
    return x, w, b, g


def test_sync_batch_norm_stats_and_elemt():
    x, w, b, _ = _bn_case(cinder)
    tx, tw, tb, _ = _bn_case(torch)
    mean, invstd = cinder.batch_norm_stats(x, 1e-5)
    tvar, tmean = torch.var_mean(tx, (0, 2), correction=0)
    np.testing.assert_allclose(mean.numpy(), tmean.numpy(), rtol=1e-12)
    np.testing.assert_allclose(invstd.numpy(), (tvar + 1e-5).rsqrt().numpy(), rtol=1e-12)
    out = cinder.batch_norm_elemt(x, w, b, mean, invstd, 1e-5)
    want = torch.nn.functional.batch_norm(tx, tmean, tvar, tw, tb, False, 0.0, 1e-5)
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("with_counts", [False, True])
def test_sync_batch_norm_gather_matches_whole_batch(with_counts):
    x, _, _, _ = _bn_case(cinder)
    halves = (x[:3], x[3:])
    stats = [cinder.batch_norm_stats(h, 1e-5) for h in halves]
    means = cinder.stack([s[0] for s in stats])
    invstds = cinder.stack([s[1] for s in stats])
    rm, rv = cinder.zeros(3, dtype=cinder.float64), cinder.ones(3, dtype=cinder.float64)
    if with_counts:
        mean, invstd = cinder.batch_norm_gather_stats_with_counts(
            x, means, invstds, rm, rv, 0.1, 1e-5, cinder.tensor([12.0, 12.0]))
    else:
        mean, invstd = cinder.batch_norm_gather_stats(x, means, invstds, rm, rv, 0.1, 1e-5, 12)
    tx = _bn_case(torch)[0]
    trm, trv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    torch.nn.functional.batch_norm(tx, trm, trv, training=True, momentum=0.1, eps=1e-5)
    tvar, tmean = torch.var_mean(tx, (0, 2), correction=0)
    np.testing.assert_allclose(mean.numpy(), tmean.numpy(), rtol=1e-10)
    np.testing.assert_allclose(invstd.numpy(), (tvar + 1e-5).rsqrt().numpy(), rtol=1e-10)
    np.testing.assert_allclose(rm.numpy(), trm.numpy(), rtol=1e-10)
    np.testing.assert_allclose(rv.numpy(), trv.numpy(), rtol=1e-10)


def test_sync_batch_norm_backward_matches_autograd():
    x, w, b, g = _bn_case(cinder)
    mean, invstd = cinder.batch_norm_stats(x, 1e-5)
    sum_dy, sum_dy_xmu, gw, gb = cinder.batch_norm_backward_reduce(
        g, x, mean, invstd, w, True, True, True)
    gx = cinder.batch_norm_backward_elemt(g, x, mean, invstd, w, sum_dy, sum_dy_xmu,
                                          cinder.tensor([12, 12], dtype=cinder.int32))
    tx, tw, tb, tg = _bn_case(torch)
    for t in (tx, tw, tb):
        t.requires_grad_()
    torch.nn.functional.batch_norm(tx, None, None, tw, tb, True, 0.1, 1e-5).backward(tg)
    for c, t in ((gx, tx.grad), (gw, tw.grad), (gb, tb.grad)):
        np.testing.assert_allclose(c.numpy(), t.numpy(), rtol=1e-9, atol=1e-12)
    none = cinder.batch_norm_backward_reduce(g, x, mean, invstd, w, False, False, False)
    assert none == (None, None, None, None)
