"""``torch.profiler.profile``: the profiler with activities, a step schedule and trace
handlers, built on ``torch.autograd.profiler.profile`` (which does the recording).

A schedule maps each step number to a ``ProfilerAction``: NONE (not profiling), WARMUP
(PyTorch warms its tracer up; cinder has nothing to warm), RECORD, and RECORD_AND_SAVE (the
last active step of a cycle: when it ends, ``on_trace_ready(prof)`` is called). ``step()``
moves to the next step and carries out the transitions between actions exactly as PyTorch's
state machine does (same warnings for schedules that skip a phase).
"""

import enum
import os
import socket
import time
import warnings

from ..autograd import profiler as prof
from ..autograd.profiler import ProfilerActivity, record_function

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "schedule", "supported_activities",
           "tensorboard_trace_handler"]

_WARNED = set()


def _warn_once(msg):
    if msg not in _WARNED:
        _WARNED.add(msg)
        warnings.warn(msg, stacklevel=3)


class _ExperimentalConfig:
    """Options for PyTorch's Kineto tracer (``torch.profiler._ExperimentalConfig``). cinder
    has no Kineto: the options are kept and have no effect."""

    def __init__(self, profiler_metrics=(), profiler_measure_per_kernel=False, verbose=False,
                 performance_events=(), enable_cuda_sync_events=False,
                 adjust_profiler_step=False, disable_external_correlation=False,
                 profile_all_threads=False, capture_overload_names=False,
                 record_python_gc_info=False, expose_kineto_event_metadata=False,
                 custom_profiler_config="", adjust_timestamps=False, trace_only=False):
        self.profiler_metrics = list(profiler_metrics)
        self.profiler_measure_per_kernel = profiler_measure_per_kernel
        self.verbose = verbose
        self.performance_events = list(performance_events)
        self.enable_cuda_sync_events = enable_cuda_sync_events
        self.adjust_profiler_step = adjust_profiler_step
        self.disable_external_correlation = disable_external_correlation
        self.profile_all_threads = profile_all_threads
        self.capture_overload_names = capture_overload_names
        self.record_python_gc_info = record_python_gc_info
        self.expose_kineto_event_metadata = expose_kineto_event_metadata
        self.custom_profiler_config = custom_profiler_config
        self.adjust_timestamps = adjust_timestamps
        self.trace_only = trace_only


def supported_activities():
    """The activities this build can trace: CPU, and CUDA where a GPU can be used."""
    return prof._supported_activities()


class _KinetoProfile:
    """The profiler without a schedule: ``start()`` records, ``stop()`` ends, then
    ``events()``, ``key_averages()`` and ``export_chrome_trace()`` read what was recorded."""

    def __init__(self, *, activities=None, record_shapes=False, profile_memory=False,
                 with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        self.activities = set(activities) if activities is not None else supported_activities()
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.experimental_config = experimental_config
        self.execution_trace_observer = execution_trace_observer
        self.acc_events = acc_events
        self.custom_trace_id_callback = custom_trace_id_callback
        self.profiler = None
        self.use_device = "cuda" if ProfilerActivity.CUDA in self.activities else None
        self.preset_metadata = {}

    def start(self):
        self.prepare_trace()
        self.start_trace()

    def stop(self):
        self.stop_trace()

    def prepare_trace(self):
        if self.profiler is not None and not self.acc_events:
            _warn_once("Warning: Profiler clears events at the end of each cycle. Only events "
                       "from the current cycle will be reported. To keep events across "
                       "cycles, set acc_events=True.")
        if self.profiler is None or not self.acc_events:
            self.profiler = prof.profile(
                use_cpu=ProfilerActivity.CPU in self.activities, use_device=self.use_device,
                record_shapes=self.record_shapes, with_flops=self.with_flops,
                profile_memory=self.profile_memory, with_stack=self.with_stack,
                with_modules=self.with_modules, use_kineto=True,
                experimental_config=self.experimental_config, acc_events=self.acc_events)
        self.profiler._prepare_trace()

    def start_trace(self):
        if self.execution_trace_observer:
            self.execution_trace_observer.start()
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before starting trace")
        self.profiler._start_trace()

    def stop_trace(self):
        if self.execution_trace_observer:
            self.execution_trace_observer.stop()
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before stopping trace")
        self.profiler.__exit__(None, None, None)

    def export_chrome_trace(self, path):
        """Write the last recorded cycle as a Chrome trace (``.gz``: compressed)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exporting chrome trace")
        return self.profiler.export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Write the recorded stacks for flame-graph tools (needs ``with_stack=True``)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exporting stacks")
        return self.profiler.export_stacks(path, metric)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """The events averaged per name (and per input shape with ``group_by_input_shape``,
        which needs ``record_shapes=True``)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before getting key averages")
        return self.profiler.key_averages(group_by_input_shape, group_by_stack_n,
                                          group_by_overload_name)

    def events(self):
        """The recorded ``FunctionEvent`` s (an ``EventList``) of the last cycle."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before accessing events")
        return self.profiler.function_events

    def add_metadata(self, key, value):
        """Add a string entry to the trace's metadata (accepted; cinder's trace has none)."""
        self.preset_metadata[key] = value

    def add_metadata_json(self, key, value):
        self.preset_metadata[key] = value


class ProfilerAction(enum.Enum):
    """What the profiler does during one step of a schedule."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A schedule: skip ``skip_first`` steps, then repeat cycles of ``wait`` idle steps,
    ``warmup`` steps and ``active`` recorded steps (``repeat`` cycles; 0 = no limit).
    ``skip_first_wait`` drops the first cycle's wait."""
    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), "
            f"warmup={warmup} (need >= 0), active={active} (need > 0), repeat={repeat} "
            f"(need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)
    return schedule_fn


