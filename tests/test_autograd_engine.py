"""The autograd engine against PyTorch: graph structure, backward/grad and their arguments,
accumulation, retain_grad, hooks, saved-tensor checks, ``.data`` vs ``.detach()`` and the book's
autograd section (chapter 3, 1.2).

Each case is a snippet run once with ``L = torch`` and once with ``L = cinder``. A snippet
records values with ``out.append(...)`` (their ``repr``, object addresses removed, is taken at
once) and may raise; the records, the exception (type and message) and the warnings raised
must be the same.
"""

import re
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest
import torch

import cinder

_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


class _Printed(list):
    def append(self, value):
        super().append(_ADDRESS.sub("", repr(value)))


def run_snippet(code, lib):
    out = _Printed()
    scope = {"L": lib, "np": np, "out": out, "threading": threading}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(code, scope)
            error = None
        except Exception as e:  # noqa: BLE001 - the exception is part of what is compared
            error = (type(e).__name__, str(e))
    messages = [str(w.message).split(" (Triggered internally")[0] for w in caught
                if not str(w.message).startswith("Using backward() with create_graph=True")]
    return list(out), error, messages


def check_snippet(code):
    assert run_snippet(code, cinder) == run_snippet(code, torch)


GRAPH = {
    "book_graph": """
x = L.ones(1)
b = L.tensor([0.3], requires_grad=True)
w = L.tensor([0.6], requires_grad=True)
y = w * x
z = y + b
out.append((x.requires_grad, b.requires_grad, w.requires_grad, y.requires_grad))
out.append((x.is_leaf, w.is_leaf, b.is_leaf, y.is_leaf, z.is_leaf))
out.append(z.grad_fn)
out.append(z.grad_fn.name())
out.append(z.grad_fn.next_functions)
out.append([(None if n is None else n.name(), i) for n, i in z.grad_fn.next_functions])
out.append(z.grad_fn.next_functions[0][0] == y.grad_fn)
out.append([(None if n is None else n.name(), i) for n, i in y.grad_fn.next_functions])
out.append(z.grad_fn.next_functions[1][0].variable is b)
out.append((w.grad_fn, x.grad_fn))
z.backward(retain_graph=True)
out.append(w.grad)
z.backward()
out.append(w.grad)
""",
    "book_requires_grad": """
a = L.tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 10, requires_grad=True)
out.append(a)
b = L.zeros(3, 4).requires_grad_()
out.append(b)
c = a.add(b)
out.append(c)
d = c.sum()
d.backward()
out.append(d)
out.append(d.requires_grad)
out.append(a.grad)
out.append((a.requires_grad, b.requires_grad, c.requires_grad))
out.append((a.is_leaf, b.is_leaf, c.is_leaf))
out.append(c.grad is None)
""",
    "book_requires_grad_setter": """
a = L.ones(3, 4)
a.requires_grad = True
out.append(a)
a = L.ones(3, 4).requires_grad_()
out.append(a.requires_grad)
""",
    "book_f_and_gradf": """
def f(x):
    return x**2 * L.exp(x)
def gradf(x):
    return 2*x*L.exp(x) + x**2*L.exp(x)
x = L.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4), requires_grad=True)
y = f(x)
out.append(y)
y.backward(L.ones(y.size())*2)
# (the last printed digit may differ by float rounding, so compare 3 decimals)
out.append(x.grad.numpy().round(3).tolist())
out.append(gradf(x).detach().numpy().round(3).tolist())
""",
    "book_abs": """
def abs(x):
    if x.data[0] > 0:
        return x
    else:
        return -x
x = L.ones(1, requires_grad=True)
y = abs(x)
y.backward()
out.append(x.grad)
x = -1*L.ones(1)
x = x.requires_grad_()
y = abs(x)
y.backward()
out.append(x.grad)
out.append(y)
out.append(x)
out.append(x.requires_grad)
cc = x*3
out.append(cc.requires_grad)
""",
    "book_loop": """
def f(x):
    result = 1
    for ii in x:
        if ii.item() > 0:
            result = ii*result
    return result
x = L.arange(-2, 4, dtype=L.float32).requires_grad_()
y = f(x)
y.backward()
out.append(x.grad)
out.append(y)
""",
    "book_data": """
a = L.ones(3, 4, requires_grad=True)
b = L.ones(3, 4, requires_grad=True)
c = a * b
out.append(a.data)
out.append(a.data.requires_grad)
d = a.data.sigmoid_()
out.append(d.requires_grad)
out.append(a)
out.append(a.requires_grad)
tensor = a.detach()
out.append(tensor.requires_grad)
mean = tensor.mean()
std = tensor.std()
maximum = tensor.max()
out.append((mean, std, maximum))
tensor[0] = 1
c.sum().backward()
""",
    "book_nonleaf_grad": """
x = L.ones(3, requires_grad=True)
w = L.tensor([0.5, 0.25, 2.0], requires_grad=True)
y = x * w
z = y.sum()
out.append((x.requires_grad, w.requires_grad, y.requires_grad))
z.backward()
out.append((x.grad, w.grad, y.grad))
""",
    "book_autograd_grad": """
x = L.ones(3, requires_grad=True)
w = L.tensor([0.5, 0.25, 2.0], requires_grad=True)
y = x * w
z = y.sum()
out.append(L.autograd.grad(z, y))
""",
    "book_hook": """
def variable_hook(grad):
    out.append(('y grad', grad))
x = L.ones(3, requires_grad=True)
w = L.tensor([0.5, 0.25, 2.0], requires_grad=True)
y = x * w
hook_handle = y.register_hook(variable_hook)
z = y.sum()
z.backward()
hook_handle.remove()
z2 = (x * w).sum()
z2.backward()
out.append((x.grad, w.grad))
""",
    "book_gradient_argument": """
x = L.arange(0, 3, requires_grad=True, dtype=L.float)
y = x**2 + x*2
z = y.sum()
z.backward()
out.append(x.grad)
x = L.arange(0, 3, requires_grad=True, dtype=L.float)
y = x**2 + x*2
z = y.sum()
y_gradient = L.Tensor([1, 1, 1])
y.backward(y_gradient)
out.append(x.grad)
""",
    "book_no_grad": """
x = L.ones(1, requires_grad=True)
w = L.tensor([0.5], requires_grad=True)
y = x * w
out.append((x.requires_grad, w.requires_grad, y.requires_grad))
with L.no_grad():
    x = L.ones(1)
    w = L.tensor([0.5], requires_grad=True)
    y = x * w
out.append((x.requires_grad, w.requires_grad, y.requires_grad))
L.set_grad_enabled(False)
x = L.ones(1)
w = L.tensor([0.5], requires_grad=True)
y = x * w
out.append((x.requires_grad, w.requires_grad, y.requires_grad))
L.set_grad_enabled(True)
out.append(L.is_grad_enabled())
""",
    "book_linear_regression_step": """
x = L.tensor(np.linspace(0, 1, 8, dtype=np.float32).reshape(8, 1))
y = x * 2 + 3
w = L.tensor([[0.1]], requires_grad=True)
b = L.zeros(1, 1, requires_grad=True)
for ii in range(3):
    y_pred = x.mm(w) + b.expand_as(y)
    loss = 0.5 * (y_pred - y) ** 2
    loss = loss.sum()
    loss.backward()
    w.data.sub_(0.1 * w.grad.data)
    b.data.sub_(0.1 * b.grad.data)
    w.grad.data.zero_()
    b.grad.data.zero_()
out.append((w, b, w._version, b._version))
""",
}


