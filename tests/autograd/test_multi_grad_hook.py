"""``torch.autograd.graph.register_multi_grad_hook`` against PyTorch: which gradients the hook
sees (values, None for tensors a pass does not reach or need), how often and when it runs,
removal, the ``"any"`` mode, errors, and passes that nest or run in several threads. Also
the engine behaviour it counts on: the current graph task, and tensor hooks that run with
None or not at all."""

import threading

import numpy as np
import pytest
import torch

import cinder

LIBS = pytest.mark.parametrize("lib", [cinder, torch], ids=["cinder", "torch"])
A = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
B = np.array([[-2.0, 0.5, 1.0], [3.0, -0.5, 0.125]], dtype=np.float32)


def _leaves(lib):
    return (lib.tensor(A, requires_grad=True), lib.tensor(B, requires_grad=True))


def _summary(grads):
    return [None if g is None else g.detach().numpy().copy() for g in grads]


def _assert_same(got, expected):
    """Nested lists/tuples of arrays and plain values, compared exactly."""
    assert type(got) is type(expected) or isinstance(got, np.ndarray), (got, expected)
    if isinstance(expected, (list, tuple)):
        assert len(got) == len(expected), (got, expected)
        for g, e in zip(got, expected):
            _assert_same(g, e)
    elif isinstance(expected, np.ndarray):
        np.testing.assert_allclose(got, expected, rtol=1e-6)
    else:
        assert got == expected


def _both(scenario):
    """Run ``scenario(lib)`` with cinder and with torch; the results must agree."""
    got, expected = scenario(cinder), scenario(torch)
    _assert_same(got, expected)
    return got


def test_all_mode_follows_each_backward_call():
    def scenario(lib):
        a, b = _leaves(lib)
        c, d = a * b, a * b
        calls = []
        handle = lib.autograd.graph.register_multi_grad_hook((a, b, c, d),
                                                             lambda gs: calls.append(_summary(gs)))
        c.sum().backward(retain_graph=True)
        c.sum().backward(inputs=(a,), retain_graph=True)
        (c * 2 + d * 3).sum().backward(retain_graph=True)
        lib.autograd.backward([c.sum(), d.sum()], inputs=[b], retain_graph=True)
        handle.remove()
        c.sum().backward(retain_graph=True)       # removed: no more calls
        return calls
    calls = _both(scenario)
    assert [[g is not None for g in gs] for gs in calls] == [
        [True, True, True, False], [True, False, True, False], [True, True, True, True],
        [False, True, True, True]]


def test_all_mode_runs_after_every_gradient_and_passes_values():
    def scenario(lib):
        a = lib.tensor(A, requires_grad=True)
        c = a * lib.tensor(B)
        e = c.exp()
        events = []
        c.register_hook(lambda g: events.append("c"))
        lib.autograd.graph.register_multi_grad_hook(
            (e, c, a), lambda gs: events.append(("multi", _summary(gs))))
        a.register_hook(lambda g: events.append("a"))
        (e * 2).sum().backward()
        return events
    events = _both(scenario)
    # the last gradient (a's) completes the set: the multi hook runs among a's hooks, in the
    # order they were registered
    assert [e if isinstance(e, str) else e[0] for e in events] == ["c", "multi", "a"]


def test_all_mode_with_autograd_grad_of_non_leaves():
    def scenario(lib):
        a, b = _leaves(lib)
        c = a * b
        d = c.sin()
        calls = []
        lib.autograd.graph.register_multi_grad_hook((c, d), lambda gs: calls.append(_summary(gs)))
        out = lib.autograd.grad(d.sum(), (c,))
        return calls, _summary(out)
    _both(scenario)


def test_all_mode_leaf_under_autograd_grad_is_refused():
    for lib in (cinder, torch):
        a, b = _leaves(lib)
        lib.autograd.graph.register_multi_grad_hook((a, b), lambda gs: None)
        with pytest.raises(RuntimeError, match="A leaf node was passed to "
                           "_will_engine_execute_node but we are currently running "
                           r"autograd.grad\(\). This is currently not supported."):
            lib.autograd.grad((a * b).sum(), (a,))


def test_any_mode_sees_the_first_gradient_once_per_pass():
    def scenario(lib):
        a, b = _leaves(lib)
        plain = lib.ones(2, 3)
        c = a * b
        seen = []
        lib.autograd.graph.register_multi_grad_hook(
            (a, plain, c), lambda g: seen.append(g.numpy().copy()), mode="any")
        (c * 3).sum().backward(retain_graph=True)
        (a * 5).sum().backward()
        return seen
    seen = _both(scenario)
    assert len(seen) == 2


