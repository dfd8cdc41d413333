"""gradcheck / gradgradcheck: same verdicts, errors and warnings as PyTorch's.

Correct functions (built-in ops and custom Functions) must pass; functions with a deliberately
wrong backward must fail with the same ``GradcheckError`` message PyTorch prints (its Jacobians
are printed tensors, so the message also checks the numbers).
"""

import importlib

import numpy as np
import pytest
import torch

import cinder

from .test_function import F, X, Y, error_of, run_both, tensor, warnings_of

A = np.array([[0.3, -1.2, 0.7, 2.0], [1.1, 0.4, -0.6, 0.9], [-0.2, 0.8, 1.5, -1.0]])
B = np.array([[0.5, -0.4], [1.2, 0.3], [-0.7, 0.9], [0.2, -1.1]])


def gradcheck_module(lib):
    # ``lib.autograd.gradcheck`` is the function; the module is reached through importlib.
    return importlib.import_module(lib.__name__ + ".autograd.gradcheck")


def make_bad_functions(lib):
    """Functions whose backward is wrong in one specific way."""
    Function = lib.autograd.Function

    class WrongMul(Function):                   # d/dx is off by a factor 2
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y * 2, g * x

    class NotMultipliedByGrad(Function):        # right Jacobian rows, but ignores a zero grad
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2 + (g.sum() == 0).to(g.dtype)

    class WrongSecondOrder(Function):           # first order right, detaches for second order
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x * x.detach()

    calls = [0]

    class NonDeterministic(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            calls[0] += 1
            return g * 2 + g * (calls[0] * 1e-9)

    return {k: v for k, v in locals().items() if isinstance(v, type)}


# ----------------------------------------------------------------------------------------------
# Passing checks
# ----------------------------------------------------------------------------------------------

CORRECT = {
    "exp": lambda lib: (lambda a: a.exp(), (tensor(lib, X, True),)),
    "mul": lambda lib: (lambda a, b: a * b, (tensor(lib, X, True), tensor(lib, Y, True))),
    "mm": lambda lib: (lambda a, b: a.mm(b), (tensor(lib, A, True), tensor(lib, B, True))),
    "sum": lambda lib: (lambda a: a.sum(1), (tensor(lib, A, True),)),
    "exp_function": lambda lib: (F(lib, "Exp").apply, (tensor(lib, X, True),)),
    "multiply_add": lambda lib: (F(lib, "MultiplyAdd").apply,
                                 (tensor(lib, X, True), tensor(lib, Y), tensor(lib, X, True))),
    "non_tensor_arg": lambda lib: (lambda a, k: a * k, (tensor(lib, X, True), 3.0)),
    "int_output": lambda lib: (lambda a: (a * 2, (a > 0).long()), (tensor(lib, X, True),)),
    "two_outputs": lambda lib: (F(lib, "Product").apply,
                                (tensor(lib, X, True), tensor(lib, Y, True))),
    "single_tensor_input": lambda lib: (lambda a: a * a, tensor(lib, X, True)),
    "transposed_output": lambda lib: (lambda a: a.t() * 2, (tensor(lib, A, True),)),
    "transposed_input": lambda lib: (lambda a: a.exp(), (tensor(lib, A).t().requires_grad_(),)),
}


@pytest.mark.parametrize("name", sorted(CORRECT))
@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_passes_for_correct_functions(name, fast_mode):
    def scenario(lib):
        fn, inputs = CORRECT[name](lib)
        return lib.autograd.gradcheck(fn, inputs, fast_mode=fast_mode)
    expected, _ = run_both(scenario)
    assert expected is True


def test_book_sigmoid_example():
    def scenario(lib):
        class Sigmoid(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                output = 1 / (1 + lib.exp(-x))
                ctx.save_for_backward(output)
                return output

            @staticmethod
            def backward(ctx, grad_output):
                output, = ctx.saved_tensors
                return output * (1 - output) * grad_output

        test_input = tensor(lib, A, True)
        return lib.autograd.gradcheck(Sigmoid.apply, (test_input,), eps=1e-3)
    run_both(scenario)


@pytest.mark.parametrize("name", ["mm", "exp", "exp_function", "two_outputs"])
def test_gradgradcheck_passes(name):
    def scenario(lib):
        fn, inputs = CORRECT[name](lib)
        lib.manual_seed(0)
        return lib.autograd.gradgradcheck(fn, inputs)
    expected, _ = run_both(scenario)
    assert expected is True


def test_gradgradcheck_of_setup_context_function():
    def scenario(lib):
        x = tensor(lib, X, True)
        go = tensor(lib, Y, True)
        return lib.autograd.gradgradcheck(lambda a: F(lib, "Square").apply(a, 3), (x,), (go,))
    run_both(scenario)


# ----------------------------------------------------------------------------------------------
# Failing checks
# ----------------------------------------------------------------------------------------------

def test_wrong_backward_raises_gradcheck_error():
    def scenario(lib):
        wrong = make_bad_functions(lib)["WrongMul"]
        inputs = (tensor(lib, X[0], True), tensor(lib, Y[0], True))
        try:
            lib.autograd.gradcheck(wrong.apply, inputs)
        except gradcheck_module(lib).GradcheckError as e:
            return isinstance(e, RuntimeError), str(e)
        return None
    expected, _ = run_both(scenario)
    assert expected[1].startswith("Jacobian mismatch for output 0 with respect to input 0,\n"
                                  "numerical:")


def test_wrong_backward_returns_false_without_raising():
    def scenario(lib):
        wrong = make_bad_functions(lib)["WrongMul"]
        inputs = (tensor(lib, X, True), tensor(lib, Y, True))
        return lib.autograd.gradcheck(wrong.apply, inputs, raise_exception=False)
    expected, _ = run_both(scenario)
    assert expected is False


@pytest.mark.parametrize("bad", ["NotMultipliedByGrad", "NonDeterministic"])
def test_backward_defects_are_reported(bad):
    def scenario(lib):
        fn = make_bad_functions(lib)[bad]
        return error_of(lambda: lib.autograd.gradcheck(fn.apply, (tensor(lib, X, True),)))
    expected, _ = run_both(scenario)
    assert expected[0] == "GradcheckError"


def test_gradgradcheck_catches_wrong_second_derivative():
    def scenario(lib):
        fn = make_bad_functions(lib)["WrongSecondOrder"]
        x, go = tensor(lib, X[0], True), tensor(lib, Y[0], True)
        first = lib.autograd.gradcheck(fn.apply, (x,))
        return first, error_of(lambda: lib.autograd.gradgradcheck(fn.apply, (x,), (go,)))
    expected, _ = run_both(scenario)
    assert expected[0] is True and expected[1][0] == "GradcheckError"


def test_function_without_differentiable_outputs():
    def scenario(lib):
        x = tensor(lib, X, True)
        constant = lib.autograd.gradcheck(lambda a: tensor(lib, Y), (x,))
        return constant, error_of(lambda: lib.autograd.gradcheck(lambda a: a.detach() * 2, (x,)))
    run_both(scenario)


# ----------------------------------------------------------------------------------------------
# Input checks and options
# ----------------------------------------------------------------------------------------------

def test_float32_input_warns():
    def scenario(lib):
        x = tensor(lib, X.astype(np.float32), True)
        return warnings_of(lambda: lib.autograd.gradcheck(lambda a: a * 2, (x,), eps=1e-3,
                                                          atol=1e-2))
    expected, _ = run_both(scenario)
    assert expected[0][0][1].startswith("Input #0 requires gradient and is not a double")


def test_input_errors():
    def scenario(lib):
        no_grad = error_of(lambda: lib.autograd.gradcheck(lambda a: a, (tensor(lib, X),)))
        expanded = tensor(lib, [1.0], True).expand(3)
        stride0 = error_of(lambda: lib.autograd.gradcheck(lambda a: a * 2, (expanded,)))
        return no_grad, stride0
    run_both(scenario)


def test_undefined_output_grads_must_be_handled():
    def scenario(lib):
        return error_of(lambda: lib.autograd.gradcheck(F(lib, "TwoOutNoMaterialize").apply,
                                                       (tensor(lib, X, True),)))
    run_both(scenario)


def test_option_assertions():
    def scenario(lib):
        x = (tensor(lib, X, True),)
        return (error_of(lambda: lib.autograd.gradcheck(lambda a: a, x, check_backward_ad=False)),
                error_of(lambda: lib.autograd.gradgradcheck(lambda a: a, x,
                                                            check_rev_over_rev=False)))
    run_both(scenario)


def test_unsupported_modes_say_so():
    x = tensor(cinder, X, True)
    with pytest.raises(NotImplementedError, match="forward-mode AD"):
        cinder.autograd.gradcheck(lambda a: a, (x,), check_forward_ad=True)
    with pytest.raises(NotImplementedError, match="vmap"):
        cinder.autograd.gradcheck(lambda a: a, (x,), check_batched_grad=True)
    z = cinder.complex(tensor(cinder, X), tensor(cinder, Y)).requires_grad_()
    with pytest.raises(NotImplementedError, match="complex"):
        cinder.autograd.gradcheck(lambda a: a * 2, (z,))


def test_gradcheck_error_class():
    assert issubclass(gradcheck_module(cinder).GradcheckError, RuntimeError)
    assert gradcheck_module(cinder).GradcheckError.__name__ == \
        gradcheck_module(torch).GradcheckError.__name__
