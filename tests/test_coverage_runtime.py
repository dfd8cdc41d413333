"""torch.* runtime switches, types, constants, streams/events, removed ops and the Tensor
metadata methods, against PyTorch (each expression runs on both libraries; the repr of the
value, or the exception type and message, must agree)."""

import warnings

import numpy as np
import pytest
import torch

import cinder
from oracle import check

LIBS = (torch, cinder)


@pytest.fixture(autouse=True)
def _restore_switches():
    """The switches are process-wide: every test leaves both libraries as it found them."""
    saved = [(lib.are_deterministic_algorithms_enabled(),
              lib.is_deterministic_algorithms_warn_only_enabled(),
              lib.get_float32_matmul_precision(), lib.is_warn_always_enabled()) for lib in LIBS]
    yield
    for lib, (det, warn_only, precision, always) in zip(LIBS, saved):
        lib.use_deterministic_algorithms(det, warn_only=warn_only)
        lib.set_float32_matmul_precision(precision)
        lib.set_warn_always(always)


def _both(code):
    """Run statements ``code`` (with ``L`` the library) on both; compare the value of ``out``."""
    results = []
    for lib in LIBS:
        scope = {"L": lib, "np": np}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(code, scope)
            results.append(("value", repr(scope.get("out"))))
        except Exception as e:  # noqa: BLE001 - the outcome compared
            results.append(("raises", type(e).__name__, str(e)))
    assert results[0] == results[1], code


SWITCH_SCRIPTS = [
    "L.use_deterministic_algorithms(True); out = (L.are_deterministic_algorithms_enabled(), "
    "L.get_deterministic_debug_mode(), L.is_deterministic_algorithms_warn_only_enabled())",
    "L.use_deterministic_algorithms(True, warn_only=True); out = "
    "(L.get_deterministic_debug_mode(), L.is_deterministic_algorithms_warn_only_enabled())",
    "L.use_deterministic_algorithms(1)",
    "L.use_deterministic_algorithms(True, warn_only='x')",
    *(f"L.set_deterministic_debug_mode({v!r}); out = (L.get_deterministic_debug_mode(), "
      "L.are_deterministic_algorithms_enabled(), "
      "L.is_deterministic_algorithms_warn_only_enabled())"
      for v in ("default", "warn", "error", 0, 1, 2, 3, "x", 1.5, None)),
    # fill_uninitialized_memory: NaN / the largest integer in new "empty" memory
    "L.use_deterministic_algorithms(True); out = (L.empty(3), L.empty(2, dtype=L.long), "
    "L.empty(2, dtype=L.bool), L.empty_like(L.ones(2)), L.ones(2).new_empty(2), "
    "L.empty_strided((2,), (1,)), L.empty(2, dtype=L.float64))",
    "L.use_deterministic_algorithms(True); import importlib; "
    "d = importlib.import_module(L.__name__ + '.utils.deterministic'); "
    "d.fill_uninitialized_memory = False; out = L.empty(0); "
    "d.fill_uninitialized_memory = True",
    *(f"L.set_float32_matmul_precision({v!r}); out = L.get_float32_matmul_precision()"
      for v in ("high", "medium", "highest", "low", 3)),
    *(f"L.set_warn_always({v!r}); out = L.is_warn_always_enabled()" for v in (True, False, 1)),
    *(f"out = L.set_flush_denormal({v!r})" for v in (0, "a")),
    *(f"out = L.set_num_interop_threads({v!r})" for v in (0, "a", 2.0)),
    "out = (L.init_num_threads(), type(L.get_num_interop_threads()))",
]


@pytest.mark.parametrize("code", SWITCH_SCRIPTS)
def test_switches(code):
    _both(code)


def test_flush_denormal_reports_support_honestly():
    # cinder cannot set the CPU's flush-to-zero flags from NumPy: it says so (False) and
    # denormals keep their value, which is what PyTorch does where it is unsupported.
    assert cinder.set_flush_denormal(True) is False
    assert cinder.tensor([1e-323], dtype=cinder.float64).item() != 0


def test_num_interop_threads_can_be_set_once():
    # once per process: both libraries in one fresh interpreter
    script = ("import torch, cinder\nfor L in (torch, cinder):\n    L.set_num_interop_threads(3)"
              "\n    print(L.get_num_interop_threads())\n    try:\n"
              "        L.set_num_interop_threads(3)\n    except RuntimeError as e:\n"
              "        print(e)\n")
    import subprocess
    import sys
    lines = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    assert len(lines) == 4 and lines[:2] == lines[2:]


