"""``torch.autograd.gradcheck``'s Jacobian helpers against PyTorch: ``get_numerical_jacobian``
and ``get_analytical_jacobian`` (deprecated: FutureWarning) and
``get_numerical_jacobian_wrt_specific_input``: values, shapes, dtypes and refusals."""

import importlib
import warnings

import numpy as np
import pytest
import torch

import cinder

A = np.array([0.5, -1.0, 2.0])
B = np.array([[1.5, 0.25], [2.0, -0.5]])


def _setup(lib):
    helpers = importlib.import_module(lib.__name__ + ".autograd.gradcheck")
    a = lib.tensor(A, requires_grad=True)
    b = lib.tensor(B, requires_grad=True)
    c = lib.tensor(np.array([1.0, 2.0]))

    def fn(inputs):
        x, y, z = inputs
        return (x.sum() * y * 2 + z) * y, x.exp()
    return helpers, (a, b, c), fn


def _arrays(values):
    return [(tuple(v.shape), str(v.dtype).split(".")[-1], v.detach().numpy().round(5))
            for v in values]


def _same(got, expected):
    assert len(got) == len(expected)
    for (gs, gd, gv), (es, ed, ev) in zip(got, expected):
        assert (gs, gd) == (es, ed)
        np.testing.assert_allclose(gv, ev, atol=1e-4)


def test_numerical_and_analytical_jacobians():
    def scenario(lib):
        helpers, inputs, fn = _setup(lib)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            numerical = helpers.get_numerical_jacobian(fn, inputs, eps=1e-6)
            only_b = helpers.get_numerical_jacobian(fn, inputs, target=(inputs[1],), eps=1e-6)
            analytical, *flags = helpers.get_analytical_jacobian(inputs, fn(inputs)[0])
        kinds = [(w.category, str(w.message).split("`")[1]) for w in caught]
        assert kinds == [(FutureWarning, "get_numerical_jacobian")] * 2 + \
            [(FutureWarning, "get_analytical_jacobian")]
        outputs = fn(inputs)
        specific = helpers.get_numerical_jacobian_wrt_specific_input(
            lambda *i: fn(i), 1, inputs, outputs, 1e-6)
        return (_arrays(numerical), _arrays(only_b), _arrays(analytical), flags,
                _arrays(specific))
    got, expected = scenario(cinder), scenario(torch)
    for g, e in zip(got, expected):
        if isinstance(e, list) and e and isinstance(e[0], tuple):
            _same(g, e)
        else:
            assert g == e
    # the numerical and analytical Jacobians agree
    for (_, _, n), (_, _, a) in zip(got[0], got[2]):
        np.testing.assert_allclose(n, a, atol=1e-4)


@pytest.mark.parametrize("lib", [cinder, torch], ids=["cinder", "torch"])
def test_refusals(lib):
    helpers, inputs, fn = _setup(lib)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(ValueError, match="Expected grad_out to be 1.0. "
                           "get_numerical_jacobian no longer supports values of grad_out != "
                           "1.0."):
            helpers.get_numerical_jacobian(fn, inputs, grad_out=2.0)
        with pytest.raises(ValueError, match="get_analytical_jacobian no longer supports"):
            helpers.get_analytical_jacobian(inputs, fn(inputs)[0], grad_out=0.5)
        z = lib.tensor(np.array([1.0 + 2.0j]), requires_grad=True)
        with pytest.raises(ValueError, match="Expected output to be non-complex"):
            helpers.get_analytical_jacobian((z,), z * 2)
    with pytest.raises(AssertionError, match="Expected input to have requires_grad=True"):
        helpers.get_numerical_jacobian_wrt_specific_input(
            lambda *i: fn(i), 2, inputs, fn(inputs), 1e-6)
