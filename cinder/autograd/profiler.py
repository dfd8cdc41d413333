"""``torch.autograd.profiler``: the profiler's lower-level API.

``profile`` records, while it is entered, every op call (``aten::add``...), every
``record_function`` block, every autograd node the backward pass runs and every optimizer
step, each as a timed range nested in the ranges open around it; ``function_events`` /
``key_averages()`` / ``table()`` / ``export_chrome_trace()`` read the result. ``torch.profiler``
(``cinder/profiler``) builds its scheduled profiler on this class.

cinder has no Kineto: every event is a CPU event measured with ``time.perf_counter_ns`` in
Python; device (CUDA) kernels are not timed separately.
"""

import contextlib
import enum
import warnings
from collections import defaultdict

from .. import _C, cuda
from ._profiler_recorder import USER_SCOPE, Recorder
from .profiler_util import (MEMORY_EVENT_NAME, OUT_OF_MEMORY_EVENT_NAME,  # noqa: F401
                            DeviceType, EventList, FunctionEvent, FunctionEventAvg,
                            _write_json_trace)

__all__ = ["DeviceType", "EnforceUnique", "EventList", "FunctionEvent", "FunctionEventAvg",
           "KinetoStepTracker", "ProfilerActivity", "emit_itt", "emit_nvtx", "kineto_available",
           "profile", "record_function"]


class ProfilerActivity(enum.Enum):
    """What a profiler collects: ``CPU`` ops, or a device's kernels (``CUDA``...)."""
    CPU = 0
    XPU = 1
    CUDA = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5


class RecordScope(enum.Enum):
    """The kind of range an event is (``FunctionEvent.scope`` holds the value)."""
    FUNCTION = 0
    BACKWARD_FUNCTION = 1
    TORCHSCRIPT_FUNCTION = 2
    KERNEL_FUNCTION_DTYPE = 3
    CUSTOM_CLASS = 4
    BUILD_FEATURE = 5
    LITE_INTERPRETER = 6
    USER_SCOPE = 7
    STATIC_RUNTIME_OP = 8
    STATIC_RUNTIME_MODEL = 9


def kineto_available():
    """Whether the Kineto tracing library is there: never in cinder (its profiler is pure
    Python)."""
    return False


def _cuda_available():
    return cuda.is_available()


def _supported_activities():
    """CPU, and CUDA when a GPU can be used."""
    acts = {ProfilerActivity.CPU}
    if _cuda_available():
        acts.add(ProfilerActivity.CUDA)
    return acts


def _is_profiler_enabled():
    return _C.FLAG.profiler is not None


_VALID_DEVICES = ("cuda", "xpu", "mtia", "hpu", "privateuseone")


class profile:
    """Record the ops run inside a ``with`` block (or between ``__enter__``/``__exit__``).

    ``record_shapes`` keeps each call's input shapes, ``profile_memory`` the bytes its
    outputs allocated (and freed), ``with_stack`` the Python frames it was called from.
    After the block, ``function_events`` holds the events; ``key_averages``, ``table`` and
    ``export_chrome_trace`` summarise them. ``enabled=False`` makes it do nothing.
    """

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None, post_processing_timeout_s=None,
                 activity_filters=None):
        self.enabled = enabled
        if not enabled:
            return
        self.use_cuda = use_cuda
        if use_cuda:
            warnings.warn("The attribute `use_cuda` will be deprecated soon, please use "
                          "``use_device = 'cuda'`` instead.", FutureWarning, stacklevel=2)
            use_device = "cuda"
        self.use_device = use_device
        self._function_events = None
        self._running = False
        self.entered = False
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.record_shapes |= self.with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_cpu = use_cpu
        self.use_kineto = use_kineto
        self.acc_events = acc_events
        self.experimental_config = experimental_config
        self._old_function_events = None
        self._recorder = None
        if not use_cpu and not use_kineto:
            raise AssertionError("Device-only events supported only with Kineto (use_kineto=True)")
        if self.use_device is not None:
            if self.use_device not in _VALID_DEVICES:
                warnings.warn(f"The {self.use_device} is not a valid device option.",
                              stacklevel=2)
                self.use_device = None
            elif self.use_device == "cuda" and not _cuda_available():
                warnings.warn("CUDA is not available, disabling CUDA profiling", stacklevel=2)
                self.use_cuda = False
                self.use_device = None
            elif self.use_device != "cuda":
                warnings.warn(f"{self.use_device.upper()} is not available, disabling "
                              f"{self.use_device.upper()} profiling", stacklevel=2)
                self.use_device = None

    # -- recording ------------------------------------------------------------------------
    def __enter__(self):
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._prepare_trace()
        self._start_trace()
        return self

    def _prepare_trace(self):
        self.entered = True

    def _start_trace(self):
        self.entered = True
        self._recorder = Recorder(record_shapes=self.record_shapes,
                                  profile_memory=self.profile_memory,
                                  with_stack=self.with_stack, use_device=self.use_device,
                                  with_flops=self.with_flops)
        self._recorder.start()
        self._running = True

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return False
        if self.use_device == "cuda":
            cuda.synchronize()         # work queued on the GPU ends inside the profile
        if self._recorder is None:
            return False
        # the session's records, if this profile was not the one that started it (see
        # ``Recorder.stop``)
        self._recorder = self._recorder.stop()
        self._running = False
        events = self._recorder.events()
        if self.acc_events and self._old_function_events:
            merged = EventList(list(self._old_function_events) + list(events),
                               use_device=self.use_device, profile_memory=self.profile_memory,
                               with_flops=self.with_flops)
            merged._tree_built = True
            events = merged
        self._function_events = events
        if self.acc_events:
            self._old_function_events = events
        return False

    # -- results --------------------------------------------------------------------------
    @property
    def function_events(self):
        """The recorded events (an ``EventList``; empty until the profile has run)."""
        if self._function_events is None:
            empty = EventList(use_device=self.use_device, profile_memory=self.profile_memory,
                              with_flops=self.with_flops)
            empty._tree_built = True
            return empty
        return self._function_events

    def __repr__(self):
        if self._running:
            return "<unfinished torch.autograd.profile>"
        return repr(self.function_events)

    def __str__(self):
        if self._running:
            return "<unfinished torch.autograd.profile>"
        return str(self.function_events)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """The events as a text table (see ``EventList.table``)."""
        return self.function_events.table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only, time_unit=time_unit)

    table.__doc__ = EventList.table.__doc__

    def export_chrome_trace(self, path):
        """Write the recorded ranges as a Chrome trace JSON file (``.gz``: compressed)."""
        if self._recorder is None:
            raise AssertionError("Expected profiling results")
        _write_json_trace(path, self._recorder.trace(path))

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Write the stacks recorded with ``with_stack=True`` (see ``EventList``)."""
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        return self.function_events.export_stacks(path, metric)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """The events averaged per name (see ``EventList.key_averages``)."""
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n,
                                                 group_by_overload_name)

    def total_average(self):
        """The sums over all events (see ``EventList.total_average``)."""
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        """The sum of every event's self CPU time, in microseconds."""
        return self.function_events.self_cpu_time_total


