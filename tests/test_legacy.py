"""The legacy API the seed material uses, against PyTorch: ``Variable`` (and ``volatile``),
``torch.range``, ``.creator``, typed tensor/storage classes, and the notebook's Variable cells.

``.creator`` no longer exists in PyTorch; cinder keeps it as the pre-0.4 alias of ``grad_fn``,
so it is checked against PyTorch's ``grad_fn``.
"""

import warnings

import numpy as np
import pytest
import torch
from test_autograd_engine import check_snippet, run_snippet

import cinder

SNIPPETS = {
    "variable_basic": """
from_lib = L.autograd.Variable
v = from_lib(L.ones(2, 2), requires_grad=True)
out.append((type(v).__name__, v.requires_grad, v.is_leaf, v))
y = v * 2
out.append((y.grad_fn.name(), y.requires_grad))
y.sum().backward()
out.append(v.grad)
""",
    "variable_shares_memory_and_version": """
x = L.ones(2)
v = L.autograd.Variable(x, requires_grad=True)
out.append((v is x, v.data_ptr() == x.data_ptr(), v._base is x, x.requires_grad))
x.add_(1)
out.append((v, v._version, v.grad_fn))
""",
    "variable_of_nonleaf_is_detached": """
y = L.ones(2, requires_grad=True) * 2
v = L.autograd.Variable(y)
out.append((v is y, v.grad_fn, v.requires_grad, v.is_leaf))
""",
    "variable_isinstance": """
out.append(isinstance(L.ones(2), L.autograd.Variable))
out.append(isinstance(3, L.autograd.Variable))
out.append(L.autograd.Variable.__name__)
""",
    "variable_needs_tensor": "L.autograd.Variable([1, 2])",
    "variable_bad_keyword": "L.autograd.Variable(L.ones(2), foo=1)",
    "variable_int_requires_grad": "L.autograd.Variable(L.ones(2, dtype=L.int64), requires_grad=True)",
    "variable_volatile": """
v = L.autograd.Variable(L.ones(2, 2), volatile=True)
out.append((v.requires_grad, v.volatile))
w = L.ones(2, requires_grad=True)
out.append((v * w).requires_grad)
""",
    "variable_volatile_and_requires_grad": """
L.autograd.Variable(L.ones(2), requires_grad=True, volatile=True)
""",
    "volatile_property": """
out.append(L.ones(2).volatile)
""",
    "torch_range": """
out.append(L.range(1, 4))
out.append(L.range(1, 4, step=1))
out.append(L.range(0, 1, 0.25))
out.append(L.range(1, 4, dtype=L.int64))
out.append(L.range(1, 4).dtype)
""",
    "notebook_requires_grad_cells": """
from_lib = L.autograd.Variable
x = from_lib(L.tensor(np.arange(25, dtype=np.float32).reshape(5, 5)))
y = from_lib(L.tensor(np.ones((5, 5), dtype=np.float32)))
z = from_lib(L.tensor(np.eye(5, dtype=np.float32)), requires_grad=True)
out.append(x.requires_grad)
out.append(z.requires_grad)
a = x + y
out.append(a.requires_grad)
b = z + x
out.append(b.requires_grad)
""",
    "notebook_volatile_cell": """
regular_input = L.autograd.Variable(L.tensor(np.ones((5, 5), dtype=np.float32)))
volatile_input = L.autograd.Variable(L.tensor(np.full((5, 5), -0.5, dtype=np.float32)),
                                     volatile=True)
out.append(volatile_input)
out.append(regular_input)
""",
    "notebook_model_freeze_pattern": """
params = [L.ones(2, 2, requires_grad=True), L.ones(2, requires_grad=True)]
for param in params:
    param.requires_grad = False
out.append([p.requires_grad for p in params])
fc = L.zeros(2, 2, requires_grad=True)
out.append((fc.requires_grad, (fc * params[0]).requires_grad))
""",
    "typed_tensor_classes": """
out.append(L.FloatTensor([[1, 2], [3, 4]]))
out.append(L.LongTensor([[0, 0], [1, 0]]))
out.append(L.gather(L.Tensor([[1, 2], [3, 4]]), 1, L.LongTensor([[0, 0], [1, 0]])))
out.append(L.DoubleTensor(2, 3).dtype)
out.append(isinstance(L.FloatTensor(2), L.FloatTensor))
out.append(L.zeros(2).type(L.FloatTensor).type())
""",
    "data_attribute_old_style": """
w = L.autograd.Variable(L.tensor([[0.5]]), requires_grad=True)
x = L.tensor([[2.0]])
loss = (x.mm(w) - 1) ** 2
loss.backward()
w.data.sub_(0.1 * w.grad.data)
w.grad.data.zero_()
out.append((w, w.grad, w._version))
""",
}


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_legacy_api(name):
    check_snippet(SNIPPETS[name])


def test_creator_is_grad_fn():
    code = """
x = L.ones(2, requires_grad=True)
y = x * 2
z = y.sum()
out.append([None if t.grad_fn is None else t.grad_fn.name() for t in (x, y, z)])
"""
    names = run_snippet(code, torch)[0]
    x = cinder.ones(2, requires_grad=True)
    y = x * 2
    z = y.sum()
    assert x.creator is None
    assert y.creator is y.grad_fn and z.creator is z.grad_fn
    assert repr([None if t.creator is None else t.creator.name() for t in (x, y, z)]) == names[0]


def test_volatile_warnings_match_torch():
    res = []
    for L in (torch, cinder):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            v = L.autograd.Variable(L.ones(2), volatile=True)
            assert v.volatile is False
        res.append([(m.category.__name__, str(m.message)) for m in w])
    assert res[0] == res[1]
    assert len(res[1]) == 2


_ = np
