"""``torch.utils.checkpoint``: trade compute for memory by recomputing a segment in backward.

``checkpoint(fn, *args, use_reentrant=False)`` runs ``fn`` without keeping the tensors its
operations save for backward, and runs it again, with the same random state and autocast
settings, when the backward pass first needs one of them. Gradients are the same as without
checkpointing. The two variants are PyTorch's:

* ``use_reentrant=False`` (the recommended one). ``fn`` runs under saved-tensor hooks
  (``torch.autograd.graph.saved_tensors_hooks``): each tensor an operation saves is replaced by
  an empty ``_Holder``, so the graph is ``fn``'s own graph (its output's ``grad_fn`` is the last
  operation's node) with nothing heavy in it. When backward unpacks a holder, the segment is
  recomputed once for that backward pass under recording hooks that put each newly saved tensor
  in the holder at the same position (recomputation stops early once every holder is filled),
  and each holder's tensor is handed out once. The shapes, dtypes and devices of what was saved
  are compared (``determinism_check="default"``): a segment that saves something else the second
  time raises ``CheckpointError``. Keyword arguments pass through to ``fn``.
* ``use_reentrant=True`` (what ``use_reentrant=None`` means, with PyTorch's warning): the
  segment is one ``CheckpointFunction`` node over its tensor arguments; its backward recomputes
  and runs a nested backward pass, which accumulates the parameters' gradients straight into
  ``.grad``.

The random state replayed is the CPU generator's, which in cinder also feeds CUDA's draws.
``debug=True`` is accepted but prints no operator logs (they come from a dispatch-level mode
cinder does not have); selective checkpointing (``create_selective_checkpoint_contexts``) is not
provided for the same reason.
"""

import contextlib
import uuid
import warnings
import weakref
from collections import defaultdict

from .. import accelerator as _accelerator
from ..amp.autocast_mode import autocast, get_autocast_dtype, is_autocast_cache_enabled, \
    is_autocast_enabled
from ..autograd import graph as _graph
from ..autograd._backward import backward as _run_backward
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..random import fork_rng, get_rng_state, set_rng_state
from .._tensor import Tensor

__all__ = ["CheckpointError", "CheckpointFunction", "DefaultDeviceType", "GraphExecGroup",
           "check_backward_validity", "checkpoint", "checkpoint_sequential", "detach_variable",
           "get_device_states", "noop_context_fn", "set_checkpoint_debug_enabled",
           "set_checkpoint_early_stop", "set_device_states"]

_NO_REENTRANT_CHOICE = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting "
    "in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")
_NO_REENTRANT_CHOICE_SEQUENTIAL = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
    "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")
_DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint\u2011debug mode globally.

If this error occurs under torch.compile with automatic_dynamic_shapes enabled,
it may be because the recomputation selected a different compiled graph than the
forward pass (e.g., a dynamic graph instead of the original static graph).
To fix this, either:
  - Use torch._dynamo.mark_dynamic() to explicitly mark varying dimensions as
    dynamic upfront, avoiding the static-to-dynamic transition.
  - Call torch._C._dynamo.eval_frame._set_lru_cache(False) to disable LRU cache
    reordering, which can change which graph is checked first between forward
    and recompute.
