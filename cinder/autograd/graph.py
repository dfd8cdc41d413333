"""Graph nodes: the objects behind ``tensor.grad_fn``.

A node is one recorded operation. ``next_functions`` holds one ``(node, input_nr)`` pair per
differentiable input (``(None, 0)`` for inputs that need no gradient); ``AccumulateGrad`` is the
node that writes into a leaf's ``.grad``. Op nodes are generated from the op table, one class per
PyTorch name (``MulBackward0``); custom ``autograd.Function`` s plug in as ``BackwardCFunction``.
"""

import contextlib
import functools
import itertools
import re
import threading
import warnings
import weakref
from collections import defaultdict
from typing import Any, NamedTuple

from .. import _C
from ..backend import is_non_overlapping_and_dense
from ..utils.hooks import RemovableHandle  # noqa: F401  (old import path)
from . import grad_mode

__all__ = ["Node", "AccumulateGrad", "SavedTensor", "RemovableHandle", "saved_tensors_hooks",
           "save_on_cpu", "disable_saved_tensors_hooks", "GradientEdge", "get_gradient_edge",
           "increment_version", "register_multi_grad_hook", "allow_mutation_on_saved_tensors",
           "set_warn_on_accumulate_grad_stream_mismatch", "set_override_stale_capture_stream",
           "region_activation_memory_budget"]

# Nodes created later get larger numbers; the engine runs larger numbers first, which is a
# valid topological order for a graph recorded by running the forward pass.
_sequence = itertools.count()


def _make_tensor(data, dtype=None, device=None, requires_grad=False):
    """``cinder._tensor.make_tensor``. The tensor module imports this one, so the first call
    looks it up and rebinds this name to it: later calls go straight there (an import
    statement in a function costs a microsecond a call, and these run for every step)."""
    global _make_tensor
    from .._tensor import make_tensor
    _make_tensor = make_tensor
    return make_tensor(data, dtype, device, requires_grad)


