"""Anomaly detection against PyTorch: the mode switches, the NaN check, and the forward
traceback printed when a backward fails.

The NaN check and the traceback need a hook in the engine (``engine._call_node`` calls
``anomaly_mode.check_node_output`` / ``report_node_error``). Until that hook is in engine.py the
``engine_hook`` fixture wraps ``_call_node`` the same way, so these tests describe the wanted
behaviour either way.
"""

import importlib
import inspect

import numpy as np
import pytest
import torch

import cinder
from cinder.autograd import engine, grad_mode

from .test_function import error_of, run_both, tensor, warnings_of


def anomaly(lib):
    return importlib.import_module(lib.__name__ + ".autograd.anomaly_mode")


def is_enabled(lib):
    return (torch.is_anomaly_enabled() if lib is torch
            else anomaly(cinder).is_anomaly_enabled())


def check_nan_enabled(lib):
    return (torch.is_anomaly_check_nan_enabled() if lib is torch
            else anomaly(cinder).is_anomaly_check_nan_enabled())


@pytest.fixture(autouse=True)
def engine_hook(monkeypatch):
    """Make sure the engine calls the anomaly checks; leave anomaly mode off afterwards."""
    if "anomaly_mode" not in inspect.getsource(engine._call_node):
        original = engine._call_node
        hooks = anomaly(cinder)

        def call_node(node, buffer):
            try:
                grads = original(node, buffer)
            except Exception:
                hooks.report_node_error(node)
                raise
            if grad_mode.ANOMALY.enabled:
                hooks.check_node_output(node, grads)
            return grads
        monkeypatch.setattr(engine, "_call_node", call_node)
    yield
    torch.set_anomaly_enabled(False)
    anomaly(cinder).set_anomaly_enabled(False)


def clean(messages):
    # PyTorch appends "(Triggered internally at <C++ file>)" to warnings raised in C++.
    return [(c, m.split(" (Triggered internally")[0]) for c, m in messages]


# ----------------------------------------------------------------------------------------------
# The switches
# ----------------------------------------------------------------------------------------------

def test_detect_anomaly_context_manager():
    def scenario(lib):
        before = (is_enabled(lib), check_nan_enabled(lib))
        caught, ctx = warnings_of(lambda: lib.autograd.detect_anomaly(check_nan=False))
        with ctx:
            inside = (is_enabled(lib), check_nan_enabled(lib))
        after = (is_enabled(lib), check_nan_enabled(lib))
        return before, caught, inside, after
    expected, _ = run_both(scenario)
    assert expected[2] == (True, False) and expected[3] == (False, True)


def test_detect_anomaly_is_not_a_decorator():
    def scenario(lib):
        _, ctx = warnings_of(lambda: lib.autograd.detect_anomaly())
        return error_of(lambda: ctx(lambda: None))
    run_both(scenario)


def test_set_detect_anomaly_function_and_context():
    def scenario(lib):
        lib.autograd.set_detect_anomaly(True)
        as_call = (is_enabled(lib), check_nan_enabled(lib))
        with lib.autograd.set_detect_anomaly(False):
            inside = is_enabled(lib)
        restored = is_enabled(lib)
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            inside_no_nan = (is_enabled(lib), check_nan_enabled(lib))
        lib.autograd.set_detect_anomaly(False)
        return as_call, inside, restored, inside_no_nan, is_enabled(lib)
    expected, _ = run_both(scenario)
    assert expected == ((True, True), False, True, (True, False), False)


def test_set_anomaly_enabled_type_check():
    run_both(lambda lib: error_of(lambda: (torch.set_anomaly_enabled if lib is torch
                                           else anomaly(cinder).set_anomaly_enabled)(1)))


# ----------------------------------------------------------------------------------------------
# NaN check
# ----------------------------------------------------------------------------------------------

X = np.array([-1.0, 1.0, 4.0])


