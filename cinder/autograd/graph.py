"""Graph nodes: the objects behind ``tensor.grad_fn``.

A node is one recorded operation. ``next_functions`` holds one ``(node, input_nr)`` pair per
differentiable input (``(None, 0)`` for inputs that need no gradient); ``AccumulateGrad`` is the
node that writes into a leaf's ``.grad``. Op nodes are generated from the op table, one class per
PyTorch name (``MulBackward0``); custom ``autograd.Function`` s plug in as ``BackwardCFunction``.
"""

import itertools
import re
import threading
from typing import Any, NamedTuple

from .. import backend
from ..utils.hooks import RemovableHandle  # noqa: F401  (old import path)
from . import grad_mode

__all__ = ["Node", "AccumulateGrad", "SavedTensor", "RemovableHandle", "saved_tensors_hooks",
           "save_on_cpu", "disable_saved_tensors_hooks", "GradientEdge", "get_gradient_edge",
           "increment_version"]

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
    the tensor backward uses has the unpacked values and the saved tensor's place in the graph.
    """

    __slots__ = ("tensor", "version", "vc", "data", "dtype", "device", "output_nr", "packed",
                 "unpack_hook", "unpacked", "unpacked_in")

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
        pack, self.unpack_hook = _HOOKS.stack[-1]
        self.packed = _outside_hooks(pack, tensor)
        self.unpacked = self.unpacked_in = None
        if is_output:
            self.data = None        # the hooks hold the values now

    def unpack(self, node):
        if self.unpack_hook is not None:
            return self._unpack_through_hook(node)
        t = self.tensor
        if t is None:
            t = _make_tensor(self.data, self.dtype, self.device, True)
            t._vc, t._grad_fn, t._output_nr = self.vc, node, self.output_nr
        vc = t._vc
        if (0 if vc is None else vc.value) != self.version:
            raise RuntimeError(_modified_message(t, self.version))
        return t

    def _unpack_through_hook(self, node):
        """The unpack hook's tensor, standing where the saved tensor stood in the graph. The
        hook runs once per backward pass, however many formulas read the tensor."""
        if self.unpacked_in == BACKWARD_PASS[0]:
            return self.unpacked
        value = _outside_hooks(self.unpack_hook, self.packed)
        if not hasattr(value, "_data"):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but "
                            f"got result of type {type(value).__name__}")
        original = self.tensor
        if original is None:        # an op's own output: rebuilt with the node as grad_fn
            t = _make_tensor(value._data, self.dtype, self.device, True)
            t._vc, t._grad_fn, t._output_nr = self.vc, node, self.output_nr
        elif value is original or value._data is original._data:
            t = original
        else:
            # the hook's values in the original's place in the graph: a non-leaf's grad_fn, or
            # a leaf's AccumulateGrad (so a gradient of the gradient still reaches the leaf)
            t = _make_tensor(value._data, original._dtype, original._device,
                             original._requires_grad)
            t._vc = original._vc
            if original._requires_grad:
                t._grad_fn, t._output_nr = original._gradient_edge()
        vc = t._vc
        if (0 if vc is None else vc.value) != self.version:
            raise RuntimeError(_modified_message(t, self.version))
        self.unpacked, self.unpacked_in = t, BACKWARD_PASS[0]
        return t


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


# The number of the backward pass running (the engine counts them): a saved tensor unpacked
# through a hook keeps its unpacked value for the rest of that pass.
BACKWARD_PASS = [0]


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
    def saved(self, key):
        """The value saved under ``key``, unpacking saved tensors with the version check."""
        saved = self._saved
        if saved is _FREED:
            raise RuntimeError(_FREED_MESSAGE)
        value = saved[key]
        return value.unpack(self) if type(value) is SavedTensor else value

    def release_saved(self):
        """Free what was saved for backward. A node that saved no tensor (only sizes, scalars)
        keeps its values: PyTorch lets such a node run a second time."""
        saved = self._saved
        if saved and saved is not _FREED:
            for value in saved.values():
                if type(value) is SavedTensor or (type(value) is tuple and any(
                        type(v) is SavedTensor for v in value)):
                    self._saved = _FREED
                    return

    def __getattr__(self, name):
        # grad_fn._saved_self / _saved_other, as PyTorch exposes them for inspection.
        if name.startswith("_saved_"):
            saved = object.__getattribute__(self, "_saved")
            key = name[len("_saved_"):]
            if saved is _FREED or (saved is not None and key in saved):
                return self.saved(key)
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
        grads = tuple(self.backward(grad_outputs))
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
    holds it, so it is stored itself (PyTorch steals such a buffer too). Under
    ``create_graph`` the sum stays differentiable instead.
    """
    if grad is None:
        return
    old = variable._grad
    if grad_mode.STATE.grad_enabled:          # create_graph=True: keep the graph of the grad
        variable._grad = _differentiable_copy(grad) if old is None else old + grad
    elif old is None:
        # an owned gradient's memory is kept, in a new tensor of its own (nothing else holds
        # the engine's object, so there is no alias to share a version counter with); any
        # other is copied
        variable._grad = _fresh_tensor(grad) if owned else grad.detach().clone()
        if not variable._data.flags.c_contiguous:
            _obey_layout_contract(variable._grad, variable._data)
    else:
        old.add_(grad)


def _obey_layout_contract(grad, leaf):
    """PyTorch's gradient layout contract: the ``.grad`` of a dense leaf has the leaf's
    strides (a channels-last weight gets a channels-last gradient), that of any other leaf
    is row-major. ``grad`` is a fresh tensor, so its array may be replaced."""
    have = grad._data
    if have.shape != leaf.shape or have.strides == leaf.strides or not have.size:
        return
    xp = backend.array_module_of(have)
    dense = _is_dense(leaf)
    if not dense and have.flags.c_contiguous:
        return
    if dense:
        strides = tuple(st // leaf.itemsize * have.itemsize for st in leaf.strides)
        data = xp.lib.stride_tricks.as_strided(xp.empty(have.size, have.dtype), have.shape,
                                               strides)
    else:
        data = xp.empty(have.shape, have.dtype)
    data[...] = have
    grad._data = data


def _is_dense(arr):
    """Whether ``arr`` covers its memory without gaps or overlaps, in any dim order."""
    expected = arr.itemsize
    for d in sorted(range(arr.ndim), key=lambda i: arr.strides[i]):
        if arr.shape[d] != 1:
            if arr.strides[d] != expected:
                return False
            expected *= arr.shape[d]
    return True


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


def _differentiable_copy(grad):
    out = _make_tensor(grad._data.copy(), grad._dtype, grad._device)
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
