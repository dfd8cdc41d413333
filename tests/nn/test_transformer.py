"""Transformer layers and stacks against PyTorch: construction warnings, initial weights, repr,
state_dict keys, outputs and every gradient in train (dropout draws) and eval mode."""

import warnings

import numpy as np
import pytest
import torch

import cinder

CAUSAL = np.triu(np.full((5, 5), -np.inf), 1)
KPM = np.zeros((3, 5), bool)
KPM[2, 3:] = True

CASES = [
    ("enc-layer", lambda L: L.nn.TransformerEncoderLayer(8, 2, 16), [(5, 3, 8)], {}),
    ("enc-layer-prenorm-gelu-bf",
     lambda L: L.nn.TransformerEncoderLayer(8, 2, 16, activation="gelu", norm_first=True,
                                            batch_first=True), [(3, 5, 8)], {"src_mask": CAUSAL}),
    ("encoder-causal",
     lambda L: L.nn.TransformerEncoder(L.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.2), 2,
                                       norm=L.nn.LayerNorm(8)),
     [(5, 3, 8)], {"mask": CAUSAL, "is_causal": True}),
    ("encoder-padding",
     lambda L: L.nn.TransformerEncoder(L.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True),
                                       2), [(3, 5, 8)], {"src_key_padding_mask": KPM}),
    ("dec-layer", lambda L: L.nn.TransformerDecoderLayer(8, 2, 16, bias=False),
     [(5, 3, 8), (4, 3, 8)], {"tgt_mask": CAUSAL}),
    ("transformer", lambda L: L.nn.Transformer(8, 2, 2, 2, 16),
     [(4, 3, 8), (5, 3, 8)], {"tgt_mask": CAUSAL, "src_key_padding_mask": np.zeros((3, 4), bool)}),
    ("transformer-prenorm-bf", lambda L: L.nn.Transformer(8, 2, 1, 1, 16, batch_first=True,
                                                          norm_first=True),
     [(3, 4, 8), (3, 5, 8)], {}),
]


def _build(build, lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.manual_seed(0)
        mod = build(lib)
    return mod, [str(w.message) for w in caught]


@pytest.mark.parametrize("name,build,shapes,kwargs", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("mode", ["train", "eval"])
def test_transformer_matches_torch(name, build, shapes, kwargs, mode):
    (c_mod, c_warn), (t_mod, t_warn) = _build(build, cinder), _build(build, torch)
    assert c_warn == t_warn
    assert repr(c_mod) == repr(t_mod)
    assert list(c_mod.state_dict()) == list(t_mod.state_dict())
    for (n, cp), (_, tp) in zip(c_mod.named_parameters(), t_mod.named_parameters()):
        assert np.array_equal(cp.detach().numpy(), tp.detach().numpy()), n
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    results = []
    for lib, mod in ((cinder, c_mod), (torch, t_mod)):
        mod.double().train(mode == "train")
        ts = [lib.from_numpy(a.copy()).requires_grad_() for a in arrays]
        kw = {k: lib.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v
              for k, v in kwargs.items()}
        lib.manual_seed(5)
        out = mod(*ts, **kw)
        weights = lib.from_numpy(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)))
        (out * weights).sum().backward()
        results.append([out] + [t.grad for t in ts] + [p.grad for p in mod.parameters()])
    for c, t in zip(*results):
        np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=1e-7, atol=1e-8)


def test_square_subsequent_mask_and_errors():
    c = cinder.nn.Transformer.generate_square_subsequent_mask(4)
    t = torch.nn.Transformer.generate_square_subsequent_mask(4)
    np.testing.assert_array_equal(c.numpy(), t.numpy())
    for lib in (cinder, torch):
        lib.manual_seed(0)
        model = lib.nn.Transformer(8, 2, 1, 1, 16)
        with pytest.raises(RuntimeError):
            model(lib.zeros(4, 3, 8), lib.zeros(5, 2, 8))       # batch sizes differ
        with pytest.raises(RuntimeError):
            model(lib.zeros(4, 3, 6), lib.zeros(5, 3, 6))       # not d_model features
        with pytest.raises(RuntimeError):
            lib.nn.TransformerEncoderLayer(8, 2, activation="tanh")