@pytest.mark.parametrize("name", list(GRAPH))
def test_book_autograd_section(name):
    check_snippet(GRAPH[name])


ENGINE = {
    "second_backward_error": """
x = L.tensor([1., 2.], requires_grad=True)
y = (x * x).sum()
y.backward()
y.backward()
""",
    "second_backward_exp": """
x = L.tensor([1., 2.], requires_grad=True)
y = x.exp().sum()
y.backward()
y.backward()
""",
    "second_backward_without_saved_tensors": """
x = L.tensor([1., 2.], requires_grad=True)
y = (x + 1).sum()
y.backward()
y.backward()
out.append(x.grad)
""",
    "saved_tensor_access_after_free": """
a = L.ones(2, requires_grad=True)
b = a * a
out.append(b.grad_fn._saved_self)
b.sum().backward()
b.grad_fn._saved_self
""",
    "retain_graph_many": """
x = L.tensor([1., 2.], requires_grad=True)
y = (x * x).sum()
for _ in range(3):
    y.backward(retain_graph=True)
out.append(x.grad)
""",
    "nonleaf_grad_warning": """
a = L.ones(2, requires_grad=True)
c = a * 2
out.append(c.grad)
""",
    "retain_grad": """
a = L.ones(2, requires_grad=True)
c = a * 2
c.retain_grad()
d = (c * c).sum()
d.backward()
out.append((c.grad, c.retains_grad, a.retains_grad, a.grad))
(c * 3).sum().backward()
out.append(c.grad)
""",
    "retain_grad_copies": """
a = L.arange(6.).view(2, 3).requires_grad_()
b = (a * 2).t()
b.retain_grad()
(b * b).sum().backward(create_graph=True)
out.append((b.grad, b.grad.stride(), b.grad.grad_fn.name()))
c = a * 3
c.retain_grad()
h = c.register_hook(lambda g: g * 10)
c.sum().backward()
out.append((c.grad, c.grad.requires_grad))
""",
    "retain_grad_leaf_and_errors": """
a = L.ones(2, requires_grad=True)
a.retain_grad()
out.append(a.retains_grad)
L.ones(2).retain_grad()
""",
    "requires_grad_int": "L.tensor([1, 2]).requires_grad_()",
    "requires_grad_bool": "L.tensor([True]).requires_grad_()",
    "requires_grad_int_setter": """
a = L.tensor([1, 2])
a.requires_grad = True
""",
    "requires_grad_int_false_ok": "out.append(L.tensor([1, 2]).requires_grad_(False))",
    "requires_grad_complex": "out.append(L.tensor([1j]).requires_grad_())",
    "requires_grad_false_nonleaf": """
a = L.ones(2, requires_grad=True)
b = a * 2
b.requires_grad_(False)
""",
    "requires_grad_true_nonleaf": """
a = L.ones(2, requires_grad=True)
b = a * 2
b.requires_grad_(True)
out.append(b.requires_grad)
""",
    "implicit_grad_nonscalar": """
a = L.ones(2, requires_grad=True)
(a * 2).backward()
""",
    "implicit_grad_complex": """
a = L.ones(2, requires_grad=True)
(a * 1j).sum().backward()
""",
    "backward_no_grad": "L.ones(2).sum().backward()",
    "backward_gradient_shape": """
x = L.arange(0, 3, requires_grad=True, dtype=L.float)
(x ** 2).backward(L.ones(2))
""",
    "backward_gradient_dtype_cast": """
x = L.arange(0, 3, requires_grad=True, dtype=L.float)
(x * 2).backward(L.ones(3, dtype=L.float64))
out.append(x.grad)
""",
    "backward_inputs_leaf": """
a = L.ones(2, requires_grad=True)
b = L.ones(2, requires_grad=True)
(a * b * 3).sum().backward(inputs=[a])
out.append((a.grad, b.grad))
""",
    "backward_inputs_nonleaf": """
a = L.ones(2, requires_grad=True)
c = a * 2
(c * c).sum().backward(inputs=[c])
out.append((c.grad, a.grad))
""",
    "backward_inputs_single_tensor": """
a = L.ones(2, requires_grad=True)
b = L.ones(2, requires_grad=True)
(a * b).sum().backward(inputs=b)
out.append((a.grad, b.grad))
""",
    "backward_inputs_empty": """
a = L.ones(2, requires_grad=True)
(a * 2).sum().backward(inputs=[])
""",
    "autograd_backward_many": """
a = L.ones(2, requires_grad=True)
b = a * 2
c = a * 3
L.autograd.backward([b.sum(), c], [None, L.ones(2) * 2])
out.append(a.grad)
""",
    "autograd_backward_count_mismatch": """
a = L.ones(2, requires_grad=True)
L.autograd.backward([a.sum(), a.sum()], [None])
""",
    "autograd_backward_grad_shape": """
a = L.ones(2, requires_grad=True)
L.autograd.backward((a * 2).sum(), [L.ones(1)])
""",
    "autograd_grad": """
x = L.ones(3, requires_grad=True)
w = L.tensor([1., 2., 3.], requires_grad=True)
y = x * w
g = L.autograd.grad(y.sum(), [x, w])
out.append((g, x.grad, w.grad))
""",
    "grad_unused": """
x = L.ones(3, requires_grad=True)
u = L.ones(3, requires_grad=True)
L.autograd.grad((x * 2).sum(), [x, u])
""",
    "grad_allow_unused": """
x = L.ones(3, requires_grad=True)
u = L.ones(3, requires_grad=True)
out.append(L.autograd.grad((x * 2).sum(), [x, u], allow_unused=True))
""",
    "grad_materialize": """
x = L.ones(3, requires_grad=True)
u = L.ones(3, requires_grad=True)
out.append(L.autograd.grad((x * 2).sum(), [x, u], materialize_grads=True))
""",
    "grad_materialize_conflict": """
x = L.ones(3, requires_grad=True)
L.autograd.grad(x.sum(), x, allow_unused=False, materialize_grads=True)
""",
    "grad_output_no_requires": """
x = L.ones(3)
L.autograd.grad(x.sum(), x)
""",
    "grad_input_no_requires": """
x = L.ones(3, requires_grad=True)
y = L.ones(3)
L.autograd.grad((x * 2).sum(), [x, y])
""",
    "grad_inputs_empty": """
x = L.ones(3, requires_grad=True)
L.autograd.grad((x * 2).sum(), [])
""",
    "grad_outputs_argument": """
x = L.ones(2, requires_grad=True)
out.append(L.autograd.grad(x * 2, x, grad_outputs=L.tensor([1., 3.])))
out.append(L.autograd.grad((x * 2).sum(), x, grad_outputs=L.tensor(2.)))
L.autograd.grad((x * 2).sum(), x, grad_outputs=[L.ones(1)])
""",
    "grad_several_outputs": """
x = L.ones(2, requires_grad=True)
out.append(L.autograd.grad([x.sum(), (x * 3).sum()], x))
out.append(L.autograd.grad(x.sum(), (x,)))
""",
    "grad_leaves_dot_grad_untouched": """
x = L.ones(2, requires_grad=True)
y = (x * x).sum()
g, = L.autograd.grad(y, x, retain_graph=True)
out.append((g, x.grad))
y.backward()
out.append(x.grad)
""",
    "higher_order_cube": """
x = L.tensor([2.0, 3.0], requires_grad=True)
y = (x ** 3).sum()
(g,) = L.autograd.grad(y, x, create_graph=True)
out.append((g, g.requires_grad, g.grad_fn is not None))
(g2,) = L.autograd.grad(g.sum(), x, create_graph=True)
out.append(g2)
(g3,) = L.autograd.grad(g2.sum(), x)
out.append(g3)
""",
    "higher_order_mixed": """
x = L.tensor([0.5, -1.0], requires_grad=True)
y = L.tensor([2.0, 0.25], requires_grad=True)
z = (x.exp() * y * y).sum()
gx, gy = L.autograd.grad(z, [x, y], create_graph=True)
out.append((gx, gy))
out.append(L.autograd.grad((gx * gy).sum(), [x, y]))
""",
    "create_graph_backward": """
x = L.tensor([2.0, 3.0], requires_grad=True)
y = (x ** 3).sum()
y.backward(create_graph=True)
out.append((x.grad, x.grad.requires_grad))
gx = x.grad
x.grad = None
gx.sum().backward()
out.append(x.grad)
""",
    "accumulate": """
x = L.ones(2, requires_grad=True)
for i in range(3):
    (x * (i + 1)).sum().backward()
out.append(x.grad)
x.grad.zero_()
(x * 5).sum().backward()
out.append(x.grad)
x.grad = None
(x * 7).sum().backward()
out.append(x.grad)
""",
    "accumulate_shared_gradient_not_aliased": """
x = L.ones(2, requires_grad=True)
y = L.ones(2, requires_grad=True)
(x + y).sum().backward()
x.grad.add_(10)
out.append((x.grad, y.grad))
""",
    "grad_setter": """
x = L.ones(2, requires_grad=True)
x.grad = L.ones(2) * 3
(x * 2).sum().backward()
out.append(x.grad)
del x.grad
out.append(x.grad)
""",
    "grad_setter_shape": "L.ones(2, requires_grad=True).grad = L.ones(3)",
    "grad_setter_shape_0d": "L.ones(2, requires_grad=True).grad = L.ones(())",
    "grad_setter_dtype": "L.ones(2, requires_grad=True).grad = L.ones(2, dtype=L.float64)",
    "grad_setter_int_dtype": "L.ones(2, requires_grad=True).grad = L.ones(2, dtype=L.int64)",
    "grad_setter_type": "L.ones(2, requires_grad=True).grad = [1, 2]",
    "detach_inplace": """
a = L.ones(3, requires_grad=True)
b = a * 2
b.detach_()
out.append((b.requires_grad, b.grad_fn, b.is_leaf))
""",
    "detach_view_inplace": """
a = L.ones(3, requires_grad=True)
b = a * 2
v = b[:2]
v.detach_()
""",
    "is_leaf_cases": """
a = L.ones(2)
b = L.ones(2, requires_grad=True)
c = b * 2
d = c.detach()
e = b.detach().requires_grad_()
out.append((a.is_leaf, b.is_leaf, c.is_leaf, d.is_leaf, e.is_leaf, (a * 2).is_leaf))
""",
    "grad_fn_names": """
a = L.ones(2, requires_grad=True)
out.append([(a * 2).grad_fn.name(), (a + 1).grad_fn.name(), a.sum().grad_fn.name(),
            a.exp().grad_fn.name(), (-a).grad_fn.name(), a.mean().grad_fn.name(),
            (a ** 2).grad_fn.name(), a.view(2).grad_fn.name(), a[0].grad_fn.name(),
            (a - a).grad_fn.name(), (a / 2).grad_fn.name(), a.clone().grad_fn.name()])
""",
    "grad_fn_apply": """
x = L.tensor([1.0, 2.0], requires_grad=True)
z = x * 3
out.append(z.grad_fn.apply(L.ones(2)))
out.append(z.grad_fn(L.ones(2)))
""",
    "node_metadata_and_requires_grad": """
x = L.tensor([1.0, 2.0], requires_grad=True)
z = x * 3
out.append((z.grad_fn.metadata, z.grad_fn.requires_grad if hasattr(z.grad_fn, 'requires_grad')
            else None))
""",
}