def _default_schedule_fn(_):
    """Without a schedule the profiler records every step."""
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` handler writing each cycle's trace into ``dir_name`` as
    ``<worker_name>.<time in ns>.pt.trace.json`` (``.gz`` with ``use_gzip``), the files the
    TensorBoard profiler plugin reads; ``worker_name`` defaults to ``<host>_<pid>``."""
    def handler_fn(p):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        p.export_chrome_trace(os.path.join(dir_name, file_name))
    return handler_fn


A = ProfilerAction


class profile(_KinetoProfile):
    """``torch.profiler.profile``: a context manager (or ``start()``/``stop()``) recording
    the ``activities`` (default: all supported). With a ``schedule``, ``step()`` marks the
    end of each step, only the steps the schedule makes active are recorded (each as a
    ``ProfilerStep#N`` range), and ``on_trace_ready(prof)`` runs after each active cycle."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False, with_flops=False,
                 with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, use_cuda=None, custom_trace_id_callback=None,
                 post_processing_timeout_s=None):
        acts = set(activities) if activities is not None else supported_activities()
        if use_cuda is not None:
            warnings.warn("`use_cuda` is deprecated, use `activities` argument instead",
                          FutureWarning, stacklevel=2)
            if use_cuda:
                acts.add(ProfilerActivity.CUDA)
            else:
                acts.discard(ProfilerActivity.CUDA)
        if not acts:
            raise AssertionError("No valid profiler activities found")
        super().__init__(activities=acts, record_shapes=record_shapes,
                         profile_memory=profile_memory, with_stack=with_stack,
                         with_flops=with_flops, with_modules=with_modules,
                         experimental_config=experimental_config,
                         execution_trace_observer=execution_trace_observer,
                         acc_events=acc_events,
                         custom_trace_id_callback=custom_trace_id_callback)
        self.record_steps = bool(schedule)
        self.schedule = schedule if schedule else _default_schedule_fn
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        self.current_action = self.schedule(self.step_num)
        self.action_map = self._actions()

    def _actions(self):
        """What to do on each change of action (PyTorch's table of transitions)."""
        prepare, start, stop, ready = (self.prepare_trace, self.start_trace, self.stop_trace,
                                       self._trace_ready)

        def warn(msg):
            return lambda: warnings.warn(msg, stacklevel=4)
        stop_ready_restart = [stop, ready, prepare, start]
        return {
            (A.NONE, A.NONE): [], (A.NONE, A.WARMUP): [prepare],
            (A.NONE, A.RECORD): [prepare, start], (A.NONE, A.RECORD_AND_SAVE): [prepare, start],
            (A.WARMUP, A.NONE): [warn("Incorrect schedule: WARMUP followed by NONE"), start,
                                 stop],
            (A.WARMUP, A.WARMUP): [], (A.WARMUP, A.RECORD): [start],
            (A.WARMUP, A.RECORD_AND_SAVE): [start],
            (A.RECORD, A.NONE): [warn("Incorrect schedule: RECORD followed by NONE"), stop],
            (A.RECORD, A.WARMUP): [warn("Incorrect schedule: RECORD followed by WARMUP"), stop],
            (A.RECORD, A.RECORD): [], (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [stop, ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [stop, ready, prepare],
            (A.RECORD_AND_SAVE, A.RECORD): stop_ready_restart,
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): stop_ready_restart,
            (A.WARMUP, None): [start, stop], (A.RECORD, None): [stop, ready],
            (A.RECORD_AND_SAVE, None): [stop, ready],
        }

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()
        if self.execution_trace_observer:
            self.execution_trace_observer.cleanup()

    def start(self):
        self._transit_action(A.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self):
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self):
        """Mark the end of a step: the schedule's action for the next step takes over."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev_action = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit_action(prev_action, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action, current_action):
        for action in self.action_map.get((prev_action, current_action), ()):
            action()