See https://github.com/pytorch/pytorch/issues/166926 for more details and
workaround examples.
"""

# Global switches of the context managers below (None: each call's own argument decides).
_early_stop_override = None
_debug_override = None


class CheckpointError(RuntimeError):
    """A checkpointed segment cannot give backward what its forward saved."""


# ----------------------------------------------------------------------------------------------
# Small public helpers
# ----------------------------------------------------------------------------------------------

def detach_variable(inputs):
    """A tuple of ``inputs`` with each tensor replaced by a detached alias that keeps its
    ``requires_grad`` (other values pass through)."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for x in inputs:
        if isinstance(x, Tensor):
            alias = x.detach()
            alias.requires_grad = x.requires_grad
            x = alias
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    """Warn when no tensor of ``inputs`` requires grad (the reentrant variant's gradients
    would all be None)."""
    if not any(x.requires_grad for x in inputs if isinstance(x, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)


def noop_context_fn():
    """The default ``context_fn``: no context around the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Within the block, non-reentrant checkpoints made (their forward run) stop or do not stop
    recomputing early, whatever their ``early_stop`` argument says."""
    global _early_stop_override
    previous, _early_stop_override = _early_stop_override, enable
    try:
        yield
    finally:
        _early_stop_override = previous


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Within the block, ``debug`` is ``enabled`` for every checkpoint (None: each call's own
    argument decides)."""
    global _debug_override
    previous, _debug_override = _debug_override, enabled
    try:
        yield
    finally:
        _debug_override = previous


class DefaultDeviceType:
    """The device type whose random state checkpointing saves when no argument is on a device
    other than the CPU: until set, the current accelerator's ("cuda" where a GPU is present),
    else "cpu"."""

    _default_device_type = None

    @staticmethod
    def set_device_type(device="cuda"):
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type():
        if not DefaultDeviceType._default_device_type:
            found = _accelerator.current_accelerator(True)
            DefaultDeviceType._default_device_type = found.type if found else "cpu"
        return DefaultDeviceType._default_device_type


def get_device_states(*args):
    """The ids of the non-CPU devices ``args``' tensors are on, and their generators' states.
    cinder's CUDA draws come from the CPU generator, so there is no per-device state: the ids
    come back with empty states."""
    ids = [x.get_device() for x in args if isinstance(x, Tensor) and x.device.type != "cpu"]
    return ids, []


def set_device_states(devices, states, *, device_type=None):
    """Restore per-device generator states (nothing to restore in cinder; see
    ``get_device_states``)."""


class GraphExecGroup:
    """Within the block, each non-reentrant checkpointed segment is recomputed at most once
    however many backward calls reach it (they must use disjoint parts of its saved tensors)."""

    _current = None

    def __enter__(self):
        if GraphExecGroup._current is not None:
            raise RuntimeError("GraphExecGroup contexts cannot be nested. Already inside group "
                               f"{GraphExecGroup._current}")
        GraphExecGroup._current = self
        return self

    def __exit__(self, *exc):
        GraphExecGroup._current = None

    @classmethod
    def _get_current_group(cls):
        return cls._current


# ----------------------------------------------------------------------------------------------
# Random state and autocast, as the forward saw them
# ----------------------------------------------------------------------------------------------

class _Replay:
    """What a recomputation must see again: the CPU random state (when ``preserve``) and the
    autocast settings of the forward."""

    def __init__(self, preserve):
        self.preserve = preserve
        self.rng_state = get_rng_state() if preserve else None
        # PyTorch replays the CPU's autocast and the arguments' device's; cinder's autocast
        # is the CPU's alone
        self.autocast = dict(enabled=is_autocast_enabled("cpu"), dtype=get_autocast_dtype("cpu"),
                             cache_enabled=is_autocast_cache_enabled())

    @contextlib.contextmanager
    def __call__(self):
        with fork_rng(enabled=self.preserve):
            if self.preserve:
                set_rng_state(self.rng_state)
            with autocast("cpu", **self.autocast):
                yield


# ----------------------------------------------------------------------------------------------
# use_reentrant=True: one node over the segment
# ----------------------------------------------------------------------------------------------

class CheckpointFunction(Function):
    """The reentrant checkpoint: ``CheckpointFunction.apply(run_function, preserve_rng_state,
    *args)`` runs ``run_function(*args)`` without a graph; its backward runs it again and
    backpropagates through that second run."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.replay = _Replay(preserve_rng_state)
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*(args[i] for i in ctx.tensor_indices))
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if _graph.CURRENT_TASK.task is not None and _graph.CURRENT_TASK.task.needed is not None:
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
                "or passing an `inputs` parameter to .backward(). To resolve this error, you "
                "can either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with ctx.replay():
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(out, g) for out, g in zip(outputs, grads)
                 if isinstance(out, Tensor) and out.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        _run_backward([p[0] for p in pairs], [p[1] for p in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None
                                    for x in detached)


# ----------------------------------------------------------------------------------------------
# use_reentrant=False: saved-tensor hooks
# ----------------------------------------------------------------------------------------------

class _Holder:
    """What the forward saves in place of a tensor: per backward pass (key), the recomputed
    tensor's slot, None once handed out."""

    __slots__ = ("slots", "__weakref__")

    def __init__(self):
        self.slots = {}


class _StopRecomputation(Exception):
    """Raised by the recording hook once every holder is filled (early stop)."""


def _metadata(x):
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


_DETERMINISM_CHECKS = {"default": _metadata, "none": lambda _: None}


class _Frame:
    """One non-reentrant checkpointed call: its inputs, the holders its forward saved (weakly:
    a holder lives as long as the graph keeps it), their metadata, and per backward pass the
    tensors the recomputation saved."""

    def __init__(self, recompute, early_stop, metadata_fn):
        self.recompute = recompute
        self.early_stop = early_stop
        self.metadata_fn = metadata_fn
        self.saved_args = []
        self.holders = []
        self.metas = []
        self.recomputed = defaultdict(dict)     # pass -> {holder position: tensor}
        self.counts = defaultdict(int)          # pass -> tensors saved by its recomputation
        self.done = set()                       # passes that have recomputed
        self.forward_completed = False
        self.ignore_mismatch = False

    def save_inputs(self, args):
        # kept as saved tensors: changing one in place before backward is the usual error
        self.saved_args = [_graph.SavedTensor(a) if isinstance(a, Tensor) else a for a in args]

    def inputs(self):
        return [a.unpack(None) if isinstance(a, _graph.SavedTensor) else a
                for a in self.saved_args]

    def pack(self, x):
        """The forward's hook: a holder instead of ``x``, and ``x``'s metadata."""
        holder = _Holder()
        self.holders.append(weakref.ref(holder))
        with no_grad():
            self.metas.append(self.metadata_fn(x))
        return holder

    def unpack(self, holder):
        """Backward's hook: recompute once for this pass, then hand out this holder's
        tensor (once)."""
        gid = GraphExecGroup._get_current_group()
        if gid is None:
            gid = _graph._current_graph_task_id()
            if gid == -1:                       # outside backward: a pass of its own
                gid = uuid.uuid4().int
        if gid not in self.done:
            args = self.inputs()
            try:
                with _graph.saved_tensors_hooks(self._recorder(gid), _identity), enable_grad():
                    self.recompute(*args)
            except _StopRecomputation:
                pass
            self.done.add(gid)
            self._check(gid)
        if holder.slots.get(gid) is None:
            raise CheckpointError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was "
                "already unpacked once. If you are calling ctx.saved_tensors in backward, make "
                "sure to do so only once. Otherwise please open an issue with details on your "
                "use case.")
        tensor = self.recomputed[gid].pop(holder.slots[gid])
        holder.slots[gid] = None
        return tensor

    def _recorder(self, gid):
        """The recomputation's pack hook: the n-th tensor saved goes to the n-th holder."""
        def record(x):
            x = x.detach() if x.requires_grad else x
            n = self.counts[gid]
            self.counts[gid] += 1
            if n >= len(self.holders):
                if not self.forward_completed:  # a checkpoint nested in its own forward
                    self.ignore_mismatch = True
                    return x
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors "
                                      "during recomputation than during the original forward "
                                      f"pass.\n{_DEBUG_TIP}")
            holder = self.holders[n]()
            if holder is not None:
                holder.slots[gid] = n
                self.recomputed[gid][n] = x
            if self.early_stop and self.counts[gid] == len(self.holders):
                raise _StopRecomputation
            return x
        return record

    def _check(self, gid):
        """The recomputation saved what the forward saved (count, and metadata)."""
        if self.ignore_mismatch:
            return
        if self.counts[gid] != len(self.holders):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.holders)}\n"
                f"Number of tensors saved during recomputation: {self.counts[gid]}.\n"
                f"{_DEBUG_TIP}")
        different = ""
        for n, ref in enumerate(self.holders):
            if ref() is None:
                continue
            again = self.metadata_fn(self.recomputed[gid][n])
            if again != self.metas[n]:
                different += (f"tensor at position {n}:\nsaved metadata: {self.metas[n]}\n"
                              f"recomputed metadata: {again}\n")
        if different:
            raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following "
                                  "tensors have different metadata than during the forward "
                                  f"pass.\n{different}.\n{_DEBUG_TIP}")


