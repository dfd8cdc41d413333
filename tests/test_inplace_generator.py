"""In-place methods made by the one generator (cinder/ops/_inplace.py), against PyTorch:
the op's own refusals run after the generic checks, and gradients flow through the snapshot."""

import numpy as np
import pytest
import torch

import cinder

X = np.array([[1.5, -2.0, 3.0], [0.5, 2.5, -1.0]], dtype=np.float32)


def error_of(fn):
    try:
        fn()
    except Exception as exc:      # noqa: BLE001 - compared by type and message
        return exc
    return None


def same_error(c_fn, t_fn):
    ce, te = error_of(c_fn), error_of(t_fn)
    assert te is not None and type(ce) is type(te), (ce, te)
    assert str(ce) == str(te)


def test_abs_of_complex_is_refused():
    z = np.array([1 + 2j], dtype=np.complex64)
    same_error(lambda: cinder.tensor(z).abs_(), lambda: torch.tensor(z).abs_())


def test_addmm_shape_check():
    same_error(lambda: cinder.ones(3, 3).addmm_(cinder.ones(2, 4), cinder.ones(4, 5)),
               lambda: torch.ones(3, 3).addmm_(torch.ones(2, 4), torch.ones(4, 5)))


@pytest.mark.parametrize("name", ["abs_", "acosh_", "arccosh_", "eq_"])
def test_leaf_error_comes_first(name):
    args = (2.0,) if name == "eq_" else ()
    same_error(lambda: getattr(cinder.tensor(X + 3, requires_grad=True), name)(*args),
               lambda: getattr(torch.tensor(X + 3, requires_grad=True), name)(*args))


@pytest.mark.parametrize("lib", [torch, cinder])
def test_generated_names(lib):
    for name in ("add_", "abs_", "eq_", "put_", "scatter_add_", "addmm_", "cumsum_"):
        assert getattr(lib.Tensor, name).__name__ == name


def test_grad_through_put_and_addmm():
    results = []
    for lib in (torch, cinder):
        x = lib.tensor(X, requires_grad=True)
        m = lib.tensor(np.ones((3, 2), dtype=np.float32), requires_grad=True)
        y = x * 2
        y.put_(lib.tensor([0, 4]), lib.tensor([7.0, 8.0]))
        z = lib.zeros(2, 2).addmm_(y, m)
        (z * z).sum().backward()
        results.append((x.grad.numpy(), m.grad.numpy(), y.detach().numpy()))
    for c, t in zip(results[1], results[0]):
        np.testing.assert_allclose(c, t, rtol=1e-6)


def test_internal_overlap_refused():
    same_error(lambda: cinder.ones(1, 3).expand(2, 3).abs_(),
               lambda: torch.ones(1, 3).expand(2, 3).abs_())
