"""The training stack on the GPU against PyTorch's CUDA build: the layers, losses and
optimizers the examples use, one LeNet-5 training step (outputs, gradients, updated weights),
``.item()``/``argmax`` on CUDA results, and a checkpoint of CUDA tensors that PyTorch loads.

Marked ``gpu``: skipped without CuPy and a CUDA device. The GPU oracle is PyTorch 2.11 with
CUDA; TF32 is off on both sides (PyTorch's default for matmul, and switched off here for
cuDNN's convolutions, where PyTorch allows it by default; cinder's CuPy matmuls run in full
float32), so values agree to float32 rounding.
"""

import io

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

RNG = np.random.default_rng(0)



def _pair(*shape, grad=False, low=None):
    a = RNG.standard_normal(shape).astype(np.float32)
    if low is not None:
        a = np.abs(a) + low
    c = cinder.tensor(a, device="cuda", requires_grad=grad)
    t = torch.tensor(a, device="cuda", requires_grad=grad)
    return c, t


def _close(c, t, tol=1e-4):
    assert c.device.type == "cuda", c.device
    assert str(c.dtype) == str(t.dtype)
    np.testing.assert_allclose(c.detach().cpu().numpy(), t.detach().cpu().numpy(),
                               rtol=tol, atol=tol)


FUNCTIONAL = {
    "conv2d": (lambda F, x, w: F.conv2d(x, w, padding=2), ((2, 3, 12, 12), (4, 3, 5, 5))),
    "conv2d_stride": (lambda F, x, w: F.conv2d(x, w, stride=2, dilation=1),
                      ((2, 3, 9, 9), (4, 3, 3, 3))),
    "max_pool2d": (lambda F, x: F.max_pool2d(x, 2), ((2, 3, 8, 8),)),
    "avg_pool2d": (lambda F, x: F.avg_pool2d(x, 3, stride=2, padding=1), ((2, 3, 9, 9),)),
    "adaptive_avg_pool2d": (lambda F, x: F.adaptive_avg_pool2d(x, (3, 2)), ((2, 3, 7, 6),)),
    "linear": (lambda F, x, w, b: F.linear(x, w, b), ((5, 7), (3, 7), (3,))),
    "relu": (lambda F, x: F.relu(x), ((4, 5),)),
    "gelu": (lambda F, x: F.gelu(x), ((4, 5),)),
    "softmax": (lambda F, x: F.softmax(x, dim=1), ((4, 5),)),
    "log_softmax": (lambda F, x: F.log_softmax(x, dim=1), ((4, 5),)),
    "layer_norm": (lambda F, x: F.layer_norm(x, (5,)), ((4, 5),)),
    "batch_norm_train": (lambda F, x: F.batch_norm(x, None, None, training=True),
                         ((6, 3, 4, 4),)),
    "mse_loss": (lambda F, x, y: F.mse_loss(x, y), ((4, 5), (4, 5))),
    "flatten_tanh": (lambda F, x: x.flatten(1).tanh(), ((2, 3, 4),)),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONAL))
def test_functional_forward_and_grad(name):
    fn, shapes = FUNCTIONAL[name]
    pairs = [_pair(*s, grad=True) for s in shapes]
    c_out = fn(cinder.nn.functional, *[p[0] for p in pairs])
    t_out = fn(torch.nn.functional, *[p[1] for p in pairs])
    _close(c_out, t_out)
    w = RNG.standard_normal(tuple(t_out.shape)).astype(np.float32)
    (c_out * cinder.tensor(w, device="cuda")).sum().backward()
    (t_out * torch.tensor(w, device="cuda")).sum().backward()
    for (c, t) in pairs:
        _close(c.grad, t.grad)


