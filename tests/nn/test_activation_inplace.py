"""In-place activation modules (``inplace=True``) on non-leaf tensors, and integer inputs:
values, gradients, grad_fn names (PyTorch's ``...Backward1`` for some in-place forms), reprs
and errors equal PyTorch's."""

import warnings

import numpy as np
import pytest
import torch

import cinder

NAMES = ["ReLU", "ReLU6", "ELU", "CELU", "SELU", "LeakyReLU", "Hardtanh", "Hardsigmoid",
         "Hardswish", "SiLU", "Mish", "RReLU", "Threshold"]
A = np.linspace(-4, 4, 12).reshape(3, 4)


def _module(lib, name, inplace):
    args = (0.5, 2.0) if name == "Threshold" else ()
    return getattr(lib.nn, name)(*args, inplace=inplace)


def _observe(lib, name, inplace):
    lib.manual_seed(0)
    m = _module(lib, name, inplace)
    x = lib.from_numpy(A.copy()).requires_grad_(True)
    y = m(x * 1)
    y.sum().backward()
    return (np.round(y.detach().numpy(), 6).tolist(), np.round(x.grad.numpy(), 6).tolist(),
            type(y.grad_fn).__name__, repr(m))


def _observe_int(lib, name, inplace):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = _module(lib, name, inplace)(lib.arange(4))
        return "ok", out.tolist(), str(out.dtype)
    except Exception as e:  # noqa: BLE001 -- compared with PyTorch's
        return type(e).__name__, str(e)


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_activation_module(name, inplace):
    assert _observe(cinder, name, inplace) == _observe(torch, name, inplace)
    assert _observe_int(cinder, name, inplace) == _observe_int(torch, name, inplace)
