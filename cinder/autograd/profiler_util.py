"""``torch.autograd.profiler_util``: the events a profiler run produced, their averages, and the
table and Chrome-trace views of them.

A ``FunctionEvent`` is one recorded range (an op call, a ``record_function`` block, an
autograd node); its ``cpu_children`` are the ranges that ran inside it, so "self" time and
memory are its own total less its children's. ``EventList.key_averages`` folds the events
into one ``FunctionEventAvg`` per name (or per name and input shapes), and ``table`` prints
them in PyTorch's layout: the same columns, widths, units and footer.
"""

import enum
import json
import math
import os
from collections import defaultdict, namedtuple

__all__ = ["DeviceType", "EventList", "FormattedTimesMixin", "FunctionEvent", "FunctionEventAvg",
           "Interval", "Kernel", "MEMORY_EVENT_NAME", "OUT_OF_MEMORY_EVENT_NAME"]

MEMORY_EVENT_NAME = "[memory]"
OUT_OF_MEMORY_EVENT_NAME = "[OutOfMemory]"


class DeviceType(enum.Enum):
    """Where an event ran (``torch.autograd.DeviceType``; cinder records CPU events)."""
    CPU = 0
    CUDA = 1


# ----------------------------------------------------------------------------------------------
# Formatting helpers (PyTorch's units and rounding)
# ----------------------------------------------------------------------------------------------

