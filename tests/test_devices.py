"""Devices against PyTorch: ``device`` objects, a tensor's device, CUDA without a GPU, and the
cross-device errors.

The oracle is a CPU build of PyTorch, so it cannot make a CUDA tensor. Where the check needs
one, cinder builds a *stand-in*: a CPU NumPy array wrapped as a tensor whose device says
``cuda:0`` (cinder stores the device next to the array). Only code paths that read the device
and stop (queries, errors) are run on it; the expected strings are PyTorch's own messages for
those cases. Tests marked ``gpu`` run real CUDA tensors and are skipped without a GPU.
"""


import numpy as np
import pytest
import torch

import cinder
from oracle import outcome
from cinder._tensor import make_tensor

LIBS = (torch, cinder)
HAS_GPU = cinder.cuda.is_available()
gpu = pytest.mark.gpu


DEVICE_EXPRS = [
    "L.device('cpu')", "L.device('cuda')", "L.device('cuda:1')", "L.device('cuda', 1)",
    "L.device('cuda', 0)", "L.device('cpu', 0)", "L.device('cpu:0')", "L.device('meta')",
    "L.device('xla')", "str(L.device('cuda', 1))", "str(L.device('cpu'))",
    "L.device('cuda:1').index", "L.device('cuda').index", "L.device('cpu').type",
    "L.device('cuda:3').type", "L.device('cpu') == L.device('cpu')", "L.device('cpu') == 'cpu'",
    "L.device('cpu') != 'cpu'", "L.device('cuda:0') == L.device('cuda')",
    "L.device('cuda:1') == L.device('cuda', 1)", "L.device(L.device('cuda:1'))",
    "hash(L.device('cpu')) == hash(L.device('cpu'))", "{L.device('cpu'): 1}[L.device('cpu')]",
    "pickle.loads(pickle.dumps(L.device('cuda', 2)))",
    "pickle.loads(pickle.dumps(L.device('cpu')))",
    "L.device('gpu')", "L.device('CPU')", "L.device('cuda:x')", "L.device('cuda:-1')",
    "L.device('cuda:01')", "L.device(' cpu')", "L.device('cuda:1:2')", "L.device('cuda:')",
    "L.device('cuda:1', 1)", "L.device('cuda:1', None)", "L.device('cuda', -1)",
    "L.device('cpu', -1)", "L.device('cuda', True)", "L.device(-1)", "L.device(None)",
    "L.device(1.0)", "L.device(1)",
    "L.zeros(2).device", "L.zeros(2).get_device()", "L.zeros(2).is_cuda", "L.zeros(2).is_cpu",
    "L.zeros(2, device='cpu:0').device", "L.zeros(2, device=L.device('cpu', 0)).device",
    "L.zeros(2).to('cpu:0').device", "(lambda t: t.cpu() is t)(L.zeros(2))",
    "(lambda t: t.to('cpu') is t)(L.zeros(2))",
    "(lambda t: t.to(L.device('cpu')) is t)(L.zeros(2))",
    "L.get_default_device()", "L.cuda.is_available()", "L.cuda.device_count()",
    "L.zeros(2).cuda()", "L.zeros(2, device='cuda')", "L.zeros(2).to('cuda')",
    "L.zeros(2).to('cuda:1')", "L.zeros(2, device=L.device('cuda', 1))",
    "L.tensor([1], device='cuda')",
    "L.zeros(2).type('torch.cuda.FloatTensor') and None",
    "L.randn(2, 3, device=L.device('cpu')).shape",
    # torch.cuda's device arguments, read by torch.cuda._utils._get_device_index
    "L.cuda.set_device(None)", "L.cuda.set_device('cpu')", "L.cuda.set_device(-1)",
    "L.cuda.device(0).idx", "L.cuda.device('cuda:1').idx", "L.cuda.device(None).idx",
    "L.cuda.device_of(L.zeros(2)).idx", "L.cuda.device(L.device('cuda', 2)).idx",
    "L.cuda.device('cpu')",
]


@pytest.mark.parametrize("expr", DEVICE_EXPRS)
def test_devices_match_torch(expr):
    got, want = outcome(expr, cinder), outcome(expr, torch)
    if expr == "L.zeros(2).type('torch.cuda.FloatTensor') and None":
        # The CPU build of PyTorch fails here with its "ATen_cuda library" linking message; a
        # build without CUDA support has nothing to link, so only the kind of failure is shared.
        assert got[0] == want[0] == "raises"
        return
    assert got == want, expr