@pytest.mark.parametrize("name", list(ENGINE))
def test_engine(name):
    check_snippet(ENGINE[name])


HOOKS = {
    "tensor_hooks_modify": """
def hook(g):
    out.append(('hook', g))
    return g * 2
x = L.ones(3, requires_grad=True)
w = L.tensor([1., 2., 3.], requires_grad=True)
y = x * w
h = y.register_hook(hook)
h2 = y.register_hook(lambda g: out.append(('hook2', g)))
z = y.sum()
z.backward(retain_graph=True)
out.append((x.grad, w.grad))
h.remove()
z.backward()
out.append((x.grad, w.grad))
""",
    "leaf_hooks": """
x = L.ones(3, requires_grad=True)
h = x.register_hook(lambda g: g + 1)
x.register_hook(lambda g: out.append(g))
(x * 2).sum().backward()
out.append(x.grad)
h.remove()
(x * 2).sum().backward()
out.append(x.grad)
""",
    "hook_on_no_grad_tensor": "L.ones(3).register_hook(lambda g: g)",
    "hook_order": """
a = L.ones(2, requires_grad=True)
b = a * 2
c = b * 3
b.register_hook(lambda g: out.append('b'))
c.register_hook(lambda g: out.append('c'))
a.register_hook(lambda g: out.append('a'))
c.register_hook(lambda g: out.append('c2'))
c.sum().backward()
""",
    "hook_handle_context": """
a = L.ones(2, requires_grad=True)
b = a * 2
with b.register_hook(lambda g: g * 10):
    pass
b.sum().backward()
out.append(a.grad)
""",
    "hook_with_retain_grad": """
a = L.ones(2, requires_grad=True)
b = a * 2
b.retain_grad()
b.register_hook(lambda g: g * 10)
(b * 3).sum().backward()
out.append((b.grad, a.grad))
""",
    "node_hooks": """
a = L.ones(2, requires_grad=True)
b = a * 2
b.grad_fn.register_hook(lambda gi, go: out.append(('post', gi, go)))
b.grad_fn.register_prehook(lambda go: out.append(('pre', go)))
b.sum().backward()
""",
    "node_prehook_modifies": """
a = L.ones(2, requires_grad=True)
b = a * 2
h = b.grad_fn.register_prehook(lambda go: (go[0] * 10,))
b.sum().backward(retain_graph=True)
out.append(a.grad)
h.remove()
b.sum().backward()
out.append(a.grad)
""",
    "node_hook_modifies": """
a = L.ones(2, requires_grad=True)
b = a * 2
b.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, None))
b.sum().backward()
out.append(a.grad)
""",
    "node_hook_wrong_count": """
a = L.ones(2, requires_grad=True)
b = a * 2
b.grad_fn.register_hook(lambda gi, go: (gi[0] + 1,))
b.sum().backward()
""",
    "node_hook_not_tuple": """
a = L.ones(2, requires_grad=True)
b = a * 2
b.grad_fn.register_hook(lambda gi, go: 3)
b.sum().backward()
""",
    "node_prehook_wrong_count": """
a = L.ones(2, requires_grad=True)
b = a * 2
b.grad_fn.register_prehook(lambda go: (go[0], go[0]))
b.sum().backward()
""",
    "tensor_hook_changes_size": """
def hook(g):
    return g.sum()
a = L.ones(2, requires_grad=True)
b = a * 2
b.register_hook(hook)
b.sum().backward()
""",
    "leaf_hook_changes_size": """
def hook(g):
    return g.sum()
a = L.ones(2, requires_grad=True)
a.register_hook(hook)
(a * 2).sum().backward()
""",
    "tensor_hook_changes_type": """
def hook3(g):
    return g.double()
a = L.ones(2, requires_grad=True)
b = a * 2
b.register_hook(hook3)
b.sum().backward()
""",
    "tensor_hook_returns_int": """
def hook2(g):
    return 5
a = L.ones(2, requires_grad=True)
b = a * 2
b.register_hook(hook2)
b.sum().backward()
""",
    "post_accumulate_grad_hook": """
a = L.ones(2, requires_grad=True)
a.register_post_accumulate_grad_hook(lambda t: out.append(('post', t.grad)))
(a * 3).sum().backward()
""",
    "post_accumulate_on_nonleaf": """
a = L.ones(2, requires_grad=True)
(a * 3).register_post_accumulate_grad_hook(lambda t: None)
""",
}


