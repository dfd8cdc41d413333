"""Type promotion against PyTorch: every pair of the 12 dtypes through ``add`` (tensor-tensor,
tensor-0d, 0d-tensor, 0d-0d), every dtype with Python scalars (int, float, complex, bool),
``torch.result_type`` / ``promote_types`` / ``can_cast``, true division of integers (the
default float dtype) and comparisons (always bool).

PyTorch's ComplexHalf (complex32) has no cinder counterpart: the few float16-with-complex
combinations that produce it are skipped, with that reason.
"""

import itertools
import warnings

import pytest
import torch

import cinder
from oracle import check

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128")
PAIRS = list(itertools.product(DTYPES, DTYPES))
SCALARS = {"int": 3, "negative int": -2, "float": 2.5, "complex": 1.5j, "bool": True}


def ones(lib, dtype, shape=(2,)):
    return lib.ones(shape, dtype=getattr(lib, dtype))


def outcome(fn):
    """('ok', dtype name) or ('error', exception type name)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = fn()
        except Exception as exc:  # noqa: BLE001 -- compared with PyTorch's
            return "error", type(exc).__name__
    if isinstance(result, (torch.Tensor, cinder.Tensor)):
        return "ok", str(result.dtype)
    return "ok", str(result)


def compare(fn_of_lib, what):
    t = outcome(lambda: fn_of_lib(torch))
    if t == ("ok", "torch.complex32"):
        pytest.skip("PyTorch's result is complex32 (ComplexHalf), which cinder does not have")
    c = outcome(lambda: fn_of_lib(cinder))
    assert c == t, f"{what}: cinder {c}, PyTorch {t}"


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_add_tensor_tensor(a, b):
    compare(lambda lib: ones(lib, a) + ones(lib, b), f"{a}[2] + {b}[2]")
    compare(lambda lib: ones(lib, a) + ones(lib, b, ()), f"{a}[2] + {b}[]")
    compare(lambda lib: ones(lib, a, ()) + ones(lib, b), f"{a}[] + {b}[2]")
    compare(lambda lib: ones(lib, a, ()) + ones(lib, b, ()), f"{a}[] + {b}[]")
    compare(lambda lib: lib.add(ones(lib, a, (2, 1)), ones(lib, b, (3,))), f"add({a}, {b})")


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_promote_types_result_type_can_cast(a, b):
    compare(lambda lib: lib.promote_types(getattr(lib, a), getattr(lib, b)),
            f"promote_types({a}, {b})")
    compare(lambda lib: lib.result_type(ones(lib, a), ones(lib, b)), f"result_type({a}, {b})")
    compare(lambda lib: lib.result_type(ones(lib, a), ones(lib, b, ())),
            f"result_type({a}, {b} 0-d)")
    compare(lambda lib: lib.can_cast(getattr(lib, a), getattr(lib, b)), f"can_cast({a}, {b})")


@pytest.mark.parametrize("kind", list(SCALARS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_and_python_scalar(dtype, kind):
    s = SCALARS[kind]
    compare(lambda lib: ones(lib, dtype) + s, f"{dtype}[2] + {s!r}")
    compare(lambda lib: s + ones(lib, dtype), f"{s!r} + {dtype}[2]")
    compare(lambda lib: ones(lib, dtype, ()) + s, f"{dtype}[] + {s!r}")
    compare(lambda lib: ones(lib, dtype) * s, f"{dtype}[2] * {s!r}")
    compare(lambda lib: ones(lib, dtype) - s, f"{dtype}[2] - {s!r}")
    compare(lambda lib: ones(lib, dtype) / s, f"{dtype}[2] / {s!r}")
    compare(lambda lib: lib.result_type(ones(lib, dtype), s), f"result_type({dtype}, {s!r})")
    compare(lambda lib: ones(lib, dtype) < s, f"{dtype}[2] < {s!r}")


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_division_and_comparison(a, b):
    compare(lambda lib: ones(lib, a) / ones(lib, b), f"{a} / {b}")
    if torch.result_type(ones(torch, a, ()), ones(torch, b)) != torch.complex32:
        compare(lambda lib: lib.true_divide(ones(lib, a, ()), ones(lib, b)),
                f"true_divide({a} 0-d, {b})")
    compare(lambda lib: ones(lib, a) == ones(lib, b), f"{a} == {b}")
    compare(lambda lib: lib.ge(ones(lib, a), ones(lib, b, ())), f"ge({a}, {b})")


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64"])
def test_integer_true_division_gives_the_default_float(dtype, default):
    for lib in (torch, cinder):
        lib.set_default_dtype(getattr(lib, default))
    try:
        compare(lambda lib: ones(lib, dtype) / ones(lib, dtype), f"{dtype} / {dtype}")
        compare(lambda lib: ones(lib, dtype) / 2, f"{dtype} / 2")
        compare(lambda lib: lib.div(ones(lib, dtype), 3), f"div({dtype}, 3)")
        compare(lambda lib: ones(lib, dtype) * 1.5, f"{dtype} * 1.5")
        compare(lambda lib: ones(lib, dtype) + 1j, f"{dtype} + 1j")
    finally:
        for lib in (torch, cinder):
            lib.set_default_dtype(lib.float32)


@pytest.mark.parametrize("dtype", DTYPES)
def test_comparisons_are_bool(dtype):
    for op in ("eq", "ne", "lt", "le", "gt", "ge"):
        compare(lambda lib, op=op: getattr(lib, op)(ones(lib, dtype), ones(lib, "float64")),
                f"{op}({dtype}, float64)")
        compare(lambda lib, op=op: getattr(lib, op)(ones(lib, dtype), 1), f"{op}({dtype}, 1)")


# A Python number on the left of a double tensor stays a double (PyTorch's wrapped number):
# it must not pass through float32 on its way to the result.
SCALAR_LEFT = [
    "(0.1 + L.tensor([1.1], dtype=L.float64)).tolist()",
    "L.add(0.1, L.tensor([1.1], dtype=L.float64)).tolist()",
    "(0.1 * L.tensor([1.1], dtype=L.float64)).tolist()",
    "(0.3 / L.tensor([1.1], dtype=L.float64)).tolist()",
    "(0.1 - L.tensor([1.1], dtype=L.float64)).tolist()",
    "(2 ** L.tensor([1.1], dtype=L.float64)).tolist()",
    "(0.1 + L.tensor([1.1 + 2j], dtype=L.complex128)).tolist()",
    "((0.1 + L.tensor([1.1], dtype=L.float32)).tolist(), (0.1 + L.tensor([1.1])).dtype)",
    "(0.1 + L.tensor([1, 2])).tolist()",
]


@pytest.mark.parametrize("expr", SCALAR_LEFT)
def test_python_number_on_the_left_keeps_double_precision(expr):
    check(expr)