def _format_time(time_us):
    """Microseconds as PyTorch prints them: seconds from 1 s, milliseconds from 1 ms."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_time_us):
    """A percentage of the total self time ("NaN" when nothing was timed)."""
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _format_memory(nbytes):
    """Bytes in binary units with two decimals (``160 B``, ``1.50 KB``, ``-2.00 MB``)."""
    for limit, unit in ((1024 ** 3, "GB"), (1024 ** 2, "MB"), (1024, "KB")):
        if abs(nbytes) >= limit:
            return f"{nbytes * 1.0 / limit:.2f} {unit}"
    return f"{nbytes} B"


def _in_unit(time_us, unit):
    """A time in the unit a table was asked for (``time_unit=``), else the automatic one."""
    if unit == "s":
        return f"{time_us / 1e6:.3f}s"
    if unit == "ms":
        return f"{time_us / 1e3:.3f}ms"
    if unit == "us":
        return f"{time_us:.3f}us"
    return _format_time(time_us)


class FormattedTimesMixin:
    """The ``*_str`` renderings and per-call averages shared by events and averages."""

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else 1.0 * self.cpu_time_total / self.count

    @property
    def device_time(self):
        return 0.0 if self.count == 0 else 1.0 * self.device_time_total / self.count

    cpu_time_str = property(lambda self: _format_time(self.cpu_time))
    device_time_str = property(lambda self: _format_time(self.device_time))
    cpu_time_total_str = property(lambda self: _format_time(self.cpu_time_total))
    device_time_total_str = property(lambda self: _format_time(self.device_time_total))
    self_cpu_time_total_str = property(lambda self: _format_time(self.self_cpu_time_total))
    self_device_time_total_str = property(
        lambda self: _format_time(self.self_device_time_total))


class Interval:
    """A start and an end time, in microseconds."""

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        """The length of the interval."""
        return self.end - self.start


Kernel = namedtuple("Kernel", ["name", "device", "duration"])


# ----------------------------------------------------------------------------------------------
# Events
# ----------------------------------------------------------------------------------------------

class FunctionEvent(FormattedTimesMixin):
    """One recorded range: its name, times (microseconds from the start of profiling), thread,
    input shapes, memory allocated inside it, and its place in the tree of ranges."""

    def __init__(self, id, name, thread, start_us, end_us, overload_name="", fwd_thread=None,
                 input_shapes=None, stack=None, scope=0, use_device=None, cpu_memory_usage=0,
                 device_memory_usage=0, is_async=False, is_remote=False, sequence_nr=-1,
                 node_id=-1, device_type=DeviceType.CPU, device_index=0,
                 device_resource_id=None, is_legacy=False, flops=None, trace_name=None,
                 concrete_inputs=None, kwinputs=None, is_user_annotation=False):
        self.id = id
        self.node_id = node_id
        self.name = name
        self.overload_name = overload_name
        self.trace_name = trace_name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.kernels = []
        self.count = 1
        self.cpu_children = []
        self.cpu_parent = None
        self.input_shapes = input_shapes
        self.concrete_inputs = concrete_inputs
        self.kwinputs = kwinputs
        self.stack = stack
        self.scope = scope
        self.use_device = use_device
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.device_type = device_type
        self.device_index = device_index
        self.device_resource_id = thread if device_resource_id is None else device_resource_id
        self.is_legacy = is_legacy
        self.flops = flops
        self.is_user_annotation = is_user_annotation
        self.self_cpu_percent = -1
        self.total_cpu_percent = -1
        self.total_device_percent = -1

    def append_kernel(self, name, device, duration):
        self.kernels.append(Kernel(name, device, duration))

    def append_cpu_child(self, child):
        """Add a direct child range (only direct ones, so that self times come out right)."""
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        self.cpu_parent = parent

    @property
    def key(self):
        return self.name

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us() if self.device_type == DeviceType.CPU else 0

    @property
    def self_cpu_time_total(self):
        if self.is_async or self.device_type != DeviceType.CPU:
            return 0
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self):
        if self.is_async or self.device_type != DeviceType.CPU:
            return 0
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def device_time_total(self):
        # cinder times no device kernels: device time stays zero (as on a CPU-only build)
        return sum(k.duration for k in self.kernels) if self.use_device else 0

    @property
    def self_device_time_total(self):
        return self.device_time_total

    @property
    def self_device_memory_usage(self):
        return 0

    def __repr__(self):
        dev = self.use_device
        return (f"<FunctionEvent id={self.id} name={self.name} overload_name="
                f"{self.overload_name} device_type={self.device_type} node_id={self.node_id} "
                f"cpu_time={self.cpu_time_str} start_us={self.time_range.start} "
                f"end_us={self.time_range.end} "
                f"cpu_children={[c.id for c in self.cpu_children]} "
                f"{dev}_time={self.device_time_str} name={self.name} thread={self.thread} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
                f"{dev}_memory_usage={self.device_memory_usage} is_async={self.is_async} "
                f"is_remote={self.is_remote} seq_nr={self.sequence_nr} "
                f"is_legacy={self.is_legacy}>")


class FunctionEventAvg(FormattedTimesMixin):
    """The sums over several events of one key: times, memory and the call count."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0
        self.device_time_total = 0
        self.self_cpu_time_total = 0
        self.self_device_time_total = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.flops = 0
        self.is_user_annotation = False

    def add(self, other):
        """Fold ``other`` (an event or an average of the same key) into this one."""
        if self.key is None:
            # the first event gives the descriptive fields
            for attr in ("key", "node_id", "is_async", "is_remote", "cpu_parent",
                         "cpu_children", "overload_name", "input_shapes", "stack", "scope",
                         "device_type", "is_legacy", "use_device", "is_user_annotation"):
                setattr(self, attr, getattr(other, attr))
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        for attr in ("cpu_time_total", "device_time_total", "self_cpu_time_total",
                     "self_device_time_total", "cpu_memory_usage", "device_memory_usage",
                     "self_cpu_memory_usage", "self_device_memory_usage", "count"):
            setattr(self, attr, getattr(self, attr) + getattr(other, attr))
        if self.flops is None:
            self.flops = other.flops
        elif other.flops is not None:
            self.flops += other.flops
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        dev = "cuda" if not self.use_device else self.use_device
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str}  self_{dev}_time="
                f"{self.self_device_time_total_str} {dev}_time={self.device_time_str} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
                f"{dev}_memory_usage={self.device_memory_usage}>")


# ----------------------------------------------------------------------------------------------
# The list of events
# ----------------------------------------------------------------------------------------------

