"""The recorder behind ``torch.profiler`` / ``torch.autograd.profiler``: what runs while a
profiler is on.

While one records, ``_C.FLAG.profiler`` holds it; the op dispatch point, the
``nn.functional`` wrappers, the autograd engine and the optimizers test that one attribute
and, when it is set, call ``call`` / ``run_node`` / ``open`` / ``close`` here. Each op call
becomes a range with PyTorch's name for it (``aten::<op>``), its start and end times
(``time.perf_counter_ns``), its parent range (the innermost one open on its thread, so nested
calls nest as in PyTorch), and, when asked, the input shapes and the bytes its outputs
allocated (a weak reference to each new buffer reports the bytes freed again).
``events`` turns the ranges into ``FunctionEvent`` s when recording stops.
"""

import inspect
import os
import sys
import threading
import time
import weakref

from .. import _C
from ..backend import storage_root
from .._tensor import Tensor
from .profiler_util import MEMORY_EVENT_NAME, EventList, FunctionEvent

__all__ = ["Recorder", "op_name"]

# Where PyTorch's warning about stopping with no session comes from (its C++ source file).
_NO_SESSION_SOURCE = "profiler_kineto.cpp"

# Scopes (``torch.profiler.RecordScope``) of the ranges cinder records.
FUNCTION, BACKWARD_FUNCTION, USER_SCOPE = 0, 1, 7

# Tensor methods PyTorch does not record as operator calls (they read metadata, or are not
# dispatcher ops at all).
_NOT_OPS = frozenset((
    "size", "dim", "ndimension", "nelement", "stride", "tolist", "numpy", "type",
    "element_size", "storage_offset", "is_contiguous", "data_ptr", "untyped_storage", "storage",
    "get_device", "is_inference", "is_pinned", "is_shared", "is_signed", "backward",
    "register_hook", "register_post_accumulate_grad_hook", "retain_grad", "requires_grad_",
    "is_set_to", "is_floating_point", "is_complex", "dim_order", "numel", "has_names",
    "is_nonzero", "__len__", "__iter__", "__repr__", "__format__", "__hash__", "__contains__",
    "__array__", "__reduce_ex__", "__deepcopy__", "__setstate__", "__dir__", "__bool__",
    "__float__", "__int__", "__index__", "__complex__", "__array_wrap__", "__reversed__"))

# Python operators: the aten op PyTorch records for each.
_DUNDERS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub",
    "__rsub__": "rsub", "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul",
    "__imul__": "mul_", "__truediv__": "div", "__rtruediv__": "reciprocal",
    "__rdiv__": "reciprocal", "__idiv__": "div_",
    "__itruediv__": "div_", "__div__": "div", "__floordiv__": "floor_divide",
    "__rfloordiv__": "floor_divide", "__ifloordiv__": "floor_divide_", "__mod__": "remainder",
    "__rmod__": "remainder", "__imod__": "remainder_", "__pow__": "pow", "__rpow__": "pow",
    "__ipow__": "pow_", "__matmul__": "matmul", "__rmatmul__": "matmul", "__neg__": "neg",
    "__pos__": "positive", "__abs__": "abs", "__invert__": "bitwise_not", "__eq__": "eq",
    "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge",
    "__and__": "__and__", "__or__": "__or__", "__xor__": "__xor__", "__rand__": "__and__",
    "__ror__": "__or__", "__rxor__": "__xor__", "__iand__": "__iand__", "__ior__": "__ior__",
    "__ixor__": "__ixor__", "__lshift__": "__lshift__", "__rshift__": "__rshift__",
    "__ilshift__": "__ilshift__", "__irshift__": "__irshift__",
}

# Functions whose aten op has another name than the Python function.
_RENAMES = {"cross_entropy": "cross_entropy_loss", "nll_loss": "nll_loss_nd"}


def _setitem_op(args):
    """``t[index] = value`` writes with ``aten::fill_`` (a number) or ``aten::copy_``."""
    return "aten::copy_" if len(args) > 2 and isinstance(args[2], Tensor) else "aten::fill_"


def _getitem_op(args):
    return _index_op(args[1] if len(args) > 1 else None)


