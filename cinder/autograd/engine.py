"""The backward engine: runs a recorded graph from its outputs towards its leaves.

One pass:
1. Walk the graph from the roots and count, for every node, how many gradients will flow into it.
2. Run nodes whose inputs are all in, newest first (by sequence number), summing gradients that
   reach the same node input in a buffer before the node runs.
3. Around each node run its hooks; afterwards free its saved tensors unless ``retain_graph``.
``autograd.grad`` uses the same pass but *captures* the gradients of the requested inputs instead
of accumulating into ``.grad``, and skips nodes that cannot reach those inputs.
"""

import heapq
import sys

from .. import _C
from . import anomaly_mode, grad_mode, graph
from .graph import _HOOKED, AccumulateGrad, accumulate_into_leaf

__all__ = ["run_backward"]


def _collect_dependencies(roots):
    """Count incoming edges of every node reachable from ``roots``."""
    deps = {}
    seen = set()
    stack = [r for r in roots if r is not None]
    for r in stack:
        seen.add(r)
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return deps


def _nodes_leading_to(roots, targets):
    """Nodes with an edge path to some target node (they must run for the targets' grads)."""
    # Post-order walk without recursion (long RNN unrolls make deep graphs).
    stack = [(r, False) for r in roots if r is not None]
    state = {}
    while stack:
        node, expanded = stack.pop()
        if expanded:
            state[node] = any(n in targets or state.get(n, False)
                              for n, _ in node.next_functions if n is not None)
            continue
        if node in state:
            continue
        state[node] = False
        stack.append((node, True))
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in state:
                stack.append((nxt, False))
    return {n for n, v in state.items() if v}


