"""``torch.utils.checkpoint``: trade compute for memory by recomputing a segment in backward.

``checkpoint(fn, *args, use_reentrant=False)`` runs ``fn`` and keeps only its inputs and
outputs; the activations inside ``fn`` are dropped once the forward is done, and ``fn`` runs
again, with the same random state, when the backward pass reaches it. Gradients are the same as
without checkpointing.

The two variants behave as PyTorch's do where a program can tell:

* ``use_reentrant=True`` (what ``use_reentrant=None`` means, with PyTorch's warning): the
  segment is one autograd node over the tensor arguments. Its backward recomputes and runs a
  nested backward pass, which accumulates the parameters' gradients straight into ``.grad``;
  keyword arguments are refused, and when no argument requires grad the outputs do not either
  (with PyTorch's "None of the inputs have requires_grad=True" warning).
* ``use_reentrant=False``: keyword arguments are passed on, and the parameters ``fn`` uses are
  found from the graph of its forward and made inputs of the node, so their gradients flow even
  when no argument requires grad, and ``torch.autograd.grad`` reaches them.

How it differs inside: cinder has no saved-tensor hooks, so the non-reentrant forward builds the
segment's graph once to find those parameters and then lets it go; peak memory holds one
segment's activations at a time, as the reentrant variant's backward does. Only the CPU random
state is saved and restored around the recomputation (CUDA generators are not), and autocast
state is not replayed.
"""

import warnings

from ..autograd._backward import backward as _run_backward
from ..autograd._backward import grad as _grad
from ..autograd.function import Function
from ..autograd.graph import AccumulateGrad
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..random import fork_rng, get_rng_state, set_rng_state
from .._tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]

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


def _detached(args):
    """``args`` with each tensor replaced by a detached alias keeping its ``requires_grad``."""
    out = []
    for arg in args:
        if isinstance(arg, Tensor):
            alias = arg.detach()
            alias.requires_grad_(arg.requires_grad)
            arg = alias
        out.append(arg)
    return out


def _as_tuple(outputs):
    return outputs if isinstance(outputs, tuple) else (outputs,)


def _recompute(ctx, *tensor_grads):
    """Run the segment again (same random state) and pair its outputs with their gradients."""
    with fork_rng(enabled=ctx.preserve_rng_state):
        if ctx.preserve_rng_state:
            set_rng_state(ctx.rng_state)
        args = _detached(ctx.args_with(ctx.saved_tensors[:ctx.num_args]))
        with enable_grad():
            outputs = _as_tuple(ctx.function(*args, **ctx.kwargs))
    pairs = [(out, grad) for out, grad in zip(outputs, tensor_grads)
             if isinstance(out, Tensor) and out.requires_grad and grad is not None]
    return args, [p[0] for p in pairs], [p[1] for p in pairs]


class _Checkpoint(Function):
    """The segment as one node: inputs are its tensor arguments (plus, when not reentrant, the
    parameters it uses); outputs are the values the forward already computed."""

    @staticmethod
    def forward(ctx, segment, *tensors):
        ctx.function, ctx.kwargs, ctx.args_with = segment.function, segment.kwargs, segment.fill
        ctx.preserve_rng_state, ctx.rng_state = segment.preserve, segment.rng_state
        ctx.num_args, ctx.reentrant = segment.num_args, segment.reentrant
        ctx.save_for_backward(*tensors)
        outputs = segment.outputs if segment.outputs is not None else \
            segment.function(*segment.fill(tensors[:segment.num_args]))
        return outputs

    @staticmethod
    def backward(ctx, *grads):
        args, outputs, out_grads = _recompute(ctx, *grads)
        tensor_args = [a for a in args if isinstance(a, Tensor)]
        leaves = list(ctx.saved_tensors[ctx.num_args:])
        if ctx.reentrant:
            if outputs:
                _run_backward(outputs, out_grads)        # parameters' .grad filled here
            arg_grads = [a.grad if a.requires_grad else None for a in tensor_args]
            return (None, *arg_grads)
        wanted = [t for t in tensor_args + leaves if t.requires_grad]
        found = iter(_grad(outputs, wanted, out_grads, allow_unused=True) if outputs and wanted
                     else [None] * len(wanted))
        return (None, *[next(found) if t.requires_grad else None for t in tensor_args + leaves])


class _Segment:
    """What one checkpointed call needs: the function, its non-tensor arguments, the state."""

    def __init__(self, function, args, kwargs, preserve, reentrant):
        self.function, self.kwargs, self.preserve = function, kwargs, preserve
        self.reentrant = reentrant
        self.positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.template = list(args)
        self.num_args = len(self.positions)
        self.rng_state = get_rng_state() if preserve else None
        self.outputs = None

    def tensors(self):
        return [self.template[i] for i in self.positions]

    def fill(self, tensors):
        """The full argument list with ``tensors`` in the tensor positions."""
        args = list(self.template)
        for i, t in zip(self.positions, tensors):
            args[i] = t
        return args


def _leaves_used(outputs, own_inputs):
    """The leaf tensors requiring grad that ``outputs`` were computed from (not ``own_inputs``)."""
    own = {id(t) for t in own_inputs}
    found, seen = [], set()
    stack = [o.grad_fn for o in outputs if isinstance(o, Tensor) and o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if id(node.variable) not in own:
                found.append(node.variable)
            continue
        stack.extend(next_node for next_node, _ in node.next_functions)
    return found


def _without_reentrant(segment):
    """Forward once (building its graph) to learn which parameters the segment uses; keep only
    the outputs, detached, for the node that stands for the segment."""
    if segment.preserve:
        segment.rng_state = get_rng_state()
    args = _detached(segment.template)
    outputs = segment.function(*args, **segment.kwargs)
    as_tuple = _as_tuple(outputs)
    if not any(isinstance(o, Tensor) and o.requires_grad
                                        for o in as_tuple):
        return outputs
    leaves = _leaves_used(as_tuple, [a for a in args if isinstance(a, Tensor)])
    segment.outputs = tuple(o.detach() if isinstance(o, Tensor) else o for o in as_tuple)
    if not isinstance(outputs, tuple):
        segment.outputs = segment.outputs[0]
    return _Checkpoint.apply(segment, *segment.tensors(), *leaves)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """Run ``function(*args, **kwargs)`` without keeping its activations; recompute them in
    backward. Returns what ``function`` returns (a tensor or a tuple holding tensors).

    ``use_reentrant`` picks the variant (see the module docstring); leaving it None warns and
    means True, as in PyTorch. ``preserve_rng_state=True`` (a keyword) replays the CPU random
    state so dropout inside ``function`` draws the same masks when recomputed.
    ``context_fn``, ``determinism_check`` and ``early_stop`` are accepted for the
    non-reentrant variant and change nothing here.
    """
    if use_reentrant is None:
        warnings.warn(_NO_REENTRANT_CHOICE, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not None or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        if is_grad_enabled() and not any(a.requires_grad for a in args
                                         if isinstance(a, Tensor)):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                          UserWarning, stacklevel=2)
        segment = _Segment(function, args, {}, preserve, reentrant=True)
        return _Checkpoint.apply(segment, *segment.tensors())
    return _without_reentrant(_Segment(function, args, kwargs, preserve, reentrant=False))


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
