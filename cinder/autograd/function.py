"""Custom autograd operations: ``torch.autograd.Function`` and the ``ctx`` object.

A custom Function is a pair of static methods, ``forward`` and ``backward``. ``Function.apply``
runs ``forward`` with grad mode off, then plugs one graph node into the graph: an instance of
``<ClassName>Backward`` (made for each subclass by ``FunctionMeta``). That node *is* the ``ctx``
object the user's methods receive, as in PyTorch, and it is an ordinary ``graph.Node``, so the
one backward engine runs it like any generated op node.

The old instance-style API (``MyFn()(x)`` with non-static ``forward(self, ...)``) runs through the
same machinery: the instance plays the role of ``ctx`` and a node is created for each call.
PyTorch 2.13 refuses such classes; cinder keeps them working with a DeprecationWarning, because
the books and notes it was written from still use them.
"""

import functools
import inspect
import itertools
import types
import warnings

from .. import _C, backend
from .._tensor import Tensor, make_tensor
from ..ops.function_forms import typename
from ..ops.views import make_view, rebase_history
from . import grad_mode
from .graph import Node, SavedTensor

__all__ = [
    "BackwardCFunction",
    "Function",
    "FunctionCtx",
    "FunctionMeta",
    "InplaceFunction",
    "NestedIOFunction",
    "once_differentiable",
]

# Each Function subclass gets a distinct id (PyTorch keys compiled autograd on it).
_FUNCTION_IDS = itertools.count()

_LEGACY_MESSAGE = (
    "Legacy autograd function with non-static forward method is deprecated. Please use "
    "new-style autograd function with static forward method. (Example: "
    "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")


def _tensor_class():
    # Imported late: cinder._tensor imports the autograd package while it is being set up.
    return Tensor


# ----------------------------------------------------------------------------------------------
# The ctx API
# ----------------------------------------------------------------------------------------------

class FunctionCtx:
    """The methods available on ``ctx`` inside ``forward``/``setup_context`` and ``backward``."""

    # What forward left on ctx; read once forward has returned.
    to_save = None
    dirty_tensors = None
    non_differentiable = None
    materialize_grads = True
    saved_for_forward = None
    needs_input_grad = None

    def save_for_backward(self, *tensors):
        """Save the given tensors for a later call to ``backward``.

        Call it at most once, from ``forward`` or ``setup_context``, with tensors (or ``None``,
        which is kept as ``None``). In ``backward`` they come back through ``ctx.saved_tensors``,
        after a check that none of them was modified in place since it was saved. Keeping
        tensors this way, rather than as plain ``ctx`` attributes, lets that check work and
        avoids reference cycles between an output and its own graph node.
        """
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        """Save tensors for ``jvp`` (forward-mode AD, which cinder does not implement)."""
        for t in tensors:
            if not (isinstance(t, _tensor_class()) or t is None):
                raise AssertionError("save_for_forward expects all arguments to be tensors; you "
                                     "should save non-tensors as attributes on ctx.")
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        """Mark input tensors as modified in place by ``forward``.

        Call it at most once, from ``forward`` or ``setup_context``, with every input the
        forward changed in place (before or after the change, either works). The marked tensors
        must also be returned as outputs; their version counters are bumped so stale saved
        copies are detected.
        """
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs):
        warnings.warn("`mark_shared_storage` is deprecated. Tensors with shared storages are "
                      "automatically tracked. Note that calls to `set_()` are not tracked",
                      FutureWarning, stacklevel=2)

    def mark_non_differentiable(self, *args):
        """Mark output tensors as non-differentiable.

        Such outputs do not require grad. ``backward`` still receives one gradient per output;
        for these it is always a zero tensor of the output's shape (e.g. the indices returned by
        a sort).
        """
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        """Set whether undefined output gradients reach ``backward`` as zeros (default ``True``).

        With ``False``, ``backward`` receives ``None`` for outputs that did not take part in the
        loss, and must handle it.
        """
        self.materialize_grads = value


# ----------------------------------------------------------------------------------------------
# The graph node (also the ctx of new-style Functions)
# ----------------------------------------------------------------------------------------------