@pytest.mark.parametrize("batch", [8, 128])     # 128: the CPU's (N, C) fast paths must stay CPU's
def test_cross_entropy_and_argmax_item(batch):
    c, t = _pair(batch, 10, grad=True)
    labels = RNG.integers(0, 10, batch)
    lc = cinder.nn.functional.cross_entropy(c, cinder.tensor(labels, device="cuda"))
    lt = torch.nn.functional.cross_entropy(t, torch.tensor(labels, device="cuda"))
    _close(lc, lt)
    assert abs(lc.item() - lt.item()) < 1e-5 and type(lc.item()) is float
    lc.backward()
    lt.backward()
    _close(c.grad, t.grad)
    pc, pt = c.argmax(dim=1), t.argmax(dim=1)
    assert pc.device.type == "cuda"
    assert pc.tolist() == pt.tolist()
    assert int((pc == cinder.tensor(labels, device="cuda")).sum().item()) == \
        int((pt == torch.tensor(labels, device="cuda")).sum().item())


def _lenet(nn):
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, kernel_size=5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
        nn.Linear(84, 10))


@pytest.mark.parametrize("opt", ["Adam", "SGD", "AdamW"])
def test_lenet_training_steps_match_torch(opt):
    """Three steps of LeNet-5 on CUDA from the same weights: losses, gradients and updated
    parameters agree with PyTorch's."""
    t_model = _lenet(torch.nn).cuda()
    c_model = _lenet(cinder.nn)
    c_model.load_state_dict({k: cinder.tensor(v.cpu().numpy())
                             for k, v in t_model.state_dict().items()})
    c_model.cuda()
    kw = {"lr": 1e-3} if opt != "SGD" else {"lr": 0.05, "momentum": 0.9}
    c_opt = getattr(cinder.optim, opt)(c_model.parameters(), **kw)
    t_opt = getattr(torch.optim, opt)(t_model.parameters(), **kw)
    for _ in range(3):
        x = RNG.standard_normal((16, 1, 28, 28)).astype(np.float32)
        y = RNG.integers(0, 10, 16)
        losses = []
        for lib, model, optim in ((cinder, c_model, c_opt), (torch, t_model, t_opt)):
            optim.zero_grad()
            loss = lib.nn.functional.cross_entropy(
                model(lib.tensor(x).to("cuda")), lib.tensor(y).to("cuda"))
            loss.backward()
            optim.step()
            losses.append(loss.item())
        assert abs(losses[0] - losses[1]) < 1e-4
    for (name, c), (_, t) in zip(c_model.named_parameters(), t_model.named_parameters()):
        assert c.device.type == "cuda", name
        _close(c.grad, t.grad, 1e-3)
        _close(c, t, 1e-4)


def test_cuda_checkpoint_loads_in_torch():
    """A state dict of CUDA tensors saved by cinder loads in PyTorch (onto the GPU, and onto
    the CPU with map_location), and PyTorch's CUDA checkpoint loads in cinder."""
    model = _lenet(cinder.nn).cuda()
    opt = cinder.optim.Adam(model.parameters())
    model(cinder.zeros(2, 1, 28, 28, device="cuda")).sum().backward()
    opt.step()
    buf = io.BytesIO()
    cinder.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, buf)
    for where in (None, "cpu"):
        buf.seek(0)
        loaded = torch.load(buf, map_location=where)
        for k, v in model.state_dict().items():
            got = loaded["model"][k]
            assert got.device.type == ("cuda" if where is None else "cpu"), k
            np.testing.assert_array_equal(got.cpu().numpy(), v.cpu().numpy())
        assert loaded["optimizer"]["state"][0]["exp_avg"].device.type == \
            ("cuda" if where is None else "cpu")
    tbuf = io.BytesIO()
    torch.save(_lenet(torch.nn).cuda().state_dict(), tbuf)
    tbuf.seek(0)
    back = cinder.load(tbuf)
    assert all(v.device.type == "cuda" for v in back.values())
    tbuf.seek(0)
    assert all(v.device.type == "cpu" for v in cinder.load(tbuf, map_location="cpu").values())
