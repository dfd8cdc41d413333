"""repr(tensor) must match PyTorch character for character.

Every case builds one NumPy array, turns it into a torch tensor and a cinder tensor, and compares
the two reprs. torch (the real library, CPU build) is the oracle: no expected string is written by
hand.

The cinder side is a real cinder tensor made by ``cinder.tensor`` (with real autograd for the
``grad_fn`` cases) whenever that works. Where it does not -- and always for what cannot be built on
this machine (CUDA and meta tensors, Tensor subclasses) -- it is ``FakeTensor``, a stand-in with
just the attributes ``cinder._tensor_str.tensor_repr`` reads (dtype, shape, device, grad info and
``_host_numpy``).
"""

import dataclasses
import math

import numpy as np
import pytest
import torch

from cinder import _device as cdevice
from cinder import _dtype as cdtype
from cinder import _tensor_str


def _real_cinder_works():
    try:
        import cinder

        cinder.tensor([1.0])
        return True
    except Exception:  # noqa: BLE001 - any failure means "not ready yet"
        return False


USE_REAL_CINDER = _real_cinder_works()


# ----------------------------------------------------------------------------------------------
# Building the two tensors
# ----------------------------------------------------------------------------------------------

class FakeGradFn:
    """Stands in for an autograd node: only ``name()`` is used by the printer."""

    def __init__(self, name):
        self._name = name

    def name(self):
        return self._name


class FakeTensor:
    """The minimum of a cinder Tensor that printing needs."""

    def __init__(self, array, dtype, device="cpu", requires_grad=False, grad_fn=None):
        self._array = np.asarray(array, dtype=dtype.numpy_dtype)
        self.dtype = dtype
        self.shape = tuple(self._array.shape)
        self.ndim = self._array.ndim
        self.device = cdevice.device(device)
        self.requires_grad = requires_grad or grad_fn is not None
        self.grad_fn = grad_fn
        self.is_leaf = grad_fn is None

    def numel(self):
        return int(self._array.size)

    def _host_numpy(self):
        return self._array.copy()

    def __repr__(self):
        return _tensor_str.tensor_repr(self)

    __str__ = __repr__


def torch_from_numpy(array, dtype_name):
    """A torch tensor holding exactly ``array``'s values (bfloat16 goes through float32)."""
    if dtype_name == "bfloat16":
        return torch.from_numpy(np.asarray(array, np.float32).copy()).to(torch.bfloat16)
    return torch.from_numpy(np.array(array, dtype=getattr(np, dtype_name), copy=True))


def cinder_from_numpy(array, dtype_name, requires_grad=False):
    dtype = getattr(cdtype, dtype_name)
    array = np.asarray(array, dtype=dtype.numpy_dtype)
    if USE_REAL_CINDER:
        import cinder

        return cinder.tensor(array, dtype=dtype, requires_grad=requires_grad)
    return FakeTensor(array, dtype, requires_grad=requires_grad)


def as_numpy(values, dtype_name):
    """The test array in its final dtype (so rounding to e.g. float16 happens once, here).

    Values too large for a small float type become inf on purpose, hence the errstate.
    """
    with np.errstate(over="ignore"):
        return np.asarray(values, dtype=getattr(cdtype, dtype_name).numpy_dtype)


@dataclasses.dataclass
class Case:
    id: str
    values: object               # anything np.asarray accepts, or a zero-argument callable
    dtype: str = "float32"
    options: dict = dataclasses.field(default_factory=dict)  # set_printoptions(**options)
    default_dtype: str | None = None                          # set_default_dtype for the case

    def array(self):
        values = self.values() if callable(self.values) else self.values
        return as_numpy(values, self.dtype)


def _rng():
    return np.random.default_rng(1234)


def _randn(*shape):
    return lambda: _rng().standard_normal(shape)


def _randint(low, high, *shape):
    return lambda: _rng().integers(low, high, shape)


def _randc(*shape):
    def make():
        rng = _rng()
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return make


NAN, INF = math.nan, math.inf

