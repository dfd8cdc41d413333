"""``torch.jit``'s eager helpers against PyTorch: what scriptable model code calls when it runs
eagerly (``is_scripting()`` branches, ``@ignore``/``@unused``/``@export`` methods, ``annotate``)."""

import warnings

import pytest
import torch

import cinder
from oracle import check

LIBS = (torch, cinder)


@pytest.mark.parametrize("expr", [
    "L.jit.is_scripting()", "L.jit.is_tracing()", "L.jit.annotate(list, [1, 2])",
    "L.jit.Final", "L.jit.ignore(3)", "L.jit.ignore('yes')",
])
def test_outcomes(expr):
    check(expr)


@pytest.mark.parametrize("decorate", [
    "L.jit.ignore(f)", "L.jit.ignore(drop=False)(f)", "L.jit.ignore(drop=True)(f)",
    "L.jit.unused(f)", "L.jit.export(f)",
])
def test_decorators_hand_the_function_back(decorate):
    def f(x):
        return x + 1
    for lib in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert eval(decorate, {"L": lib, "f": f}) is f


def test_ignore_true_warns_as_deprecated():
    caught = []
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            lib.jit.ignore(drop=True)
        caught.append([(w.category, str(w.message)) for w in record])
    assert caught[0] == caught[1] and caught[0][0][0] is FutureWarning


def test_script_if_tracing_runs_the_function():
    for lib in LIBS:
        @lib.jit.script_if_tracing
        def double(x):
            return x * 2
        assert double(lib.tensor(3)).item() == 6
        assert double.__name__ == "double"


def test_a_scriptable_module_runs_eagerly():
    """The torchvision idiom: a branch on is_scripting() and an ignored helper method."""
    def make_block(lib):
        class Block(lib.nn.Module):
            @lib.jit.ignore
            def helper(self, x):
                return x * 3

            def forward(self, x):
                if lib.jit.is_scripting():
                    return x
                return lib.jit.annotate(lib.Tensor, self.helper(x))
        return Block()

    outputs = [make_block(lib)(lib.tensor([1.0, 2.0])).tolist() for lib in LIBS]
    assert outputs[0] == outputs[1] == [3.0, 6.0]


def test_torchscript_itself_is_named_as_left_out():
    with pytest.raises(AttributeError, match="torch.jit.script: it belongs to TorchScript"):
        cinder.jit.script  # noqa: B018 - the attribute access is what raises
