"""Creation semantics the op database cannot express (it compares values, not memory):
from_numpy / as_tensor / asarray memory sharing, identity returns, the warnings PyTorch
gives, and dtype inference under ``set_default_dtype``. Each test does the same thing in both
libraries and compares what the user can observe."""

import warnings

import numpy as np
import pytest
import torch

import cinder


def _both(fn):
    """fn(lib) for torch and cinder: (torch's result, cinder's result)."""
    return fn(torch), fn(cinder)


def _type_and_message(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 -- compared with PyTorch's
        return type(exc).__name__, str(exc)
    return None, None


# ----------------------------------------------------------------------------------------------
# Memory sharing
# ----------------------------------------------------------------------------------------------

def _sharing_after_writes(lib, make):
    """Write through the array and through the tensor; report what each side sees."""
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = make(lib, arr)
    arr[0, 0] = 100.0
    seen_by_tensor = float(t[0, 0])
    t[1, 2] = -5.0
    seen_by_array = float(arr[1, 2])
    return seen_by_tensor, seen_by_array, str(t.dtype)


SHARING = {
    "from_numpy": lambda lib, a: lib.from_numpy(a),
    "as_tensor": lambda lib, a: lib.as_tensor(a),
    "as_tensor same dtype": lambda lib, a: lib.as_tensor(a, dtype=lib.float32),
    "as_tensor other dtype": lambda lib, a: lib.as_tensor(a, dtype=lib.float64),
    "asarray": lambda lib, a: lib.asarray(a),
    "asarray copy": lambda lib, a: lib.asarray(a, copy=True),
    "asarray copy=False": lambda lib, a: lib.asarray(a, copy=False),
    "tensor": lambda lib, a: lib.tensor(a),
    "from_numpy of a view": lambda lib, a: lib.from_numpy(a[:, :]),
}


@pytest.mark.parametrize("how", list(SHARING))
def test_sharing_with_numpy_matches_torch(how):
    t, c = _both(lambda lib: _sharing_after_writes(lib, SHARING[how]))
    assert c == t


def test_numpy_shares_memory_with_the_tensor():
    for lib in (torch, cinder):
        x = lib.zeros(3)
        arr = x.numpy()
        arr[1] = 7.0
        assert float(x[1]) == 7.0, lib.__name__
        x.add_(1)
        assert arr[0] == 1.0, lib.__name__


def test_from_numpy_keeps_strides_of_a_transposed_array():
    arr = np.arange(6, dtype=np.float64).reshape(2, 3).T
    t, c = _both(lambda lib: lib.from_numpy(arr).stride())
    assert c == t
    assert cinder.from_numpy(arr).data_ptr() == arr.ctypes.data


@pytest.mark.parametrize("name", ["as_tensor", "asarray"])
def test_tensor_input_is_returned_itself(name):
    for lib in (torch, cinder):
        x = lib.ones(3)
        assert getattr(lib, name)(x) is x, lib.__name__
        assert getattr(lib, name)(x, dtype=lib.float32) is x, lib.__name__
        y = getattr(lib, name)(x, dtype=lib.float64)
        assert y is not x and str(y.dtype) == "torch.float64", lib.__name__


def test_asarray_copy_and_requires_grad():
    for lib in (torch, cinder):
        x = lib.ones(3)
        copied = lib.asarray(x, copy=True)
        assert copied.data_ptr() != x.data_ptr(), lib.__name__
        copied.add_(1)
        assert float(x[0]) == 1.0, lib.__name__
        assert lib.asarray(x, requires_grad=True).requires_grad, lib.__name__


ALIAS_ERRORS = {
    "ndarray other dtype": lambda lib: lib.asarray(np.arange(3.0), dtype=lib.float32,
                                                   copy=False),
    "tensor other dtype": lambda lib: lib.asarray(lib.ones(2), dtype=lib.float64, copy=False),
    "list": lambda lib: lib.asarray([1, 2], copy=False),
}


@pytest.mark.parametrize("case", list(ALIAS_ERRORS))
def test_asarray_copy_false_refuses_copies(case):
    t_type, t_msg = _type_and_message(lambda: ALIAS_ERRORS[case](torch))
    c_type, c_msg = _type_and_message(lambda: ALIAS_ERRORS[case](cinder))
    assert t_type is not None
    assert c_type == t_type, f"cinder {c_type}: {c_msg}; PyTorch {t_type}: {t_msg}"
    assert "can't alias" in c_msg


# ----------------------------------------------------------------------------------------------
# Warnings
# ----------------------------------------------------------------------------------------------

def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category.__name__, str(w.message)) for w in caught]