class SavedTensor:
    """A tensor saved for backward, with the version it had when it was saved.

    Unpacking checks the version, which is how an in-place change to a saved tensor becomes the
    "modified by an inplace operation" error instead of a silently wrong gradient. An op's own
    output is saved as its array and version counter rather than the Tensor object, so the
    output does not keep itself alive through its own grad_fn (no reference cycle).

    Under ``saved_tensors_hooks`` the tensor goes through the innermost pack hook when it is
    saved, and what the hook returned goes through the unpack hook when backward needs it;
    the tensor backward uses has the unpacked values and the saved tensor's place in the graph
    (its version is not checked then, as in PyTorch). The saved tensor keeps nothing it
    unpacked: while a node's backward runs, the unpacked tensors wait in that run's memo
    (``CURRENT_TASK.unpacked``), so the unpack hook runs once per run of the node however many
    formulas read the tensor, and what it gave back is freed with the run.
    """

    __slots__ = ("tensor", "version", "vc", "data", "dtype", "device", "output_nr", "packed",
                 "unpack_hook", "edge")

    def __init__(self, tensor, is_output=False):
        if tensor._is_inference and not grad_mode.STATE.inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors "
                "created in inference mode in computation tracked by autograd. To work around "
                "this, you can make a clone to get a normal tensor and use it in autograd, or use "
                "`torch.no_grad()` instead of `torch.inference_mode()`.")
        vc = tensor._vc
        self.version = 0 if vc is None else vc.value
        self.unpack_hook = None
        if is_output:
            self.tensor = None
            self.vc = tensor._shared_version_counter()
            self.data, self.dtype, self.device = tensor._data, tensor._dtype, tensor._device
            self.output_nr = tensor._output_nr
        else:
            self.tensor = tensor
        if _HOOKS_IN_USE[0] and (_HOOKS.stack or _HOOKS.disabled is not None):
            self._pack(tensor, is_output)

    def _pack(self, tensor, is_output):
        if _HOOKS.disabled is not None:
            if not _HOOKS.stack:
                return
            raise RuntimeError(_HOOKS.disabled)
        pack, unpack = _HOOKS.stack[-1]
        self._set_hooks(pack, unpack, tensor, is_output)

    def register_hooks(self, pack_hook, unpack_hook):
        """Pack this saved tensor with ``pack_hook`` now, and unpack what it returned with
        ``unpack_hook`` when backward needs the tensor (what ``saved_tensors_hooks`` does for
        every tensor saved in its block, for this one; ``grad_fn._raw_saved_self`` and the
        like give the saved tensors)."""
        _check_hook_pair(pack_hook, unpack_hook)
        if self.unpack_hook is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at a "
                               "time.")
        tensor = self.tensor
        if tensor is None:          # an op's output, kept as its array: the hook sees the values
            tensor = _make_tensor(self.data, self.dtype, self.device)
            tensor._vc = self.vc
        self._set_hooks(pack_hook, unpack_hook, tensor, self.tensor is None)

    def _set_hooks(self, pack, unpack, tensor, is_output):
        self.packed = _outside_hooks(pack, tensor)
        self.unpack_hook = unpack
        _HOOKED[0] = True           # from now on the engine gives each node run a memo
        if is_output:
            self.data = None        # the hooks hold the values now
        else:
            # The hooks hold the values now: keep what rebuilds the tensor, not the tensor
            # (so save_on_cpu frees device memory), and where it stood in the graph when it
            # was saved (an in-place op may move it onto a newer node before backward).
            self.edge = tensor._gradient_edge() if tensor._requires_grad else None
            self.dtype, self.device, self.vc = tensor._dtype, tensor._device, tensor._vc
            self.tensor = self.output_nr = None

    def unpack(self, node, fresh=False):
        """The saved tensor as ``node``'s backward reads it. Through an unpack hook, the value
        is remembered for the rest of the node's run unless ``fresh`` (an access such as
        ``grad_fn._saved_self`` or ``ctx.saved_tensors`` runs the hook each time)."""
        if self.unpack_hook is not None:
            return self._unpack_through_hook(node, fresh)
        t = self.tensor
        if t is None:
            t = _make_tensor(self.data, self.dtype, self.device, True)
            t._vc, t._grad_fn, t._output_nr = self.vc, node, self.output_nr
        vc = t._vc
        if (0 if vc is None else vc.value) != self.version:
            raise RuntimeError(_modified_message(t, self.version))
        return t

    def _unpack_through_hook(self, node, fresh):
        """The unpack hook's tensor, standing where the saved tensor stood in the graph. The
        hook runs once per run of the node, however many formulas read the tensor (PyTorch's
        generated nodes unpack each saved tensor once, at the start of ``apply``)."""
        memo = None if fresh else CURRENT_TASK.unpacked
        if memo is not None:
            t = memo.get(self)
            if t is not None:
                return t
        value = _outside_hooks(self.unpack_hook, self.packed)
        if not hasattr(value, "_data"):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but "
                            f"got result of type {type(value).__name__}")
        if self.output_nr is not None:      # an op's own output: the node is its grad_fn
            t = _make_tensor(value._data, self.dtype, self.device, True)
            t._vc, t._grad_fn, t._output_nr = self.vc, node, self.output_nr
        elif _stands_at(value, self.edge):
            t = value                       # the hook gave back the saved tensor itself
        else:
            # the hook's values in the saved tensor's place in the graph: a non-leaf's
            # grad_fn, or a leaf's AccumulateGrad (so a gradient of the gradient still
            # reaches the leaf)
            edge = self.edge
            t = _make_tensor(value._data, self.dtype, self.device, edge is not None)
            t._vc = self.vc
            if edge is not None:
                t._grad_fn, t._output_nr = edge
        # No version check here: what the hooks kept is theirs to keep current (PyTorch checks
        # versions only for tensors saved without hooks; allow_mutation_on_saved_tensors
        # relies on that, handing back a copy taken before the change).
        if memo is not None:
            memo[self] = t
        return t


def _stands_at(t, edge):
    """Whether the tensor ``t`` is where ``edge`` leads (None: nowhere, needing no grad)."""
    if edge is None:
        return not t._requires_grad
    if not t._requires_grad:
        return False
    if t._grad_fn is None:
        return t._grad_accumulator() is edge[0]
    return t._grad_fn is edge[0] and t._output_nr == edge[1]