@LIBS
def test_errors(lib):
    G = lib.autograd.graph
    a, _ = _leaves(lib)
    with pytest.raises(ValueError, match=r"Expects mode to be one of \('all', 'any'\) but got "
                       "bad"):
        G.register_multi_grad_hook((a,), print, mode="bad")
    with pytest.raises(TypeError, match="takes 2 positional arguments but 3 were given"):
        G.register_multi_grad_hook((a,), print, "any")
    with pytest.raises(AssertionError, match="Expected gradient function to be set"):
        G.register_multi_grad_hook((a, lib.ones(2)), print)
    # nothing to wait for: a handle all the same
    handle = G.register_multi_grad_hook((), print)
    assert isinstance(handle, lib.utils.hooks.RemovableHandle)
    handle.remove()


def test_handle_as_context_manager():
    def scenario(lib):
        a, b = _leaves(lib)
        calls = []
        with lib.autograd.graph.register_multi_grad_hook((a, b), calls.append):
            (a * b).sum().backward()
        (a * b).sum().backward()
        return len(calls)
    assert _both(scenario) == 1


def test_nested_backward_inside_a_pass_counts_separately():
    def scenario(lib):
        a, b = _leaves(lib)
        calls = []

        class Inner(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                with lib.enable_grad():
                    (a * b * 4).sum().backward()      # a pass of its own, inside this one
                calls.append("inner backward done")
                return g * 2

        lib.autograd.graph.register_multi_grad_hook(
            (a, b), lambda gs: calls.append(_summary(gs)))
        (Inner.apply(a) * b).sum().backward()
        return calls
    calls = _both(scenario)
    assert [c if isinstance(c, str) else len(c) for c in calls] == [2, "inner backward done", 2]


@LIBS
def test_passes_in_several_threads(lib):
    a, b = _leaves(lib)
    calls = []
    lock = threading.Lock()

    def record(gs):
        with lock:
            calls.append(_summary(gs))
    lib.autograd.graph.register_multi_grad_hook((a, b), record)
    start = threading.Barrier(4)

    def work(k):
        start.wait()
        (a * b * k).sum().backward()
    threads = [threading.Thread(target=work, args=(k,)) for k in (1, 2, 3, 4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # each pass calls the hook once, with both of its own gradients
    assert len(calls) == 4
    for ga, gb in calls:
        k = ga[0, 0] / B[0, 0]
        assert k in (1, 2, 3, 4)
        np.testing.assert_allclose(ga, k * B)
        np.testing.assert_allclose(gb, k * A)


@LIBS
def test_graph_task_queries(lib):
    G = lib.autograd.graph
    C = cinder.autograd.graph if lib is cinder else torch._C
    assert C._current_graph_task_id() == -1
    a, b = _leaves(lib)
    c, d = a * b, a * b
    with pytest.raises(RuntimeError, match="_get_should_execute_nodes should only be called "
                       "during the backward pass"):
        C._will_engine_execute_node(c.grad_fn)
    with pytest.raises(RuntimeError, match="_will_engine_execute_node expects an grad_fn, but "
                       "got NoneType"):
        C._will_engine_execute_node(None)
    seen = []

    def hook(g):
        seen.append((C._current_graph_task_id(), C._will_engine_execute_node(c.grad_fn),
                     C._will_engine_execute_node(d.grad_fn)))
        with pytest.raises(RuntimeError, match="expects an grad_fn, but got Tensor"):
            C._will_engine_execute_node(a)
    c.register_hook(hook)
    c.sum().backward(retain_graph=True)
    c.sum().backward(retain_graph=True)
    assert C._current_graph_task_id() == -1
    (first, *_), (second, *_) = seen
    assert first >= 0 and second > first
    assert [s[1:] for s in seen] == [(True, False), (True, False)]
    assert isinstance(G.Node, type)


def test_tensor_hooks_run_with_none_or_not_at_all():
    def scenario(lib):
        x = lib.tensor(A, requires_grad=True)
        y = lib.tensor(B, requires_grad=True)
        events = []
        first, second = (x * 1).unbind(0)
        second.register_hook(lambda g: events.append(("second", g)))
        first.sum().backward()          # the unbind node runs; its second output got nothing
        c = x * y
        y.register_hook(lambda g: events.append(("y", None if g is None else g.shape)))
        c.register_hook(lambda g: events.append(("c", tuple(g.shape))))
        # y's gradient is not needed: its hook does not run
        c.sum().backward(inputs=(x,), retain_graph=True)
        lib.autograd.grad(c.sum(), (x,))
        return events
    events = _both(scenario)
    assert events == [("second", None), ("c", (2, 3)), ("c", (2, 3))]


@LIBS
def test_tensor_hook_may_not_replace_a_missing_gradient(lib):
    x = lib.tensor(A, requires_grad=True)
    first, second = (x * 1).unbind(0)
    second.register_hook(lambda g: lib.ones(3))
    with pytest.raises(RuntimeError, match="can't replace a None gradient with a non-None value"):
        first.sum().backward()