CASES = [
    # --- every dtype ------------------------------------------------------------------------
    Case("bool", [True, False, True], "bool"),
    Case("bool_all_true_2d", [[True, True], [True, True]], "bool"),
    Case("uint8", [0, 255, 7], "uint8"),
    Case("int8", [-128, 127, 0, 5], "int8"),
    Case("int16", [-300, 12, 32767], "int16"),
    Case("int32_2d", [[1, -20], [300, 4]], "int32"),
    Case("int64", [1, 2, 3], "int64"),
    Case("int64_mixed_widths", [-1000, 5, 12, 0], "int64"),
    Case("float16", [0.1, 1.5, -2.25], "float16"),
    Case("float16_extremes", [65504.0, 6e-5, 1.0], "float16"),
    Case("bfloat16", [0.1, 1.5, -3.0e38], "bfloat16"),
    Case("bfloat16_whole", [1.0, 2.0, 256.0], "bfloat16"),
    Case("float32", [1.5, -2.25, 3.125], "float32"),
    Case("float64_random_2d", _randn(3, 4), "float64"),
    Case("complex64", [1 + 2j, -3.5 - 0.5j], "complex64"),
    Case("complex128_2d", [[1 + 2j, 0.25 - 1j], [-3j, 4.5]], "complex128"),
    Case("complex_nan_inf", [complex(1, NAN), complex(NAN, 1), complex(INF, -INF)], "complex64"),
    Case("complex_whole", [1 + 2j, 3 - 4j, -0.0 - 0.0j], "complex64"),
    Case("complex_mixed_scale", [1e-6 + 1j, 5.0 + 2.5j], "complex128"),
    # --- 0-d ---------------------------------------------------------------------------------
    Case("0d_float", 3.5),
    Case("0d_int", 7, "int64"),
    Case("0d_uint8", 200, "uint8"),
    Case("0d_bool", True, "bool"),
    Case("0d_nan", NAN),
    Case("0d_neg_zero", -0.0),
    Case("0d_tiny", 1e-10, "float64"),
    Case("0d_complex", 2 - 3.25j, "complex64"),
    # --- empty -------------------------------------------------------------------------------
    Case("empty_float32", np.zeros((0,))),
    Case("empty_int64", np.zeros((0,)), "int64"),
    Case("empty_bool", np.zeros((0,)), "bool"),
    Case("empty_complex64", np.zeros((0,)), "complex64"),
    Case("empty_0x3", np.zeros((0, 3))),
    Case("empty_2x0x4_float64", np.zeros((2, 0, 4)), "float64"),
    # --- ranks ---------------------------------------------------------------------------------
    Case("1d", np.arange(6) / 4),
    Case("2d", _randn(3, 3)),
    Case("3d", _randn(2, 3, 4)),
    Case("4d", _randn(2, 2, 2, 3), "float64"),
    Case("4d_int", np.arange(24).reshape(2, 3, 2, 2), "int64"),
    # --- magnitudes, signs and special values ---------------------------------------------------
    Case("tiny", [1e-10, 2e-10, 3.5e-10], "float64"),
    Case("huge", [1e20, -2e20], "float64"),
    Case("mixed_magnitudes", [1e-3, 1.0, 1e3]),
    Case("ratio_exactly_1000", [1.0, 1000.0]),
    Case("ratio_just_over_1000", [1.0, 1000.5]),
    Case("just_under_1e-4", [9.9e-5, 0.5], "float64"),
    Case("above_1e8", [1.5e8, 2.0], "float64"),
    Case("negative", [-1.25, -0.5, -100.125]),
    Case("nan_inf", [1.5, NAN, INF, -INF]),
    Case("only_nonfinite", [NAN, INF, -INF]),
    Case("zeros", [0.0, 0.0, -0.0]),
    Case("whole_floats", [1.0, 2.0]),
    Case("whole_with_nan", [1.0, NAN, INF, -20.0]),
    Case("whole_huge_sci", [1e9, 2.0, 3.0], "float64"),
    Case("rounds_up_to_wider", [9.99996, 1.5], "float64"),
    Case("subnormal", [5e-324, 1.0], "float64"),
    Case("zero_and_large", [0.0, 12345.0]),
    # --- summarisation (threshold 1000) ---------------------------------------------------------
    Case("summarised_2000", np.arange(2000) / 7),
    Case("summarised_100x100", _randn(100, 100)),
    Case("summarised_3x400_int", _randint(-50, 50, 3, 400), "int64"),
    Case("summarised_1001_int", np.arange(1001), "int64"),
    Case("summarised_hidden_outlier", np.concatenate([np.ones(600), [1e12], np.ones(600)])),
    Case("summarised_3d", _randn(10, 10, 20), "float64"),
    Case("summarised_complex", _randc(2000), "complex64"),
    Case("summarised_bool", np.arange(1500) % 3 == 0, "bool"),
    # --- wrapping at linewidth 80 ---------------------------------------------------------------
    Case("wrap_float_row", _randn(30)),
    Case("wrap_int_row", np.arange(50) * 37, "int64"),
    Case("wrap_2d_rows", _randn(3, 25), "float64"),
    Case("wrap_complex_row", _randc(12), "complex128"),
    Case("wrap_complex_wide", lambda: _randc(12)() * 30, "complex128"),  # 3 per line, not 4
    # --- print options --------------------------------------------------------------------------
    Case("precision_2", [1.23456, -7.891], options={"precision": 2}),
    Case("precision_8_float64", [1 / 3, 2 / 3], "float64", {"precision": 8}),
    Case("precision_0", [1.5, 2.25, 1e-3], "float64", {"precision": 0}),
    Case("sci_mode_true", [1.5, 2.0, 300.0], options={"sci_mode": True}),
    Case("sci_mode_true_whole", [1.0, 2.0], options={"sci_mode": True}),
    Case("sci_mode_false", [1e-10, 1.0, 1e10], "float64", {"sci_mode": False}),
    Case("threshold_5", np.arange(10), "int64", {"threshold": 5}),
    Case("edgeitems_1", _randn(6, 6), options={"threshold": 10, "edgeitems": 1}),
    Case("edgeitems_0_summarised_1d", np.arange(10.0), options={"threshold": 5, "edgeitems": 0}),
    Case("edgeitems_0_summarised_2d", np.arange(20.0).reshape(4, 5),
         options={"threshold": 5, "edgeitems": 0}),
    Case("edgeitems_0_small", [1.0, 2.0, 3.0], options={"edgeitems": 0}),
    Case("linewidth_40", _randn(4, 12), options={"linewidth": 40}),
    Case("linewidth_200", _randn(40), "float64", {"linewidth": 200}),
    Case("linewidth_30_suffix_wraps", [1.5, 2.5, 3.5], "float64", {"linewidth": 30}),
    Case("linewidth_40_suffix_wraps", [1.5, 2.5, 3.5], "float64", {"linewidth": 40}),
    Case("linewidth_70_suffix_wraps", [1.5, 2.5, 3.5], "float64", {"linewidth": 70}),
    Case("profile_short", _randn(3000), options={"profile": "short"}),
    Case("profile_full", np.arange(1200), "int64", {"profile": "full"}),
    Case("profile_short_with_precision", _randn(5), options={"profile": "short", "precision": 6}),
    # --- default dtype float64: which dtypes get a suffix ---------------------------------------
    Case("default64_float64", [1.5, 2.0], "float64", default_dtype="float64"),
    Case("default64_float32", [1.5, 2.0], "float32", default_dtype="float64"),
    Case("default64_complex128", [1 + 1j], "complex128", default_dtype="float64"),
    Case("default64_complex64", [1 + 1j], "complex64", default_dtype="float64"),
    Case("default64_empty_float32", np.zeros((0,)), "float32", default_dtype="float64"),
    Case("default64_empty_float64", np.zeros((0, 2)), "float64", default_dtype="float64"),
    Case("default64_int64", [1, 2], "int64", default_dtype="float64"),
]
CASES_BY_ID = {case.id: case for case in CASES}