class _RawSavedTensor(SavedTensor):
    """``grad_fn._raw_saved_<name>``: a handle on one tensor a node saved, through which
    hooks can be registered (PyTorch's ``torch._C._autograd.SavedTensor``). It finds the saved
    tensor when asked, so that one freed by backward since is refused as PyTorch refuses it."""

    __slots__ = ("node_ref", "key", "index")

    def __init__(self, node, key, index=None):
        self.node_ref, self.key, self.index = weakref.ref(node), key, index

    def _target(self):
        """The SavedTensor this handle stands for; _FREED once backward freed it."""
        node = self.node_ref()
        saved = None if node is None else node._saved
        if saved is None or saved is _FREED:
            return _FREED
        return saved[self.key] if self.index is None else saved[self.key][self.index]

    @property
    def data(self):
        """What is kept: the saved tensor itself (an op's own output: its values, detached),
        or what the pack hook returned; None once backward freed it."""
        target = self._target()
        if target is _FREED or target is None:
            return None
        if target.unpack_hook is not None:
            return target.packed if hasattr(target.packed, "_data") else None
        if target.tensor is not None:
            return target.tensor
        out = _make_tensor(target.data, target.dtype, target.device)
        out._vc = target.vc
        return out

    def unpack(self):
        """The tensor backward would read (through the unpack hook when one is set)."""
        target = self._target()
        if target is _FREED:
            raise RuntimeError(_FREED_MESSAGE)
        return None if target is None else target.unpack(self.node_ref(), fresh=True)

    @property
    def unpack_hook(self):
        target = self._target()
        return None if target is _FREED or target is None else target.unpack_hook

    def register_hooks(self, pack_hook, unpack_hook):
        _check_hook_pair(pack_hook, unpack_hook)
        value = self._target()
        if value is _FREED:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved variables after calling "
                "backward.")
        if value is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                               "forbidden")
        value.register_hooks(pack_hook, unpack_hook)


def _check_hook_pair(pack_hook, unpack_hook):
    if not (callable(pack_hook) and callable(unpack_hook)):
        raise TypeError(
            "register_hooks(): incompatible function arguments. The following argument types "
            "are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
            "collections.abc.Callable, arg1: collections.abc.Callable) -> None")


def _raw_saved(node, key):
    """``node._raw_saved_<key>`` (a tuple for a list of tensors), or None when ``key`` names
    no saved tensor."""
    saved = node._saved
    if saved is _FREED:
        return _RawSavedTensor(node, key)
    value = saved.get(key) if saved is not None else None
    if type(value) is SavedTensor:
        return _RawSavedTensor(node, key)
    if value is None and saved is not None and key in saved and \
            key in getattr(type(node), "_inputs", ()):
        # a tensor input the node did not need to save: PyTorch's handle holds None
        return _RawSavedTensor(node, key)
    if type(value) is tuple and any(type(v) is SavedTensor for v in value):
        return tuple(_RawSavedTensor(node, key, i) for i in range(len(value)))
    return None


class GradientEdge(NamedTuple):
    """Where a gradient enters the graph: a node and which of its inputs (what
    ``get_gradient_edge`` returns; ``autograd.grad`` takes one in place of a tensor)."""

    node: Any
    output_nr: int
    ownership_token: Any = None

    def _gradient_edge(self):
        return self.node, self.output_nr


