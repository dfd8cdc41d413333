"""nn.Parameter and pickling, against PyTorch."""

import copy
import pickle

import numpy as np
import pytest
import torch

import cinder


@pytest.mark.parametrize("requires_grad", [True, False])
def test_parameter_repr_and_flags(requires_grad):
    data = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
    p_c = cinder.nn.Parameter(cinder.tensor(data), requires_grad=requires_grad)
    p_t = torch.nn.Parameter(torch.tensor(data), requires_grad=requires_grad)
    assert repr(p_c) == repr(p_t)
    assert p_c.requires_grad == p_t.requires_grad and p_c.is_leaf and p_t.is_leaf
    assert isinstance(p_c, cinder.Tensor)


def test_parameter_shares_memory_and_grad_fn_name():
    base_c = cinder.ones(3)
    p = cinder.nn.Parameter(base_c)
    assert p.data_ptr() == base_c.data_ptr()
    out_c = (p * 2).sum()
    out_t = (torch.nn.Parameter(torch.ones(3)) * 2).sum()
    assert type(out_c.grad_fn).__name__ == type(out_t.grad_fn).__name__
    out_c.backward()
    np.testing.assert_array_equal(p.grad.numpy(), np.full(3, 2.0, np.float32))


def test_parameter_rejects_non_tensor_like_torch():
    errors = []
    for lib in (torch, cinder):
        with pytest.raises(Exception) as info:
            lib.nn.Parameter([1.0, 2.0])
        errors.append(type(info.value))
    assert errors[0] is errors[1]


@pytest.mark.parametrize("make", [
    lambda lib: lib.arange(6.).reshape(2, 3),
    lambda lib: lib.tensor([1, 2, 3]),
    lambda lib: lib.ones(2, requires_grad=True),
    lambda lib: lib.nn.Parameter(lib.zeros(2)),
])
def test_pickle_roundtrip_matches_torch(make):
    c, t = make(cinder), make(torch)
    c2 = pickle.loads(pickle.dumps(c))
    t2 = pickle.loads(pickle.dumps(t))
    assert repr(c2) == repr(t2)
    assert type(c2).__name__ == type(t2).__name__
    assert c2.data_ptr() != c.data_ptr()


def test_pickle_non_leaf_comes_back_as_leaf():
    c = pickle.loads(pickle.dumps(cinder.ones(2, requires_grad=True) * 2))
    t = pickle.loads(pickle.dumps(torch.ones(2, requires_grad=True) * 2))
    assert repr(c) == repr(t)
    assert c.is_leaf == t.is_leaf


def test_deepcopy_parameter_is_independent():
    p = cinder.nn.Parameter(cinder.ones(2))
    q = copy.deepcopy(p)
    assert repr(q) == repr(torch.nn.Parameter(torch.ones(2)))
    assert q.data_ptr() != p.data_ptr()