# ----------------------------------------------------------------------------------------------
# Fixtures: every test starts and ends with default options and default dtype in both libraries
# ----------------------------------------------------------------------------------------------

def _reset_both():
    torch.set_printoptions(profile="default")
    _tensor_str.set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)
    cdtype.set_default_dtype(cdtype.float32)


@pytest.fixture(autouse=True)
def restore_defaults():
    _reset_both()
    yield
    _reset_both()


def _apply_case_settings(case):
    if case.options:
        torch.set_printoptions(**case.options)
        _tensor_str.set_printoptions(**case.options)
    if case.default_dtype:
        torch.set_default_dtype(getattr(torch, case.default_dtype))
        cdtype.set_default_dtype(getattr(cdtype, case.default_dtype))


# ----------------------------------------------------------------------------------------------
# The table
# ----------------------------------------------------------------------------------------------

def test_table_is_large_enough():
    assert len(CASES) >= 50
    assert len(CASES_BY_ID) == len(CASES), "case ids must be unique"
    dtypes = {case.dtype for case in CASES}
    assert dtypes >= {"bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                      "float32", "float64", "complex64", "complex128"}


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_repr_matches_torch(case):
    array = case.array()
    expected_tensor = torch_from_numpy(array, case.dtype)
    actual_tensor = cinder_from_numpy(array, case.dtype)
    _apply_case_settings(case)
    assert repr(actual_tensor) == repr(expected_tensor)


@pytest.mark.parametrize("case_id", ["float32", "complex64", "summarised_2000", "empty_0x3",
                                     "0d_int", "wrap_2d_rows"])
def test_str_equals_repr(case_id):
    case = CASES_BY_ID[case_id]
    array = case.array()
    expected_tensor = torch_from_numpy(array, case.dtype)
    actual_tensor = cinder_from_numpy(array, case.dtype)
    assert str(actual_tensor) == repr(actual_tensor)
    assert str(actual_tensor) == str(expected_tensor)


# ----------------------------------------------------------------------------------------------
# Seeded random tensors: many shapes, dtypes, scales and options beyond the hand-picked table
# ----------------------------------------------------------------------------------------------

ALL_DTYPE_NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                   "float32", "float64", "complex64", "complex128"]
SPECIAL_FLOATS = [0.0, -0.0, NAN, INF, -INF, 1.0, 0.5, 1e-5, 123456.789, 9.99995, 1.5e-4]