class BackwardCFunction(Node, FunctionCtx):
    """The graph node of a custom Function (internal; ``grad_fn`` of its outputs).

    Besides ``Node``'s fields it keeps: which forward arguments were tensors (a gradient is
    returned for each forward argument, ``None`` for non-tensors), the shape/dtype/device of each
    output (to build zero gradients), and the saved tensors.
    """

    _forward_cls = None
    _legacy_fn = None               # the instance, for old-style Functions
    # PyTorch runs a custom backward even when every incoming gradient is undefined (it then
    # sees zeros, or Nones with set_materialize_grads(False)); read by the engine.
    _call_with_undefined_grads = True

    def __repr__(self):
        return f"<{type(self).__module__}.{self.name()} object at {hex(id(self))}>"

    @property
    def saved_tensors(self):
        """The tensors given to ``save_for_backward``, checked for in-place modification."""
        if self._saved is None:
            return ()
        packed = self.saved("tensors")      # raises PyTorch's error once backward freed them
        # each access runs the unpack hooks again, as PyTorch's does
        return tuple(None if s is None else s.unpack(self, fresh=True) for s in packed)

    @property
    def saved_variables(self):
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning,
                      stacklevel=2)
        return self.saved_tensors

    # -- running -----------------------------------------------------------------------------
    def _user_backward(self):
        """The Python function to call: ``backward`` or ``vjp`` (never both), or the legacy
        instance's bound ``backward``."""
        if self._legacy_fn is not None:
            return lambda ctx, *grads: self._legacy_fn.backward(*grads)
        cls = self._forward_cls
        backward_fn, vjp_fn = cls.backward, cls.vjp
        if backward_fn is not Function.backward and vjp_fn is not Function.vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is "
                               "not allowed. You should only implement one of them.")
        return vjp_fn if vjp_fn is not Function.vjp else backward_fn

    def apply(self, *grad_outputs):
        """Call the user's ``backward`` directly and return what it returns, unchecked.

        This is what ``y.grad_fn.apply(grad)`` does; the engine uses ``backward`` instead.
        """
        return self._user_backward()(self, *grad_outputs)

    def backward(self, grad_outputs):
        """Engine entry point: one gradient per output in, one per tensor input out."""
        grads = self._materialize(grad_outputs)
        with _C.UserCode():
            result = self._user_backward()(self, *grads)
        return self._check_grads(result)

    def _materialize(self, grad_outputs):
        # Non-tensor outputs always get None; tensor outputs get zeros unless the user asked
        # (set_materialize_grads(False)) to see None.
        metas = self._output_meta
        grads = list(grad_outputs)
        for i, g in enumerate(grads):
            meta = metas[i]
            if meta is None:
                grads[i] = None
            elif g is None and self.materialize_grads:
                grads[i] = _zeros(*meta)
        return grads

    def _check_grads(self, result):
        """Validate the user's return value; keep the gradients of tensor inputs only."""
        Tensor = _tensor_class()
        if not isinstance(result, tuple):
            result = (result,)
        is_tensor = self._is_tensor_input
        n_inputs = len(is_tensor)
        # Extra trailing Nones are allowed (forward may have had optional arguments).
        if len(result) > n_inputs and all(g is None for g in result[n_inputs:]):
            result = result[:n_inputs]
        if len(result) != n_inputs:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                               f"(expected {n_inputs}, got {len(result)})")
        grads = []
        for i, (g, tensor_input) in enumerate(zip(result, is_tensor)):
            if g is not None and not isinstance(g, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            if not tensor_input:
                if g is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {i + 1}, but the corresponding forward input was not a "
                        "Variable")
                continue
            grads.append(g)
        return tuple(grads)


def _zeros(shape, dtype, device):
    xp = backend.array_module(device)
    return make_tensor(xp.zeros(shape, dtype=dtype.numpy_dtype), dtype, device)