def sqrt_backward(lib, check_nan=True, enable=True):
    """sqrt of a negative number: NaN forward and NaN gradient. Returns (error, warnings)."""
    def run():
        a = tensor(lib, X, requires_grad=True)
        s = a.sqrt()                    # FORWARD-LINE-SQRT
        return error_of(lambda: s.sum().backward()), a.grad
    if not enable:
        return warnings_of(run)
    with warnings_of(lambda: lib.autograd.detect_anomaly(check_nan=check_nan))[1]:
        return warnings_of(run)


def test_nan_in_backward_raises_with_forward_traceback():
    def scenario(lib):
        caught, (err, grad) = sqrt_backward(lib)
        caught = clean(caught)
        header = caught[0][1].split("\n")[0]
        return err, grad, len(caught), header, "# FORWARD-LINE-SQRT" in caught[0][1]
    expected, _ = run_both(scenario)
    assert expected[0] == ("RuntimeError",
                           "Function 'SqrtBackward0' returned nan values in its 0th output.")
    assert expected[4] is True


@pytest.mark.parametrize("check_nan,enable", [(False, True), (True, False)])
def test_nan_passes_when_not_checked(check_nan, enable):
    def scenario(lib):
        caught, (err, grad) = sqrt_backward(lib, check_nan=check_nan, enable=enable)
        return caught, err, grad
    expected, _ = run_both(scenario)
    assert expected[1] is None


def test_nan_from_custom_function_names_the_output_index():
    def scenario(lib):
        class NanSecond(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, g):
                return g, g * float("nan")

        x, y = tensor(lib, X, requires_grad=True), tensor(lib, X, requires_grad=True)
        with warnings_of(lambda: lib.autograd.detect_anomaly())[1]:
            caught, err = warnings_of(lambda: error_of(
                lambda: NanSecond.apply(x, y).sum().backward()))
        return err, [m.split("\n")[0] for _, m in clean(caught)]
    expected, _ = run_both(scenario)
    assert expected[0][1] == "Function 'NanSecondBackward' returned nan values in its 1th output."


# ----------------------------------------------------------------------------------------------
# Errors inside backward
# ----------------------------------------------------------------------------------------------

def test_error_in_backward_prints_forward_traceback():
    def scenario(lib):
        class MyFunc(lib.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                return inp.clone()

            @staticmethod
            def backward(ctx, g):
                raise ValueError("Some error in backward")

        def run_fn(a):
            out = MyFunc.apply(a)       # FORWARD-LINE-MYFUNC
            return out.sum()

        with warnings_of(lambda: lib.autograd.detect_anomaly())[1]:
            inp = tensor(lib, X, requires_grad=True)
            caught, err = warnings_of(lambda: error_of(lambda: run_fn(inp).backward()))
        caught = clean(caught)
        lines = caught[0][1].split("\n")
        return err, caught[0][0], lines[0], "# FORWARD-LINE-MYFUNC" in caught[0][1]
    expected, _ = run_both(scenario)
    assert expected[2] == ("Error detected in MyFuncBackward. Traceback of forward call that "
                           "caused the error:")
    assert expected[3] is True


def test_node_recorded_before_enabling_has_no_traceback():
    def scenario(lib):
        a = tensor(lib, X, requires_grad=True)
        s = a.sqrt()
        with warnings_of(lambda: lib.autograd.detect_anomaly())[1]:
            caught, err = warnings_of(lambda: error_of(lambda: s.sum().backward()))
        return err, clean(caught)
    expected, _ = run_both(scenario)
    assert "No forward pass information available" in expected[1][0][1]


def test_error_without_anomaly_mode_prints_nothing():
    def scenario(lib):
        class Failing(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                raise ValueError("boom")

        x = tensor(lib, X, requires_grad=True)
        return warnings_of(lambda: error_of(lambda: Failing.apply(x).sum().backward()))
    expected, _ = run_both(scenario)
    assert expected == ([], ("ValueError", "boom"))