def _random_real(rng, shape, dtype_name):
    """Values of one of several flavours: random scale, whole numbers, special values, ..."""
    if dtype_name == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if not dtype_name.startswith(("float", "bfloat", "complex")):
        info = np.iinfo(getattr(np, dtype_name))
        return rng.integers(max(info.min, -(10**6)), min(info.max, 10**6), shape)
    flavour = rng.integers(0, 5)
    if flavour == 0:
        return rng.standard_normal(shape) * 10.0 ** rng.integers(-12, 25)
    if flavour == 1:
        return np.round(rng.standard_normal(shape) * 10.0 ** rng.integers(0, 12))
    if flavour == 2:
        return rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 8, shape)
    if flavour == 3:
        return rng.choice(SPECIAL_FLOATS, shape)
    return np.round(rng.uniform(-1000, 1000, shape), rng.integers(0, 5))


def _random_case(seed):
    rng = np.random.default_rng(seed)
    dtype_name = ALL_DTYPE_NAMES[rng.integers(len(ALL_DTYPE_NAMES))]
    shape = tuple(int(n) for n in rng.integers(1, 7, rng.integers(0, 5)))
    if rng.random() < 0.2:
        shape = (int(rng.integers(900, 2500)),)  # long enough to be summarised
    values = _random_real(rng, shape, dtype_name)
    if dtype_name.startswith("complex"):
        # Filled part by part: `x + 1j * y` would turn an infinite y into nan+infj.
        real, values = values, np.empty(shape, np.complex128)
        values.real, values.imag = real, _random_real(rng, shape, "float64")
    options = {}
    if rng.random() < 0.5:
        choices = {"precision": [0, 2, 6], "threshold": [0, 5, 50], "edgeitems": [0, 1, 2],
                   "linewidth": [20, 40, 120], "sci_mode": [True, False]}
        for name, values_for_name in choices.items():
            if rng.random() < 0.3:
                options[name] = values_for_name[rng.integers(len(values_for_name))]
    return Case(f"random_{seed}", values, dtype_name, options)