def _identity(x):
    return x


def _without_reentrant(function, preserve, context_fn, determinism_check, debug, early_stop,
                       args, kwargs):
    """Run ``function`` under the checkpoint's saved-tensor hooks; returns its result."""
    if _debug_override if _debug_override is not None else debug:
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, but "
                         f"got {determinism_check}")
    forward_context, recompute_context = context_fn()
    replay = _Replay(preserve)

    def recompute(*inputs):
        with replay(), recompute_context:
            function(*inputs, **kwargs)

    frame = _Frame(recompute, early_stop if _early_stop_override is None else
                   _early_stop_override, _DETERMINISM_CHECKS[determinism_check])
    if not is_grad_enabled():
        return function(*args, **kwargs)
    frame.save_inputs(args)
    suppressed = True
    with _graph.saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        result = function(*args, **kwargs)
        suppressed = False
    if suppressed:      # forward_context swallowed the forward's exception
        raise RuntimeError("torch.utils.checkpoint: the forward context provided by "
                           "context_fn suppressed an exception raised during the checkpointed "
                           "forward. This is not supported because checkpoint cannot return a "
                           "value for a failed forward.")
    frame.forward_completed = True
    return result


# ----------------------------------------------------------------------------------------------
# The entry points
# ----------------------------------------------------------------------------------------------

def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    """Run ``function(*args, **kwargs)`` without keeping what its operations save for
    backward; recompute it when backward needs it. Returns what ``function`` returns.

    ``use_reentrant`` picks the variant (see the module docstring); leaving it None warns and
    means True, as in PyTorch. ``preserve_rng_state=True`` (a keyword) replays the random state,
    so dropout draws the same masks when recomputed. Non-reentrant only: ``context_fn`` returns
    the two context managers the forward and the recomputation run in; ``determinism_check``
    ("default" or "none") and ``early_stop`` as described in the module docstring.
    """
    if use_reentrant is None:
        warnings.warn(_NO_REENTRANT_CHOICE, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _without_reentrant(function, preserve, context_fn, determinism_check, debug,
                              early_stop, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a sequence of modules (or an ``nn.Sequential``) in ``segments`` chunks, each
    checkpointed except the last, which runs normally so the output has its usual graph."""
    if use_reentrant is None:
        warnings.warn(_NO_REENTRANT_CHOICE_SEQUENTIAL, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