def get_gradient_edge(tensor):
    """The ``GradientEdge`` through which a gradient reaches ``tensor``."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    return GradientEdge(*tensor._gradient_edge())


def increment_version(tensor):
    """Count an in-place change of ``tensor`` made behind autograd's back, so backward
    notices saved copies of it are stale."""
    for t in (tensor,) if hasattr(tensor, "_data") else tensor:
        t._bump_version()


def _outside_hooks(hook, value):
    """``hook(value)`` with this thread's saved-tensor hooks set aside: what a hook itself
    records saves its tensors plainly (PyTorch's hooks do not see their own work)."""
    stack, _HOOKS.stack = _HOOKS.stack, []
    try:
        return hook(value)
    finally:
        _HOOKS.stack = stack


class _SavedHooks(threading.local):
    """This thread's stack of (pack, unpack) hook pairs, and the message set while they are
    disabled."""

    def __init__(self):
        self.stack = []
        self.disabled = None


_HOOKS = _SavedHooks()
# How many hook and disabling scopes are open in all threads: a plain read, so that saving a
# tensor with none open (every op, nearly always) does not touch the thread-local state.
_HOOKS_IN_USE = [0]


class saved_tensors_hooks:
    """Context manager: every tensor saved for backward inside it is passed to
    ``pack_hook``, whose result is kept instead; backward passes that result to
    ``unpack_hook``, which must give back a tensor with the same values."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if _HOOKS.disabled is not None:
            raise RuntimeError(_HOOKS.disabled)
        _HOOKS.stack.append((self.pack_hook, self.unpack_hook))
        _HOOKS_IN_USE[0] += 1
        return self

    def __exit__(self, *exc):
        _HOOKS.stack.pop()
        _HOOKS_IN_USE[0] -= 1
        return False


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU (``pin_memory``: in pinned memory) and moved back to
    their device when backward needs them."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(tensor):
            packed = tensor.detach().cpu()
            if pin_memory and tensor.is_cuda:
                packed = packed.pin_memory()
            return tensor.device, packed

        def unpack(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)
        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Context manager in which registering or using saved-tensor hooks raises
    ``RuntimeError(error_message)``."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        self.previous, _HOOKS.disabled = _HOOKS.disabled, self.error_message
        _HOOKS_IN_USE[0] += 1
        return self

    def __exit__(self, *exc):
        _HOOKS.disabled = self.previous
        _HOOKS_IN_USE[0] -= 1
        return False


def _modified_message(t, expected):
    """PyTorch's error for a saved tensor changed in place after it was saved."""
    where = ""
    if t._grad_fn is not None:
        # PyTorch names the forward op: "output 0 of Exp" for ExpBackward0.
        op = re.sub(r"Backward\d*$", "", t._grad_fn.name())
        where = f", which is output {t._output_nr} of {op},"
    if grad_mode.ANOMALY.enabled:
        hint = ("Hint: the backtrace further above shows the operation that failed to compute "
                "its gradient. The variable in question was changed in there or anywhere later. "
                "Good luck!")
    else:
        hint = ("Hint: enable anomaly detection to find the operation that failed to compute "
                "its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{t.type()} {list(t.shape)}]{where} is at version "
            f"{t._vc.value}; expected version {expected} instead. {hint}")


_FREED = object()          # what a node's saved values become once backward freed them
# A key of a node's saved values: it kept a Python number that stands for a tensor input
# (``x * 2``), which PyTorch saves as a tensor and so frees after backward.
HOLDS_NUMBER = "\0number"
_FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward.")


class Node:
    """Base of every graph node. Subclasses implement ``backward(grad_outputs) -> grad_inputs``."""

    __slots__ = ("next_functions", "_input_meta", "_saved", "_hooks", "_pre_hooks",
                 "_tensor_pre_hooks", "_retain_grad_hooks", "_sequence_nr", "metadata",
                 "_anomaly_trace", "__weakref__", "__dict__")

    # Read by the engine for every node; subclasses (and instances) override them.
    _num_outputs = 1                    # how many gradients ``backward`` receives
    _call_with_undefined_grads = False  # run even when every incoming gradient is None

    def __init__(self):
        self.next_functions = ()
        self._input_meta = ()
        self._saved = None
        self._hooks = None
        self._pre_hooks = None
        self._tensor_pre_hooks = None
        self._retain_grad_hooks = None
        self._sequence_nr = next(_sequence)
        self.metadata = {}
        self._anomaly_trace = None

    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def requires_grad(self):
        return True

    # -- saved values ------------------------------------------------------------------------
    def saved(self, key, fresh=False):
        """The value saved under ``key``, unpacking saved tensors with the version check
        (``fresh``: see ``SavedTensor.unpack``)."""
        saved = self._saved
        if saved is _FREED:
            raise RuntimeError(_FREED_MESSAGE)
        value = saved[key]
        return value.unpack(self, fresh) if type(value) is SavedTensor else value

    def release_saved(self):
        """Free what was saved for backward. A node that saved no tensor (only sizes, scalars)
        keeps its values: PyTorch lets such a node run a second time. One that did keeps, for
        ``grad_fn._saved_<name>``, what was not a tensor (None for a tensor it did not save)."""
        saved = self._saved
        if saved and saved is not _FREED:
            number = saved.get(HOLDS_NUMBER)        # the name of a wrapped number
            gone = [key for key, value in saved.items()
                    if type(value) is SavedTensor or (type(value) is tuple and any(
                        type(v) is SavedTensor for v in value))]
            if gone or number is not None:
                # the same dict, its tensors dropped, keeps the rest (no copy per node)
                for key in gone:
                    del saved[key]
                if number is not None:
                    del saved[number], saved[HOLDS_NUMBER]
                self._saved = _FREED
                if saved:
                    self.__dict__["_kept_after_free"] = saved

    def __getattr__(self, name):
        # grad_fn._saved_self / _saved_other, as PyTorch exposes them for inspection.
        if name.startswith("_saved_"):
            saved = object.__getattribute__(self, "_saved")
            key = name[len("_saved_"):]
            if saved is _FREED:
                kept = self.__dict__.get("_kept_after_free", ())
                if key in kept:
                    return kept[key]
                raise RuntimeError(_FREED_MESSAGE)
            if saved is not None and key in saved:
                return self.saved(key, fresh=True)
        elif name.startswith("_raw_saved_"):
            raw = _raw_saved(self, name[len("_raw_saved_"):])
            if raw is not None:
                return raw
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    # -- hooks -------------------------------------------------------------------------------
    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = {}
        handle = RemovableHandle(self._hooks)
        self._hooks[handle.id] = fn
        return handle

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        handle = RemovableHandle(self._pre_hooks)
        self._pre_hooks[handle.id] = fn
        return handle

    def _register_tensor_hook(self, output_nr, fn):
        # Hooks of a non-leaf tensor run on the gradient of that output of its grad_fn.
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        handle = RemovableHandle(self._tensor_pre_hooks)
        self._tensor_pre_hooks[handle.id] = (output_nr, fn)
        return handle

    # -- running -----------------------------------------------------------------------------
    def backward(self, grad_outputs):
        raise NotImplementedError

    def __call__(self, *grad_outputs):
        """Run this node on output gradients, as ``z.grad_fn(grad)`` does in PyTorch.

        Returns one gradient per input edge (a tuple), bare when there is exactly one.
        """
        expected = self._num_outputs
        if isinstance(expected, int) and len(grad_outputs) != expected:
            raise TypeError(f"expected {expected} arguments, got {len(grad_outputs)} instead")
        grads = tuple(apply_node(self, grad_outputs))
        return grads[0] if len(grads) == 1 else grads


class AccumulateGrad(Node):
    """The node for a leaf tensor: adds the incoming gradient into ``variable.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        super().__init__()
        self.variable = variable
        self._sequence_nr = 2 ** 62      # leaves run last; only dependencies decide anyway

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def backward(self, grad_outputs):
        accumulate_into_leaf(self.variable, grad_outputs[0])
        return ()


def accumulate_into_leaf(variable, grad, owned=False):
    """``variable.grad += grad`` with PyTorch's rules.

    The first gradient is stored as a copy, because the engine may hand the same gradient
    object to several leaves (``x + y``) and a later in-place accumulation must not leak from
    one ``.grad`` into another; ``owned`` says the engine created ``grad`` and nothing else
    holds it, so it is stored itself (PyTorch steals such a buffer too) when its strides are
    the leaf's (see ``_obeys_layout``). Under ``create_graph`` the sum stays differentiable.
    """
    if grad is None:
        return
    old = variable._grad
    if grad_mode.STATE.grad_enabled:          # create_graph=True: keep the graph of the grad
        if old is None:
            variable._grad = _differentiable_copy(grad, variable)
        else:
            variable._grad = old + grad
            _warn_if_layout_differs(variable._grad, variable)
    elif old is None:
        # an owned gradient's memory is kept, in a new tensor of its own (nothing else holds
        # the engine's object, so there is no alias to share a version counter with); any
        # other is copied into the leaf's layout
        if owned and (_obeys_layout(grad, variable) or
                      not grad_mode.STATE.grad_layout_enforced):
            variable._grad = _fresh_tensor(grad)
        else:
            variable._grad = _make_tensor(_copy_in_layout(grad, variable), grad._dtype,
                                          grad._device)
    else:
        old.add_(grad)
        _warn_if_layout_differs(old, variable)


# The gradient layout contract: a leaf's .grad has the leaf's strides when the leaf is
# non-overlapping and dense (so optimizers and reducers walk both alike), else is row-major.

def _obeys_layout(grad, variable):
    """Whether ``grad`` may serve as ``variable.grad`` as it is laid out."""
    g, v = grad._data, variable._data
    if g.flags.c_contiguous and v.flags.c_contiguous and 0 not in g.strides:
        return True                 # both row-major: the common case, decided at once
    if not is_non_overlapping_and_dense(variable._data):
        return grad.is_contiguous()
    for n, gs, vs in zip(g.shape, grad.stride(), variable.stride()):
        # a size-1 dim's stride does not matter, unless it is 0 (a broadcast view)
        if (gs != vs) if n != 1 else gs == 0:
            return False
    return True


def _copy_in_layout(grad, variable):
    """A new array of ``grad``'s values with the strides the contract asks for."""
    if variable._data.flags.c_contiguous or not is_non_overlapping_and_dense(variable._data):
        return grad._data.copy()          # row-major
    out = grad.new_empty_strided(variable._data.shape, variable.stride())._data
    out[...] = grad._data
    return out


_LAYOUT_WARNED = [False]


def _warn_if_layout_differs(grad, variable):
    """PyTorch warns once per process when an accumulated ``.grad`` breaks the contract."""
    if _LAYOUT_WARNED[0] or not grad_mode.STATE.grad_layout_enforced or \
            _obeys_layout(grad, variable):
        return
    _LAYOUT_WARNED[0] = True
    warnings.warn("grad and param do not obey the gradient layout contract. This is not an "
                  "error, but may impair performance.\n"
                  f"grad.sizes() = {list(grad.shape)}, strides() = {list(grad.stride())}\n"
                  f"param.sizes() = {list(variable.shape)}, strides() = "
                  f"{list(variable.stride())}", UserWarning, stacklevel=2)


class CopyBackwards(Node):
    """The node of a gradient stored under ``create_graph=True``: PyTorch stores a copy of the
    incoming gradient (made with ``copy_``), so ``x.grad.grad_fn`` is a CopyBackwards."""

    __slots__ = ()

    def name(self):
        return "torch::autograd::CopyBackwards"

    def backward(self, grad_outputs):
        return (None, grad_outputs[0])


def _fresh_tensor(grad):
    out = _make_tensor(grad._data, grad._dtype, grad._device)
    out._is_inference = grad._is_inference
    return out


def _differentiable_copy(grad, variable):
    out = _make_tensor(_copy_in_layout(grad, variable), grad._dtype, grad._device)
    if grad._requires_grad:
        node = CopyBackwards()
        node.next_functions = ((None, 0), grad._gradient_edge())
        node._input_meta = (None, (grad._data.shape, grad._dtype, grad._device))
        out._grad_fn, out._requires_grad = node, True
    return out


def to_dot(output, params=None, name="backward"):
    """Graphviz DOT text of ``output``'s backward graph (see ``cinder.autograd._dot``)."""
    from ._dot import to_dot as _to_dot
    return _to_dot(output, params, name)


# ----------------------------------------------------------------------------------------------
# Graph tasks: the backward pass running in this thread, as hooks may ask about it
# ----------------------------------------------------------------------------------------------

_task_numbers = itertools.count()


class GraphTask:
    """One backward pass (PyTorch's graph task): its number and which nodes it runs.

    The engine makes one per ``backward``/``grad`` call and makes it this thread's current
    task while the pass runs (a backward started inside a hook gets its own, and the outer
    one comes back when it ends). ``deps`` is the engine's table of nodes reached from the
    roots; with ``inputs`` given, ``needed`` holds the nodes on a path to them and ``targets``
    the nodes whose gradients are captured or accumulated.
    """

    __slots__ = ("id", "roots", "deps", "needed", "targets", "accumulate", "__weakref__")

    def __init__(self, roots, deps, needed, targets, accumulate):
        self.id = next(_task_numbers)
        self.roots, self.deps = roots, deps
        self.needed, self.targets, self.accumulate = needed, targets, accumulate

    def will_execute(self, node):
        """Whether this pass runs ``node`` (and so calls the hooks of its tensors)."""
        if node not in self.deps and node not in self.roots:
            return False
        if self.needed is None:
            return True
        if node in self.needed:
            return True
        if node not in self.targets:
            return False
        if not self.accumulate and not any(n is not None for n, _ in node.next_functions):
            raise RuntimeError(
                "A leaf node was passed to _will_engine_execute_node but we are currently "
                "running autograd.grad(). This is currently not supported.")
        return True


class _CurrentTask(threading.local):
    task = None
    # While a node's backward runs: the saved tensors it has unpacked through hooks so far
    # (SavedTensor -> tensor). It belongs to that run and goes with it, so nothing unpacked
    # outlives its pass (PyTorch's unpacked tensors are locals of the node's ``apply``).
    unpacked = None


CURRENT_TASK = _CurrentTask()
# Whether any saved tensor has ever been given hooks (it stays set): until then no node run
# needs a memo, and the engine's hot path skips it.
_HOOKED = [False]


def apply_node(node, grad_outputs):
    """``node.backward(grad_outputs)``, with a memo for that run once saved-tensor hooks are in
    use (each hooked saved tensor is unpacked once per run; see ``SavedTensor.unpack``)."""
    if not _HOOKED[0]:
        return node.backward(grad_outputs)
    state = CURRENT_TASK
    outer, state.unpacked = state.unpacked, {}
    try:
        return node.backward(grad_outputs)
    finally:
        state.unpacked = outer


def _current_graph_task_id():
    """The number of the backward pass running in this thread; -1 outside backward."""
    task = CURRENT_TASK.task
    return -1 if task is None else task.id


def _will_engine_execute_node(node):
    """Whether the backward pass running in this thread will run the graph node ``node``."""
    if not isinstance(node, Node):
        raise RuntimeError("_will_engine_execute_node expects an grad_fn, but got "
                           f"{type(node).__name__}")
    task = CURRENT_TASK.task
    if task is None:
        raise RuntimeError(
            "_get_should_execute_nodes should only be called during the backward pass")
    return task.will_execute(node)


# ----------------------------------------------------------------------------------------------
# Hooks on the gradients of several tensors
# ----------------------------------------------------------------------------------------------

class _MultiHandle(RemovableHandle):
    """The handle of a hook registered on several tensors: ``remove`` removes every part."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __getstate__(self):
        return self.handles

    def __setstate__(self, state):
        self.handles = state


def _grad_fn_or_grad_acc(t):
    """The node whose running means ``t``'s gradient has been computed: its ``grad_fn``, or a
    leaf's AccumulateGrad."""
    if isinstance(t, GradientEdge):
        return t.node
    node = t._grad_accumulator() if t.requires_grad and t.grad_fn is None else t.grad_fn
    if node is None:
        raise AssertionError("Expected gradient function to be set")
    return node


def _running_task():
    task = CURRENT_TASK.task
    if task is None:
        raise AssertionError("expected this hook to be called inside a backward call")
    return task


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Register ``fn`` on the gradients of several ``tensors`` at once.

    ``mode="all"``: once per backward pass, after the gradient of every tensor that pass
    computes is ready, ``fn(grads)`` receives one entry per tensor (None for a tensor the pass
    does not reach, or does not need for the ``inputs`` it was asked for).
    ``mode="any"``: ``fn(grad)`` receives the first of those gradients, once per pass.
    ``fn`` should not modify its arguments. Returns a handle whose ``remove()`` unregisters
    the hook.
    """
    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    # The hooks of one backward pass may run in several threads (PyTorch's engine runs each
    # device in its own); per-pass state sits under a lock, keyed by the pass (held weakly,
    # so it goes when the pass ends).
    lock = threading.Lock()
    if mode == "any":
        return _MultiHandle(_register_any(tensors, fn, lock))
    nodes = [_grad_fn_or_grad_acc(t) for t in tensors]
    pending = weakref.WeakKeyDictionary()      # pass -> [grads seen, grads expected, grads]

    def hook_for(index):
        def inner_hook(grad):
            task = _running_task()
            with lock:
                state = pending.get(task)
                if state is None:
                    # how many of the tensors this pass reaches, asked at its first gradient
                    expected = sum(map(task.will_execute, nodes))
                    state = pending[task] = [0, expected, [None] * len(nodes)]
                state[0] += 1
                state[2][index] = grad
                complete = state[0] == state[1]
                if complete:
                    del pending[task]
            if complete:
                fn(state[2])
        return inner_hook

    return _MultiHandle(tuple(t.register_hook(hook_for(i)) for i, t in enumerate(tensors)))


def _register_any(tensors, fn, lock):
    """The hooks of ``register_multi_grad_hook(mode="any")``: ``fn`` sees the first gradient
    of each pass. Tensors that do not require grad are left out."""
    called = weakref.WeakKeyDictionary()       # passes in which fn already ran

    @functools.wraps(fn)
    def wrapped_fn(grad):
        task = _running_task()
        with lock:
            first = task not in called
            called[task] = True
        if first:
            fn(grad)

    return tuple(t.register_hook(wrapped_fn) for t in tensors if t.requires_grad)


# ----------------------------------------------------------------------------------------------
# Mutating tensors saved for backward
# ----------------------------------------------------------------------------------------------

# Called with a tensor just before an op writes into it in place (ops' ``check_inplace`` and
# ``out=`` read it): set only inside ``allow_mutation_on_saved_tensors``.
BEFORE_INPLACE = [None]
_allow_mutation_on_saved_tensors_enabled = False


class _Handle:
    """What the pack hook of ``allow_mutation_on_saved_tensors`` keeps for one saved tensor."""


class _AllowMutationOnSavedContext:
    """The state of one ``allow_mutation_on_saved_tensors`` block (what the ``with`` gives).

    ``original``/``cloned`` map each saved tensor's handle to the tensor, or to the copy taken
    before it was first changed; ``tid_to_weakhandle`` finds the handle of a (tensor, version)
    saved before; ``sid_to_tid`` groups those by alias set and version. cinder names an alias
    set by its shared version counter, which every view and ``detach()`` of a tensor shares:
    a write through any of them (a view at an offset included) copies what was saved first.
    """

    def __init__(self):
        self.cloned = weakref.WeakKeyDictionary()
        self.original = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle = weakref.WeakValueDictionary()
        self.sid_to_tid = defaultdict(set)

    def clear(self):
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()

    def pack(self, tensor):
        vc = tensor._shared_version_counter()
        sid = (vc, vc.value)
        tid = (id(tensor), vc, vc.value)
        self.sid_to_tid[sid].add(tid)
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None:          # the same tensor saved twice at one version: one handle
            handle = self.tid_to_weakhandle[tid] = _Handle()
            self.original[handle] = tensor
        return handle

    def unpack(self, handle):
        message = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                   "in which the graph was originally recorded.")
        if not _allow_mutation_on_saved_tensors_enabled:
            raise AssertionError(message)
        if handle in self.cloned:
            return self.cloned[handle]
        if handle not in self.original:
            raise AssertionError(message)
        return self.original[handle]

    def before_inplace(self, tensor):
        """Copy every saved tensor that shares memory and version with ``tensor``."""
        vc = tensor._vc
        tids = None if vc is None else self.sid_to_tid.get((vc, vc.value))
        for tid in tids or ():
            # a tensor saved and then freed by backward has no handle any more
            handle = self.tid_to_weakhandle.get(tid)
            if handle is None or handle in self.cloned:
                continue
            self.cloned[handle] = _copy_of(self.original.pop(handle))


def _copy_of(tensor):
    """A copy of ``tensor``'s values that no mode, subclass or graph sees being made (PyTorch
    takes it below autograd)."""
    with _C.DisableTorchFunction():
        return tensor.detach().clone()


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Context manager in which a tensor saved for backward may be changed in place: the
    first in-place write to it (or to a view of it) copies the saved values first, so
    backward sees those and raises no "modified by an inplace operation" error.

    Run the forward and the backward inside the same block. The block gives its state (an
    ``_AllowMutationOnSavedContext``), emptied on exit; blocks cannot be nested.
    """
    global _allow_mutation_on_saved_tensors_enabled
    ctx = _AllowMutationOnSavedContext()
    with saved_tensors_hooks(ctx.pack, ctx.unpack), _watch_inplace(ctx.before_inplace):
        try:
            if _allow_mutation_on_saved_tensors_enabled:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _allow_mutation_on_saved_tensors_enabled = True
            yield ctx
        finally:
            ctx.clear()
            # as in PyTorch, leaving any block (a refused nested one too) ends the permission
            _allow_mutation_on_saved_tensors_enabled = False