class FunctionMeta(type):
    """Metaclass of ``Function``: gives every subclass its node class ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        backward_cls = type(name + "Backward", (BackwardCFunction,),
                            {"_forward_cls": cls, "__module__": __name__})
        backward_cls._autograd_function_id = next(_FUNCTION_IDS)
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


# ----------------------------------------------------------------------------------------------
# Running a forward and wiring its outputs into the graph
# ----------------------------------------------------------------------------------------------

def _run_function(ctx, node, run_forward, args):
    """Run ``run_forward()`` (the user's forward) and connect its outputs to ``node``.

    ``ctx`` is where the user's forward left its ``save_for_backward``/``mark_*`` calls: the node
    itself for new-style Functions, the Function instance for legacy ones.
    """
    Tensor = _tensor_class()
    is_tensor = tuple(isinstance(a, Tensor) for a in args)
    needs_input_grad = tuple(t and a._requires_grad for a, t in zip(args, is_tensor))
    ctx.needs_input_grad = node.needs_input_grad = needs_input_grad
    # The node only joins the graph when gradients can flow through it.
    executable = grad_mode.STATE.grad_enabled and any(needs_input_grad)
    if executable:
        # Edges are taken before forward runs: a dirty input's history changes below.
        tensors = [a for a, t in zip(args, is_tensor) if t]
        node.next_functions = tuple(
            a._gradient_edge() if a._requires_grad else (None, 0) for a in tensors)
        node._input_meta = tuple((a._data.shape, a._dtype, a._device) for a in tensors)
        node._is_tensor_input = is_tensor

    with grad_mode.no_grad():
        raw = run_forward()

    is_tuple = isinstance(raw, tuple)
    outputs = list(raw) if is_tuple else [raw]
    _mark_dirty(ctx, outputs)
    _wrap_outputs(ctx, node if executable else None, args, outputs)
    if executable:
        node.materialize_grads = ctx.materialize_grads
        node._num_outputs = len(outputs)
        node._output_meta = tuple(
            (o._data.shape, o._dtype, o._device) if isinstance(o, Tensor) else None
            for o in outputs)
        _save_tensors(ctx, node)
        if grad_mode.ANOMALY.enabled:
            grad_mode.ANOMALY.attach(node)
    # Drop the references to outputs (output -> node -> output would be a reference cycle).
    ctx.to_save = ctx.dirty_tensors = ctx.non_differentiable = None
    return tuple(outputs) if is_tuple else outputs[0]


def _mark_dirty(ctx, outputs):
    """Bump the version of inputs the forward modified in place (they must be outputs)."""
    dirty = ctx.dirty_tensors
    if not dirty:
        return
    for t in dirty:
        if not any(t is o for o in outputs):
            raise RuntimeError("Some elements marked as dirty during the forward method were not "
                               "returned as output. The inputs that are modified inplace must all "
                               "be outputs of the Function.")
    for t in dirty:
        t._bump_version()


def _wrap_outputs(ctx, node, args, outputs):
    """Give each tensor output its place in the graph (or none), following PyTorch's rules.

    - An input returned unchanged comes back as a new view of it (so that the caller's tensor
      keeps its own history), attached to ``node``.
    - An input marked dirty is returned itself, with its history moved onto ``node`` (through
      the base's history when it is a view).
    - Non-differentiable outputs (marked, integer, or nothing needs grad) get no history.
    """
    Tensor = _tensor_class()
    inputs = [a for a in args if isinstance(a, Tensor)]
    dirty = ctx.dirty_tensors or ()
    non_diff = ctx.non_differentiable or ()
    for i, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            continue
        is_input = any(out is a for a in inputs)
        is_modified = any(out is d for d in dirty)
        differentiable = (node is not None and not any(out is n for n in non_diff)
                          and (out.is_floating_point() or out.is_complex()))
        if not differentiable:
            if not out._requires_grad:
                if is_input and not is_modified:
                    outputs[i] = _alias(out)
            elif is_input:
                # Return a detached alias rather than changing the caller's tensor.
                outputs[i] = out.detach()
            elif out._base is None:
                out._grad_fn = None
                out._requires_grad = False
            continue
        if is_modified:
            _attach_dirty(node, out, i, is_input, len(outputs))
        elif is_input:
            view = _alias(out)
            _set_edge(view, node, i)
            outputs[i] = view
        else:
            _set_edge(out, node, i)


def _alias(t):
    """A view of the whole of ``t`` without history (PyTorch's ``view_as(self)``)."""
    return make_view(t, t._data.view())


def _set_edge(t, node, output_nr):
    t._grad_fn = node
    t._output_nr = output_nr
    t._requires_grad = True


def _attach_dirty(node, t, output_nr, is_input, num_outputs):
    if t._grad_fn is None and t._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                           "operation.")
    if not is_input:
        warnings.warn("ctx.mark_dirty() received a tensor that was not an input. Only input "
                      "Tensors that have been mutated should be passed to ctx.mark_dirty().",
                      UserWarning, stacklevel=5)
    if t._base is None:
        _set_edge(t, node, output_nr)
        return
    if num_outputs > 1:
        raise RuntimeError(
            "If your Function modifies inplace an input that is a view of another Tensor, your "
            "Function cannot return more than one Tensor. This is not supported by the current "
            "autograd engine. You should either make sure the input is not a view (using "
            ".clone() for example) or make your Function only return one Tensor (potentially "
            "splitting it into two Functions: one doing the inplace that returns a single Tensor "
            "and a second one that does the other operations). You can ask on the forum "
            "https://discuss.pytorch.org/ if you need help to do this change.")
    # A modified view rewrites its base's history (CopySlices), as a built-in in-place op would.
    result = make_tensor(t._data, t._dtype, t._device, True)
    result._grad_fn, result._output_nr = node, output_nr
    rebase_history(t, result)


def _check_saveable(ctx):
    Tensor = _tensor_class()
    for k, t in enumerate(ctx.to_save or ()):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"save_for_backward can only save variables, but argument {k} is of "
                            f"type {type(t).__name__}")


def _save_tensors(ctx, node):
    """Turn ``ctx.to_save`` into SavedTensors on the node, now that outputs are wired."""
    _check_saveable(ctx)
    to_save = ctx.to_save
    if not to_save:
        return
    # An output is saved without holding the Tensor object (no output -> node -> output cycle).
    saved = tuple(None if t is None else SavedTensor(t, is_output=t._grad_fn is node)
                  for t in to_save)
    node._saved = {"tensors": saved}


# ----------------------------------------------------------------------------------------------
# Function
# ----------------------------------------------------------------------------------------------

def _is_legacy(cls):
    """Old-style Functions define ``forward`` as a plain (non-static) method."""
    return isinstance(inspect.getattr_static(cls, "forward"), types.FunctionType)


class Function(FunctionCtx, metaclass=FunctionMeta):
    r"""Base class to create custom autograd operations.

    Subclass it, implement the static methods :meth:`forward` and :meth:`backward`, and call
    the class method :meth:`apply` (never ``forward`` directly)::

        >>> class Exp(Function):
        ...     @staticmethod
        ...     def forward(ctx, i):
        ...         result = i.exp()
        ...         ctx.save_for_backward(result)
        ...         return result
        ...
        ...     @staticmethod
        ...     def backward(ctx, grad_output):
        ...         result, = ctx.saved_tensors
        ...         return grad_output * result
        >>> output = Exp.apply(input)

    Check a new Function with :func:`torch.autograd.gradcheck`.
    """

    generate_vmap_rule = False

    def __init__(self, *args, **kwargs):
        # Old-style classes are meant to be instantiated; they warn when called instead.
        if not _is_legacy(type(self)):
            warnings.warn(
                f"{self.__class__} should not be instantiated. Methods on autograd functions are "
                "all static, so you should invoke them on the class itself. Instantiating an "
                "autograd function will raise an error in a future version of PyTorch.",
                DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        cls = type(self)
        if not _is_legacy(cls):
            raise RuntimeError(_LEGACY_MESSAGE)
        warnings.warn(_LEGACY_MESSAGE, DeprecationWarning, stacklevel=2)
        node = cls._backward_cls()
        node._legacy_fn = self
        self.__dict__["_legacy_node"] = node
        # The instance is the ctx: reset what a previous call may have left on it.
        for name in ("to_save", "dirty_tensors", "non_differentiable"):
            self.__dict__.pop(name, None)
        return _run_function(self, node, lambda: self.forward(*args, **kwargs), args)

    @property
    def saved_tensors(self):
        """Legacy Functions read their saved tensors from the instance."""
        node = self.__dict__.get("_legacy_node")
        return () if node is None else node.saved_tensors

    @property
    def saved_variables(self):
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning,
                      stacklevel=2)
        return self.saved_tensors

    @staticmethod
    def forward(*args, **kwargs):
        r"""Define the forward computation of the custom Function.

        Either ``forward(ctx, *args, **kwargs)``, which receives the context first and sets it
        up itself, or ``forward(*args, **kwargs)`` together with an overridden
        :meth:`setup_context`. Arguments may be tensors or any other objects. Runs with grad
        mode disabled.
        """
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        r"""Set up ``ctx`` for a ``forward`` that does not take it.

        ``inputs`` is the tuple of arguments given to ``forward`` (defaults filled in) and
        ``output`` what it returned.
        """
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        r"""Define the gradient formula (vector-Jacobian product) of the operation.

        Receives ``ctx`` and one gradient per output of :meth:`forward` (``None`` for non-tensor
        outputs), and returns one value per input of ``forward``: the gradient w.r.t. that
        input, or ``None`` for non-tensors and inputs that need no gradient.
        ``ctx.needs_input_grad`` tells, per input, whether a gradient is needed. Written with
        differentiable tensor ops, it supports double backward (``create_graph=True``).
        """
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        r"""Forward-mode gradient formula; cinder has no forward-mode AD engine."""
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError("To use autograd.Function with vmap, you must either override "
                                  "the vmap staticmethod or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run the Function on ``args`` and record it in the graph when a gradient is needed."""
        node = cls._backward_cls()
        if cls.setup_context is not Function.setup_context:
            # Separate forward and setup_context: inputs are the arguments with defaults bound.
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs

            def run_forward():
                output = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, output)
                return output
        else:
            def run_forward():
                return cls.forward(node, *args, **kwargs)
        return _run_function(node, node, run_forward, args)


# ----------------------------------------------------------------------------------------------
# once_differentiable
# ----------------------------------------------------------------------------------------------

class Error(Node):
    """A node that raises when the engine reaches it (PyTorch's ``DelayedError``)."""

    def __init__(self, message, num_outputs):
        super().__init__()
        self.message = message
        self._num_outputs = num_outputs

    def name(self):
        return "torch::autograd::Error"

    def __repr__(self):
        return f"<Error object at {hex(id(self))}>"

    def backward(self, grad_outputs):
        raise RuntimeError(self.message)


def once_differentiable(fn):
    """Decorate ``backward`` so it runs with grad mode off, and double backward raises.

    Inside, gradients can be computed with any code (NumPy included). When the incoming
    gradients themselves require grad (a ``create_graph=True`` pass), the results are attached
    to a node that raises "trying to differentiate twice ..." if it is ever backpropagated.
    """
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.STATE.grad_enabled:
            return outputs
        Tensor = _tensor_class()
        # Only an approximation of "the result would require grad": the grads coming in do.
        if not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        err = Error("trying to differentiate twice a function that was marked with "
                    "@once_differentiable", len(outs))
        edges, wrapped = [], []
        for k, out in enumerate(outs):
            if not isinstance(out, Tensor):
                edges.append((None, 0))
                wrapped.append(out)
                continue
            # A fresh leaf stands for the gradient, so the error node has something to point to.
            leaf = out.detach()
            leaf._requires_grad = True
            edges.append(leaf._gradient_edge())
            alias = out.detach()
            _set_edge(alias, err, k)
            wrapped.append(alias)
        err.next_functions = tuple(edges)
        return wrapped[0] if single else tuple(wrapped)
    return wrapper


class InplaceFunction(Function):
    """Kept for backward compatibility; use :class:`Function` for new code."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


# ----------------------------------------------------------------------------------------------
# NestedIOFunction: old-style Functions whose inputs and outputs are nested lists/tuples/dicts
# ----------------------------------------------------------------------------------------------

def _iter_nested(obj, keep):
    """The leaves of ``obj`` (lists, tuples and dict values, None skipped) that ``keep``
    accepts, in order; any other leaf is an error, as in PyTorch."""
    if keep(obj):
        yield obj
    elif obj is None:
        return
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _iter_nested(item, keep)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _iter_nested(item, keep)
    else:
        kinds = "Tensors or None" if keep(None) else "Tensors"
        raise ValueError("Auto nesting doesn't know how to process an input object of type "
                         f"{typename(obj)}. Accepted types: {kinds}, or lists/tuples of them")


def _iter_tensors(obj):
    return _iter_nested(obj, lambda x: isinstance(x, _tensor_class()))


def _iter_none_tensors(obj):
    return _iter_nested(obj, lambda x: x is None or isinstance(x, _tensor_class()))


def _map_tensor_data(obj):
    """``obj`` with every tensor replaced by its ``.data`` (same nesting)."""
    if isinstance(obj, _tensor_class()):
        return obj.data
    if obj is None:
        return None
    if isinstance(obj, (list, tuple)):
        items = [_map_tensor_data(x) for x in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)
    if isinstance(obj, dict):
        return {k: _map_tensor_data(v) for k, v in obj.items()}
    raise ValueError("Auto nesting doesn't know how to process an input object of type "
                     f"{typename(obj)}. Accepted types: Tensors, or lists/tuples of them")


def _unflatten(flat, proto):
    """Rebuild ``proto``'s list/tuple nesting from the flat sequence ``flat``."""
    def take(flat, proto):
        if not isinstance(proto, (list, tuple)):
            return flat[0], flat[1:]
        out = []
        for item in proto:
            if item is None:
                out.append(None)
            else:
                value, flat = take(flat, item)
                out.append(value)
        return type(proto)(out), flat
    return take(flat, proto)[0]


class NestedIOFunction(Function):
    """Kept for old code only; write new code as a :class:`Function`.

    An old-style (instance) Function whose ``forward_extended`` takes and returns nested
    lists/tuples of tensors, and whose ``backward_extended`` gets the gradients in the
    outputs' nesting. (PyTorch 2.13 still defines the class but can no longer call it; cinder
    runs it on its old-style Function support.)
    """

    def _do_forward(self, *input):
        self._nested_input = input
        flat_output = Function.__call__(self, *_iter_tensors(input))
        if not isinstance(flat_output, tuple):
            flat_output = (flat_output,)
        return _unflatten(flat_output, self._nested_output)

    __call__ = _do_forward

    def forward(self, *args):
        """Shared forward: runs ``forward_extended`` on the nested inputs' data."""
        result = self.forward_extended(*_map_tensor_data(self._nested_input))
        del self._nested_input
        self._nested_output = result
        return tuple(_iter_tensors(result))

    def backward(self, *gradients):
        """Shared backward: runs ``backward_extended`` on gradients nested as the outputs."""
        result = self.backward_extended(*_unflatten(gradients, self._nested_output))
        return tuple(_iter_none_tensors(result))

    def save_for_backward(self, *args):
        """Save (nested) tensors for ``backward_extended`` (see ``Function.save_for_backward``)."""
        self.to_save = tuple(_iter_tensors(args))
        self._to_save_nested = args

    @property
    def saved_tensors(self):
        """The saved tensors, nested as they were given."""
        return _unflatten(Function.saved_tensors.fget(self), self._to_save_nested)

    def mark_dirty(self, *args, **kwargs):
        """See :meth:`Function.mark_dirty` (nested arguments)."""
        self.dirty_tensors = tuple(_iter_tensors((args, kwargs)))

    def mark_non_differentiable(self, *args, **kwargs):
        """See :meth:`Function.mark_non_differentiable` (nested arguments)."""
        self.non_differentiable = tuple(_iter_tensors((args, kwargs)))

    def forward_extended(self, *input):
        """The user's forward, on nested inputs."""
        raise NotImplementedError

    def backward_extended(self, *grad_output):
        """The user's backward, on gradients nested as the outputs."""
        raise NotImplementedError
