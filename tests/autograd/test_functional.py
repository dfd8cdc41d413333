"""autograd.functional (jacobian, hessian, vjp, jvp, vhp, hvp) against PyTorch.

Results are compared structurally: a bare Tensor where PyTorch returns one, tuples (and tuples
of tuples) where it returns those, with the same values, dtypes, shapes and ``requires_grad``.
"""

import importlib

import numpy as np
import pytest

import cinder

from .test_function import X, error_of, run_both, tensor

V = np.array([0.5, -1.5, 2.0])
W = np.array([1.25, 0.75, -0.5])


def functional(lib):
    return importlib.import_module(lib.__name__ + ".autograd.functional")


# Functions of one or two inputs, returning one or two outputs.
def exp_reducer(x):
    return x.exp().sum(dim=1)


def adder(x, y):
    return 2 * x + 3 * y


def two_outputs(x, y):
    return x * y, (x ** 2).sum()


def pow_reducer(x):
    return x.pow(3).sum()


def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


def cross_term(x, y):
    return (x * x * y).sum()


def first_only(x, y):
    return x * 2


# ----------------------------------------------------------------------------------------------
# jacobian / hessian
# ----------------------------------------------------------------------------------------------

JACOBIAN_CASES = {
    "tensor_to_tensor": (exp_reducer, lambda lib: tensor(lib, X)),
    "tuple_to_tensor": (adder, lambda lib: (tensor(lib, V), tensor(lib, W))),
    "tuple_to_tuple": (two_outputs, lambda lib: (tensor(lib, V), tensor(lib, W))),
    "tensor_to_1tuple": (lambda x: (x * 2,), lambda lib: tensor(lib, V)),
    "1tuple_to_tensor": (lambda x: x * 2, lambda lib: (tensor(lib, V),)),
    "unused_input": (first_only, lambda lib: (tensor(lib, V), tensor(lib, W))),
    "scalar": (lambda x: x ** 3, lambda lib: tensor(lib, 2.0)),
}


@pytest.mark.parametrize("name", sorted(JACOBIAN_CASES))
@pytest.mark.parametrize("create_graph", [False, True])
def test_jacobian(name, create_graph):
    fn, make_inputs = JACOBIAN_CASES[name]
    run_both(lambda lib: functional(lib).jacobian(fn, make_inputs(lib),
                                                  create_graph=create_graph))


def test_jacobian_vectorize_gives_the_same_result():
    run_both(lambda lib: functional(lib).jacobian(two_outputs, (tensor(lib, V), tensor(lib, W)),
                                                  vectorize=True))


def test_jacobian_create_graph_is_differentiable():
    def scenario(lib):
        x = tensor(lib, V, requires_grad=True)
        jac = functional(lib).jacobian(lambda a: a ** 2, x, create_graph=True)
        return jac, lib.autograd.grad(jac.sum(), x)
    run_both(scenario)