@contextlib.contextmanager
def _watch_inplace(callback):
    previous, BEFORE_INPLACE[0] = BEFORE_INPLACE[0], callback
    try:
        yield
    finally:
        BEFORE_INPLACE[0] = previous


# ----------------------------------------------------------------------------------------------
# Settings that only concern PyTorch's CUDA engine and torch.compile
# ----------------------------------------------------------------------------------------------

_ENGINE_SETTINGS = {"warn_on_accumulate_grad_stream_mismatch": True,
                    "override_stale_capture_stream": False}


def set_warn_on_accumulate_grad_stream_mismatch(enabled):
    """Whether to warn when a leaf's gradient arrives on another CUDA stream than the leaf's.
    cinder's engine runs a whole backward pass on the caller's stream, so it never warns; the
    setting is kept for code that sets it."""
    _ENGINE_SETTINGS["warn_on_accumulate_grad_stream_mismatch"] = bool(enabled)


def set_override_stale_capture_stream(enabled):
    """What to do with a stale stream met while capturing a CUDA graph. cinder does not
    capture CUDA graphs from backward, so the setting has no effect; it is kept for code that
    sets it."""
    _ENGINE_SETTINGS["override_stale_capture_stream"] = bool(enabled)


def region_activation_memory_budget(budget):
    """Context manager setting the activation memory budget (a ratio in [0, 1]) of a region
    that ``torch.compile`` compiles. Only compiled regions use it; in eager code it is an
    error. (cinder's ``torch.compile`` runs code eagerly, so no caller ever is compiling: a
    compiled function that uses it fails here where PyTorch's would run.)"""
    if isinstance(budget, bool) or not isinstance(budget, (int, float)):
        raise TypeError("torch.autograd.graph.region_activation_memory_budget: expects a "
                        f"float, got {type(budget).__name__}")
    if not 0.0 <= budget <= 1.0:
        raise ValueError("torch.autograd.graph.region_activation_memory_budget: must be in "
                         f"[0, 1], got {budget}")
    raise RuntimeError("torch.autograd.graph.region_activation_memory_budget can only be used "
                       "inside a torch.compile region; it has no effect in eager mode.")
