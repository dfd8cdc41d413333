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

from . import grad_mode
from .graph import AccumulateGrad

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
    """Nodes from which some target node can be reached (so their gradients are needed)."""
    # Post-order walk without recursion (long RNN unrolls make deep graphs).
    stack = [(r, False) for r in roots if r is not None]
    state = {}
    while stack:
        node, expanded = stack.pop()
        if expanded:
            res = node in targets or any(
                state.get(n, False) for n, _ in node.next_functions if n is not None)
            state[node] = res
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


def _validate(node, grads):
    """Make each gradient match its input's shape and dtype (sum broadcast dims, cast)."""
    meta = node._input_meta
    if not meta:
        return grads
    out = list(grads)
    for i, g in enumerate(out):
        if g is None or i >= len(meta) or meta[i] is None:
            continue
        shape, dtype, device = meta[i]
        if g.shape != shape:
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
        out[i] = g
    return out


def _expandable(shape, target):
    """Whether ``shape`` broadcasts to ``target``."""
    for s, t in zip(reversed(shape), reversed(target)):
        if s != 1 and s != t:
            return False
    return True


def _call_tensor_pre_hooks(node, buffer):
    hooks = node._tensor_pre_hooks
    if hooks:
        for output_nr, fn in list(hooks.values()):
            if buffer[output_nr] is not None:
                new = fn(buffer[output_nr])
                if new is not None:
                    buffer[output_nr] = new
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
                buffer = list(new)
    grads = node.backward(tuple(buffer))
    if node._hooks:
        for fn in list(node._hooks.values()):
            new = fn(tuple(grads), tuple(buffer))
            if new is not None:
                grads = tuple(new)
    return grads


def _n_outputs(node):
    return getattr(node, "_num_outputs", 1)


def run_backward(roots, root_grads, retain_graph, create_graph, inputs=None,
                 accumulate=True, allow_unused=False):
    """Backpropagate ``root_grads`` from the nodes in ``roots`` (pairs of (node, output_nr)).

    With ``accumulate`` leaves get ``.grad``; otherwise the gradients reaching ``inputs``
    (tensors) are captured and returned in order.
    """
    root_nodes = [node for node, _ in roots]
    deps = _collect_dependencies(root_nodes)

    capture = {}                  # (node, output_nr) -> index in inputs
    needed = None
    if inputs is not None:
        for i, t in enumerate(inputs):
            node, nr = t._gradient_edge()
            capture.setdefault((node, nr), []).append(i)
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

    prev_mode = grad_mode.STATE.grad_enabled
    grad_mode.STATE.grad_enabled = create_graph
    try:
        while ready:
            _, _, node = heapq.heappop(ready)
            buffer = buffers.pop(node)
            buffer = _call_tensor_pre_hooks(node, buffer)
            if capture:
                for nr, g in enumerate(buffer):
                    for idx in capture.get((node, nr), ()):
                        captured[idx] = g
            skip = (needed is not None and node not in needed) or \
                   (not accumulate and isinstance(node, AccumulateGrad))
            if inputs is not None and accumulate and isinstance(node, AccumulateGrad):
                skip = (node, 0) not in capture
            if not skip:
                if all(g is None for g in buffer) and not isinstance(node, AccumulateGrad):
                    grads = (None,) * len(node.next_functions)
                else:
                    grads = _validate(node, _call_node(node, buffer))
                if not retain_graph:
                    node.release_saved()
            else:
                grads = (None,) * len(node.next_functions)
            for (nxt, nr), g in zip(node.next_functions, grads):
                if nxt is None:
                    continue
                buf = buffers.get(nxt)
                if buf is None:
                    buf = buffers[nxt] = [None] * _n_outputs(nxt)
                if g is not None:
                    buf[nr] = _add_grads(buf[nr], g)
                deps[nxt] -= 1
                if deps[nxt] == 0:
                    heapq.heappush(ready, (-nxt._sequence_nr, id(nxt), nxt))
    finally:
        grad_mode.STATE.grad_enabled = prev_mode

    if inputs is not None and not accumulate:
        if not allow_unused:
            for i, g in enumerate(captured):
                if g is None:
                    raise RuntimeError(
                        "One of the differentiated Tensors appears to not have been used in the "
                        "graph. Set allow_unused=True if this is the desired behavior.")
        return captured
    return None