def test_warn_once_honours_warn_always():
    from cinder._runtime import warn_once
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        cinder.set_warn_always(False)
        warn_once("test-key", "once")
        warn_once("test-key", "once")
        cinder.set_warn_always(True)
        warn_once("test-key", "once")
    assert len(seen) == 2


TYPE_EXPRS = [
    "L.layout", "L.memory_format", "type(L.strided)", "type(L.contiguous_format)",
    "L.legacy_contiguous_format", "L.legacy_contiguous_format is L.contiguous_format",
    "L.channels_last_3d", "type(L.channels_last_3d)", "L.layout()", "L.memory_format()",
    "pickle.loads(pickle.dumps(L.strided)) is L.strided",
    "pickle.loads(pickle.dumps([L.channels_last])) == [L.channels_last]",
    "L.ones(2).layout is L.strided",
    "L.TYPE_CHECKING", "L.USE_GLOBAL_DEPS", "L.USE_RTLD_GLOBAL_WITH_LIBTORCH",
    "[c.__name__ for c in L.OutOfMemoryError.__mro__]",
    "[c.__name__ for c in L.AcceleratorError.__mro__]",
    "[c.__name__ for c in L.FatalError.__mro__]",
    "L.Storage.__name__", "L.Storage().dtype", "isinstance(L.ones(2).storage(), L.Storage)",
    "issubclass(L.UntypedStorage, L.StorageBase)", "L.StorageBase.__name__",
    # streams and events on the CPU
    "L.Stream()", "L.Stream(device='cpu', priority=0)", "L.Event()",
    "L.Event(device='cpu', enable_timing=True)", "L.Event(blocking=True)",
    "(L.Stream().query(), L.Stream().synchronize(), L.Stream() == L.Stream())",
    "(L.Stream().device, L.Stream().device_type, L.Stream().device_index, L.Stream().stream_id)",
    "L.Stream().is_capturing()", "L.Stream().native_handle",
    "L.Stream().record_event()", "L.Stream().wait_stream(L.Stream())",
    "L.Stream().wait_event(L.Event())", "L.Stream('cuda')", "L.Event('cuda')", "L.Stream(3)",
    "(L.Event().query(), L.Event().wait(), L.Event().synchronize(), L.Event().event_id)",
    "L.Event().device", "L.Event().record()",
    "L.Event().elapsed_time(L.Event())",
    "L.Event(enable_timing=True).elapsed_time(L.Event(enable_timing=True))",
    # device modules
    "L.get_device_module('cpu').__name__.split('.')[-1]",
    "L.get_device_module(L.device('cpu')).__name__.split('.')[-1]",
    "L.get_device_module().__name__.split('.')[-1]",
    "L.get_device_module('cuda').__name__.split('.')[-1]",
    "L.get_device_module('xyz')", "L.get_device_module(3)",
    "(L.cpu.is_available(), L.cpu.device_count(), L.cpu.current_device(), L.cpu.synchronize())",
    "L.cpu.current_stream() is L.cpu.current_stream()",
    "L.get_file_path('a', 'b').endswith('/a/b')",
    "L.detach(L.ones(2, requires_grad=True))", "L.detach(L.ones(2, requires_grad=True) * 2)",
    "L.is_distributed(L.ones(2))", "L.ones(2).is_distributed()",
]


@pytest.mark.parametrize("expr", TYPE_EXPRS)
def test_types_and_devices(expr):
    check(expr)


def test_cpu_stream_context():
    for lib in LIBS:
        s = lib.cpu.Stream()
        with lib.cpu.stream(s):
            assert lib.cpu.current_stream() is s
        assert lib.cpu.current_stream() is not s


REMOVED_EXPRS = [f"{call}" for call in (
    "L.eig(L.ones(2, 2))", "L.eig(L.ones(2, 2), True)", "L.symeig(L.ones(2, 2))",
    "L.solve(L.ones(2, 2), L.ones(2, 2))", "L.lstsq(L.ones(2, 2), L.ones(2, 2))",
    "L.matrix_rank(L.ones(2, 2))", "L.ones(2, 2).eig()", "L.ones(2, 2).symeig(True)",
    "L.ones(2, 2).solve(L.ones(2, 2))", "L.ones(2, 2).lstsq(L.ones(2, 2))",
    "L.ones(2).reinforce(1.0)")]