WARNING_CASES = {
    "tensor(tensor)": lambda lib: lib.tensor(lib.ones(2)),
    "new_tensor(tensor)": lambda lib: lib.ones(2).new_tensor(lib.ones(2)),
    "range": lambda lib: lib.range(0, 3),
    "tensor(list)": lambda lib: lib.tensor([1, 2]),
    "arange": lambda lib: lib.arange(3),
    "zeros out= resize": lambda lib: lib.zeros(4, out=lib.zeros(2)),
}


@pytest.mark.parametrize("case", list(WARNING_CASES))
def test_warnings_match_torch(case):
    t, c = _both(lambda lib: _warnings_of(lambda: WARNING_CASES[case](lib)))
    assert [w[0] for w in c] == [w[0] for w in t]
    for (_, cm), (_, tm) in zip(c, t):
        assert cm.split("(Triggered")[0].strip() == tm.split("(Triggered")[0].strip()


# ----------------------------------------------------------------------------------------------
# Inference under set_default_dtype
# ----------------------------------------------------------------------------------------------

DEFAULT_DTYPE_CASES = {
    "tensor float": lambda lib: lib.tensor([1.5, 2]),
    "tensor int": lambda lib: lib.tensor([1, 2]),
    "tensor complex": lambda lib: lib.tensor([1j]),
    "tensor empty": lambda lib: lib.tensor([]),
    "zeros": lambda lib: lib.zeros(2),
    "full float": lambda lib: lib.full((2,), 1.5),
    "full int": lambda lib: lib.full((2,), 1),
    "full complex": lambda lib: lib.full((2,), 1 + 1j),
    "arange float": lambda lib: lib.arange(0.5),
    "arange int": lambda lib: lib.arange(3),
    "linspace": lambda lib: lib.linspace(0, 1, 3),
    "logspace": lambda lib: lib.logspace(0, 1, 3),
    "eye": lambda lib: lib.eye(2),
    "rand": lambda lib: lib.rand(2),
    "ones_like int": lambda lib: lib.ones_like(lib.tensor([1])),
    "int tensor * float": lambda lib: lib.tensor([1]) * 1.5,
}


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("case", list(DEFAULT_DTYPE_CASES))
def test_dtype_inference_follows_the_default_dtype(case, default):
    dtypes = []
    for lib in (torch, cinder):
        lib.set_default_dtype(getattr(lib, default))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                dtypes.append(str(DEFAULT_DTYPE_CASES[case](lib).dtype))
        finally:
            lib.set_default_dtype(lib.float32)
    assert dtypes[1] == dtypes[0]


def test_set_default_dtype_refuses_integers():
    t_type, _ = _type_and_message(lambda: torch.set_default_dtype(torch.int64))
    c_type, _ = _type_and_message(lambda: cinder.set_default_dtype(cinder.int64))
    assert c_type == t_type == "TypeError"


# ----------------------------------------------------------------------------------------------
# requires_grad and new_* inheritance
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn", "eye"])
def test_requires_grad_argument(name):
    t, c = _both(lambda lib: getattr(lib, name)(2, requires_grad=True))
    assert c.requires_grad and t.requires_grad and c.is_leaf and c.grad_fn is None


def test_requires_grad_on_integer_creation_is_an_error():
    t_type, _ = _type_and_message(lambda: torch.zeros(2, dtype=torch.int64, requires_grad=True))
    c_type, _ = _type_and_message(lambda: cinder.zeros(2, dtype=cinder.int64,
                                                       requires_grad=True))
    assert c_type == t_type == "RuntimeError"


@pytest.mark.parametrize("method", ["new_zeros", "new_ones", "new_empty"])
def test_new_methods_inherit_dtype_and_not_requires_grad(method):
    for lib in (torch, cinder):
        x = lib.ones(2, dtype=lib.float64, requires_grad=True)
        y = getattr(x, method)((3,))
        assert str(y.dtype) == "torch.float64" and not y.requires_grad, lib.__name__
        assert tuple(y.shape) == (3,)
