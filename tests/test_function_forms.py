"""torch.<op>_ function forms, predicates and helpers (cinder/ops/function_forms.py), and the
clear errors for API families left out on purpose (cinder/ops/_unsupported.py)."""

import pytest
from oracle import check

import cinder
from cinder.ops.function_forms import _INPLACE_FUNCTIONS

# torch.<op>_ functions cinder publishes (spelled out: test_op_coverage.py looks for the names)
INPLACE_FUNCTIONS = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_",
    "arctan_", "arctanh_", "as_strided_", "asin_", "asinh_", "atan_", "atanh_", "ceil_",
    "clamp_", "clamp_max_", "clamp_min_", "clip_", "conj_physical_", "cos_", "cosh_",
    "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_",
    "floor_", "frac_", "gcd_", "i0_", "index_put_", "lcm_", "ldexp_", "log10_", "log1p_",
    "log2_", "log_", "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_",
    "relu_", "resize_as_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_",
    "square_", "tan_", "tanh_", "trunc_", "xlogy_",
)


def test_the_list_is_current():
    assert set(INPLACE_FUNCTIONS) == set(_INPLACE_FUNCTIONS)

SAMPLE_ARGS = {"clamp_": "min=-0.5", "clamp_max_": "0.5", "clamp_min_": "-0.5", "clip_": "-1, 1",
               "fill_": "2.0", "gcd_": None, "lcm_": None, "ldexp_": "L.tensor([1, 2, 3])",
               "xlogy_": "2.0", "addmv_": None, "as_strided_": "(2,), (1,)",
               "index_put_": "(L.tensor([0]),), L.tensor(9.0)", "resize_as_": "L.zeros(2)",
               "logit_": "", "nan_to_num_": ""}


@pytest.mark.parametrize("name", [n for n in _INPLACE_FUNCTIONS if SAMPLE_ARGS.get(n, "")
                                  is not None])
def test_inplace_function_matches_pytorch(name):
    args = SAMPLE_ARGS.get(name, "")
    sep = ", " if args else ""
    check(f"(lambda x: (L.{name}(x{sep}{args}), x))(L.tensor([0.25, 0.5, 0.75]))")


@pytest.mark.parametrize("expr", [
    "L.gcd_(L.tensor([4, 6]), L.tensor([6, 9]))", "L.lcm_(L.tensor([4, 6]), L.tensor([6, 9]))",
    "L.addmv_(L.zeros(2), L.ones(2, 3), L.ones(3))", "L.abs_([1.0])",
    "L.is_conj(L.ones(2))", "L.is_neg(L.ones(2))", "L.is_same_size(L.ones(2), L.ones(3))",
    "L.is_same_size(L.ones(2, 1), L.ones(2, 1))", "L.is_nonzero(L.tensor([0.0]))",
    "L.is_nonzero(L.tensor([2]))", "L.is_nonzero(L.tensor([1, 2]))", "L.is_nonzero(L.tensor([]))",
    "L.unsafe_chunk(L.arange(5), 2)", "L.unsafe_split(L.arange(7), 3)",
    "L.unsafe_split_with_sizes(L.arange(5), [2, 3])", "L.ones(2).is_same_size(L.ones(2))",
    "L.zeros(2, 3).apply_(lambda v: v + 1.5)", "L.arange(3.0).map_(L.tensor([1.0, 2, 3]), "
    "lambda a, b: a * b + 1)",
    "L.is_signed(L.zeros(1, dtype=L.uint8))", "L.is_signed(L.zeros(1))",
    "L.is_inference(L.zeros(1))", "L.get_device(L.zeros(1))", "L.typename(L.zeros(2))",
    "L.typename(1.0)", "L.typename(L.zeros(2, dtype=L.int64))",
    "L.adjoint(L.arange(6.).reshape(2, 3))", "L.unravel_index(L.tensor([5, 7, -1]), (3, 4))",
    "L.unravel_index(L.tensor(4), 6)", "L.unravel_index(L.tensor([12, -13]), (3, 4))",
    "L.scalar_tensor(3)", "L.scalar_tensor(2.5, dtype=L.float64)",
    "L.empty_strided((2, 3), (1, 2)).stride()", "L.empty_strided((2, 3), (1, 2)).shape",
    "L.zeros(2).new_empty_strided((2, 2), (1, 2)).stride()",
    "L.as_strided_scatter(L.zeros(4), L.ones(2), (2,), (2,))",
    "L.as_strided_scatter(L.zeros(3, 3), L.ones(3), (3,), (4,))",
    "(L.e, L.pi, L.inf, L.nan, L.newaxis)", "L.zeros(3)[L.newaxis].shape",
])
def test_helpers(expr):
    check(expr)


@pytest.mark.parametrize("expr,family", [
    ("cinder.sparse_coo_tensor", "sparse layouts"), ("cinder.zeros(2).to_sparse", "sparse"),
    ("cinder.quantize_per_tensor", "quantized"), ("cinder.zeros(2).int_repr", "quantized"),
    ("cinder.nested_tensor", "nested"), ("cinder.zeros(2).rename", "named tensors"),
    ("cinder.float8_e4m3fn", "dtypes"), ("cinder.ScriptModule", "TorchScript"),
])
def test_left_out_families_raise_naming_the_family(expr, family):
    with pytest.raises(AttributeError, match=family):
        eval(expr, {"cinder": cinder})


def test_plain_missing_attribute_keeps_pythons_message():
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'no_such_method'"):
        cinder.zeros(2).no_such_method  # noqa: B018