class EventList(list):
    """A list of ``FunctionEvent`` s (or averages) with the profiler's views of them:
    ``table``, ``key_averages``, ``total_average``, ``export_chrome_trace``."""

    def __init__(self, *args, **kwargs):
        use_device = kwargs.pop("use_device", None)
        profile_memory = kwargs.pop("profile_memory", False)
        with_flops = kwargs.pop("with_flops", False)
        super().__init__(*args, **kwargs)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self._tree_built = False

    def __str__(self):
        return self.table()

    def _build_tree(self):
        """Drop a range that only wraps one range of the same name (a method calling its
        function, say): its child takes its place, as PyTorch removes such duplicates."""
        while True:
            drop = set()
            for i, evt in enumerate(self):
                parent = evt.cpu_parent
                if parent is not None and parent.name == evt.name and \
                        len(parent.cpu_children) == 1:
                    parent.cpu_children = evt.cpu_children
                    for ch in evt.cpu_children:
                        ch.cpu_parent = parent
                    drop.add(i)
            if not drop:
                break
            kept = [e for i, e in enumerate(self) if i not in drop]
            self.clear()
            self.extend(kept)
        self._tree_built = True

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """The events as a text table (PyTorch's layout). ``sort_by`` names an attribute to
        sort on, largest first (``cpu_time_total``, ``self_cpu_memory_usage``, ``count``...);
        ``row_limit`` caps the rows; ``top_level_events_only`` keeps events without a parent;
        ``time_unit`` ('s', 'ms', 'us') fixes the unit of every time."""
        return _build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                           max_src_column_width=max_src_column_width,
                           max_name_column_width=max_name_column_width,
                           max_shapes_column_width=max_shapes_column_width,
                           with_flops=self._with_flops, profile_memory=self._profile_memory,
                           top_level_events_only=top_level_events_only, time_unit=time_unit)

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace (a JSON list of complete "X" events with
        microsecond ``ts``/``dur``), to open in ``chrome://tracing`` or Perfetto."""
        events = [{"name": e.trace_name, "ph": "X", "ts": e.time_range.start,
                   "dur": e.time_range.elapsed_us(), "tid": e.thread,
                   "pid": "CPU functions", "args": {}}
                  for e in self if e.trace_name is not None]
        with open(path, "w") as f:
            json.dump(events, f)

    def supported_export_stacks_metrics(self):
        return ["self_cpu_time_total", "self_cuda_time_total", "self_xpu_time_total",
                "self_privateuse1_time_total"]

    def export_stacks(self, path, metric):
        """Write one line per event with a stack: the frames (outermost first, joined by
        ``;``) and the metric's value, the format flame-graph tools read."""
        if metric not in self.supported_export_stacks_metrics():
            raise ValueError("metric should be one of: " +
                             str(self.supported_export_stacks_metrics()))
        table = str.maketrans(" ;\t\n", "____")
        attr = metric.replace("cuda", "device").replace("xpu", "device").replace(
            "privateuse1", "device")
        with open(path, "w") as f:
            for evt in self:
                value = getattr(evt, attr)
                if evt.stack and int(value) > 0:
                    frames = ";".join(s.translate(table) for s in reversed(evt.stack))
                    f.write(f"{frames} {int(value)}\n")

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """One ``FunctionEventAvg`` per event name (and per input shapes with
        ``group_by_input_shapes``, per top ``group_by_stack_n`` frames), in first-seen
        order."""
        if not self._tree_built:
            raise AssertionError("Expected tree to be built before calling key_averages")
        stats = defaultdict(FunctionEventAvg)
        for evt in self:
            key = [str(evt.key), str(evt.node_id), str(evt.device_type), str(evt.is_legacy),
                   str(evt.is_user_annotation)]
            if group_by_overload_name:
                key.append(evt.overload_name)
            if group_by_input_shapes:
                key.append(str(evt.input_shapes))
            if group_by_stack_n > 0:
                key += (evt.stack or [])[:group_by_stack_n]
            stats[tuple(key)].add(evt)
        out = EventList(stats.values(), use_device=self._use_device,
                        profile_memory=self._profile_memory, with_flops=self._with_flops)
        for avg in out:
            avg.stack = (avg.stack or [])[:group_by_stack_n]
            if not group_by_input_shapes:
                avg.input_shapes = ""
            if not group_by_overload_name:
                avg.overload_name = ""
        return out

    def total_average(self):
        """The sums over every event, as one average named "Total"."""
        total = FunctionEventAvg()
        for evt in self:
            total += evt
            total.key = None
        total.key = "Total"
        return total


def _write_json_trace(path, trace):
    """Write ``trace`` (a dict) as JSON; a path ending in ``.gz`` is gzip-compressed."""
    if path.endswith(".gz"):
        import gzip
        with gzip.open(path, "wt") as f:
            json.dump(trace, f)
    else:
        with open(os.fspath(path), "w") as f:
            json.dump(trace, f)


# ----------------------------------------------------------------------------------------------
# The table
# ----------------------------------------------------------------------------------------------

_SPACING = 2
_COLUMN = 12


def _sort_attr(sort_by):
    return sort_by.replace("cuda", "device").replace("xpu", "device").replace(
        "privateuse1", "device")


def _headers(events, profile_memory):
    """The numeric column titles (after "Name")."""
    names = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    use_device = events[0].use_device
    dev = use_device.upper() if use_device is not None else "None"
    if any(e.self_device_time_total > 0 for e in events):
        names += [f"Self {dev}", f"Self {dev} %", f"{dev} total", f"{dev} time avg"]
    if profile_memory:
        names += ["CPU Mem", "Self CPU Mem"]
    names.append("# of Calls")
    if any(e.node_id != -1 for e in events):
        names.append("Node ID")
    return names


