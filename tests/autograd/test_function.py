"""Custom autograd Functions: cinder against real PyTorch.

Each scenario is written once as ``scenario(lib)``; the same Function is defined for ``torch``
and for ``cinder`` (``make_functions(lib)``), run on the same NumPy inputs, and the results --
values, gradients, grad_fn names, ``next_functions`` structure, errors and warnings -- are
compared. The helpers at the top are shared with the other autograd test files.
"""

import functools
import gc
import warnings
import weakref

import numpy as np
import pytest
import torch

import cinder

# ----------------------------------------------------------------------------------------------
# Helpers (shared by tests/autograd/*)
# ----------------------------------------------------------------------------------------------

LIBS = (torch, cinder)


def tensor(lib, array, requires_grad=False):
    """A ``lib`` tensor holding a copy of ``array`` (float64 unless the array says otherwise)."""
    t = lib.from_numpy(np.array(array, copy=True))
    return t.requires_grad_(True) if requires_grad else t


def is_tensor(x):
    return isinstance(x, (torch.Tensor, cinder.Tensor))


def to_numpy(t):
    return np.array(t.detach().numpy())


def assert_same(expected, actual, rtol=1e-7, atol=1e-10, path="result"):
    """Structural comparison; ``expected`` comes from torch and ``actual`` from cinder."""
    if is_tensor(expected):
        assert is_tensor(actual), f"{path}: expected a tensor, got {type(actual).__name__}"
        assert str(expected.dtype) == str(actual.dtype), f"{path}: dtype"
        assert tuple(expected.shape) == tuple(actual.shape), f"{path}: shape"
        assert expected.requires_grad == actual.requires_grad, f"{path}: requires_grad"
        np.testing.assert_allclose(to_numpy(actual), to_numpy(expected), rtol=rtol, atol=atol,
                                   err_msg=path)
    elif isinstance(expected, (tuple, list)):
        assert type(expected) is type(actual), f"{path}: {type(expected)} vs {type(actual)}"
        assert len(expected) == len(actual), f"{path}: length"
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, rtol, atol, f"{path}[{i}]")
    elif isinstance(expected, dict):
        assert expected.keys() == actual.keys(), f"{path}: keys"
        for k in expected:
            assert_same(expected[k], actual[k], rtol, atol, f"{path}[{k!r}]")
    else:
        assert expected == actual, f"{path}: {expected!r} != {actual!r}"


def run_both(scenario, **kwargs):
    """Run ``scenario`` on torch, then on cinder, and assert the results are the same."""
    expected = scenario(torch, **kwargs)
    actual = scenario(cinder, **kwargs)
    assert_same(expected, actual)
    return expected, actual


def error_of(fn):
    """(exception type name, message) raised by ``fn()``, or None if it does not raise."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the tests compare whatever is raised
        return type(e).__name__, str(e)
    return None


def warnings_of(fn):
    """(category name, message) of every warning ``fn()`` emits, and its result."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return [(w.category.__name__, str(w.message)) for w in caught], result


def edges(node):
    """``next_functions`` as (node class name or None, input_nr) pairs, comparable across libs."""
    return tuple((None if n is None else type(n).__name__, nr) for n, nr in node.next_functions)


def grad_fn_name(t):
    return None if t.grad_fn is None else t.grad_fn.name()


X = np.array([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75]])
Y = np.array([[2.0, 0.5, -1.0], [-0.5, 1.0, 3.0]])


# ----------------------------------------------------------------------------------------------
# The Functions under test, defined once per library
# ----------------------------------------------------------------------------------------------