def test_device_as_context_manager_sets_default():
    res = []
    for L in LIBS:
        with L.device("cpu") as d:
            inside = (repr(d), repr(L.get_default_device()), repr(L.zeros(1).device))
        res.append(inside + (repr(L.get_default_device()),))
    assert res[0] == res[1]


def test_set_default_device_roundtrip():
    res = []
    for L in LIBS:
        L.set_default_device("cpu")
        a = repr(L.get_default_device())
        L.set_default_device(None)
        res.append((a, repr(L.get_default_device()), repr(L.ones(1).device)))
    assert res[0] == res[1]


# ----------------------------------------------------------------------------------------------
# A CUDA stand-in (see the module docstring): only queries and errors are run on it
# ----------------------------------------------------------------------------------------------

def _fake_cuda(values=(1.0, 2.0)):
    return make_tensor(np.array(values, dtype=np.float32), cinder.float32,
                       cinder.device("cuda", 0))


def test_fake_cuda_tensor_queries():
    t = _fake_cuda()
    assert repr(t.device) == repr(torch.device("cuda", 0))
    assert t.is_cuda and not t.is_cpu
    assert t.get_device() == 0
    assert t.type() == "torch.cuda.FloatTensor"
    assert isinstance(t, cinder.cuda.FloatTensor)
    assert not isinstance(t, cinder.FloatTensor)
    assert repr(t) == "tensor([1., 2.], device='cuda:0')"


def test_fake_cuda_tensor_numpy_error():
    # PyTorch: "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the
    # tensor to host memory first."
    with pytest.raises(TypeError, match=r"^can't convert cuda:0 device type tensor to numpy\. "
                                        r"Use Tensor\.cpu\(\) to copy the tensor to host memory "
                                        r"first\.$"):
        _fake_cuda().numpy()


@pytest.mark.parametrize("op", ["add", "mul", "matmul_like", "cat"])
def test_cross_device_error(op):
    cpu = cinder.ones(2)
    cuda = _fake_cuda()
    fn = {"add": lambda: cpu + cuda, "mul": lambda: cuda * cpu,
          "matmul_like": lambda: cinder.where(cpu > 0, cpu, cuda),
          "cat": lambda: cinder.cat([cpu, cuda])}[op]
    with pytest.raises(RuntimeError) as info:
        fn()
    message = str(info.value)
    assert message.startswith("Expected all tensors to be on the same device, but found at least "
                              "two devices, ")
    assert "cpu" in message and "cuda:0" in message


def test_zero_dim_cpu_tensor_may_join_cuda():
    # PyTorch lets a 0-d CPU tensor take part in a CUDA op; the device check must not refuse it.
    # (With the stand-in the kernel cannot run, so only "no device error" is checked.)
    with pytest.raises(Exception) as info:
        _fake_cuda() + cinder.tensor(2.0)
    assert "Expected all tensors to be on the same device" not in str(info.value)


# ----------------------------------------------------------------------------------------------
# Real CUDA tensors
# ----------------------------------------------------------------------------------------------

@gpu
@pytest.mark.skipif(not HAS_GPU, reason="needs a CUDA GPU")
def test_gpu_tensor_round_trip():
    x = cinder.arange(6.0).view(2, 3)
    y = x.cuda()
    assert repr(y.device) == "device(type='cuda', index=0)"
    assert y.is_cuda and y.get_device() == 0
    assert y.type() == "torch.cuda.FloatTensor"
    assert y[1, ::2].cpu().tolist() == [3.0, 5.0]
    assert y.t().stride() == (1, 3)
    assert (y * 2).sum().item() == 30.0
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        y.numpy()
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        x + y


@gpu
@pytest.mark.skipif(not HAS_GPU, reason="needs a CUDA GPU")
def test_gpu_autograd_and_views():
    a = cinder.ones(3, 4, device="cuda", requires_grad=True)
    b = a[:, 1:3].reshape(-1)
    (b * 2).sum().backward()
    assert a.grad.device == cinder.device("cuda", 0)
    assert a.grad.cpu().tolist() == [[0.0, 2.0, 2.0, 0.0]] * 3
    s = a.detach()[0]
    assert s.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()
    c = cinder.cuda.FloatTensor(2, 3)
    assert c.shape == (2, 3) and c.is_cuda
