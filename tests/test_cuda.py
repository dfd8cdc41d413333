"""CUDA backend (CuPy): creation, moves between devices, pointwise ops, matmul, reductions,
autograd and the cross-device error. Values are compared with PyTorch on the CPU.

Every test here is marked ``gpu`` and skipped on machines without CuPy and a CUDA device.
"""

import numpy as np
import pytest
import torch

import cinder

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not cinder.cuda.is_available(), reason="needs CuPy and a CUDA GPU"),
]

RNG = np.random.default_rng(0)


def _arr(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def test_creation_on_cuda():
    for make in (lambda lib: lib.zeros(2, 3, device="cuda"),
                 lambda lib: lib.ones(4, device="cuda:0"),
                 lambda lib: lib.arange(5, device="cuda"),
                 lambda lib: lib.tensor([[1.0, 2.0]], device="cuda")):
        c = make(cinder)
        t = make(torch) if torch.cuda.is_available() else None
        assert c.device.type == "cuda" and c.is_cuda and c.get_device() == 0
        if t is not None:
            np.testing.assert_array_equal(c.cpu().numpy(), t.cpu().numpy())


def test_moves_between_devices_keep_values():
    a = _arr(3, 4)
    c = cinder.tensor(a)
    g = c.cuda()
    assert g.device == cinder.device("cuda", 0)
    assert c.to("cuda:0").device == g.device
    np.testing.assert_array_equal(g.cpu().numpy(), a)
    assert g.to("cuda:0") is g
    assert repr(g).endswith("device='cuda:0')")


def test_pointwise_and_reductions_match_torch_cpu():
    a, b = _arr(5, 6), _arr(5, 6)
    ca, cb = cinder.tensor(a, device="cuda"), cinder.tensor(b, device="cuda")
    ta, tb = torch.tensor(a), torch.tensor(b)
    for fc, ft in ((lambda x, y: x * y + x, lambda x, y: x * y + x),
                   (lambda x, y: (x - y).exp().sum(1), lambda x, y: (x - y).exp().sum(1)),
                   (lambda x, y: x.relu().mean(), lambda x, y: x.relu().mean()),
                   (lambda x, y: x.max(0).values, lambda x, y: x.max(0).values),
                   (lambda x, y: x @ y.t(), lambda x, y: x @ y.t())):
        got = fc(ca, cb)
        assert got.device.type == "cuda"
        np.testing.assert_allclose(got.cpu().numpy(), ft(ta, tb).numpy(), rtol=1e-5, atol=1e-5)


def test_autograd_on_cuda():
    a = _arr(4, 4)
    x_c = cinder.tensor(a, device="cuda", requires_grad=True)
    x_t = torch.tensor(a, requires_grad=True)
    (x_c.sigmoid() * x_c).sum().backward()
    (x_t.sigmoid() * x_t).sum().backward()
    assert x_c.grad.device.type == "cuda"
    np.testing.assert_allclose(x_c.grad.cpu().numpy(), x_t.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_cross_device_error():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        cinder.ones(2, device="cuda") + cinder.ones(2)


def test_numpy_of_cuda_tensor_raises_type_error():
    with pytest.raises(TypeError):
        cinder.ones(2, device="cuda").numpy()