class record_function(contextlib.ContextDecorator):
    """Mark a block of code (``with record_function("name"):``) or a function (as a
    decorator) as a range of its own in the profiler's results; nothing happens while no
    profiler records."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self.record = None
        self._recorder = None

    def __enter__(self):
        prof = _C.FLAG.profiler
        if prof is not None:
            self._recorder = prof
            self.record = prof.open(self.name, USER_SCOPE)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.run_callbacks_on_exit:
            return None
        if self.record is not None:
            self._recorder.close(self.record)
            self.record = self._recorder = None
        return None

    def _call_end_callbacks_on_future(self, fut):
        """End the range when the future ``fut`` completes; returns a future for the same
        value (the block's exit then leaves the range open)."""
        if not self.run_callbacks_on_exit:
            raise RuntimeError("_call_end_callbacks_on_future can only be called once.")
        self.run_callbacks_on_exit = False
        record, recorder = self.record, self._recorder

        def done(f):
            if record is not None:
                recorder.close(record)
            return f.value()
        return fut.then(done)


class _Annotating:
    """A context manager marking every op for an external tool (``kind``); cinder emits no
    such marks, so only the checks and the device synchronisation remain."""

    kind = ""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes

    def __enter__(self):
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError(f"{self.kind} annotation context manager is not reentrant")
        self.entered = True
        self._sync()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if self.enabled:
            self._sync()
        return False

    def _sync(self):
        pass


class emit_nvtx(_Annotating):
    """Mark every op with an NVTX range for NVIDIA's profilers. cinder emits no NVTX ranges;
    as in PyTorch, entering needs CUDA (it synchronizes the device first)."""

    kind = "NVTX"

    def _sync(self):
        cuda.synchronize()


class emit_itt(_Annotating):
    """Mark every op with an Intel ITT range for VTune. cinder emits none: the block runs
    unchanged."""

    kind = "ITT"


class EnforceUnique:
    """Refuses a key seen before: ``see(*key)`` raises ``RuntimeError`` the second time."""

    def __init__(self):
        self.seen = set()

    def see(self, *key):
        """Note ``key``; an error if it was noted already."""
        if key in self.seen:
            raise RuntimeError("duplicate key: " + str(key))
        self.seen.add(key)


class KinetoStepTracker:
    """One global step count shared by every code that marks steps (the profiler's
    ``step()``, optimizers' step hooks...), so that two of them marking the same step count
    it once: each requester keeps its own count, and the global step is their maximum.

    In PyTorch a rise of the global step also advances the Kineto tracer; cinder has none
    (see ``kineto_available``), so the counts are all there is.
    """

    _current_step = 0
    _step_dict = defaultdict(int)

    @classmethod
    def init_step_count(cls, requester):
        """Start counting for ``requester`` at the current global step."""
        cls._step_dict[requester] = cls._current_step

    @classmethod
    def erase_step_count(cls, requester):
        """Stop counting for ``requester``; whether it was counting."""
        return cls._step_dict.pop(requester, None) is not None

    @classmethod
    def increment_step(cls, requester):
        """Count a step of ``requester``; returns the global step (warning when it rose by
        more than one, which means the requesters went out of step)."""
        if requester not in cls._step_dict:
            cls.init_step_count(requester)
        cls._step_dict[requester] += 1
        new_step = max(cls._step_dict.values())
        if new_step > cls._current_step:
            if new_step - cls._current_step > 1:
                warnings.warn("Profiler step count has increased more than 1 - current_step = "
                              f"{cls._current_step} step dict =  {cls._step_dict}", stacklevel=2)
            cls._current_step = new_step
        return cls._current_step

    @classmethod
    def current_step(cls):
        """The global step: the furthest any requester has counted."""
        return cls._current_step