def _index_op(index):
    """The view op PyTorch records for ``t[index]`` (the first one, for a tuple index)."""
    if isinstance(index, tuple):
        if any(isinstance(i, (Tensor, list)) for i in index):
            return "aten::index"
        index = next((i for i in index if i is not Ellipsis), None)
    if isinstance(index, bool) or isinstance(index, (Tensor, list)):
        return "aten::index"
    if isinstance(index, int):
        return "aten::select"
    if isinstance(index, slice):
        return "aten::slice"
    if index is None:
        return "aten::unsqueeze"
    return "aten::alias"


_NAMES = {}     # public function -> aten name (None: not recorded); filled on first call
_SOFT = {}      # Python-level nn.functional function -> its kind (``Recorder._kept_ranges``)
_COMPOSITE, _DELEGATE = 1, 2

# Python-level nn.functional functions that PyTorch runs as the aten op of their own name
# (aten::dropout, aten::softmax...; renamed ones as ``op_name`` renames them).
_DELEGATING_FUNCTIONAL = frozenset((
    "dropout", "alpha_dropout", "feature_alpha_dropout", "relu", "softmax", "log_softmax",
    "layer_norm", "batch_norm", "group_norm", "instance_norm", "embedding", "embedding_bag",
    "max_pool1d", "max_pool2d", "max_pool3d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "mse_loss", "l1_loss",
    "smooth_l1_loss", "huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "kl_div", "nll_loss", "cross_entropy", "tanh", "sigmoid", "hardtanh", "elu", "leaky_relu",
    "selu", "celu", "glu", "hardsigmoid", "hardswish", "silu", "mish", "threshold", "rrelu",
    "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
    "multilabel_margin_loss", "multi_margin_loss", "cosine_embedding_loss",
    "triplet_margin_loss", "poisson_nll_loss", "ctc_loss", "rms_norm", "pad"))

# The nn.functional functions that are operators in PyTorch (C++ bindings, recorded as
# aten::<name>); the others are Python functions there, which PyTorch does not record.
_C_LEVEL_FUNCTIONAL = frozenset((
    "adaptive_avg_pool1d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "bilinear", "celu_",
    "channel_shuffle", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "cosine_similarity", "elu_", "gelu", "hardshrink",
    "hardtanh_", "leaky_relu_", "linear", "logsigmoid", "one_hot", "pairwise_distance", "pdist",
    "pixel_shuffle", "pixel_unshuffle", "prelu", "relu_", "rrelu_",
    "scaled_dot_product_attention", "selu_", "softplus", "softshrink", "threshold_"))


_INPLACE_AT = {}   # Python-level nn.functional function -> position of ``inplace`` (or None)


def _inplace_position(fn):
    """Where ``fn`` takes its ``inplace`` argument (None if it has none)."""
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return None
    return params.index("inplace") if "inplace" in params else None


def _inplace_call(fn, args, kwargs):
    """Whether this call of a Python-level nn.functional function asks for ``inplace``."""
    at = _INPLACE_AT.get(fn)
    if at is None:
        return False
    if "inplace" in kwargs:
        return bool(kwargs["inplace"])
    return len(args) > at and bool(args[at])


def op_name(public):
    """PyTorch's name for a call of ``public`` (``aten::add`` for ``Tensor.__add__``), or
    None for a method that PyTorch does not record."""
    named = getattr(public, "_cinder_profiler_name", None)
    if named is not None:
        return named
    name = public.__name__
    if name in _NOT_OPS:
        return None
    if name == "__getitem__":
        return _getitem_op
    if name == "__setitem__":
        return _setitem_op
    if name.startswith("__") and name.endswith("__"):
        name = _DUNDERS.get(name)
        if name is None:
            return None
    return "aten::" + _RENAMES.get(name, name)


def _shape_of(a):
    if isinstance(a, Tensor):
        return list(a._data.shape)
    return []


def _input_shapes(args, kwargs):
    """One entry per argument, as PyTorch records them: a tensor's shape, [] otherwise."""
    shapes = [_shape_of(a) for a in args]
    if kwargs:
        shapes += [_shape_of(a) for a in kwargs.values()]
    return shapes


