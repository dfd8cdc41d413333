"""Tensor properties at the dispatch point, and the per-call fast path while subclasses exist.

PyTorch routes every read of a Tensor property (``t.T``, ``t.shape``, ``t.grad``...) and every
write/delete (``t.requires_grad = ...``, ``del t.grad``) through ``__torch_function__``: the
handler receives the property's ``__get__`` (``__set__``, ``__delete__``). Each test runs the
same program on PyTorch and on cinder and compares what the handlers saw.
"""

import numpy as np
import pytest
import torch

import cinder
import cinder.overrides
from cinder.ops import _dispatch, operators

# Read on a tensor (``grad`` is read after it is set, below).
READS = ("T", "mT", "H", "mH", "real", "shape", "dtype", "device", "ndim", "is_leaf",
         "grad_fn", "requires_grad", "itemsize", "nbytes", "layout", "is_cuda", "is_cpu",
         "is_meta", "is_sparse", "is_quantized", "output_nr", "_version", "retains_grad",
         "data", "name", "grad_dtype")


def _program(lib, t):
    """Touch every routed property of ``t`` (reads, writes, a delete); returns what came back
    (type names, and shapes of tensor results)."""
    out = []
    for name in READS:
        value = getattr(t, name)
        out.append((name, type(value).__name__, tuple(value.shape)
                    if isinstance(value, lib.Tensor) else None))
    t.requires_grad = True
    t.grad = lib.ones(2, 3)
    out.append(("grad", type(t.grad).__name__, tuple(t.grad.shape)))
    del t.grad
    t.data = lib.zeros(2, 3)
    out.append(("data", type(t.data).__name__, None))
    return out


def _recording_subclass(lib, seen):
    class Recorded(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append((func.__name__, [t.__name__ for t in types],
                         [type(a).__name__ for a in args]))
            return super().__torch_function__(func, types, args, kwargs)
    return Recorded


def _subclass_run(lib):
    seen = []
    cls = _recording_subclass(lib, seen)
    t = lib.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3)).as_subclass(cls)
    seen.clear()
    results = _program(lib, t)
    return seen, results


def _mode_run(lib):
    overrides = torch.overrides if lib is torch else cinder.overrides
    seen = []

    class Recorder(overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append((func.__name__, [t.__name__ for t in types], len(args)))
            return func(*args, **(kwargs or {}))

    t = lib.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    with Recorder():
        results = _program(lib, t)
    return seen, results


@pytest.mark.parametrize("run", [_subclass_run, _mode_run], ids=["subclass", "mode"])
def test_handlers_see_every_property_access(run):
    seen_c, results_c = run(cinder)
    seen_t, results_t = run(torch)
    assert seen_c == seen_t
    assert results_c == results_t
    assert [s[0] for s in seen_c].count("__get__") > len(READS)
    assert {"__set__", "__delete__"} <= {s[0] for s in seen_c}


def test_handler_receives_the_property_accessor():
    got = {}

    class Spy(cinder.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            got.setdefault(func.__name__, func)
            return super().__torch_function__(func, types, args, kwargs)

    s = cinder.ones(2, 3).as_subclass(Spy)
    _ = s.T
    s.requires_grad = True
    assert got["__get__"] == cinder.Tensor.T.__get__
    assert got["__set__"] == cinder.Tensor.requires_grad.__set__
    assert cinder.overrides.is_tensor_method_or_property(cinder.Tensor.T.__get__)
    assert cinder.Tensor.shape.__get__ in cinder.overrides.get_overridable_functions()[
        cinder.Tensor]


def test_grad_read_keeps_its_own_type():
    """``t.grad`` is returned as stored (PyTorch's default nowrap functions); ``t.T`` is
    converted to the subclass."""
    for lib in (torch, cinder):
        class Sub(lib.Tensor):
            pass
        s = lib.ones(2).as_subclass(Sub)
        s.requires_grad = True
        s.grad = lib.ones(2)
        assert type(s.grad) is lib.Tensor
        assert type(s.T) is Sub
    assert cinder.overrides.get_default_nowrap_functions() == {cinder.Tensor.grad.__get__}


def _declining(lib):
    class Declines(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented
    return lib.ones(2).as_subclass(Declines)


@pytest.mark.parametrize("access", [lambda t: t.T, lambda t: t.shape,
                                    lambda t: setattr(t, "requires_grad", True)])
def test_declined_property_access_raises_torchs_error(access):
    messages = []
    for lib in (torch, cinder):
        with pytest.raises(TypeError) as info:
            access(_declining(lib))
        messages.append(str(info.value).replace("cinder", "torch"))
    assert messages[0] == messages[1]


def test_plain_tensors_keep_the_fast_path_while_subclasses_exist(monkeypatch):
    """With a ``__torch_function__`` subclass defined, calls on plain tensors never reach the
    slow path; the same calls with a subclass argument do."""
    class Participates(cinder.Tensor):
        pass
    calls = []

    def counting(real):
        def wrapper(*args, **kwargs):
            calls.append(1)
            return real(*args, **kwargs)
        return wrapper
    monkeypatch.setattr(_dispatch, "dispatch", counting(_dispatch.dispatch))
    monkeypatch.setattr(operators, "dispatch", counting(operators.dispatch))
    monkeypatch.setattr(_dispatch, "_dispatch_accessor", counting(_dispatch._dispatch_accessor))
    a, b = cinder.ones(4), cinder.ones(4)
    p = cinder.nn.Parameter(cinder.ones(4))          # opts out: keeps the fast path too
    results = [a + b, cinder.add(a, b), a.sum(), cinder.cat([a, b]), a.T, -a, p * 2,
               cinder.sum(input=a), a.shape]
    assert calls == []
    s = cinder.ones(4).as_subclass(Participates)
    for call in (lambda: a + s, lambda: cinder.add(a, s), lambda: cinder.cat([a, s]),
                 lambda: s.sum(), lambda: s.T, lambda: cinder.sum(input=s), lambda: -s):
        calls.clear()
        assert type(call()) is Participates
        assert calls, "a subclass argument must reach the dispatch point"
    assert [float(r.sum()) if isinstance(r, cinder.Tensor) else tuple(r) for r in results] == \
        [8.0, 8.0, 4.0, 8.0, 4.0, -4.0, 8.0, 4.0, (4,)]
