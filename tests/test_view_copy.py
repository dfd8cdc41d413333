"""The ``<view>_copy`` ops (cinder/ops/view_copy.py) against PyTorch: values, fresh contiguous
storage, node names and gradients; and every torch ``*_copy`` of a view op cinder has."""

import numpy as np
import pytest
import torch

import cinder

X = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7.0 - 1.0

CASES = [
    ("view_copy", ((4, 6),)), ("expand_copy", ((2, 2, 3, 4),)), ("permute_copy", ((2, 0, 1),)),
    ("squeeze_copy", ()), ("unsqueeze_copy", (1,)), ("transpose_copy", (0, 2)),
    ("select_copy", (1, 2)), ("unfold_copy", (2, 2, 1)), ("slice_copy", (2, 1, 3)),
    ("slice_copy", (1, -2, None, 1)), ("slice_copy", (0, None, None, 2)), ("slice_copy", ()),
    ("slice_copy", (2, -10, 10)), ("alias_copy", ()), ("as_strided_copy", ((2, 2), (1, 4))),
    ("split_copy", (2, 2)), ("split_with_sizes_copy", ([1, 3], 2)), ("unbind_copy", (1,)),
    ("narrow_copy", (2, 1, 2)),
]


def run(lib, name, args):
    x = lib.tensor(X, requires_grad=True)
    out = getattr(lib, name)(x, *args)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    total = sum(((o * o).sum() for o in outs), lib.zeros(()))
    total.backward()
    return x, outs


@pytest.mark.parametrize("name,args", CASES)
def test_copy_matches_torch(name, args):
    tx, touts = run(torch, name, args)
    cx, couts = run(cinder, name, args)
    assert len(couts) == len(touts)
    for c, t in zip(couts, touts):
        np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy())
        assert tuple(c.stride()) == tuple(t.stride())
        assert c._base is None and t._base is None
        assert c.data_ptr() != cx.data_ptr()
        assert type(c.grad_fn).__name__ == type(t.grad_fn).__name__
    np.testing.assert_allclose(cx.grad.numpy(), tx.grad.numpy())


def test_copies_do_not_share_memory_or_versions():
    x = cinder.tensor(X)
    y = cinder.transpose_copy(x, 0, 1)
    x.add_(1)
    np.testing.assert_allclose(y.numpy(), np.swapaxes(X, 0, 1))
    assert y._version == 0


def test_every_torch_copy_of_a_cinder_view_exists():
    views = ["view", "expand", "permute", "squeeze", "unsqueeze", "t", "transpose", "select",
             "unbind", "split", "split_with_sizes", "unfold", "as_strided", "view_as_real",
             "view_as_complex", "slice", "alias", "detach", "narrow", "diagonal"]
    for v in views:
        assert hasattr(torch, v + "_copy")
        assert hasattr(cinder, v + "_copy"), v


def test_detach_copy():
    for lib in (torch, cinder):
        x = lib.tensor(X, requires_grad=True)
        y = lib.detach_copy(x)
        assert y.requires_grad and type(y.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::detach_copy is not "):
            y.sum().backward()
        with lib.no_grad():
            assert not lib.detach_copy(x).requires_grad


def test_view_as_complex_copy():
    z = X.reshape(-1, 2)
    t, c = torch.view_as_complex_copy(torch.tensor(z)), cinder.view_as_complex_copy(
        cinder.tensor(z))
    np.testing.assert_allclose(c.numpy(), t.numpy())
    assert c._base is None and str(c.dtype) == str(t.dtype)
    for lib in (torch, cinder):
        with pytest.raises(RuntimeError, match="does not support automatic differentiation"):
            lib.view_as_complex_copy(lib.tensor(z, requires_grad=True))


def test_out():
    to, co = torch.empty(0, dtype=torch.float64), cinder.empty(0, dtype=cinder.float64)
    assert torch.slice_copy(torch.tensor(X), 1, 0, 2, out=to) is to
    assert cinder.slice_copy(cinder.tensor(X), 1, 0, 2, out=co) is co
    np.testing.assert_allclose(co.numpy(), to.numpy())
