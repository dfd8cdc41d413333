"""scaled_dot_product_attention (the op ``_scaled_dot_product_attention``) and
MultiheadAttention against PyTorch, plus gradcheck."""

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import cinder
import cinder.nn.functional as CF


def _weights_like(lib, t):
    return lib.from_numpy(np.linspace(0.5, 1.5, t.numel()).reshape(tuple(t.shape)))


def _assert_all_close(pairs, tol=1e-9):
    for c, t in pairs:
        if t is None:
            assert c is None
            continue
        assert tuple(c.shape) == tuple(t.shape)
        np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


SDPA = [
    ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), None, {}),
    ((2, 3, 4, 8), (2, 3, 4, 8), (2, 3, 4, 6), None, {"is_causal": True}),
    ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), None, {"dropout_p": 0.3}),
    ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), "bool", {}),
    ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), "float", {"scale": 0.3}),
    ((2, 4, 4, 8), (2, 2, 5, 8), (2, 2, 5, 6), None, {"enable_gqa": True}),
    ((4, 8), (5, 8), (5, 6), None, {}),
]


@pytest.mark.parametrize("qs,ks,vs,mask,kw", SDPA)
def test_sdpa_matches_torch(qs, ks, vs, mask, kw):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in (qs, ks, vs)]
    if mask == "bool":
        m = rng.random((qs[-2], ks[-2])) > 0.3
        m[1] = False                               # a row that attends nowhere gives zeros
    elif mask == "float":
        m = rng.standard_normal((qs[-3], qs[-2], ks[-2]))
    results = []
    for lib, F in ((cinder, CF), (torch, TF)):
        ts = [lib.from_numpy(a.copy()).requires_grad_() for a in arrays]
        mt = None
        if mask is not None:
            mt = lib.from_numpy(m.copy())
            if mask == "float":
                mt.requires_grad_()
        lib.manual_seed(3)
        out = F.scaled_dot_product_attention(*ts, attn_mask=mt, **kw)
        (out * _weights_like(lib, out)).sum().backward()
        results.append([out] + [t.grad for t in ts] + ([mt.grad] if mask == "float" else []))
    _assert_all_close(zip(*results))


def test_sdpa_errors():
    q = np.zeros((2, 4, 8))
    for lib, F in ((cinder, CF), (torch, TF)):
        t = lib.from_numpy(q)
        with pytest.raises(RuntimeError):
            F.scaled_dot_product_attention(t, t, t, attn_mask=lib.ones(4, 4, dtype=lib.bool),
                                           is_causal=True)
        with pytest.raises(RuntimeError):
            F.scaled_dot_product_attention(t, t[..., :7], t)


@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"dropout_p": 0.4},
                                {"enable_gqa": True}])
def test_sdpa_gradcheck(kw):
    rng = np.random.default_rng(1)
    kv_heads = 1 if kw.get("enable_gqa") else 2
    q = cinder.from_numpy(rng.standard_normal((2, 2, 3, 4))).requires_grad_()
    k = cinder.from_numpy(rng.standard_normal((2, kv_heads, 3, 4))).requires_grad_()
    v = cinder.from_numpy(rng.standard_normal((2, kv_heads, 3, 5))).requires_grad_()
    mask = cinder.from_numpy(rng.standard_normal((3, 3))).requires_grad_()
    inputs = (q, k, v) if kw.get("is_causal") else (q, k, v, mask)

    def fn(*args):
        cinder.manual_seed(0)                       # the same dropout mask on every call
        m = None if len(args) == 3 else args[3]
        return CF.scaled_dot_product_attention(*args[:3], attn_mask=m, **kw)
    assert cinder.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-6)


KPM = np.zeros((3, 5), bool)
KPM[1, 3:] = True
AM = np.random.default_rng(2).random((4, 5)) > 0.8
MHA = [
    ((8, 2), {}, {}, [(4, 3, 8)], {}),
    ((8, 2), {"batch_first": True, "dropout": 0.2}, {"need_weights": False}, [(3, 4, 8)], {}),
    ((8, 2), {"batch_first": True, "dropout": 0.2}, {}, [(3, 4, 8)], {}),
    ((8, 4), {"kdim": 5, "vdim": 6, "add_bias_kv": True, "add_zero_attn": True},
     {"average_attn_weights": False}, [(4, 3, 8), (5, 3, 5), (5, 3, 6)], {}),
    ((8, 2), {"bias": False}, {}, [(4, 3, 8), (5, 3, 8), (5, 3, 8)],
     {"key_padding_mask": KPM, "attn_mask": AM}),
    ((8, 2), {}, {"need_weights": False}, [(4, 3, 8), (5, 3, 8), (5, 3, 8)],
     {"key_padding_mask": KPM, "attn_mask": AM}),
    ((8, 2), {}, {"need_weights": False, "is_causal": True}, [(4, 3, 8)],
     {"attn_mask": np.triu(np.full((4, 4), -np.inf), 1)}),
    ((8, 2), {}, {}, [(4, 8), (5, 8), (5, 8)], {}),
]


def _build_mha(args, kwargs):
    torch.manual_seed(0)
    t_mod = torch.nn.MultiheadAttention(*args, **kwargs)
    cinder.manual_seed(0)
    c_mod = cinder.nn.MultiheadAttention(*args, **kwargs)
    return c_mod, t_mod


@pytest.mark.parametrize("args,kwargs,fw,shapes,masks", MHA)
@pytest.mark.parametrize("mode", ["train", "eval"])
def test_multihead_attention(args, kwargs, fw, shapes, masks, mode):
    c_mod, t_mod = _build_mha(args, kwargs)
    assert repr(c_mod) == repr(t_mod)
    assert list(c_mod.state_dict()) == list(t_mod.state_dict())
    for (n, cp), (_, tp) in zip(c_mod.named_parameters(), t_mod.named_parameters()):
        assert np.array_equal(cp.detach().numpy(), tp.detach().numpy()), n
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal(s) for s in shapes]
    results = []
    for lib, mod in ((cinder, c_mod.double()), (torch, t_mod.double())):
        mod.train(mode == "train")
        ts = [lib.from_numpy(a.copy()).requires_grad_() for a in arrays]
        inputs = ts * 3 if len(ts) == 1 else ts          # one tensor: self-attention
        mk = {k: lib.from_numpy(v.copy()) for k, v in masks.items()}
        lib.manual_seed(5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out, w = mod(*inputs, **mk, **fw)
        total = (out * _weights_like(lib, out)).sum()
        if w is not None:
            total = total + (w * w).sum()
        total.backward()
        results.append([out, w] + [t.grad for t in ts] + [p.grad for p in mod.parameters()])
    _assert_all_close(zip(*results), tol=1e-8)


def test_multihead_attention_errors():
    c_mod, t_mod = _build_mha((8, 2), {})
    for lib, mod in ((cinder, c_mod), (torch, t_mod)):
        x = lib.zeros(4, 3, 8)
        with pytest.raises(AssertionError):
            mod(x, lib.zeros(4, 8), lib.zeros(4, 8))             # mixed ranks
        with pytest.raises(AssertionError):
            mod(lib.zeros(4, 3, 6), lib.zeros(4, 3, 6), lib.zeros(4, 3, 6))   # embed dim
        with pytest.raises(RuntimeError):
            mod(x, x, x, attn_mask=lib.zeros(3, 3))                  # bad 2-D mask shape
        with pytest.raises(AssertionError):
            lib.nn.MultiheadAttention(8, 3)
        with pytest.raises(ValueError):
            lib.nn.MultiheadAttention(0, 2)