def _tensors(objs):
    for o in objs:
        if isinstance(o, Tensor):
            yield o
        elif isinstance(o, (list, tuple)):
            for x in o:
                if isinstance(x, Tensor):
                    yield x


def _buffer_ids(objs):
    """The ids of the buffers behind the tensors in ``objs`` (and in its lists/tuples)."""
    return {id(storage_root(t._data)) for t in _tensors(objs)}


class _Range:
    """One recorded range while recording (``FunctionEvent`` s are built from these)."""

    __slots__ = ("name", "start", "end", "thread", "parent", "shapes", "mem", "scope", "seq",
                 "stack", "backward", "soft")

    def __init__(self, name, thread, parent, scope):
        self.name = name
        self.thread = thread
        self.parent = parent
        self.scope = scope
        self.shapes = None
        self.mem = 0
        self.seq = -1
        self.stack = None
        self.end = None
        self.backward = scope == BACKWARD_FUNCTION    # run by the autograd engine
        self.soft = 0               # a Python-level nn.functional function's kind, or 0


class Recorder:
    """Records ranges until ``stop``; ``events`` then gives them as an ``EventList``."""

    def __init__(self, record_shapes=False, profile_memory=False, with_stack=False,
                 use_device=None, with_flops=False):
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.use_device = use_device
        self.ranges = []
        self.memory = []             # (time, bytes, thread): frees outside every range
        self.local = threading.local()
        self.threads = {}            # thread ident -> PyTorch-style small id
        self.watched = {}            # buffer id -> weak reference reporting its freeing
        self.recording = False
        self.start_ns = self.stop_ns = None
        self.epoch_ns = None

    # -- switching on and off -------------------------------------------------------------
    # There is one recording session at a time (PyTorch's profiler has one per process): a
    # profile started while another records takes the session over, and what the other had
    # recorded is lost; the first ``stop`` after that ends the session and gets its records,
    # and a ``stop`` that finds no session gets nothing (PyTorch warns on stderr then).
    def start(self):
        """Begin recording, taking over from any recorder that records now."""
        running = _C.FLAG.profiler
        if running is not None:
            running._finish()
            running.ranges, running.memory = [], []
        self.recording = True
        self.epoch_ns = time.time_ns()
        self.start_ns = time.perf_counter_ns()
        _C.FLAG.profiler = self
        _C.FLAG.refresh()

    def stop(self):
        """End the session, whichever recorder runs it; returns the recorder whose records
        the caller gets (the session's, or a new empty one if none was recording)."""
        session = _C.FLAG.profiler
        if session is None:
            sys.stderr.write(f"[W {_NO_SESSION_SOURCE}] disableProfiler called but no active "
                             "profiling session found. This can happen if profiling was "
                             "cancelled during warmup.\n")
            empty = Recorder(self.record_shapes, self.profile_memory, self.with_stack,
                             self.use_device, self.with_flops)
            empty.epoch_ns, empty.start_ns = time.time_ns(), time.perf_counter_ns()
            empty._finish()
            return empty
        _C.FLAG.profiler = None
        _C.FLAG.refresh()
        session._finish()
        return session

    def _finish(self):
        self.recording = False
        self.stop_ns = time.perf_counter_ns()
        for r in self.ranges:          # ranges still open (a block around the profile)
            if r.end is None:
                r.end = self.stop_ns

    # -- ranges ---------------------------------------------------------------------------
    def _stack(self):
        local = self.local
        try:
            return local.stack
        except AttributeError:
            local.stack = []
            ident = threading.get_ident()
            self.threads.setdefault(ident, len(self.threads) + 1)
            local.thread = self.threads[ident]
            return local.stack

    def open(self, name, scope=FUNCTION):
        """Open a range named ``name`` inside the innermost open one of this thread."""
        stack = self._stack()
        r = _Range(name, self.local.thread, stack[-1] if stack else None, scope)
        if self.with_stack:
            r.stack = _python_stack()
        stack.append(r)
        self.ranges.append(r)
        r.start = time.perf_counter_ns()       # last: the bookkeeping is not timed
        return r

    def close(self, r):
        r.end = time.perf_counter_ns()
        stack = self._stack()
        if stack and stack[-1] is r:
            stack.pop()
        elif r in stack:                       # closed out of order (a generator, say)
            stack.remove(r)

    def call(self, public, run, impl, args, kwargs):
        """Run one op call (``run(public, impl, args, kwargs)``) as a recorded range."""
        name = _NAMES.get(public, 0)
        if name == 0:
            name = _NAMES[public] = op_name(public)
            if getattr(public, "_cinder_python_level", False) and \
                    public.__name__ not in _C_LEVEL_FUNCTIONAL:
                _SOFT[public] = (_DELEGATE if public.__name__ in _DELEGATING_FUNCTIONAL
                                 else _COMPOSITE)
                _INPLACE_AT[public] = _inplace_position(public)
        if name is None:
            return run(public, impl, args, kwargs)
        if name.__class__ is not str:
            name = name(args)
        # ``open``/``close`` written out: this runs for every op call while recording
        local = self.local
        try:
            stack = local.stack
        except AttributeError:
            stack = self._stack()
        r = _Range(name, local.thread, stack[-1] if stack else None, FUNCTION)
        if self.record_shapes:
            r.shapes = _input_shapes(args, kwargs)
        if self.with_stack:
            r.stack = _python_stack()
        if public in _SOFT:
            r.soft = _SOFT[public]
            if _inplace_call(public, args, kwargs):
                r.name += "_"           # F.elu(x, inplace=True) runs aten::elu_
        stack.append(r)
        self.ranges.append(r)
        r.start = time.perf_counter_ns()
        try:
            out = run(public, impl, args, kwargs)
        finally:
            r.end = time.perf_counter_ns()
            if stack[-1] is r:
                stack.pop()
            elif r in stack:
                stack.remove(r)
        gf = getattr(out, "_grad_fn", None)
        if gf is not None:
            r.seq = _forward_sequence_nr(gf, args)
        if self.profile_memory:
            self._note_allocations(r, args, kwargs, out)
        return out

    def run_node(self, call, node, buffer):
        """Run an autograd node (``call(node, buffer)``) as a range named after it."""
        name = _node_name(node)
        r = self.open(name, BACKWARD_FUNCTION)
        r.seq = _sequence_nr(node)
        if self.record_shapes:
            r.shapes = [_shape_of(g) for g in buffer]
        try:
            grads = call(node, buffer)
        finally:
            self.close(r)
        if self.profile_memory and grads is not None:
            self._note_allocations(r, buffer, None, grads)
        return grads

    def evaluate(self, node):
        """Open the engine's range around one node's evaluation (closed by the caller)."""
        r = self.open("autograd::engine::evaluate_function: " + _node_name(node))
        r.seq = _sequence_nr(node)
        r.backward = True
        if self.record_shapes:
            r.shapes = []
        return r

    # -- memory ---------------------------------------------------------------------------
    def _note_allocations(self, r, args, kwargs, out):
        """Count the buffers of ``out`` that no input owns as allocated by ``r``."""
        outs = out if isinstance(out, (tuple, list)) else (out,)
        owned = None
        for t in _tensors(outs):
            root = storage_root(t._data)
            key = id(root)
            if key in self.watched:
                continue
            if owned is None:
                owned = _buffer_ids(args)
                if kwargs:
                    owned |= _buffer_ids(kwargs.values())
            if key in owned:
                continue
            nbytes = int(root.nbytes)
            r.mem += nbytes
            try:
                self.watched[key] = weakref.ref(
                    root, lambda _, key=key, nbytes=nbytes: self._freed(key, nbytes))
            except TypeError:          # a buffer that takes no weak reference
                continue

    def _freed(self, key, nbytes):
        """A watched buffer was freed: count it against the innermost open range of this
        thread, or as a ``[memory]`` event outside every range."""
        self.watched.pop(key, None)
        if not self.recording:
            return
        stack = self._stack()
        if stack:
            stack[-1].mem -= nbytes
        else:
            self.memory.append((time.perf_counter_ns(), -nbytes, self.local.thread))

    # -- results --------------------------------------------------------------------------
    def _kept_ranges(self):
        """The ranges to report. A Python-level ``nn.functional`` function is no operator in
        PyTorch, which records only the ops it calls: its range is left out when ops were
        recorded inside it (its children move up to the range around it), except where
        PyTorch's function calls the aten op of its own name (``F.dropout`` runs
        ``aten::dropout``), whose range stays unless it only wraps that op's in-place form
        (``F.relu(x, inplace=True)`` is ``aten::relu_``)."""
        kids = {}
        for r in self.ranges:
            if r.parent is not None and r.parent.soft:
                kids.setdefault(r.parent, []).append(r)
        dropped = {r for r, inner in kids.items() if r.soft == _COMPOSITE or
                   (len(inner) == 1 and inner[0].name.startswith(r.name))}
        if not dropped:
            return self.ranges
        for r in dropped:          # its own allocations count in the range around it
            up = r.parent
            while up in dropped:
                up = up.parent
            if up is not None:
                up.mem += r.mem
        for r in self.ranges:
            while r.parent in dropped:
                r.parent = r.parent.parent
        return [r for r in self.ranges if r not in dropped]

    def events(self):
        """The recorded ranges as ``FunctionEvent`` s, children linked, in start order."""
        evts = {}
        out = []
        self.ranges = self._kept_ranges()
        for i, r in enumerate(self.ranges):
            name = r.name
            e = FunctionEvent(
                id=i + 1, name="ProfilerStep*" if name.startswith("ProfilerStep#") else name,
                trace_name=name, thread=r.thread, start_us=self._us(r.start),
                end_us=self._us(r.end), input_shapes=r.shapes if r.shapes is not None else [],
                stack=r.stack or [], scope=r.scope, use_device=self.use_device,
                cpu_memory_usage=r.mem, sequence_nr=r.seq,
                is_user_annotation=r.scope == USER_SCOPE,
                flops=_flops(name, r.shapes) if self.with_flops and r.shapes else 0,
                fwd_thread=r.thread if r.backward else 0)
            evts[r] = e
            out.append(e)
        for r in self.ranges:
            if r.parent is not None and r.parent in evts:
                evts[r].set_cpu_parent(evts[r.parent])
                evts[r.parent].append_cpu_child(evts[r])
        for e in reversed(out):        # memory in children counts in their parents' totals
            if e.cpu_parent is not None:
                e.cpu_parent.cpu_memory_usage += e.cpu_memory_usage
        for t, nbytes, thread in self.memory:
            us = self._us(t)
            out.append(FunctionEvent(id=len(out) + 1, name=MEMORY_EVENT_NAME, trace_name=None,
                                     thread=thread, start_us=us, end_us=us, input_shapes=[],
                                     stack=[], use_device=self.use_device,
                                     cpu_memory_usage=nbytes))
        out.sort(key=lambda e: e.time_range.start)
        result = EventList(out, use_device=self.use_device,
                           profile_memory=self.profile_memory, with_flops=self.with_flops)
        result._build_tree()
        return result

    def _flows(self, pid, base, idents):
        """Chrome-trace flow arrows from each forward op to the backward node it made (matched
        by sequence number), as PyTorch's "fwdbwd" flows."""
        forward = {}
        for r in self.ranges:
            if r.seq >= 0 and not r.backward and r.scope == FUNCTION:
                forward.setdefault(r.seq, r)
        flows = []
        for r in self.ranges:
            if r.scope == BACKWARD_FUNCTION and r.seq in forward:
                f = forward[r.seq]
                common = {"id": r.seq, "pid": pid, "cat": "fwdbwd", "name": "fwdbwd"}
                flows.append({"ph": "s", "tid": idents.get(f.thread, f.thread),
                              "ts": (f.start + base) / 1000.0, **common})
                flows.append({"ph": "f", "tid": idents.get(r.thread, r.thread),
                              "ts": (r.start + base) / 1000.0, "bp": "e", **common})
        return flows

    def _us(self, t_ns):
        return (t_ns - self.start_ns) / 1000.0

    def trace(self, path):
        """The ranges as a Chrome trace in the layout PyTorch's (Kineto's) export uses."""
        pid = _pid()
        base = self.epoch_ns - self.start_ns       # perf_counter -> wall-clock nanoseconds
        idents = {v: k for k, v in self.threads.items()}
        events = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                   "args": {"name": "python"}}]
        for i, r in enumerate(self.ranges):
            args = {"External id": i + 1, "Record function id": 0, "Ev Idx": i}
            if r.seq >= 0:
                args["Sequence number"] = r.seq
            if r.shapes is not None and r.scope != USER_SCOPE:
                args["Input Dims"] = r.shapes
            events.append({"ph": "X", "cat": _category(r), "name": r.name, "pid": pid,
                           "tid": idents.get(r.thread, r.thread),
                           "ts": (r.start + base) / 1000.0, "dur": (r.end - r.start) / 1000.0,
                           "args": args})
        events += self._flows(pid, base, idents)
        for t, nbytes, thread in self.memory:
            events.append({"ph": "i", "cat": "cpu_instant_event", "s": "t",
                           "name": MEMORY_EVENT_NAME, "pid": pid,
                           "tid": idents.get(thread, thread), "ts": (t + base) / 1000.0,
                           "args": {"Bytes": nbytes, "Device Type": 0, "Device Id": -1}})
        return {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms",
                "baseTimeNanoseconds": self.epoch_ns - self.start_ns, "traceEvents": events,
                "traceName": str(path)}


