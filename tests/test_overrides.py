"""The dispatch point: ``TorchFunctionMode`` s and ``__torch_function__`` (``torch.overrides``).

Each test runs the same program on PyTorch and on cinder and compares what the handlers saw
and what came back, after the manner of PyTorch's own ``test/test_overrides.py``.
"""

import numpy as np
import pytest
import torch

import cinder
import cinder.overrides


def _lib_parts(lib):
    overrides = torch.overrides if lib is torch else cinder.overrides
    return overrides, overrides.TorchFunctionMode


def _recording_mode(lib):
    _, mode_base = _lib_parts(lib)

    class Recorder(mode_base):
        def __init__(self):
            self.names = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.names.append(func.__name__)
            return func(*args, **(kwargs or {}))
    return Recorder


def _forward_backward(lib):
    """A small training step, recorded; returns the op names and the gradient."""
    x = lib.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    w = lib.tensor(np.linspace(-1, 1, 6).reshape(3, 2), requires_grad=True)
    with _recording_mode(lib)() as rec:
        y = lib.relu(x @ w + 1)
        loss = (y * y).sum() - lib.mean(y, dim=0)[1]
        loss.backward()
        x.detach().add_(1)
        _ = -y.exp()[0] / 2
        _ = 1 - y
        _ = y.T
    return rec.names, x.grad.numpy() if lib is cinder else x.grad.detach().numpy()


def test_mode_sees_each_op_once_per_call():
    names_c, grad_c = _forward_backward(cinder)
    names_t, grad_t = _forward_backward(torch)
    # property reads (``y.T``) included: both report them as ``__get__``
    assert "__get__" in names_t
    assert names_c == names_t
    np.testing.assert_allclose(grad_c, grad_t)


def test_mode_does_not_see_derivative_ops():
    """Backward is one call for a mode: the derivative formulas run below it."""
    names, _ = _forward_backward(cinder)
    assert names.count("backward") == 1
    assert "clone" not in names


def test_nested_modes_inner_first_and_stack_restored():
    seen = []

    class Tag(cinder.overrides.TorchFunctionMode):
        def __init__(self, tag):
            self.tag = tag

        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append((self.tag, func.__name__))
            return func(*args, **(kwargs or {}))

    active_before = cinder._C.STATE.active    # True once any test defined a Tensor subclass
    with Tag("outer"), Tag("inner"):
        cinder.neg(cinder.ones(2))
    assert seen == [("inner", "ones"), ("outer", "ones"), ("inner", "neg"), ("outer", "neg")]
    assert cinder.overrides._get_current_function_mode() is None
    assert cinder._C.STATE.active == active_before


def _subclass_program(lib):
    class Sub(lib.Tensor):
        pass
    s = lib.tensor([1.0, -2.0, 3.0]).as_subclass(Sub)
    results = [s + 1, lib.add(s, 1), s.sum(), lib.max(s, 0), s[0], lib.cat([s, s]),
               s.abs_(), -s, s.t()]
    values = lib.max(s, 0)
    return ([type(r).__name__ for r in results], type(values.values).__name__,
            type(values).__name__, [float(r.sum()) for r in results if not isinstance(r, tuple)])


def test_subclass_results_keep_the_subclass():
    assert _subclass_program(cinder) == _subclass_program(torch)


def test_parameter_opts_out():
    for lib in (torch, cinder):
        p = lib.nn.Parameter(lib.ones(2))
        assert type(p * 2) is lib.Tensor
        assert type(lib.add(p, p)) is lib.Tensor


def _diagonal_class(lib):
    """A non-Tensor object with ``__torch_function__`` (PyTorch's ``DiagonalTensor`` idea)."""
    class Diagonal:
        handled = {}

        def __init__(self, n, value):
            self.n, self.value = n, value

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            impl = cls.handled.get(func.__name__)
            if impl is None:
                return NotImplemented
            return impl(*args, **(kwargs or {}))

    Diagonal.handled["mean"] = lambda d, *a, **k: float(d.value) / d.n
    Diagonal.handled["add"] = lambda a, b, **k: ("add", type(a).__name__, type(b).__name__)
    return Diagonal


def _outcome(f):
    try:
        return ("value", f())
    except Exception as e:  # noqa: BLE001 - the outcome is compared
        return ("raises", type(e).__name__, str(e).split(":")[0].replace("cinder", "torch"))


def _non_tensor_program(lib):
    Diagonal = _diagonal_class(lib)
    d = Diagonal(4, 2.0)
    t = lib.ones(2)
    return [_outcome(lambda: lib.mean(d)), _outcome(lambda: lib.add(t, d)),
            _outcome(lambda: t.add(d)), _outcome(lambda: t + d), _outcome(lambda: d + t),
            _outcome(lambda: lib.mul(t, d)), _outcome(lambda: t.mul(d)), _outcome(lambda: t * d),
            _outcome(lambda: lib.add(lib.ones(2), 1).sum())]


def test_non_tensor_object_is_honoured():
    got = _non_tensor_program(cinder)
    want = _non_tensor_program(torch)
    # the last one is a plain tensor, compared by value
    assert got[:-1] == want[:-1]
    assert float(got[-1][1]) == float(want[-1][1])


def test_handlers_that_decline_raise_torchs_error():
    for lib in (torch, cinder):
        overrides, mode_base = _lib_parts(lib)

        class Decline(mode_base):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                return NotImplemented
        t = lib.ones(1)
        with pytest.raises(TypeError, match="Multiple dispatch failed for 'torch.add'"):
            with Decline():
                lib.add(t, 1)
        with pytest.raises(TypeError, match="Multiple dispatch failed for 'torch.Tensor.add'"):
            with Decline():
                t.add(1)


def _helpers_program(lib):
    overrides, _ = _lib_parts(lib)
    Diagonal = _diagonal_class(lib)
    d, t = Diagonal(2, 1.0), lib.ones(1)

    def mine(a, b):
        if overrides.has_torch_function((a, b)):
            return overrides.handle_torch_function(mine, (a, b), a, b)
        return "plain"
    mine.__name__ = "add"          # the Diagonal above handles "add"
    return [overrides.has_torch_function((t,)), overrides.has_torch_function((t, d)),
            overrides.has_torch_function_unary(d), overrides.has_torch_function_variadic(t, t),
            overrides.is_tensor_like(t), overrides.is_tensor_like(d),
            overrides.is_tensor_like(1.0), mine(t, t), mine(t, d)]


def test_has_and_handle_torch_function():
    assert _helpers_program(cinder) == _helpers_program(torch)


def test_overridable_functions_cover_the_table():
    overridable = cinder.overrides.get_overridable_functions()
    functions = {f.__name__ for f in overridable[cinder]}
    methods = {f.__name__ for f in overridable[cinder.Tensor]}
    assert {"add", "mean", "relu", "subtract"} <= functions
    assert {"add", "add_", "sum", "__getitem__", "backward", "neg"} <= methods
    assert cinder.is_tensor in cinder.overrides.get_ignored_functions()


def test_disable_torch_function_subclass():
    class Sub(cinder.Tensor):
        pass
    s = cinder.ones(2).as_subclass(Sub)
    with cinder._C.DisableTorchFunctionSubclass():
        assert type(s + 1) is cinder.Tensor
    assert type(s + 1) is Sub
