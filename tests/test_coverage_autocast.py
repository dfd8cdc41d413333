"""CPU autocast against PyTorch: the dtype each policy gives (lower precision, fp32, promote,
untouched), values within bfloat16/float16 rounding, a small conv + matmul + log_softmax +
kl_div network, gradients, nesting and ``enabled=False``, the decorator form, the state
functions and the warnings for unsupported settings."""

import warnings

import numpy as np
import pytest
import torch

import cinder

LIBS = (torch, cinder)
RNG = np.random.default_rng(0)
ARRAYS = {name: RNG.standard_normal(shape).astype(np.float32) for name, shape in (
    ("a", (4, 3)), ("b", (3, 5)), ("c", (4, 5)), ("x3", (2, 4, 3)), ("y3", (2, 3, 5)),
    ("img", (2, 3, 6, 6)), ("w", (4, 3, 3, 3)), ("p", (4, 5)), ("q", (4, 5)))}


def _env(lib):
    return {k: lib.from_numpy(v.copy()) for k, v in ARRAYS.items()}


EXPRS = [
    "L.mm(a, b)", "a @ b", "L.matmul(a, b)", "L.addmm(c, a, b)", "L.bmm(x3, y3)",
    "L.baddbmm(L.zeros(2, 4, 5), x3, y3)", "L.conv2d(img, w)", "L.conv2d(img, w, padding=1)",
    "L.prelu(a, L.tensor([0.25]))", "L.mm(a.double(), b.double())", "L.mm(a.bfloat16(), b)",
    "L.cat([a.bfloat16(), a])", "L.stack([a.half(), a])", "L.cat([a.bfloat16(), a.half()])",
    "L.prod(a.bfloat16())", "L.cdist(a.bfloat16(), a.bfloat16())", "L.trace(a[:3].bfloat16())",
    "L.kl_div(p.bfloat16(), q.abs().bfloat16(), 1)", "L.fft.rfft(a.bfloat16())",
    "a + b.T[:4, :3]", "L.softmax(a, 1)", "L.sum(a.bfloat16())", "L.relu(a)",
    "L.inverse(L.eye(3).bfloat16())",
]
TOL = {"torch.bfloat16": 2e-2, "torch.float16": 2e-3, "torch.float32": 1e-5,
       "torch.float64": 1e-12, "torch.complex64": 1e-5}


def _run(lib, expr, **kw):
    with lib.autocast("cpu", **kw):
        return eval(expr, {"L": lib, **_env(lib)})


def _same(c, t, tol=None):
    assert str(c.dtype) == str(t.dtype), f"{c.dtype} != torch's {t.dtype}"
    assert tuple(c.shape) == tuple(t.shape)
    tol = tol or TOL[str(t.dtype)]
    np.testing.assert_allclose(c.detach().to(cinder.complex64 if c.is_complex() else
                                             cinder.float64).numpy(),
                               t.detach().to(torch.complex64 if t.is_complex() else
                                             torch.float64).numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("expr", EXPRS)
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_policies_match(expr, dtype):
    results = []
    for lib in (cinder, torch):
        try:
            results.append(_run(lib, expr, dtype=getattr(lib, dtype)))
        except RuntimeError as e:           # promote refuses the other half type
            results.append(str(e))
    if isinstance(results[1], str):
        assert results[0] == results[1]
    else:
        _same(*results)


def _net(lib):
    env = _env(lib)
    w = env["w"].requires_grad_()
    lin = lib.from_numpy(ARRAYS["b"].repeat(1, 0)[:, :5].copy()).requires_grad_()
    with lib.autocast("cpu"):
        h = lib.relu(lib.conv2d(env["img"], w, padding=1))        # (2, 4, 6, 6) bf16
        feats = h.mean((2, 3))                                      # (2, 4)
        logits = lib.matmul(feats[:, :3], lin)                      # (2, 5) bf16
        logp = lib.log_softmax(logits, 1)
        loss = lib.kl_div(logp, lib.full((2, 5), 0.2), 1)           # fp32 policy
    loss.backward()
    return [h, logits, logp, loss], [w.grad, lin.grad]


def test_small_network_dtypes_values_and_grads():
    (c_outs, c_grads), (t_outs, t_grads) = _net(cinder), _net(torch)
    for c, t in zip(c_outs, t_outs):
        _same(c, t)
    # float32 gradients of bfloat16 computations: bfloat16's precision (PyTorch's oneDNN
    # kernels accumulate the bfloat16 products in float32, in their own order)
    for c, t in zip(c_grads, t_grads):
        _same(c, t, tol=4e-2)


def test_nesting_enabled_false_and_state():
    for lib in LIBS:
        a, b = _env(lib)["a"], _env(lib)["b"]
        assert not lib.is_autocast_enabled("cpu")
        with lib.autocast("cpu"):
            assert lib.is_autocast_enabled("cpu") and lib.get_autocast_dtype("cpu") == lib.bfloat16
            with lib.autocast("cpu", enabled=False):
                assert lib.mm(a, b).dtype == lib.float32
                assert not lib.is_autocast_enabled("cpu")
            with lib.autocast("cpu", dtype=lib.float16):
                assert lib.mm(a, b).dtype == lib.float16
            assert lib.mm(a, b).dtype == lib.bfloat16
        assert lib.mm(a, b).dtype == lib.float32
        assert lib.get_autocast_dtype("cpu") == lib.bfloat16
        assert lib.get_autocast_dtype("cuda") == lib.float16
        assert lib.is_autocast_enabled() is False and lib.is_autocast_cache_enabled()


def test_decorator_form():
    for lib in LIBS:
        @lib.autocast("cpu")
        def f(a, b, lib=lib):
            return lib.mm(a, b)
        env = _env(lib)
        assert f(env["a"], env["b"]).dtype == lib.bfloat16
        assert lib.mm(env["a"], env["b"]).dtype == lib.float32


@pytest.mark.parametrize("call,category,match", [
    (lambda L: L.autocast("cpu", dtype=L.float32), UserWarning, "target dtype is not supported"),
    (lambda L: L.autocast("cuda"), UserWarning, "Disabling autocast"),
    (lambda L: L.cpu.amp.autocast(), FutureWarning, "torch.cpu.amp.autocast"),
])
def test_warnings(call, category, match):
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            ctx = call(lib)
            with ctx:
                assert lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype == (
                    lib.bfloat16 if category is FutureWarning else lib.float32)
        assert any(issubclass(w.category, category) and match in str(w.message) for w in seen)


def test_bad_device_type():
    for lib in LIBS:
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            lib.autocast(0)
        with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
            lib.autocast("xyz")