def _build_table(events, sort_by=None, header=None, row_limit=100, max_src_column_width=75,
                 max_name_column_width=55, max_shapes_column_width=80, with_flops=False,
                 profile_memory=False, top_level_events_only=False, time_unit=None):
    """Format ``events`` (events or averages) as PyTorch's ``_build_table`` does: right-aligned
    columns two spaces apart, dashed separators, a "Self CPU time total" footer."""
    if len(events) == 0:
        return ""
    if sort_by is not None:
        attr = _sort_attr(sort_by)
        events = sorted(events, key=lambda e: getattr(e, attr), reverse=True)
    has_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    stacks = [e.stack for e in events if e.stack]
    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    headers = ["Name"] + _headers(events, profile_memory)
    widths = [name_width] + [_COLUMN] * (len(headers) - 1)
    aligns = [">"] * len(headers)
    if has_shapes:
        shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
        if max_shapes_column_width is not None:
            shapes_width = min(shapes_width, max_shapes_column_width)
        headers.append("Input Shapes")
        widths.append(shapes_width)
        aligns.append(">")
    src_width = None
    if stacks:
        src_width = max(len(entry) for s in stacks for entry in s) + 4
        if max_src_column_width is not None:
            src_width = min(src_width, max_src_column_width)
        headers.append("Source Location")
        widths.append(src_width)
        aligns.append("<")
    flops_scale = None
    raw_flops = [e.flops for e in events if e.flops and e.flops > 0] if with_flops else []
    if raw_flops:
        flops_scale, unit = _flops_unit(min(raw_flops))
        headers.append(f"Total {unit}")
        widths.append(_COLUMN)
        aligns.append(">")
    row_format = "".join("{: " + a + str(w) + "}" + " " * _SPACING
                         for a, w in zip(aligns, widths))
    separator = "".join("-" * w + " " * _SPACING for w in widths)
    line_length = sum(w + _SPACING for w in widths) - _SPACING
    total_self = sum(e.self_cpu_time_total for e in events)

    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]
    shown = 0
    for evt in events:
        if shown == row_limit:
            break
        if top_level_events_only and evt.cpu_parent is not None:
            continue
        shown += 1
        lines += _rows(evt, headers, widths, row_format, total_self, max_name_column_width,
                       time_unit, stacks, src_width, flops_scale)
    lines += [separator, f"Self CPU time total: {_in_unit(total_self, time_unit)}"]
    return "".join(line + "\n" for line in lines)


def _trim_path(path, width):
    if len(path) > width:
        path = path[len(path) - width:]
        if len(path) > 3:
            path = "..." + path[3:]
    return path


def _flops_unit(flops):
    """The scale and column title for FLOP counts (the smallest count picks the unit)."""
    names = ["FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"]
    level = int(max(0, min(math.log10(flops) / 3, len(names) - 1)))
    return 10.0 ** (-3 * level), names[level]


def _rows(evt, headers, widths, row_format, total_self, max_name_width, time_unit, stacks,
          src_width, flops_scale=None):
    """The table line(s) of one event: its values, then any further stack frames."""
    name = evt.key
    if max_name_width is not None and len(name) >= max_name_width - 3:
        name = name[:max_name_width - 3] + "..."
    evt.self_cpu_percent = _format_time_share(evt.self_cpu_time_total, total_self)
    evt.total_cpu_percent = (0 if evt.is_async else
                             _format_time_share(evt.cpu_time_total, total_self))
    values = [name, evt.self_cpu_percent, _in_unit(evt.self_cpu_time_total, time_unit),
              evt.total_cpu_percent, _in_unit(evt.cpu_time_total, time_unit),
              _in_unit(evt.cpu_time, time_unit)]
    if "CPU Mem" in headers:
        values += [_format_memory(evt.cpu_memory_usage),
                   _format_memory(evt.self_cpu_memory_usage)]
    values.append(evt.count)
    if "Node ID" in headers:
        values.append(evt.node_id)
    if "Input Shapes" in headers:
        values.append(str(evt.input_shapes)[:widths[headers.index("Input Shapes")]])
    if flops_scale is not None:
        values.append("--" if not evt.flops or evt.flops <= 0 else
                      f"{evt.flops * flops_scale:8.3f}")
    if not stacks:
        return [row_format.format(*values)]
    frames = evt.stack or []
    values.append(_trim_path(frames[0], src_width) if frames else "")
    lines = [row_format.format(*values)]
    blank = [""] * (len(headers) - 1)
    lines += [row_format.format(*blank, _trim_path(f, src_width)) for f in frames[1:]]
    lines.append(row_format.format(*blank, ""))
    return lines