def _prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _flops(name, shapes):
    """The floating-point operations PyTorch's ``with_flops`` counts for an op (matrix
    products: two per multiply-add; ``mul``/``add``: one per output element), from the
    recorded input shapes; 0 for ops it does not count. cinder's ``aten::linear`` runs its
    GEMM itself (PyTorch counts it in the ``aten::addmm``/``aten::mm`` inside)."""
    try:
        if name in ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm"):
            a, b = shapes[-2:] if name in ("aten::mm", "aten::bmm") else shapes[1:3]
            return 2 * _prod(a) * b[-1]
        if name == "aten::linear":
            return 2 * _prod(shapes[0]) * shapes[1][0]
        if name in ("aten::mul", "aten::add"):
            dims = [s for s in shapes[:2] if s]
            return _prod(max(dims, key=len)) if dims else 0
    except (IndexError, TypeError):
        pass
    return 0


def _category(r):
    if r.scope == USER_SCOPE:
        return "user_annotation"
    return "cpu_op"


def _pid():
    return os.getpid()


def _forward_sequence_nr(node, args):
    """The sequence number of the graph node an op call made (PyTorch's link between a
    forward op and its backward node), or -1 if its output's node is an input's."""
    for a in args:
        if getattr(a, "_grad_fn", None) is node:
            return -1
    return _sequence_nr(node)


def _sequence_nr(node):
    """The node's forward sequence number; -1 for AccumulateGrad, as PyTorch reports it."""
    seq = getattr(node, "_sequence_nr", -1)
    return -1 if seq >= 2 ** 62 else seq


def _node_name(node):
    name = type(node).__name__
    return "torch::autograd::AccumulateGrad" if name == "AccumulateGrad" else name


_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# cinder's own dispatch and recording frames, which PyTorch's stacks do not show (its
# dispatcher is C++)
_OWN_FILES = frozenset(os.path.join(_HERE, *parts) for parts in (
    ("autograd", "_profiler_recorder.py"), ("ops", "_dispatch.py"), ("ops", "operators.py"),
    ("nn", "_functional", "__init__.py"), ("autograd", "profiler.py")))


def _python_stack():
    """The calling Python frames (innermost first) as PyTorch's ``with_stack`` shows them,
    ``file(line): function``, without cinder's own dispatch and profiler frames."""
    frames = []
    f = sys._getframe(2)
    while f is not None:
        code = f.f_code
        if code.co_filename not in _OWN_FILES:
            frames.append(f"{code.co_filename}({f.f_lineno}): {code.co_name}")
        f = f.f_back
    return frames
