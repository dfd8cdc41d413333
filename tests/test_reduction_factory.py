"""The reduction factory (cinder/ops/_reduction_factory.py) against PyTorch: argument and
``out=`` errors, result types, and the recording of multi-output reductions."""

import numpy as np
import pytest
import torch

import cinder

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.0


def both(array=X, **kw):
    return torch.tensor(array, **kw), cinder.tensor(array, **kw)


def raised(fn):
    try:
        fn()
    except Exception as exc:      # noqa: BLE001 - compared by type and message below
        return exc
    raise AssertionError("no exception")


@pytest.mark.parametrize("name", ["sum", "prod"])
def test_full_reduction_refuses_out(name):
    t, c = both()
    te = raised(lambda: getattr(torch, name)(t, out=torch.empty(0)))
    ce = raised(lambda: getattr(cinder, name)(c, out=cinder.empty(0)))
    assert type(ce) is type(te)
    assert str(ce) == str(te).rstrip("\n")


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "nansum", "amax"])
def test_dtype_in_dim_position_is_refused(name):
    # PyTorch's parser has no (Tensor, dtype) overload: dtype= must be a keyword
    t, c = both()
    te = raised(lambda: getattr(torch, name)(t, torch.float64))
    ce = raised(lambda: getattr(cinder, name)(c, cinder.float64))
    assert type(ce) is type(te)
    if name in ("sum", "mean", "prod"):
        assert str(ce) == str(te).rstrip("\n")


def test_no_out_argument():
    t, c = both()
    te = raised(lambda: torch.count_nonzero(t, out=torch.empty(0)))
    ce = raised(lambda: cinder.count_nonzero(c, out=cinder.empty(0)))
    assert type(ce) is type(te)


@pytest.mark.parametrize("name", ["max", "min"])
def test_values_indices_out(name):
    t, c = both()
    tv, ti = torch.empty(0), torch.empty(0, dtype=torch.long)
    cv, ci = cinder.empty(0), cinder.empty(0, dtype=cinder.long)
    tr = getattr(torch, name)(t, 1, out=(tv, ti))
    cr = getattr(cinder, name)(c, 1, out=(cv, ci))
    assert type(cr).__name__ == type(tr).__name__ == f"{name}_out"
    assert cr.values is cv and cr.indices is ci
    np.testing.assert_array_equal(cv.numpy(), tv.numpy())
    np.testing.assert_array_equal(ci.numpy(), ti.numpy())


def test_aminmax_out_and_type():
    t, c = both()
    tr = torch.aminmax(t, dim=0)
    cr = cinder.aminmax(c, dim=0)
    assert type(cr).__name__ == type(tr).__name__
    to = (torch.empty(0), torch.empty(0))
    co = (cinder.empty(0), cinder.empty(0))
    tr = torch.aminmax(t, dim=1, out=to)
    cr = cinder.aminmax(c, dim=1, out=co)
    assert type(cr).__name__ == type(tr).__name__
    np.testing.assert_array_equal(co[0].numpy(), to[0].numpy())
    np.testing.assert_array_equal(co[1].numpy(), to[1].numpy())


def test_var_mean_is_a_plain_tuple():
    t, c = both()
    assert type(torch.var_mean(t, 0)) is tuple
    assert type(cinder.var_mean(c, 0)) is tuple


def test_only_values_join_the_graph():
    t, c = both(requires_grad=True)
    tr, cr = t.max(1), c.max(1)
    assert cr.values.requires_grad == tr.values.requires_grad
    assert cr.indices.requires_grad == tr.indices.requires_grad
    assert cr.indices.grad_fn is None


def test_aminmax_saves_outputs_for_both_grads():
    t, c = both(requires_grad=True)
    tm = torch.aminmax(t, dim=0)
    cm = cinder.aminmax(c, dim=0)
    (tm.min * 2 + tm.max).sum().backward()
    (cm.min * 2 + cm.max).sum().backward()
    np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy())


def test_integer_result_of_a_grad_input_is_refused():
    t, c = both(requires_grad=True)
    te = raised(lambda: t.sum(dtype=torch.int64))
    ce = raised(lambda: c.sum(dtype=cinder.int64))
    assert type(ce) is type(te)
    assert str(ce) == str(te)


def test_signature_has_keyword_out():
    import inspect
    sig = inspect.signature(cinder.sum)
    assert list(sig.parameters) == ["input", "dim", "keepdim", "dtype", "out"]
    assert sig.parameters["out"].kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize("name,args", [("median", (1,)), ("nanmedian", (0,)), ("mode", (1,)),
                                       ("kthvalue", (2, 1))])
def test_selection_family_out(name, args):
    t, c = both()
    to = (torch.empty(0), torch.empty(0, dtype=torch.long))
    co = (cinder.empty(0), cinder.empty(0, dtype=cinder.long))
    tr = getattr(torch, name)(t, *args, out=to)
    cr = getattr(cinder, name)(c, *args, out=co)
    assert type(cr).__name__ == type(tr).__name__
    assert cr[0] is co[0] and cr[1] is co[1]
    np.testing.assert_array_equal(co[0].numpy(), to[0].numpy())
    np.testing.assert_array_equal(co[1].numpy(), to[1].numpy())


def test_full_median_refuses_out():
    t, c = both()
    te = raised(lambda: torch.median(t, out=torch.empty(0)))
    ce = raised(lambda: cinder.median(c, out=cinder.empty(0)))
    assert type(ce) is type(te)


@pytest.mark.parametrize("p", [0.5, 1, 1.5, 2, 3, float("inf")])
def test_vector_norm_gradient_with_zero_elements_and_zero_norms(p):
    """PyTorch's three regimes (p < 1, 1 <= p < 2, p >= 2): zero elements get a zero gradient,
    never NaN, and a zero norm gives a zero gradient without a NumPy warning."""
    import warnings
    data = np.array([[0.0, 1.0, -2.0], [0.0, 0.0, 0.0]])
    grads = []
    for lib in (torch, cinder):
        x = lib.tensor(data, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            lib.linalg.vector_norm(x, p, dim=1).sum().backward()
        grads.append(np.array(x.grad.tolist()))
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)
