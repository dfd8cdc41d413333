"""torch.compile and torch.compiler run eagerly in cinder: what a program can observe (the
wrapper type, state_dict keys, repr, attribute access, train/eval, results, gradients,
argument errors) is compared with PyTorch's ``backend="eager"``."""

import numpy as np
import pytest
import torch

import cinder


def _pair(seed=0):
    torch.manual_seed(seed)
    t_model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    cinder.manual_seed(seed)
    c_model = cinder.nn.Sequential(cinder.nn.Linear(4, 3), cinder.nn.ReLU(),
                                   cinder.nn.Linear(3, 2))
    return t_model, c_model


def test_a_compiled_module_looks_and_computes_like_pytorchs():
    t_model, c_model = _pair()
    tc, cc = torch.compile(t_model, backend="eager"), cinder.compile(c_model)
    assert type(cc).__name__ == type(tc).__name__ == "OptimizedModule"
    assert type(cc).__module__ == "cinder._dynamo.eval_frame"
    assert list(cc.state_dict()) == list(tc.state_dict())        # _orig_mod.0.weight ...
    assert repr(cc) == repr(tc)
    assert cc._orig_mod is c_model and cc._modules["_orig_mod"] is c_model
    for model, compiled in ((t_model, tc), (c_model, cc)):
        model.note = "kept"
        assert compiled.note == "kept"                           # read from the module
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    t_out, c_out = tc(torch.from_numpy(x)), cc(cinder.from_numpy(x))
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-6)
    t_out.sum().backward()
    c_out.sum().backward()
    np.testing.assert_allclose(c_model[0].weight.grad.numpy(), t_model[0].weight.grad.numpy(),
                               rtol=1e-6)


def test_train_and_eval_on_the_wrapper_reach_the_module():
    for lib, model in zip((torch, cinder), _pair()):
        compiled = lib.compile(model, backend="eager")
        compiled.eval()
        assert (model.training, compiled.training) == (False, False)
        model.train()
        assert compiled.training


def test_a_compiled_function_and_the_decorator_forms():
    def double(x):
        """twice x"""
        return 2 * x
    for lib in (torch, cinder):
        fn = lib.compile(double, backend="eager")
        assert fn.__name__ == "double" and fn.__doc__ == "twice x"
        assert fn(lib.ones(2)).tolist() == [2.0, 2.0]
        decorated = lib.compile(backend="eager", dynamic=False)(double)
        assert decorated(lib.ones(1)).tolist() == [2.0]
        assert lib.compile(double, disable=True) is double


@pytest.mark.parametrize("kwargs", [dict(mode="fast"), dict(mode="default", options={}),
                                    dict(backend="nope")])
def test_bad_arguments_raise_pytorchs_errors(kwargs):
    errors = {}
    for lib in (torch, cinder):
        with pytest.raises(RuntimeError) as info:
            lib.compile(lib.nn.Linear(1, 1), **kwargs)
        errors[lib] = str(info.value)
    assert errors[cinder] == errors[torch]


def test_compiling_something_that_is_not_callable():
    for lib in (torch, cinder):
        with pytest.raises(AssertionError, match="A callable function is expected"):
            lib.compile(3)
        with pytest.raises(RuntimeError, match="Model can't be None"):
            lib.compile()(None)


def test_compiler_queries_and_markers():
    for lib in (torch, cinder):
        assert not lib.compiler.is_compiling() and not lib.compiler.is_dynamo_compiling()
        assert not lib.compiler.is_exporting()
        assert lib.compiler.reset() is None

        def f(x):
            return x + 1
        assert lib.compiler.disable(f)(1) == 2 and lib.compiler.disable(recursive=False)(f)(1) == 2
        assert lib.compiler.allow_in_graph(f)(1) == 2
        assert lib.compiler.assume_constant_result(f)(1) == 2
    assert cinder.compiler.list_backends() == torch.compiler.list_backends()
