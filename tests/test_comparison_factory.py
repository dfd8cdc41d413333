"""The comparison factory (cinder/ops/comparison.py) against PyTorch: bool results, out= with
bool and wider dtypes, in-place forms keeping self's dtype, aliases, refusals."""

import numpy as np
import pytest
import torch

import cinder

A = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]], dtype=np.float32)
B = np.array([2.0, 2.0, 2.0], dtype=np.float32)
NAMES = ["eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal",
         "not_equal"]


def pair(lib, array, **kw):
    return lib.tensor(array, **kw)


def same(c, t):
    assert str(c.dtype) == str(t.dtype)
    np.testing.assert_array_equal(c.numpy(), t.detach().numpy())


@pytest.mark.parametrize("name", NAMES)
def test_tensor_and_scalar_other(name):
    for other in (B, 2, 2.5):
        args_t = [pair(torch, A, requires_grad=True)]
        args_c = [pair(cinder, A, requires_grad=True)]
        to = pair(torch, other) if isinstance(other, np.ndarray) else other
        co = pair(cinder, other) if isinstance(other, np.ndarray) else other
        tr, cr = getattr(torch, name)(args_t[0], to), getattr(cinder, name)(args_c[0], co)
        same(cr, tr)
        assert cr.requires_grad is tr.requires_grad is False
        assert getattr(cinder, name).__name__ == name


@pytest.mark.parametrize("out_dtype", ["bool", "float32", "int64"])
def test_out(out_dtype):
    to = torch.empty(0, dtype=getattr(torch, out_dtype))
    co = cinder.empty(0, dtype=getattr(cinder, out_dtype))
    tr = torch.lt(pair(torch, A), pair(torch, B), out=to)
    cr = cinder.lt(pair(cinder, A), pair(cinder, B), out=co)
    assert cr is co and tr is to
    same(co, to)


@pytest.mark.parametrize("name", ["eq", "lt", "ge", "logical_and", "logical_xor"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_inplace_keeps_dtype(name, dtype):
    t = pair(torch, A).to(getattr(torch, dtype))
    c = pair(cinder, A).to(getattr(cinder, dtype))
    tr = getattr(t, name + "_")(pair(torch, B).to(getattr(torch, dtype)))
    cr = getattr(c, name + "_")(pair(cinder, B).to(getattr(cinder, dtype)))
    assert cr is c and tr is t
    same(c, t)


def test_refusals():
    z = np.array([1 + 1j, 2], dtype=np.complex64)
    with pytest.raises(NotImplementedError):
        torch.lt(torch.tensor(z), torch.tensor(z))
    with pytest.raises(NotImplementedError):
        cinder.lt(cinder.tensor(z), cinder.tensor(z))
    same(cinder.eq(cinder.tensor(z), cinder.tensor(z)), torch.eq(torch.tensor(z),
                                                                 torch.tensor(z)))
    with pytest.raises(TypeError):
        torch.logical_and(torch.tensor(A), 1)
    with pytest.raises(TypeError):
        cinder.logical_and(cinder.tensor(A), 1)
    with pytest.raises(RuntimeError):
        torch.tensor(A).eq_(torch.ones(4, 2, 3))
    with pytest.raises(RuntimeError):
        cinder.tensor(A).eq_(cinder.ones(4, 2, 3))


def test_scalar_first_argument():
    with pytest.raises(TypeError):
        torch.gt(2, pair(torch, B))
    with pytest.raises(TypeError):
        cinder.gt(2, pair(cinder, B))
