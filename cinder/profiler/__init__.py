"""``torch.profiler``: find where a program spends its time and memory.

``profile`` records op calls (``aten::mm``...), ``record_function`` ranges, autograd nodes
and optimizer steps; ``schedule`` picks the steps to record; ``tensorboard_trace_handler``
writes each recorded cycle as a trace file. See ``profiler.py`` here and
``cinder/autograd/profiler.py``, which records.
"""

from ..autograd.profiler import RecordScope, kineto_available, record_function
from ..autograd.profiler_util import DeviceType
from ..optim.optimizer import register_optimizer_step_post_hook
from .profiler import (ProfilerAction, ProfilerActivity, _ExperimentalConfig, _KinetoProfile,
                       profile, schedule, supported_activities, tensorboard_trace_handler)

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler",
           "ProfilerAction", "ProfilerActivity", "kineto_available", "DeviceType",
           "record_function", "register_optimizer_step_post_hook", "RecordScope",
           "_KinetoProfile", "_ExperimentalConfig"]
