"""Process-wide runtime switches: deterministic algorithms, float32 matmul precision,
"warn always", flush-denormal and the inter-op thread count (PyTorch keeps them in ``torch._C``'s
global context and publishes setters and getters on ``torch``).

This module sits at the bottom layer (it imports nothing from cinder), so the op kernels above
can read the switches: with deterministic algorithms on, the ``empty`` family fills new memory
with NaN (floats) or the largest integer, as PyTorch's CPU build does when
``torch.utils.deterministic.fill_uninitialized_memory`` is true.
"""

import os
import warnings

__all__ = ["are_deterministic_algorithms_enabled", "get_deterministic_debug_mode",
           "get_float32_matmul_precision", "get_num_interop_threads", "get_num_threads",
           "init_num_threads",
           "is_deterministic_algorithms_warn_only_enabled", "is_warn_always_enabled",
           "set_deterministic_debug_mode", "set_float32_matmul_precision", "set_flush_denormal",
           "set_num_interop_threads", "set_num_threads", "set_warn_always",
           "use_deterministic_algorithms"]


class _Switches:
    """The current values (one object, read by ops through ``SWITCHES``)."""

    def __init__(self):
        self.deterministic = False
        self.warn_only = False
        self.fill_uninitialized_memory = True
        self.matmul_precision = "highest"
        self.warn_always = False
        self.interop_threads = None          # None: not set and no parallel work yet
        self.intraop_threads = None          # None: PyTorch's default, found on first use


SWITCHES = _Switches()
_DEBUG_NAMES = ("default", "warn", "error")


def _type_name(value):
    return type(value).__name__


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Make ops use deterministic algorithms where they have a choice (``mode=True``).

    On the CPU every cinder kernel is already deterministic; what changes is that memory the
    ``empty`` family hands out is filled with NaN / the largest integer (see
    ``cinder.utils.deterministic.fill_uninitialized_memory``), as in PyTorch. ``warn_only=True``
    asks for warnings instead of errors from ops without a deterministic implementation.
    """
    for name, value in (("mode", mode), ("warn_only", warn_only)):
        if not isinstance(value, bool):
            pos = " (position 1)" if name == "mode" else ""
            raise TypeError(f"_set_deterministic_algorithms(): argument '{name}'{pos} must be "
                            f"bool, not {_type_name(value)}")
    SWITCHES.deterministic = mode
    SWITCHES.warn_only = warn_only


def are_deterministic_algorithms_enabled():
    """Whether :func:`use_deterministic_algorithms` turned deterministic mode on."""
    return SWITCHES.deterministic


def is_deterministic_algorithms_warn_only_enabled():
    """Whether deterministic mode only warns (``warn_only=True``)."""
    return SWITCHES.warn_only


def set_deterministic_debug_mode(debug_mode):
    """Deterministic mode by level: 0/"default" off, 1/"warn" warn only, 2/"error" on."""
    if isinstance(debug_mode, bool) or not isinstance(debug_mode, (str, int)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_NAMES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _DEBUG_NAMES.index(debug_mode)
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """The level :func:`set_deterministic_debug_mode` takes: 0, 1 (warn only) or 2."""
    if not SWITCHES.deterministic:
        return 0
    return 1 if SWITCHES.warn_only else 2


def set_float32_matmul_precision(precision):
    """Record the float32 matmul precision ("highest", "high" or "medium").

    NumPy's BLAS always computes float32 products in float32, which is "highest"; the other
    settings allow lower-precision internal formats that cinder does not use, so the result is
    the same (as on a PyTorch CPU without such units)."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got "
                           f"{_type_name(precision)}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    SWITCHES.matmul_precision = precision


def get_float32_matmul_precision():
    """The float32 matmul precision last set (default "highest")."""
    return SWITCHES.matmul_precision


def set_warn_always(b):
    """Make warnings PyTorch gives once per process appear every time (``b=True``)."""
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {_type_name(b)}")
    SWITCHES.warn_always = b


def is_warn_always_enabled():
    """Whether :func:`set_warn_always` is on."""
    return SWITCHES.warn_always


def warn_once(key, message, category=UserWarning, stacklevel=3, _seen=set()):  # noqa: B006
    """Warn with ``message`` the first time ``key`` is seen in this process (PyTorch's
    ``TORCH_WARN_ONCE``), or every time while :func:`set_warn_always` is on."""
    if SWITCHES.warn_always or key not in _seen:
        _seen.add(key)
        warnings.warn(message, category, stacklevel=stacklevel)


def set_flush_denormal(mode):
    """Ask the CPU to flush denormal floats to zero; returns whether that is supported.

    NumPy gives no control over the CPU's flush-to-zero flags, so cinder answers False (as
    PyTorch does on a CPU without SSE3) and denormal numbers keep their values."""
    if not isinstance(mode, bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {_type_name(mode)}")
    return False


def set_num_interop_threads(num):
    """Set the size of the inter-op thread pool: once, before any parallel work.

    cinder runs ops one after another in the calling thread, so the number is only recorded;
    PyTorch's errors for a bad value or a second call are kept."""
    if isinstance(num, bool) or not isinstance(num, int):
        raise RuntimeError(f"set_num_interop_threads expects an int, but got {_type_name(num)}")
    if num <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if SWITCHES.interop_threads is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work "
                           "has started or set_num_interop_threads called")
    SWITCHES.interop_threads = num


def get_num_interop_threads():
    """The inter-op pool size: as set, else the number of CPU cores (PyTorch's default)."""
    if SWITCHES.interop_threads is None:
        SWITCHES.interop_threads = _cpu_count()
    return SWITCHES.interop_threads


def _cpu_count():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # not on Linux
        return os.cpu_count() or 1


def _physical_cores():
    """Cores (not hardware threads) among the CPUs this process may run on, the count PyTorch
    starts its intra-op pool with; the CPU count where the topology is not readable."""
    try:
        cpus = os.sched_getaffinity(0)
        cores = set()
        for cpu in cpus:
            topology = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
            with open(topology + "physical_package_id") as package, \
                    open(topology + "core_id") as core:
                cores.add((package.read().strip(), core.read().strip()))
        return len(cores) or len(cpus)
    except (AttributeError, OSError):
        return _cpu_count()


def _env_threads(name):
    """A positive thread count from an OpenMP-style variable ("4" or "4,2"), else 0."""
    value = os.environ.get(name, "").split(",")[0].strip()
    return int(value) if value.isdigit() and int(value) > 0 else 0


def set_num_threads(num):
    """Set the number of intra-op threads.

    cinder's kernels run in NumPy (whose BLAS reads its own environment variables), so the
    number does not change how fast cinder runs; it is kept because some PyTorch CPU kernels
    round differently with another thread count (the batch-norm statistics of a (N, C) input
    are summed per thread), and cinder's versions of them follow this number."""
    if isinstance(num, bool) or not isinstance(num, int):
        raise RuntimeError(f"set_num_threads expects an int, but got {_type_name(num)}")
    if num <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    SWITCHES.intraop_threads = num


def get_num_threads():
    """The intra-op thread count: as set, else PyTorch's default (``OMP_NUM_THREADS`` or
    ``MKL_NUM_THREADS`` when set, otherwise the number of physical cores)."""
    if SWITCHES.intraop_threads is None:
        SWITCHES.intraop_threads = (_env_threads("MKL_NUM_THREADS")
                                    or _env_threads("OMP_NUM_THREADS") or _physical_cores())
    return SWITCHES.intraop_threads


def init_num_threads():
    """Initialise the intra-op thread settings of the calling thread (nothing to do for
    NumPy, whose BLAS reads its own environment variables)."""