def _add_grads(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _mark_owned(owned, grads, buffer):
    """Record in ``owned`` the gradients in ``grads`` that the node created: arrays owning
    their memory (not views of another gradient), not passed through from its input
    ``buffer``, and going to one input only."""
    passed = {id(b) for b in buffer}
    made = [id(g) for g in grads
            if g is not None and id(g) not in passed and g._data.base is None]
    for i in made:
        if len(made) == 1 or made.count(i) == 1:
            owned[i] = True


def _unshared(grad):
    """Whether nothing but the engine references the gradient tensor ``grad`` (held once, in
    its buffer) and nothing but ``grad`` references its array (no saved reference, no view):
    then a leaf can keep the memory. PyTorch checks its tensor's use count the same way
    before stealing a gradient. (Each count includes this function's parameter and
    getrefcount's own argument.)"""
    return sys.getrefcount(grad) <= 3 and sys.getrefcount(grad._data) <= 2 + 1


def _plain(node):
    """Whether nothing but the engine sees an AccumulateGrad node's incoming gradient (no
    hooks of any kind that could keep a reference to it)."""
    return not (node._pre_hooks or node._hooks or node._tensor_pre_hooks or
                node._retain_grad_hooks)


def validate_grads(node, grads):
    """Make each gradient match its input's shape and dtype (sum broadcast dims, cast)."""
    meta = node._input_meta
    if not meta:
        return grads
    out = None
    for i, g in enumerate(grads):
        if g is None or i >= len(meta) or meta[i] is None:
            continue
        shape, dtype, device = meta[i]
        # The common case (every gradient already right) reads three attributes and copies
        # nothing.
        if g._data.shape == shape and g._dtype is dtype and g._device is device:
            continue
        if g._data.shape != shape:
            if g.dim() >= len(shape) and _expandable(shape, g.shape):
                g = g.sum_to_size(shape)
            else:
                raise RuntimeError(
                    f"Function {node.name()} returned an invalid gradient at index {i} - got "
                    f"{list(g.shape)} but expected shape compatible with {list(shape)}")
        if g.dtype is not dtype:
            g = g.to(dtype)
        if g.device != device:
            g = g.to(device)
        if out is None:
            out = list(grads)
        out[i] = g
    return grads if out is None else out


def _expandable(shape, target):
    """Whether ``shape`` broadcasts to ``target``."""
    for s, t in zip(reversed(shape), reversed(target)):
        if s != 1 and s != t:
            return False
    return True


def _hook_name(fn):
    return getattr(fn, "__name__", type(fn).__name__)


def _checked_tensor_hook_result(fn, old, new):
    """A tensor hook may replace the gradient only with one of the same type and size."""
    if not hasattr(new, "_data"):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if new._dtype is not old._dtype or new._device != old._device:
        raise RuntimeError(f"hook '{_hook_name(fn)}' has changed the type of value (was "
                           f"{old.type()} got {new.type()})")
    if new._data.shape != old._data.shape:
        raise RuntimeError(f"hook '{_hook_name(fn)}' has changed the size of value")
    return new


def _checked_hook_values(fn, new, expected):
    """A node hook may replace the gradients only with a tuple of as many values."""
    if not isinstance(new, (tuple, list)):
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    if len(new) != expected:
        raise RuntimeError(f"hook '{_hook_name(fn)}' has returned an incorrect number of values "
                           f"(got {len(new)}, but expected {expected})")
    return new


def _call_tensor_pre_hooks(node, buffer):
    """Run the hooks of the node's output tensors. A hook runs whenever its node runs, with
    None for an output that got no gradient (as PyTorch's do), and may not replace a None."""
    hooks = node._tensor_pre_hooks
    if hooks:
        for output_nr, fn in list(hooks.values()):
            old = buffer[output_nr]
            new = fn(old)
            if new is not None:
                if old is None:
                    raise RuntimeError("can't replace a None gradient with a non-None value")
                buffer[output_nr] = _checked_tensor_hook_result(fn, old, new)
    if node._retain_grad_hooks:
        for output_nr, fn in list(node._retain_grad_hooks.items()):
            if buffer[output_nr] is not None:
                fn(buffer[output_nr])
    return buffer


def _call_node(node, buffer):
    """Run one node with its pre-hooks and hooks; returns the gradients for its inputs."""
    if node._pre_hooks:
        for fn in list(node._pre_hooks.values()):
            new = fn(tuple(buffer))
            if new is not None:
                buffer = list(_checked_hook_values(fn, new, len(buffer)))
    try:
        grads = node.backward(tuple(buffer)) if not _HOOKED[0] else \
            graph.apply_node(node, tuple(buffer))
    except Exception:
        anomaly_mode.report_node_error(node)    # prints the forward trace in anomaly mode
        raise
    if node._hooks:
        for fn in list(node._hooks.values()):
            new = fn(tuple(grads), tuple(buffer))
            if new is not None:
                grads = tuple(_checked_hook_values(fn, new, len(grads)))
    if grad_mode.ANOMALY.enabled:
        anomaly_mode.check_node_output(node, grads)
    return grads


def _steal_into_leaf(node, buffer):
    """The engine's shortcut for a leaf's AccumulateGrad (as a function the profiler runs)."""
    accumulate_into_leaf(node.variable, buffer[0], owned=True)


def _n_outputs(node):
    return node._num_outputs


def run_backward(roots, root_grads, retain_graph, create_graph, inputs=None,
                 accumulate=True, allow_unused=False):
    """Backpropagate (see ``_run_backward``). The pass runs below ``__torch_function__``:
    modes and subclasses see ``backward`` itself, not the ops the derivatives use (PyTorch
    runs them in C++)."""
    if _C.FLAG.active and _C.STATE.active:
        with _C.BackwardPass():
            return _run_backward(roots, root_grads, retain_graph, create_graph, inputs,
                                 accumulate, allow_unused)
    return _run_backward(roots, root_grads, retain_graph, create_graph, inputs, accumulate,
                         allow_unused)


def _run_backward(roots, root_grads, retain_graph, create_graph, inputs=None,
                  accumulate=True, allow_unused=False):
    """Backpropagate ``root_grads`` from the nodes in ``roots`` (pairs of (node, output_nr)).

    With ``accumulate`` leaves get ``.grad`` (only the ``inputs``, when given, non-leaf ones
    included); otherwise the gradients reaching ``inputs`` are captured and returned in order.
    """
    root_nodes = [node for node, _ in roots]
    deps = _collect_dependencies(root_nodes)

    capture = {}                  # (node, output_nr) -> indices in inputs
    needed = None                 # with inputs: the nodes that must run to reach them
    targets = ()                  # with inputs: their nodes
    if inputs is not None:
        for i, t in enumerate(inputs):
            capture.setdefault(t._gradient_edge(), []).append(i)
        targets = {node for node, _ in capture}
        needed = _nodes_leading_to(root_nodes, targets)
    captured = [None] * (len(inputs) if inputs is not None else 0)

    buffers = {}
    ready = []
    for (node, nr), g in zip(roots, root_grads):
        if node is None:
            continue
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * _n_outputs(node)
        buf[nr] = _add_grads(buf[nr], g)
    for node in buffers:
        if deps.get(node, 0) == 0:
            heapq.heappush(ready, (-node._sequence_nr, id(node), node))

    # Gradients a node's backward has just created and handed to one buffer slot only (ids
    # of objects still sitting in ``buffers``): a leaf may keep such a gradient as its .grad
    # instead of a copy, as PyTorch steals a gradient nothing else references.
    owned = {} if accumulate and inputs is None and not create_graph else None
    prev_mode = grad_mode.STATE.grad_enabled
    grad_mode.STATE.grad_enabled = create_graph
    # A recording profiler (torch.profiler) sees each node's evaluation and the node's own
    # run as ranges: read once per pass, tested once per node.
    prof = _C.FLAG.profiler
    evaluating = None
    # This pass is the thread's current graph task until it ends (hooks ask it what runs).
    outer_task = graph.CURRENT_TASK.task
    graph.CURRENT_TASK.task = graph.GraphTask(root_nodes, deps, needed, targets, accumulate)
    try:
        while ready:
            _, _, node = heapq.heappop(ready)
            if prof is not None:
                if evaluating is not None:
                    prof.close(evaluating)
                evaluating = prof.evaluate(node)
            buffer = buffers.pop(node)
            if owned:
                if type(node) is AccumulateGrad:
                    if buffer[0] is not None and owned.pop(id(buffer[0]), None) and \
                            _plain(node) and _unshared(buffer[0]):
                        if prof is None:
                            accumulate_into_leaf(node.variable, buffer[0], owned=True)
                        else:
                            prof.run_node(_steal_into_leaf, node, buffer)
                        if not retain_graph:
                            node.release_saved()
                        continue
                else:
                    for g in buffer:        # consumed here: forget them (ids get reused)
                        if g is not None:
                            owned.pop(id(g), None)
                g = None
            if needed is None:
                run = True
                if node._tensor_pre_hooks or node._retain_grad_hooks:
                    buffer = _call_tensor_pre_hooks(node, buffer)
            else:
                run = node in needed or (accumulate and node in targets and
                                         isinstance(node, AccumulateGrad))
                # a node the inputs do not need is skipped, its tensors' hooks too
                if run or node in targets:
                    if node._tensor_pre_hooks or node._retain_grad_hooks:
                        buffer = _call_tensor_pre_hooks(node, buffer)
                    for nr, g in enumerate(buffer):
                        for idx in capture.get((node, nr), ()):
                            captured[idx] = g
            if run:
                if (buffer and buffer[0] is not None) or type(node) is AccumulateGrad or \
                        any(g is not None for g in buffer) or node._call_with_undefined_grads:
                    grads = validate_grads(node, _call_node(node, buffer) if prof is None else
                                          prof.run_node(_call_node, node, buffer))
                    if owned is not None and not node._hooks:
                        _mark_owned(owned, grads, buffer)
                else:
                    grads = (None,) * len(node.next_functions)
                if not retain_graph:
                    node.release_saved()
            else:
                grads = (None,) * len(node.next_functions)
            for (nxt, nr), g in zip(node.next_functions, grads):
                if nxt is None:
                    continue
                buf = buffers.get(nxt)
                if buf is None:
                    buf = buffers[nxt] = [None] * nxt._num_outputs
                if g is not None:
                    old = buf[nr]
                    if old is None:
                        buf[nr] = g
                    else:
                        if owned is not None:
                            owned.pop(id(g), None)      # summed into a new tensor
                        buf[nr] = old + g
                        old = None
                left = deps[nxt] - 1
                deps[nxt] = left
                if not left:
                    heapq.heappush(ready, (-nxt._sequence_nr, id(nxt), nxt))
            grads = g = None        # the buffers hold the gradients now (see ``_unshared``)
        if accumulate and inputs is not None:
            # Non-leaf inputs of backward(inputs=...) get their gradient in .grad too.
            for t, g in zip(inputs, captured):
                if t._grad_fn is not None and g is not None:
                    accumulate_into_leaf(t, g)
    finally:
        graph.CURRENT_TASK.task = outer_task
        grad_mode.STATE.grad_enabled = prev_mode
        if evaluating is not None:
            prof.close(evaluating)

    if inputs is not None and not accumulate:
        if not allow_unused:
            for i, g in enumerate(captured):
                if g is None:
                    raise RuntimeError(
                        f"The differentiated Tensor at index {i} appears to not have been used "
                        "in the graph. Set allow_unused=True if this is the desired behavior.")
        return captured
    return None