@pytest.mark.parametrize("name", ["pow_reducer", "pow_adder_reducer", "cross_term"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_hessian(name, create_graph):
    fn = {"pow_reducer": pow_reducer, "pow_adder_reducer": pow_adder_reducer,
          "cross_term": cross_term}[name]

    def scenario(lib):
        inputs = tensor(lib, V) if name == "pow_reducer" else (tensor(lib, V), tensor(lib, W))
        return functional(lib).hessian(fn, inputs, create_graph=create_graph)
    run_both(scenario)


# ----------------------------------------------------------------------------------------------
# Products with vectors
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp(create_graph):
    def scenario(lib):
        vjp = functional(lib).vjp
        return (vjp(exp_reducer, tensor(lib, X), tensor(lib, [1.0, -2.0]),
                    create_graph=create_graph),
                vjp(adder, (tensor(lib, V), tensor(lib, W)), tensor(lib, V),
                    create_graph=create_graph),
                vjp(two_outputs, (tensor(lib, V), tensor(lib, W)),
                    (tensor(lib, W), tensor(lib, 2.0)), create_graph=create_graph),
                vjp(lambda x: x.sum(), tensor(lib, V), create_graph=create_graph),
                vjp(first_only, (tensor(lib, V), tensor(lib, W)), tensor(lib, V)))
    run_both(scenario)


@pytest.mark.parametrize("create_graph", [False, True])
def test_jvp(create_graph):
    def scenario(lib):
        jvp = functional(lib).jvp
        return (jvp(exp_reducer, tensor(lib, X), tensor(lib, np.ones_like(X)),
                    create_graph=create_graph),
                jvp(adder, (tensor(lib, V), tensor(lib, W)), (tensor(lib, W), tensor(lib, V)),
                    create_graph=create_graph),
                jvp(lambda x: x ** 3, tensor(lib, 2.0)))
    run_both(scenario)


def test_jvp_with_two_outputs():
    # Values only: with create_graph the grad_fn names come from ops' double-backward formulas.
    run_both(lambda lib: functional(lib).jvp(two_outputs, (tensor(lib, V), tensor(lib, W)),
                                             (tensor(lib, V), tensor(lib, W))))


@pytest.mark.parametrize("product", ["vhp", "hvp"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_hessian_vector_products(product, create_graph):
    def scenario(lib):
        fn = getattr(functional(lib), product)
        return (fn(pow_reducer, tensor(lib, V), tensor(lib, W), create_graph=create_graph),
                fn(pow_adder_reducer, (tensor(lib, V), tensor(lib, W)),
                   (tensor(lib, W), tensor(lib, V)), create_graph=create_graph),
                fn(lambda x, y: (x ** 3).sum(), (tensor(lib, V), tensor(lib, W)),
                   (tensor(lib, W), tensor(lib, V))),
                fn(lambda x: x ** 3, tensor(lib, 2.0)))
    run_both(scenario)


def test_results_are_detached_under_no_grad_too():
    def scenario(lib):
        with lib.no_grad():
            return (functional(lib).vjp(lambda x: x.sum(), tensor(lib, V, requires_grad=True)),
                    functional(lib).jacobian(lambda x: x * 3, tensor(lib, V)))
    run_both(scenario)


# ----------------------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------------------

ERROR_CASES = {
    "jacobian_strict": lambda f, lib: f.jacobian(first_only, (tensor(lib, V), tensor(lib, W)),
                                                 strict=True),
    "jacobian_bad_strategy": lambda f, lib: f.jacobian(exp_reducer, tensor(lib, X),
                                                       strategy="fwd"),
    "jacobian_forward_mode": lambda f, lib: f.jacobian(exp_reducer, tensor(lib, X),
                                                       strategy="forward-mode"),
    "jacobian_forward_mode_graph": lambda f, lib: f.jacobian(exp_reducer, tensor(lib, X),
                                                             create_graph=True,
                                                             strategy="forward-mode"),
    "jacobian_vectorize_strict": lambda f, lib: f.jacobian(exp_reducer, tensor(lib, X),
                                                           vectorize=True, strict=True),
    "jacobian_int_output": lambda f, lib: f.jacobian(lambda x: 3, tensor(lib, V)),
    "jacobian_list_input": lambda f, lib: f.jacobian(lambda x: x, [tensor(lib, V)]),
    "jacobian_tuple_with_int": lambda f, lib: f.jacobian(lambda x, k: x, (tensor(lib, V), 3)),
    "strict_constant_output": lambda f, lib: f.vjp(lambda x: tensor(lib, W), tensor(lib, V),
                                                   tensor(lib, V), strict=True),
    "hessian_non_scalar": lambda f, lib: f.hessian(lambda x: x * 2, tensor(lib, V)),
    "hessian_tuple_output": lambda f, lib: f.hessian(lambda x: (x.sum(),), tensor(lib, V)),
    "hessian_strict_linear": lambda f, lib: f.hessian(lambda x: x.sum(), tensor(lib, V),
                                                      strict=True),
    "vjp_missing_v": lambda f, lib: f.vjp(exp_reducer, tensor(lib, X)),
    "vjp_wrong_v_size": lambda f, lib: f.vjp(exp_reducer, tensor(lib, X), tensor(lib, V)),
    "vjp_wrong_v_length": lambda f, lib: f.vjp(two_outputs, (tensor(lib, V), tensor(lib, W)),
                                               (tensor(lib, V),)),
    "vjp_wrong_v_entry": lambda f, lib: f.vjp(two_outputs, (tensor(lib, V), tensor(lib, W)),
                                              (tensor(lib, V), tensor(lib, V))),
    "vjp_strict_unused": lambda f, lib: f.vjp(first_only, (tensor(lib, V), tensor(lib, W)),
                                              tensor(lib, V), strict=True),
    "jvp_missing_v": lambda f, lib: f.jvp(exp_reducer, tensor(lib, X)),
    "jvp_single_v_for_tuple": lambda f, lib: f.jvp(adder, (tensor(lib, V), tensor(lib, W)),
                                                   (tensor(lib, V),)),
    "hvp_strict_unused": lambda f, lib: f.hvp(lambda x, y: (x ** 3).sum(),
                                              (tensor(lib, V), tensor(lib, W)),
                                              (tensor(lib, V), tensor(lib, W)), strict=True),
    "vhp_non_scalar": lambda f, lib: f.vhp(lambda x: x * 2, tensor(lib, V), tensor(lib, V)),
    "vhp_wrong_v_size": lambda f, lib: f.vhp(lambda x: (x * x).sum(), tensor(lib, V),
                                             tensor(lib, V[:2])),
}


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_errors(name):
    expected, _ = run_both(lambda lib: error_of(lambda: ERROR_CASES[name](functional(lib), lib)))
    assert expected is not None


def test_forward_mode_is_refused_clearly():
    f = functional(cinder)
    with pytest.raises(NotImplementedError, match="forward-mode AD"):
        f.jacobian(exp_reducer, tensor(cinder, X), vectorize=True, strategy="forward-mode")
    with pytest.raises(NotImplementedError):
        f.hessian(pow_reducer, tensor(cinder, V), outer_jacobian_strategy="forward-mode")
