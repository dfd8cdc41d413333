"""One dispatch rule for every entry point, against PyTorch: op functions, methods, operators
(binary, reflected, unary) and properties show a call to the same ``__torch_function__``
handlers whether or not a profiler records, and a recording profiler names each call."""

import numpy as np
import pytest
import torch

import cinder


def _tensors(lib, seen):
    """Two plain tensors and one of a subclass whose handler notes what it is asked."""
    class Sub(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append("sub:" + func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})
    a = lib.tensor(np.ones((2, 3)))
    b = lib.tensor(np.full((2, 3), 2.0))
    return a, b, lib.tensor(np.ones((2, 3))).as_subclass(Sub)


def _program(lib, a, b, s):
    """Calls through every kind of entry point, on plain tensors and on the subclass."""
    return [a + b, lib.add(a, b), -a, 2 - a, a.T, a.sum(1),
            s * b, a + s, -s, s.T, lib.mul(b, s), lib.cat([b, s])]


def _seen(lib, with_mode, with_profiler):
    seen = []

    class Mode(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))
    tensors = _tensors(lib, seen)
    events = []
    if with_profiler:
        with lib.profiler.profile() as prof:
            with Mode() if with_mode else _nothing():
                results = _program(lib, *tensors)
        events = [e.name for e in prof.events() if e.name.startswith("aten::")]
    else:
        with Mode() if with_mode else _nothing():
            results = _program(lib, *tensors)
    calls = list(seen)
    return calls, [r.sum().item() for r in results], events


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("with_mode", [False, True], ids=["no_mode", "mode"])
@pytest.mark.parametrize("with_profiler", [False, True], ids=["plain", "profiled"])
def test_handlers_see_the_same_calls_as_torch(with_mode, with_profiler):
    got, got_values, got_events = _seen(cinder, with_mode, with_profiler)
    want, want_values, want_events = _seen(torch, with_mode, with_profiler)
    assert got == want
    assert got_values == want_values
    if with_profiler:
        # every op the program calls is recorded under PyTorch's name, in PyTorch's order
        # (PyTorch also records the ops those run inside: compared as a subsequence)
        assert got_events
        rest = iter(want_events)
        assert all(name in rest for name in got_events), (got_events, want_events)