@functools.cache
def make_functions(lib):
    """The same custom Functions written against ``lib`` (torch or cinder)."""
    Function = lib.autograd.Function
    once_differentiable = lib.autograd.function.once_differentiable
    fns = {}

    class Exp(Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            result, = ctx.saved_tensors
            return grad_output * result

    class MultiplyAdd(Function):            # the book's example
        @staticmethod
        def forward(ctx, w, x, b):
            ctx.save_for_backward(w, x)
            return w * x + b

        @staticmethod
        def backward(ctx, grad_output):
            w, x = ctx.saved_tensors
            return grad_output * x, grad_output * w, grad_output * 1

    class Mul(Function):                    # non-tensor argument with a default
        @staticmethod
        def forward(ctx, w, x, b, x_requires_grad=True):
            ctx.x_requires_grad = x_requires_grad
            ctx.save_for_backward(w, x)
            return w * x + b

        @staticmethod
        def backward(ctx, grad_output):
            w, x = ctx.saved_tensors
            grad_x = grad_output * w if ctx.x_requires_grad else None
            return grad_output * x, grad_x, grad_output * 1, None

    class Scale(Function):                  # non-tensor argument, double-differentiable
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            ctx.save_for_backward(x)
            return x * x * k

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2 * k_of(ctx) * x, None

    def k_of(ctx):
        return ctx.k

    class Square(Function):                 # forward + setup_context style
        @staticmethod
        def forward(x, power=2):
            return x ** power

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, power = inputs
            fns["setup_inputs_len"] = len(inputs)
            ctx.power = power
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * ctx.power * x ** (ctx.power - 1), None

    class Ident(Function):                  # returns an input unchanged
        @staticmethod
        def forward(ctx, x, y):
            return x, y * 2

        @staticmethod
        def backward(ctx, g1, g2):
            return g1, g2 * 2

    class AddOneInplace(Function):          # modifies its input in place
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class TwoOutputsInplace(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + g2 * 2

    class DirtyNotReturned(Function):
        @staticmethod
        def forward(ctx, x, y):
            x.add_(1)
            ctx.mark_dirty(x)
            return y * 2

        @staticmethod
        def backward(ctx, g):
            return None, g * 2

    class DirtyNotInput(Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.mark_dirty(y)
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 2

    seen = {}

    class WithIndex(Function):              # second output marked non-differentiable
        @staticmethod
        def forward(ctx, x):
            idx = (x > 0).long()
            ctx.mark_non_differentiable(idx)
            return x * 3, idx

        @staticmethod
        def backward(ctx, g, g_idx):
            seen["g_idx"] = g_idx
            return g * 3

    class TwoOut(Function):                 # materialized zeros for an unused output
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen["two_out"] = (g1, g2)
            return g1 * 2 + g2 * 3

    class TwoOutNoMaterialize(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen["no_materialize"] = (g1, g2)
            return g1 * 2 if g2 is None else g1 * 2 + g2 * 3

    class WithNonTensorOutputs(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 5, None

        @staticmethod
        def backward(ctx, g, g_int, g_none):
            seen["non_tensor_out"] = (g_int, g_none)
            return g * 2

    class Product(Function):                # two tensor inputs, two outputs
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y, x + y

        @staticmethod
        def backward(ctx, ga, gb):
            x, y = ctx.saved_tensors
            return ga * y + gb, ga * x + gb

    class CubeOnce(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            seen["once_grad_mode"] = lib.is_grad_enabled()
            return 3 * x * x * g

    class GradModeProbe(Function):
        @staticmethod
        def forward(ctx, x):
            seen["forward_grad_mode"] = lib.is_grad_enabled()
            seen["needs_input_grad"] = ctx.needs_input_grad
            return x * 2

        @staticmethod
        def backward(ctx, g):
            seen["backward_grad_mode"] = lib.is_grad_enabled()
            return g * 2

    class SaveOutput(Function):
        @staticmethod
        def forward(ctx, x):
            r = x.exp()
            ctx.save_for_backward(r)
            return r

        @staticmethod
        def backward(ctx, g):
            r, = ctx.saved_tensors
            seen["saved_output"] = (r.requires_grad, r.grad_fn.name())
            return g * r

    class SaveInt(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    class ListOutput(Function):
        @staticmethod
        def forward(ctx, x):
            return [x * 2, x * 3]

        @staticmethod
        def backward(ctx, g):
            return g

    class BothBackwardAndVjp(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 2

    class VjpOnly(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 3                     # deliberately not 2: proves vjp ran

    class NoBackward(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    class NoForward(Function):
        pass

    def bad(grads_fn, n_inputs=1):
        """A Function whose backward returns ``grads_fn(g)``."""
        class Bad(Function):
            @staticmethod
            def forward(ctx, *args):
                return args[0] * 2

            @staticmethod
            def backward(ctx, g):
                return grads_fn(g)
        return Bad

    fns.update({k: v for k, v in locals().items() if isinstance(v, type)})
    fns["bad"] = bad
    fns["seen"] = seen
    return fns


def F(lib, name):
    return make_functions(lib)[name]


# ----------------------------------------------------------------------------------------------
# Forward, backward, grad_fn
# ----------------------------------------------------------------------------------------------

def test_exp_values_grads_and_grad_fn():
    def scenario(lib):
        x = tensor(lib, X, requires_grad=True)
        y = F(lib, "Exp").apply(x)
        y.sum().backward()
        node = y.grad_fn
        return (y, x.grad, type(node).__name__, node.name(), edges(node),
                repr(y).split("grad_fn=")[1])
    expected, _ = run_both(scenario)
    assert expected[2] == "ExpBackward"


def test_book_multiply_add_and_direct_grad_fn_apply():
    def scenario(lib):
        x = tensor(lib, [1.0])
        w = tensor(lib, [0.25], requires_grad=True)
        b = tensor(lib, [0.5], requires_grad=True)
        z = F(lib, "MultiplyAdd").apply(w, x, b)
        direct = z.grad_fn.apply(tensor(lib, [1.0]))    # raw backward output, grad mode on
        names = tuple(grad_fn_name(g) for g in direct)
        z.backward()
        return z, direct, names, edges(z.grad_fn), x.grad, w.grad, b.grad
    expected, _ = run_both(scenario)
    assert expected[2] == (None, "MulBackward0", None)


@pytest.mark.parametrize("x_requires_grad", [True, False])
def test_non_tensor_arguments(x_requires_grad):
    def scenario(lib):
        w = tensor(lib, X, requires_grad=True)
        x = tensor(lib, Y, requires_grad=True)
        b = tensor(lib, X)
        z = F(lib, "Mul").apply(w, x, b, x_requires_grad)
        z.sum().backward()
        return z, edges(z.grad_fn), z.grad_fn.needs_input_grad, w.grad, x.grad, b.grad
    run_both(scenario)


def test_setup_context_style_binds_defaults():
    def scenario(lib):
        x = tensor(lib, X, requires_grad=True)
        y = F(lib, "Square").apply(x)
        n_inputs = make_functions(lib)["setup_inputs_len"]
        y3 = F(lib, "Square").apply(x, 3)
        g, = lib.autograd.grad(y.sum() + y3.sum(), x)
        return y, y3, g, n_inputs, y.grad_fn.name()
    run_both(scenario)


def test_grad_modes_inside_forward_and_backward():
    def scenario(lib):
        seen = make_functions(lib)["seen"]
        x = tensor(lib, X, requires_grad=True)
        k = tensor(lib, Y)
        y = F(lib, "GradModeProbe").apply(x)
        at_forward = (seen["forward_grad_mode"], seen["needs_input_grad"])
        y.sum().backward()
        at_backward = seen["backward_grad_mode"]
        with lib.no_grad():
            F(lib, "GradModeProbe").apply(k)
        return at_forward, at_backward, seen["needs_input_grad"]
    expected, _ = run_both(scenario)
    assert expected == ((False, (True,)), False, (False,))


def test_multiple_outputs_share_node():
    def scenario(lib):
        x = tensor(lib, X, requires_grad=True)
        y = tensor(lib, Y, requires_grad=True)
        a, b = F(lib, "Product").apply(x, y)
        (a * b).sum().backward()
        return a, b, a.grad_fn is b.grad_fn, x.grad, y.grad
    run_both(scenario)


def test_list_output_is_returned_as_is():
    def scenario(lib):
        x = tensor(lib, X, requires_grad=True)
        out = F(lib, "ListOutput").apply(x)
        return type(out).__name__, out[0].grad_fn is None, out[0]
    run_both(scenario)


def test_kwargs_and_extra_trailing_none_grads():
    def scenario(lib):
        x = tensor(lib, X, requires_grad=True)
        y = F(lib, "Scale").apply(x, k=1.5)
        y.sum().backward()
        return y, x.grad
    run_both(scenario)


def test_nothing_requires_grad_records_nothing():
    def scenario(lib):
        x = tensor(lib, X)
        y = F(lib, "SaveOutput").apply(x)
        xr = tensor(lib, X, requires_grad=True)
        with lib.no_grad():
            z = F(lib, "SaveOutput").apply(xr)
        # Nothing is recorded, so the non-tensor save is not even validated.
        w = F(lib, "SaveInt").apply(x)
        return y, y.grad_fn is None, z, z.grad_fn is None, w
    run_both(scenario)


def test_hooks_on_custom_node():
    def scenario(lib):
        calls = []
        x = tensor(lib, X, requires_grad=True)
        y = F(lib, "Exp").apply(x)
        y.grad_fn.register_prehook(lambda go: calls.append(("pre", go)))
        y.grad_fn.register_hook(lambda gi, go: calls.append(("post", gi, go)))
        y.sum().backward()
        return calls
    run_both(scenario)


def test_attributes_cleared_after_apply():
    def scenario(lib):
        x = tensor(lib, X, requires_grad=True).clone()
        y = F(lib, "AddOneInplace").apply(x)
        node = y.grad_fn
        return node.to_save, node.dirty_tensors, node.non_differentiable, node.needs_input_grad
    expected, _ = run_both(scenario)
    assert expected == (None, None, None, (True,))


# ----------------------------------------------------------------------------------------------
# Inputs returned as outputs, in-place forwards, non-differentiable outputs
# ----------------------------------------------------------------------------------------------

def test_input_returned_unchanged_becomes_a_view():
    def scenario(lib):
        x = tensor(lib, X, requires_grad=True)
        y = tensor(lib, Y)
        a, b = F(lib, "Ident").apply(x, y)
        facts = (a is x, a._base is x, grad_fn_name(a), edges(a.grad_fn), a.requires_grad)
        (a.sum() + b.sum()).backward()
        # An input that needs no grad still comes back as a view, with history.
        c, _ = F(lib, "Ident").apply(y, x)
        # Nothing requires grad: a view without history.
        d, _ = F(lib, "Ident").apply(y, y)
        with lib.no_grad():
            e, _ = F(lib, "Ident").apply(x, y)      # a detached alias
        return (facts, x.grad, (c is y, c._base is y, c.requires_grad),
                (d is y, d._base is y, d.requires_grad), (e is x, e._base is None,
                                                          e.requires_grad))
    run_both(scenario)


def test_mark_dirty_moves_history_onto_input():
    def scenario(lib):
        leaf = tensor(lib, X, requires_grad=True)
        c = leaf.clone()
        v0 = c._version
        d = c * c                                 # saves c at its current version
        r = F(lib, "AddOneInplace").apply(c)
        facts = (r is c, c._version - v0, grad_fn_name(c), edges(c.grad_fn))
        err = error_of(lambda: d.sum().backward())
        c2 = leaf.clone()
        F(lib, "AddOneInplace").apply(c2).sum().backward()
        return facts, err[0], err[1].split(" is at version")[0].split("],")[0], leaf.grad
    run_both(scenario)


def test_mark_dirty_errors_and_warning():
    def scenario(lib):
        leaf = tensor(lib, X, requires_grad=True)
        on_leaf = error_of(lambda: F(lib, "AddOneInplace").apply(leaf))
        not_returned = error_of(lambda: F(lib, "DirtyNotReturned").apply(leaf.clone(), leaf))
        view_many = error_of(lambda: F(lib, "TwoOutputsInplace").apply(leaf.clone()[:1]))
        caught, out = warnings_of(lambda: F(lib, "DirtyNotInput").apply(leaf))
        # PyTorch appends "(Triggered internally at ...)" to C++ warnings.
        caught = [(c, m.split(" (Triggered internally")[0]) for c, m in caught]
        return on_leaf, not_returned, view_many, caught, grad_fn_name(out)
    run_both(scenario)


def test_mark_dirty_on_a_view_rewrites_the_base():
    def scenario(lib):
        leaf = tensor(lib, X, requires_grad=True)
        base = leaf * 1
        view = base[:1]
        r = F(lib, "AddOneInplace").apply(view)
        facts = (r is view, type(base.grad_fn).__name__, grad_fn_name(view))
        (base * tensor(lib, Y)).sum().backward()
        return facts, base, leaf.grad
    run_both(scenario)


def test_non_differentiable_outputs_get_zero_grads():
    def scenario(lib):
        seen = make_functions(lib)["seen"]
        x = tensor(lib, X, requires_grad=True)
        y, idx = F(lib, "WithIndex").apply(x)
        facts = (y.requires_grad, idx.requires_grad, idx.grad_fn is None)
        y.sum().backward()
        return facts, seen["g_idx"], x.grad
    run_both(scenario)


def test_materialize_grads_default_and_disabled():
    def scenario(lib):
        seen = make_functions(lib)["seen"]
        x = tensor(lib, X, requires_grad=True)
        F(lib, "TwoOut").apply(x)[0].sum().backward()
        F(lib, "TwoOutNoMaterialize").apply(x)[0].sum().backward()
        F(lib, "WithNonTensorOutputs").apply(x)[0].sum().backward()
        return seen["two_out"], seen["no_materialize"], seen["non_tensor_out"], x.grad
    expected, _ = run_both(scenario)
    assert expected[1][1] is None and expected[2] == (None, None)


# ----------------------------------------------------------------------------------------------
# Saved tensors
# ----------------------------------------------------------------------------------------------

def test_saved_output_comes_back_attached_to_the_node():
    def scenario(lib):
        seen = make_functions(lib)["seen"]
        x = tensor(lib, X, requires_grad=True)
        y = F(lib, "SaveOutput").apply(x)
        saved = y.grad_fn.saved_tensors
        y.sum().backward(retain_graph=True)
        return saved, grad_fn_name(saved[0]), seen["saved_output"], x.grad
    run_both(scenario)


def test_saved_tensor_modified_in_place_is_detected():
    def scenario(lib):
        x = tensor(lib, X, requires_grad=True)
        y = F(lib, "Exp").apply(x)
        y.sum().backward(retain_graph=True)
        with lib.no_grad():
            y.mul_(2)
        name, msg = error_of(lambda: y.sum().backward())
        # The node naming and the hint at the end are the engine's; the start is ours.
        return name, msg.split(", which is output")[0]
    run_both(scenario)


def test_saved_tensors_freed_after_backward():
    def scenario(lib):
        x = tensor(lib, X, requires_grad=True)
        y = F(lib, "Exp").apply(x)
        y.sum().backward()
        return error_of(lambda: y.sum().backward()), error_of(lambda: y.grad_fn.saved_tensors)
    run_both(scenario)


def test_save_for_backward_refuses_non_tensors():
    run_both(lambda lib: error_of(
        lambda: F(lib, "SaveInt").apply(tensor(lib, X, requires_grad=True))))


def test_saved_variables_is_a_deprecated_alias():
    def scenario(lib):
        x = tensor(lib, X, requires_grad=True)
        y = F(lib, "Exp").apply(x)
        caught, saved = warnings_of(lambda: y.grad_fn.saved_variables)
        return caught, saved
    run_both(scenario)


def test_saving_an_output_creates_no_reference_cycle():
    def scenario(lib):
        # With the cycle collector off, the node must die as soon as its output does.
        gc.disable()
        try:
            x = tensor(lib, X, requires_grad=True)
            y = F(lib, "SaveOutput").apply(x)
            node = weakref.ref(y.grad_fn)
            del y
            return node() is None
        finally:
            gc.enable()
    expected, _ = run_both(scenario)
    assert expected is True


# ----------------------------------------------------------------------------------------------
# Errors from backward
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", ["too_few", "too_many", "non_tensor_grad", "not_a_tensor",
                                  "wrong_shape"])
def test_backward_result_errors(case):
    def scenario(lib):
        x = tensor(lib, X, requires_grad=True)
        bad = make_functions(lib)["bad"]
        if case == "too_few":
            fn, args = bad(lambda g: g), (x, x)
        elif case == "too_many":
            fn, args = bad(lambda g: (g, 1)), (x,)
        elif case == "non_tensor_grad":
            fn, args = bad(lambda g: (g, g)), (x, 2.0)
        elif case == "not_a_tensor":
            fn, args = bad(lambda g: 3), (x,)
        else:
            fn, args = bad(lambda g: g.sum()), (x,)
        return error_of(lambda: fn.apply(*args).sum().backward())
    expected, _ = run_both(scenario)
    assert expected is not None


def test_backward_and_vjp_both_defined():
    def scenario(lib):
        x = tensor(lib, X, requires_grad=True)
        err = error_of(lambda: F(lib, "BothBackwardAndVjp").apply(x).sum().backward())
        F(lib, "VjpOnly").apply(x).sum().backward()
        return err, x.grad
    run_both(scenario)


def test_missing_forward_or_backward():
    def scenario(lib):
        x = tensor(lib, X, requires_grad=True)
        return (error_of(lambda: F(lib, "NoForward").apply(x)),
                error_of(lambda: F(lib, "NoBackward").apply(x).sum().backward()))
    run_both(scenario)


def test_instantiating_a_new_style_function():
    def scenario(lib):
        caught, fn = warnings_of(lambda: F(lib, "Exp")())
        caught = [(c, m.replace(lib.__name__, "LIB")) for c, m in caught]
        return caught, error_of(lambda: fn(tensor(lib, X)))
    run_both(scenario)


# ----------------------------------------------------------------------------------------------
# Higher order
# ----------------------------------------------------------------------------------------------

def test_double_backward_through_differentiable_backward():
    def scenario(lib):
        x = tensor(lib, X, requires_grad=True)
        y = tensor(lib, Y, requires_grad=True)
        a, b = F(lib, "Product").apply(x, y * 3)
        g, = lib.autograd.grad((a + b * b).sum(), x, create_graph=True)
        gg = lib.autograd.grad(g.sum(), (x, y))
        s = F(lib, "Square").apply(x, 3)
        h, = lib.autograd.grad(s.sum(), x, create_graph=True)
        hh, = lib.autograd.grad(h.sum(), x)
        return g, gg, h, hh
    run_both(scenario)


def test_once_differentiable():
    def scenario(lib):
        seen = make_functions(lib)["seen"]
        x = tensor(lib, X, requires_grad=True)
        y = F(lib, "CubeOnce").apply(x)
        go = tensor(lib, np.ones_like(X), requires_grad=True)
        g, = lib.autograd.grad(y, x, go, create_graph=True)
        facts = (seen["once_grad_mode"], g.grad_fn.name(), type(g.grad_fn).__name__,
                 repr(g).split("grad_fn=")[1], len(g.grad_fn.next_functions))
        err = error_of(lambda: g.sum().backward())
        # A first-order pass is unaffected.
        g1, = lib.autograd.grad(F(lib, "CubeOnce").apply(x).sum(), x)
        return g, facts, err, g1
    expected, _ = run_both(scenario)
    assert expected[2][1] == ("trying to differentiate twice a function that was marked with "
                              "@once_differentiable")


# ----------------------------------------------------------------------------------------------
# Legacy (instance-style) Functions: PyTorch 2.13 refuses them, cinder keeps them working
# ----------------------------------------------------------------------------------------------

class LegacyLinear(cinder.autograd.Function):
    """The extending-autograd example from the old documentation, verbatim in spirit."""

    def forward(self, input, weight, bias=None):
        self.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    def backward(self, grad_output):
        input, weight, bias = self.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if self.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if self.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and self.needs_input_grad[2]:
            grad_bias = grad_output.sum(0).squeeze(0)
        return grad_input, grad_weight, grad_bias


class LegacyAddConstant(cinder.autograd.Function):
    def __init__(self, constant):          # old code often skipped super().__init__()
        self.constant = constant

    def forward(self, x):
        return x + self.constant

    def backward(self, grad_output):
        return grad_output


def test_legacy_function_matches_builtin_ops():
    rng = np.random.default_rng(0)
    xs, ws, bs = rng.standard_normal((4, 3)), rng.standard_normal((2, 3)), rng.standard_normal(2)

    # The reference: the same computation with PyTorch's own ops.
    tx, tw, tb = (tensor(torch, a, requires_grad=True) for a in (xs, ws, bs))
    ref = tx.mm(tw.t()) + tb
    ref.sum().backward()

    cx, cw, cb = (tensor(cinder, a, requires_grad=True) for a in (xs, ws, bs))
    with pytest.warns(DeprecationWarning, match="Legacy autograd function with non-static"):
        out = LegacyLinear()(cx, cw, cb)
    assert out.grad_fn.name() == "LegacyLinearBackward"
    assert out.creator is out.grad_fn
    assert edges(out.grad_fn) == (("AccumulateGrad", 0),) * 3
    out.sum().backward()
    assert_same((ref.detach(), tx.grad, tw.grad, tb.grad),
                (out.detach(), cx.grad, cw.grad, cb.grad))


def test_legacy_function_without_super_init_and_direct_apply():
    x = tensor(cinder, X, requires_grad=True)
    with pytest.warns(DeprecationWarning):
        y = LegacyAddConstant(3.0)(x)
    np.testing.assert_allclose(to_numpy(y), X + 3.0)
    assert y.grad_fn.apply(tensor(cinder, Y)) is not None
    y.sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), np.ones_like(X))


def test_legacy_function_in_pytorch_is_refused_with_the_same_message():
    class TorchLegacy(torch.autograd.Function):
        def forward(self, x):
            return x

    with pytest.warns(DeprecationWarning):
        fn = TorchLegacy()
    torch_error = error_of(lambda: fn(torch.ones(1)))
    with pytest.warns(DeprecationWarning) as record:
        LegacyAddConstant(1.0)(cinder.ones(1))
    assert torch_error[0] == "RuntimeError"
    assert str(record[0].message) == torch_error[1]

