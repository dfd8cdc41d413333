"""``grad_fn._raw_saved_<name>`` and ``SavedTensor.register_hooks`` against PyTorch (hooks on
one saved tensor, as the autograd notes show them): when the hooks run, what backward then
computes, what the handle reports, and the refusals."""

import numpy as np
import pytest
import torch

import cinder

LIBS = pytest.mark.parametrize("lib", [cinder, torch], ids=["cinder", "torch"])
X = np.array([0.5, -1.25, 2.0], dtype=np.float32)


def _both(scenario):
    got, expected = scenario(cinder), scenario(torch)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        if isinstance(e, torch.Tensor):
            np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), rtol=1e-6)
        else:
            assert g == e
    return got


def test_hooks_on_an_input_and_on_an_output():
    def scenario(lib):
        events = []
        x = lib.tensor(X, requires_grad=True)
        y = x.pow(2)
        raw = y.grad_fn._raw_saved_self
        assert isinstance(raw, lib.autograd.SavedTensor) and raw.unpack_hook is None
        assert raw.data is x

        def pack(t):
            events.append("pack")
            return t * 3                   # backward will see three times the input

        def unpack(t):
            events.append("unpack")
            return t
        raw.register_hooks(pack, unpack)
        events.append("registered")
        assert raw.unpack_hook is unpack
        z = x.exp()
        z.grad_fn._raw_saved_result.register_hooks(lambda t: t + 1, lambda t: t)
        (y.sum() + z.sum()).backward(retain_graph=True)
        first = x.grad.clone()
        y.sum().backward()
        return events, first, x.grad
    events, *_ = _both(scenario)
    assert events == ["pack", "registered", "unpack", "unpack"]


def test_custom_function_saved_tensors():
    def scenario(lib):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.save_for_backward(a, None, b)
                return a * b

            @staticmethod
            def backward(ctx, g):
                a, _, b = ctx.saved_tensors
                return g * b, g * a
        a = lib.tensor(X, requires_grad=True)
        b = lib.tensor(X[::-1].copy(), requires_grad=True)
        out = Scale.apply(a, b)
        raw = out.grad_fn._raw_saved_tensors
        assert isinstance(raw, tuple) and len(raw) == 3
        raw[2].register_hooks(lambda t: t * 0.5, lambda t: t)
        with pytest.raises(RuntimeError, match="Calling register_hooks on a saved tensor with "
                           "value None is forbidden"):
            raw[1].register_hooks(lambda t: t, lambda t: t)
        out.sum().backward()
        return a.grad, b.grad
    _both(scenario)


@LIBS
def test_refusals(lib):
    x = lib.tensor(X, requires_grad=True)
    y = x.pow(2)
    raw = y.grad_fn._raw_saved_self
    with pytest.raises(TypeError, match="incompatible function arguments"):
        raw.register_hooks(1, 2)
    raw.register_hooks(lambda t: t, lambda t: t)
    with pytest.raises(RuntimeError, match="Calling register_hooks on a saved tensor whose hooks "
                       "have already been set. Hint: only one pair of hooks is allowed at a "
                       "time."):
        raw.register_hooks(lambda t: t, lambda t: t)
    with pytest.raises(AttributeError, match="'PowBackward0' object has no attribute "
                       "'_raw_saved_exponent'"):
        _ = y.grad_fn._raw_saved_exponent
    w = x.exp()
    raw = w.grad_fn._raw_saved_result
    w.sum().backward()
    assert raw.data is None and raw.unpack_hook is None
    with pytest.raises(RuntimeError, match="Calling register_hooks on a saved tensor after it "
                       "has been freed. Saved intermediate values of the graph are freed"):
        raw.register_hooks(lambda t: t, lambda t: t)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        v = x.exp()
    with pytest.raises(RuntimeError, match="whose hooks have already been set"):
        v.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)


@LIBS
def test_unpack_hook_must_give_a_tensor(lib):
    x = lib.tensor(X, requires_grad=True)
    y = x.pow(2)
    y.grad_fn._raw_saved_self.register_hooks(lambda t: "packed", lambda p: 5)
    with pytest.raises(TypeError, match="Output of saved tensor unpack_hook expected to be a "
                       "Tensor but got result of type int"):
        y.sum().backward()


@LIBS
def test_hooks_hold_the_saved_values_instead_of_the_tensor(lib):
    """With hooks the saved intermediate itself is let go (what makes ``save_on_cpu`` free
    device memory); backward rebuilds it from what the hooks kept, in its place in the
    graph."""
    import gc
    import weakref
    x = lib.tensor(X, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
        y = x * 2
        z = y.sin()                     # saves y
    ref = weakref.ref(y)
    del y
    gc.collect()
    assert ref() is None
    (g,) = lib.autograd.grad(z.sum(), (x,), create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 2 * np.cos(2 * X), rtol=1e-6)
    g.sum().backward()                  # through the rebuilt y's place: a second derivative
    np.testing.assert_allclose(x.grad.numpy(), -4 * np.sin(2 * X), rtol=1e-5)


def test_handle_of_a_tensor_input_not_saved():
    """``x * w`` with only ``x`` needing a gradient saves no ``self``: its handle holds None
    (unpack gives None, hooks are refused), while ``other`` is saved; a size is no tensor and
    has no handle."""
    def scenario(lib):
        x = lib.tensor(X, requires_grad=True)
        y = x * lib.tensor(X)
        raw = y.grad_fn._raw_saved_self
        out = [isinstance(raw, lib.autograd.SavedTensor), raw.unpack() is None,
               y.grad_fn._raw_saved_other.unpack()]
        with pytest.raises(RuntimeError, match="with value None is forbidden"):
            raw.register_hooks(lambda t: t, lambda t: t)
        out.append(hasattr(x.sum().grad_fn, "_raw_saved_self_sym_sizes"))
        return out
    _both(scenario)