@pytest.mark.parametrize("name", list(HOOKS))
def test_hooks(name):
    check_snippet(HOOKS[name])


INPLACE = {
    "leaf_inplace": "L.ones(2, requires_grad=True).add_(1)",
    "leaf_view_inplace": """
a = L.ones(2, requires_grad=True)
a[0].add_(1)
""",
    "leaf_view_inplace_view_method": """
a = L.ones(2, requires_grad=True)
v = a.view(2)
v.mul_(2)
""",
    "leaf_setitem": """
a = L.ones(2, requires_grad=True)
a[0] = 5
""",
    "leaf_inplace_under_no_grad": """
a = L.ones(2, requires_grad=True)
with L.no_grad():
    a.add_(1)
    a[0] = 7
out.append((a, a._version, a.requires_grad, a.grad_fn))
""",
    "modified_by_inplace_via_detach": """
a = L.ones(3, 4, requires_grad=True)
b = L.ones(3, 4, requires_grad=True)
c = a * b
t = a.detach()
t[0] = 1
c.sum().backward()
""",
    "modified_output_exp": """
a = L.ones(3, requires_grad=True)
b = a.exp()
b.add_(1)
b.sum().backward()
""",
    "modified_output_sigmoid_view": """
x = L.ones(3, requires_grad=True)
y = x * 1
z = y.sigmoid()
z[:2].mul_(2)
z.sum().backward()
""",
    "modified_input": """
a = L.ones(3, requires_grad=True)
b = a * 1
c = b * b
b.add_(1)
c.sum().backward()
""",
    "modified_twice_versions": """
a = L.ones(3, requires_grad=True)
b = a * 1
c = b.exp()
d = c * 2
c.mul_(2)
c.add_(1)
out.append(c._version)
d.sum().backward()
""",
    "inplace_ok_when_not_saved": """
a = L.ones(3, requires_grad=True)
b = a * 2
c = b + 1
b.add_(1)
c.sum().backward()
out.append((a.grad, b._version))
""",
    "inplace_nonleaf_grad_flow": """
a = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 2
b.mul_(b)
out.append(b.grad_fn.name())
b.sum().backward()
out.append(a.grad)
""",
    "data_vs_detach_sharing": """
a = L.ones(3, requires_grad=True)
d = a.data
d[0] = 5
out.append(a)
e = a.detach()
e[1] = 7
out.append((a, a._version, e._version, d._version))
out.append((d.data_ptr() == a.data_ptr(), e.data_ptr() == a.data_ptr(), d.is_leaf, e.is_leaf))
out.append((d.requires_grad, e.requires_grad))
""",
    "data_inplace_not_detected": """
a = L.ones(3, requires_grad=True)
b = a.exp()
a.data.mul_(2)
b.sum().backward()
out.append((a.grad, a._version))
y = a * a
a.data.add_(1)
y.sum().backward()
out.append(a.grad)
""",
    "detach_inplace_detected": """
a = L.ones(3, requires_grad=True)
y = a * a
a.detach().add_(1)
out.append(a._version)
y.sum().backward()
""",
    "data_setter": """
a = L.ones(3, requires_grad=True)
a.data = L.zeros(3)
out.append((a, a.requires_grad, a._version, a.is_leaf))
a.data = L.zeros(2, dtype=L.float64)
out.append((a, a.dtype, a.shape))
""",
    "version_counter_shared_with_views": """
a = L.ones(4)
v = a[1:]
w = a.view(2, 2)
v.add_(1)
out.append((a._version, v._version, w._version))
a.zero_()
out.append((a._version, v._version, w._version))
c = a.clone()
out.append(c._version)
""",
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_checks_and_data(name):
    check_snippet(INPLACE[name])


def _fresh_process_warnings(lib, code):
    script = ("import warnings\nimport {lib} as L\nwith warnings.catch_warnings(record=True) as w:"
              "\n    warnings.simplefilter('always')\n{code}\nfor m in w:\n"
              "    print(str(m.message).split(' (Triggered internally')[0])\n")
    indented = "\n".join("    " + line for line in code.strip().splitlines())
    done = subprocess.run([sys.executable, "-c", script.format(lib=lib, code=indented)],
                          capture_output=True, text=True, check=True)
    return done.stdout


def test_create_graph_backward_warning_matches_torch():
    # PyTorch warns once per process, so both libraries run in a fresh interpreter.
    code = """
x = L.ones(2, requires_grad=True)
(x * x).sum().backward(create_graph=True)
"""
    expected = _fresh_process_warnings("torch", code)
    assert "reference cycle" in expected
    assert _fresh_process_warnings("cinder", code) == expected
