"""Grad modes against PyTorch: ``no_grad``, ``enable_grad``, ``set_grad_enabled`` (function,
context manager, decorator), ``inference_mode`` and its restrictions, and thread-locality.

Snippets run once per library (see ``test_autograd_engine.run_snippet``); what they record,
raise and warn must be the same.
"""

import threading
import warnings

import numpy as np
import pytest
import torch
from test_autograd_engine import check_snippet

import cinder

SNIPPETS = {
    "no_grad_context": """
x = L.ones(2, requires_grad=True)
with L.no_grad():
    y = x * 2
    out.append((L.is_grad_enabled(), y.requires_grad, y.grad_fn, y.is_leaf))
out.append(L.is_grad_enabled())
""",
    "no_grad_decorator_called": """
@L.no_grad()
def f(x):
    return x * 2, L.is_grad_enabled()
x = L.ones(2, requires_grad=True)
out.append((f(x)[0].requires_grad, f(x)[1], L.is_grad_enabled()))
""",
    "no_grad_bare_decorator": """
@L.no_grad
def f(x):
    return x * 2
x = L.ones(2, requires_grad=True)
out.append((f(x).requires_grad, f.__name__))
""",
    "no_grad_keeps_function_metadata": """
@L.no_grad()
def documented(x):
    '''doc'''
    return x
out.append((documented.__name__, documented.__doc__))
""",
    "no_grad_on_class_refused": """
@L.no_grad()
class C:
    pass
""",
    "no_grad_reused_instance": """
ng = L.no_grad()
with ng:
    out.append(L.is_grad_enabled())
with ng:
    with ng:
        out.append(L.is_grad_enabled())
    out.append(L.is_grad_enabled())
out.append(L.is_grad_enabled())
""",
    "no_grad_restores_after_exception": """
try:
    with L.no_grad():
        raise ValueError('x')
except ValueError:
    pass
out.append(L.is_grad_enabled())
""",
    "no_grad_generator": """
@L.no_grad()
def gen(x):
    for i in range(2):
        got = yield (x * i).requires_grad, L.is_grad_enabled()
        out.append(('sent', got))
    return 'done'
x = L.ones(2, requires_grad=True)
g = gen(x)
out.append(next(g))
out.append(L.is_grad_enabled())
out.append(g.send(5))
try:
    g.send(6)
except StopIteration as e:
    out.append(('stop', e.value))
out.append(L.is_grad_enabled())
""",
    "no_grad_requires_grad_leaf": """
with L.no_grad():
    w = L.ones(2, requires_grad=True)
    out.append((w.requires_grad, w.is_leaf))
""",
    "no_grad_inplace_on_leaf_and_views": """
w = L.ones(4, requires_grad=True)
with L.no_grad():
    w[:2].mul_(3)
    w[2] = 7
out.append((w, w._version))
(w * 1).sum().backward()
out.append(w.grad)
""",
    "enable_grad_inside_no_grad": """
x = L.ones(2, requires_grad=True)
with L.no_grad():
    with L.enable_grad():
        y = x * 2
    z = x * 2
out.append((y.requires_grad, z.requires_grad))
@L.enable_grad()
def g(x):
    return x * 2
with L.no_grad():
    out.append(g(x).requires_grad)
@L.enable_grad
def h(x):
    return x * 2
with L.no_grad():
    out.append(h(x).requires_grad)
""",
    "set_grad_enabled_function": """
r = L.set_grad_enabled(False)
x = L.ones(1)
w = L.ones(1, requires_grad=True)
y = x * w
out.append((x.requires_grad, w.requires_grad, y.requires_grad, L.is_grad_enabled()))
r = L.set_grad_enabled(True)
out.append((type(r).__name__, L.is_grad_enabled()))
""",
    "set_grad_enabled_context": """
x = L.ones(2, requires_grad=True)
with L.set_grad_enabled(False):
    y = x * 2
out.append((y.requires_grad, L.is_grad_enabled()))
is_train = False
with L.set_grad_enabled(is_train):
    out.append(L.is_grad_enabled())
with L.no_grad():
    with L.set_grad_enabled(True):
        out.append((x * 2).requires_grad)
    out.append(L.is_grad_enabled())
out.append(L.is_grad_enabled())
""",
    "set_grad_enabled_decorator": """
@L.set_grad_enabled(False)
def f(x):
    return x * 2
out.append(L.is_grad_enabled())
x = L.ones(2, requires_grad=True)
out.append((f(x).requires_grad, L.is_grad_enabled()))
""",
    "set_grad_enabled_bad_argument": "L.set_grad_enabled(1)",
    "is_grad_enabled_default": "out.append((L.is_grad_enabled(), L.is_inference_mode_enabled()))",
    "thread_local": """
res = {}
def worker():
    res['in_thread'] = L.is_grad_enabled()
    with L.no_grad():
        res['thread_no_grad'] = L.is_grad_enabled()
    res['thread_after'] = L.is_grad_enabled()
with L.no_grad():
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    res['main'] = L.is_grad_enabled()
res['main_after'] = L.is_grad_enabled()
out.append(sorted(res.items()))
""",
    "thread_local_set_grad_enabled": """
res = {}
def worker():
    L.set_grad_enabled(False)
    res['thread'] = L.is_grad_enabled()
t = threading.Thread(target=worker)
t.start()
t.join()
res['main'] = L.is_grad_enabled()
out.append(sorted(res.items()))
""",
    "thread_backward_in_no_grad_main": """
x = L.ones(2, requires_grad=True)
y = (x * 3).sum()
def worker():
    y.backward()
with L.no_grad():
    t = threading.Thread(target=worker)
    t.start()
    t.join()
out.append(x.grad)
""",
    "inference_mode_basic": """
x = L.ones(2, requires_grad=True)
with L.inference_mode():
    y = x * 2
    out.append((L.is_grad_enabled(), L.is_inference_mode_enabled(), y.requires_grad,
                y.is_inference(), y.grad_fn))
out.append((x.is_inference(), y.is_inference(), L.is_inference_mode_enabled(),
            L.is_grad_enabled()))
""",
    "inference_tensor_inplace_outside": """
with L.inference_mode():
    y = L.ones(2)
y.add_(1)
""",
    "inference_tensor_setitem_outside": """
with L.inference_mode():
    y = L.ones(2)
y[0] = 3
""",
    "inference_tensor_in_autograd": """
with L.inference_mode():
    y = L.ones(2)
x = L.ones(2, requires_grad=True)
z = x * y
""",
    "inference_tensor_not_saved_is_fine": """
with L.inference_mode():
    y = L.ones(2)
x = L.ones(2, requires_grad=True)
z = x + y
z.sum().backward()
out.append(x.grad)
""",
    "inference_tensor_requires_grad_outside": """
with L.inference_mode():
    y = L.ones(2)
y.requires_grad_()
""",
    "inference_tensor_requires_grad_inside": """
with L.inference_mode():
    y = L.ones(2, requires_grad=True)
    out.append(y.requires_grad)
    z = y * 2
    out.append((z.requires_grad, z.is_inference()))
""",
    "inference_mode_false_inside": """
with L.inference_mode():
    with L.inference_mode(False):
        y = L.ones(2)
        out.append((L.is_inference_mode_enabled(), y.is_inference(), L.is_grad_enabled()))
    out.append((L.is_inference_mode_enabled(), L.is_grad_enabled()))
""",
    "inference_mode_decorators": """
@L.inference_mode()
def f(x):
    return x * 2
x = L.ones(2, requires_grad=True)
r = f(x)
out.append((r.requires_grad, r.is_inference()))
@L.inference_mode
def g(x):
    return x * 2
out.append(g(x).is_inference())
@L.inference_mode(False)
def h(x):
    return x * 2
out.append(h(x).is_inference())
""",
    "inference_view_of_normal_tensor": """
x = L.ones(3)
with L.inference_mode():
    v = x[:2]
    out.append(v.is_inference())
    v.add_(1)
out.append((x, x.is_inference()))
""",
    "inference_inplace_on_normal_tensor": """
x = L.ones(3)
with L.inference_mode():
    x.add_(1)
out.append((x, x._version, x.is_inference()))
""",
    "inference_version_counter": """
with L.inference_mode():
    y = L.ones(2)
    y.add_(1)
y._version
""",
    "inference_clone_is_normal": """
with L.inference_mode():
    y = L.ones(2)
z = y.clone()
z.add_(1)
out.append((z.is_inference(), z))
""",
    "inference_view_outside": """
with L.inference_mode():
    y = L.ones(2, 3)
v = y.view(6)
out.append((v.is_inference(), v._base is y))
""",
    "inference_detach_and_numpy": """
with L.inference_mode():
    y = L.ones(2)
out.append((y.detach().is_inference(), y.numpy().tolist(), y.sum().is_inference()))
""",
}


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_grad_modes(name):
    check_snippet(SNIPPETS[name])


def test_grad_mode_objects_are_the_same_kind():
    for L in (torch, cinder):
        assert isinstance(L.no_grad(), L.no_grad)
        assert isinstance(L.enable_grad(), L.enable_grad)
        assert isinstance(L.inference_mode(), L.inference_mode)
        mode = L.set_grad_enabled(True)
        assert isinstance(mode, L.set_grad_enabled)
    assert cinder.autograd.no_grad is cinder.no_grad
    assert cinder.autograd.grad_mode.no_grad is cinder.no_grad


def test_modes_leave_state_clean():
    # Every snippet above must leave both libraries in their default state.
    assert torch.is_grad_enabled() and cinder.is_grad_enabled()
    assert not torch.is_inference_mode_enabled() and not cinder.is_inference_mode_enabled()


_ = (threading, warnings, np)


@pytest.mark.parametrize("mode", [True, False])
def test_set_grad_enabled_repr_matches_torch(mode):
    try:
        assert repr(cinder.set_grad_enabled(mode)) == repr(torch.set_grad_enabled(mode))
    finally:
        cinder.set_grad_enabled(True)
        torch.set_grad_enabled(True)