@pytest.mark.parametrize("seed", range(200))
def test_random_tensor_matches_torch(seed):
    case = _random_case(seed)
    array = case.array()
    expected_tensor = torch_from_numpy(array, case.dtype)
    actual_tensor = cinder_from_numpy(array, case.dtype)
    _apply_case_settings(case)
    assert repr(actual_tensor) == repr(expected_tensor), (case.dtype, array.shape, case.options)


# ----------------------------------------------------------------------------------------------
# Autograd suffixes
# ----------------------------------------------------------------------------------------------

GRAD_CASES = {
    # id: (values, dtype, operation applied to a leaf that requires grad; None = the leaf itself)
    "leaf": ([1.5, -2.0], "float32", None),
    "leaf_float64": ([1.5, -2.0], "float64", None),
    "leaf_0d": (3.0, "float32", None),
    "mul": ([1.5, -2.0], "float32", lambda x: x * 2),
    "add_float64": ([[1.0, 2.0], [3.0, 4.0]], "float64", lambda x: x + x),
    "sum_0d": ([1.0, 2.0, 3.5], "float32", lambda x: x.sum()),
    "mul_wraps_suffix": (lambda: _rng().standard_normal((3, 8)), "float64", lambda x: x * 3),
}


def _leaf_pair(values, dtype_name):
    array = as_numpy(values() if callable(values) else values, dtype_name)
    leaf_torch = torch_from_numpy(array, dtype_name).requires_grad_()
    return array, leaf_torch


@pytest.mark.parametrize("case_id", list(GRAD_CASES))
def test_grad_suffixes(case_id):
    values, dtype_name, op = GRAD_CASES[case_id]
    array, leaf_torch = _leaf_pair(values, dtype_name)
    expected = leaf_torch if op is None else op(leaf_torch)

    if USE_REAL_CINDER:
        leaf_cinder = cinder_from_numpy(array, dtype_name, requires_grad=True)
        actual = leaf_cinder if op is None else op(leaf_cinder)
    elif op is None:
        actual = FakeTensor(array, getattr(cdtype, dtype_name), requires_grad=True)
    else:
        # Without cinder's autograd the stand-in takes torch's result values and node name.
        grad_fn = FakeGradFn(type(expected.grad_fn).__name__)
        actual = FakeTensor(expected.detach().numpy(), getattr(cdtype, dtype_name),
                            grad_fn=grad_fn)
    assert repr(actual) == repr(expected)


# ----------------------------------------------------------------------------------------------
# Devices: torch's CPU build has no CUDA, so the oracle is a torch tensor whose `device` claims
# to be cuda:0. Naming the subclass `tensor` keeps torch's prefix 'tensor(' for it.
# ----------------------------------------------------------------------------------------------

class tensor(torch.Tensor):  # lower-case on purpose: torch prints the class name as prefix
    @property
    def device(self):
        return torch.device("cuda", 0)


@pytest.mark.parametrize("case_id", ["float32", "int32_2d", "float64_random_2d", "empty_0x3",
                                     "linewidth_30_suffix_wraps", "linewidth_40_suffix_wraps",
                                     "linewidth_70_suffix_wraps"])
def test_cuda_device_suffix(case_id):
    case = CASES_BY_ID[case_id]
    array = case.array()
    _apply_case_settings(case)
    expected = torch_from_numpy(array, case.dtype).as_subclass(tensor)
    actual = FakeTensor(array, getattr(cdtype, case.dtype), device="cuda:0")
    assert repr(actual) == repr(expected)


@pytest.mark.parametrize("shape, dtype_name", [((3,), "float32"), ((2, 0), "int64"),
                                               ((), "float64")])