@pytest.mark.parametrize("expr", REMOVED_EXPRS)
def test_removed_ops_say_what_to_use(expr):
    check(expr)


TENSOR_EXPRS = [
    "L.ones(2).output_nr", "(L.ones(2, requires_grad=True) * 1).output_nr",
    "L.ones(2, 3, requires_grad=True).unbind(0)[1].output_nr",
    "(lambda t: t.const_data_ptr() == t.data_ptr())(L.ones(3))",
    "L.ones(0).const_data_ptr()",
    "L.empty(2, 3, 4).dim_order()", "L.empty(2, 3, 4).permute(2, 0, 1).dim_order()",
    "L.empty(2, 3, 4).transpose(1, 2).dim_order()", "L.empty(2, 3, 4)[:, ::2].dim_order()",
    "L.empty(2, 1, 4).dim_order(ambiguity_check=True)",
    "L.empty(2, 3, 4).dim_order(ambiguity_check=True)",
    "L.empty(2, 3, 4).dim_order(ambiguity_check=3)",
    "L.empty(1, 3, 4, 4).dim_order(ambiguity_check=[L.contiguous_format])",
    "L.empty(2, 3, 4, 4).dim_order(ambiguity_check=[L.contiguous_format, L.channels_last])",
    "L.empty(2, 3, 4, 4).permute(0, 2, 3, 1).dim_order(ambiguity_check=[L.channels_last])",
    "L.ones(2).storage_type().__name__", "L.ones(2, dtype=L.long).storage_type().__name__",
    "L.zeros(2, 3).module_load(L.ones(2, 3))", "L.zeros(2).module_load(L.ones(2), assign=True)",
    "L.ones(2).pin_memory()", "L.ones(2).pin_memory('cpu')",
    "L.ones(2).name", "L.ones(2).grad_dtype",
    "L.ones(2, dtype=L.long).grad_dtype",
    "L.arange(6.).resize(3, 2)", "L.arange(6.).resize(2, 2)",
    "L.arange(6.).resize_as(L.ones(2, 3))", "L.arange(6.).resize_as(L.ones(2))",
    "L.ones(2, requires_grad=True).resize(1, 2)",
    "L.arange(6.).view(2, 3).t().resize(6)",
    "L.arange(6.).view(2, 3).map2_(L.ones(2, 3), L.full((3,), 2.), lambda a, b, c: a + b * c)",
    "L.ones(3).map2_(L.ones(2, 3), L.ones(3), lambda a, b, c: a)",
    "L.ones(2, requires_grad=True).map2_(L.ones(2), L.ones(2), lambda a, b, c: a)",
    "L.ones(2, dtype=L.long).map2_(L.ones(2), L.ones(2), lambda a, b, c: a)",
    "L.ones(2).map2_(L.ones(2), L.ones(2, dtype=L.long), lambda a, b, c: a)",
]


@pytest.mark.parametrize("expr", TENSOR_EXPRS)
def test_tensor_metadata_methods(expr):
    check(expr)


def test_record_stream_needs_a_cuda_tensor():
    for lib in LIBS:
        with pytest.raises(NotImplementedError, match="Could not run 'aten::record_stream' with "
                           "arguments from the 'CPU' backend"):
            lib.ones(2).record_stream(lib.Stream())


def test_device_module_of_a_device_cinder_lacks():
    # PyTorch has a torch.mps module; cinder has no MPS device, so it names the missing module
    with pytest.raises(RuntimeError, match="Device 'mps' does not have a corresponding module"):
        cinder.get_device_module("mps")


def test_resize_gradient():
    grads = []
    for lib in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = lib.arange(6., requires_grad=True)
            y = x.resize(2, 3)
            (y * lib.arange(6.).view(2, 3)).sum().backward()
        assert type(y.grad_fn).__name__ == "ResizeBackward"
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_deprecated_resize_warns():
    for lib in LIBS:
        with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
            lib.ones(4).resize(2, 2)
        with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
            lib.ones(4).resize_as(lib.ones(2, 2))


def test_geqrf_has_no_derivative():
    for lib in LIBS:
        x = lib.ones(3, 2, dtype=lib.float64).add(lib.eye(3, 2, dtype=lib.float64))
        a, _ = lib.geqrf(x.requires_grad_())
        with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not "
                           "implemented"):
            a.sum().backward()
