"""The recurrent layers on the GPU against PyTorch's CUDA build: the padded LSTM stack and the
bidirectional pair (cinder's gate-major kernels run on CuPy arrays there), a projected LSTM and
a GRU (the general loop), and a packed batch; outputs, final states and every gradient.

Marked ``gpu``: skipped without CuPy and a CUDA device. PyTorch runs cuDNN's RNNs with TF32 off
(its default allows TF32 there), so both sides compute in float32 and agree to its rounding.
"""

import numpy as np
import pytest
import torch

import cinder

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.usefixtures("cudnn_without_tf32"),
    pytest.mark.skipif(not cinder.cuda.is_available() or not torch.cuda.is_available(),
                       reason="needs CuPy, a CUDA GPU and PyTorch built for CUDA"),
]

CASES = {
    "lstm_stack": ("LSTM", dict(num_layers=2)),
    "lstm_pair": ("LSTM", dict(num_layers=2, bidirectional=True)),
    "lstm_batch_first_no_bias": ("LSTM", dict(batch_first=True, bias=False)),
    "lstm_proj": ("LSTM", dict(proj_size=3)),
    "gru": ("GRU", dict(num_layers=2, bidirectional=True)),
}



def _close(c, t, tol=2e-4):
    assert c.device.type == "cuda", c.device
    np.testing.assert_allclose(c.detach().cpu().numpy(), t.detach().cpu().numpy(),
                               rtol=tol, atol=tol)


def _modules(kind, options):
    torch.manual_seed(0)
    t_mod = getattr(torch.nn, kind)(4, 6, **options)
    c_mod = getattr(cinder.nn, kind)(4, 6, **options)
    c_mod.load_state_dict({k: cinder.tensor(v.numpy()) for k, v in t_mod.state_dict().items()})
    return c_mod.cuda(), t_mod.cuda()


@pytest.mark.parametrize("case", sorted(CASES))
def test_rnn_matches_torch_on_cuda(case):
    kind, options = CASES[case]
    c_mod, t_mod = _modules(kind, options)
    shape = (3, 5, 4) if options.get("batch_first") else (5, 3, 4)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    xc = cinder.tensor(x, device="cuda", requires_grad=True)
    xt = torch.tensor(x, device="cuda", requires_grad=True)
    (oc, hc), (ot, ht) = c_mod(xc), t_mod(xt)
    _close(oc, ot)
    for a, b in (zip(hc, ht) if kind == "LSTM" else [(hc, ht)]):
        _close(a, b)
    weights = np.random.default_rng(2).standard_normal(tuple(ot.shape)).astype(np.float32)
    (oc * cinder.tensor(weights, device="cuda")).sum().backward()
    (ot * torch.tensor(weights, device="cuda")).sum().backward()
    _close(xc.grad, xt.grad)
    for pc, pt in zip(c_mod.parameters(), t_mod.parameters()):
        _close(pc.grad, pt.grad)


def test_packed_lstm_matches_torch_on_cuda():
    c_mod, t_mod = _modules("LSTM", dict(num_layers=2))
    x = np.random.default_rng(3).standard_normal((6, 3, 4)).astype(np.float32)
    lengths = [6, 4, 2]
    outs = []
    for lib, mod in ((cinder, c_mod), (torch, t_mod)):
        xs = lib.tensor(x, device="cuda", requires_grad=True)
        packed = lib.nn.utils.rnn.pack_padded_sequence(xs, lengths)
        out, (h, c) = mod(packed)
        padded, _ = lib.nn.utils.rnn.pad_packed_sequence(out)
        (padded.sum() + h.sum() * 2).backward()
        outs.append((padded, h, c, xs.grad, mod.weight_hh_l1.grad))
    for a, b in zip(*outs):
        _close(a, b)