def test_meta_device(shape, dtype_name):
    expected = torch.empty(shape, dtype=getattr(torch, dtype_name), device="meta")
    actual = FakeTensor(np.zeros(shape), getattr(cdtype, dtype_name), device="meta")
    assert repr(actual) == repr(expected)


# ----------------------------------------------------------------------------------------------
# tensor_contents and the options API itself
# ----------------------------------------------------------------------------------------------

def test_tensor_contents_replaces_the_body():
    array = as_numpy([1.0, 2.0], "float64")
    torch_tensor = torch_from_numpy(array, "float64")
    expected = torch._tensor_str._str(torch_tensor, tensor_contents="[custom]")
    actual = _tensor_str.tensor_repr(FakeTensor(array, cdtype.float64), tensor_contents="[custom]")
    assert actual == expected


def test_get_printoptions_matches_torch():
    assert _tensor_str.get_printoptions() == torch._tensor_str.get_printoptions()
    for kwargs in [{"profile": "full"}, {"profile": "short", "linewidth": 120},
                   {"precision": 7, "sci_mode": True}, {"threshold": 10}]:
        torch.set_printoptions(**kwargs)
        _tensor_str.set_printoptions(**kwargs)
        assert _tensor_str.get_printoptions() == torch._tensor_str.get_printoptions()


def test_set_printoptions_resets_sci_mode_like_torch():
    for module in (torch, _tensor_str):
        module.set_printoptions(sci_mode=True)
        module.set_printoptions(precision=3)  # sci_mode not given -> back to automatic
    assert _tensor_str.PRINT_OPTS.sci_mode is None
    assert _tensor_str.get_printoptions() == torch._tensor_str.get_printoptions()


def test_printoptions_context_manager_restores():
    array = as_numpy([1.123456, 2.5], "float32")
    actual = FakeTensor(array, cdtype.float32)
    expected = torch_from_numpy(array, "float32")
    before = _tensor_str.get_printoptions()
    with _tensor_str.printoptions(precision=2, sci_mode=True), \
            torch._tensor_str.printoptions(precision=2, sci_mode=True):
        assert _tensor_str.PRINT_OPTS.precision == 2
        assert repr(actual) == repr(expected)
    assert _tensor_str.get_printoptions() == before
    assert repr(actual) == repr(expected)


# ----------------------------------------------------------------------------------------------
# Subclasses print their own class name (and the indent follows the longer prefix)
# ----------------------------------------------------------------------------------------------

class Tensor(FakeTensor):
    """Stand-in for cinder's Tensor class; the printer recognises it by name and module."""

    __module__ = "cinder._tensor"


class Parameter(Tensor):
    """Stand-in for cinder's nn.Parameter."""

    __module__ = "cinder.nn.parameter"


def test_subclass_prefix():
    class MyTensor(torch.Tensor):
        pass

    class MyTensorCinder(Tensor):
        pass

    MyTensorCinder.__name__ = "MyTensor"
    array = as_numpy(np.arange(40.0), "float32")
    expected = torch_from_numpy(array, "float32").as_subclass(MyTensor)
    assert repr(MyTensorCinder(array, cdtype.float32)) == repr(expected)
    # The base class and Parameter keep the plain 'tensor(' prefix.
    assert repr(Tensor(array, cdtype.float32)) == repr(torch_from_numpy(array, "float32"))
    expected_param = torch._tensor_str._str(torch.nn.Parameter(torch_from_numpy(array, "float32")))
    assert repr(Parameter(array, cdtype.float32, requires_grad=True)) == expected_param


def test_parameter_subclass_is_wrapped():
    class MyParam(torch.nn.Parameter):
        pass

    class MyParamCinder(Parameter):
        pass

    MyParamCinder.__name__ = "MyParam"
    array = as_numpy([1.0, 2.5], "float32")
    expected = torch._tensor_str._str(MyParam(torch_from_numpy(array, "float32")))
    actual = _tensor_str.tensor_repr(MyParamCinder(array, cdtype.float32, requires_grad=True))
    assert actual == expected
