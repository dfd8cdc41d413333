"""The backward graph as a picture: Graphviz DOT text of what ``.backward()`` would run.

``to_dot(output, params=dict(model.named_parameters()))`` walks ``output.grad_fn`` and its
``next_functions``: each node is labelled with PyTorch's name (``MulBackward0``) and the shapes
of the tensors it saved for backward; leaves (``AccumulateGrad``) show the parameter's name
and shape; the output is a box of its own. Render it with the ``graphviz`` package
(``graphviz.Source(text)``) or the ``dot`` program.
"""

from dataclasses import dataclass, field

from .graph import SavedTensor


@dataclass
class NodeInfo:
    label: str                  # unique, readable: "MulBackward0" or "MulBackward0_2"
    op: str                     # the node's class name, or "Parameter"/"Tensor"/"Output"
    saved: list = field(default_factory=list)     # [(name, shape text)]
    kind: str = "op"            # op | leaf | output


@dataclass
class Graph:
    nodes: dict = field(default_factory=dict)     # id -> NodeInfo, in discovery order
    edges: list = field(default_factory=list)     # (from id, to id): input feeds consumer


def _shape(t):
    return str(tuple(t.shape))


def _saved_items(node):
    """(name, shape or value) for each value the node saved, without unpacking freed ones."""
    saved = getattr(node, "_saved", None)
    if not isinstance(saved, dict):
        return []
    # A node keeps its saved values in set order; show them in the op's argument order
    # (``self`` before ``other``), then the rest by name, so a graph always draws the same.
    inputs = tuple(getattr(type(node), "_inputs", ()))
    order = sorted(saved, key=lambda k: (inputs.index(k) if k in inputs else len(inputs), k))
    items = []
    for key in order:
        value = saved[key]
        if type(value) is SavedTensor:
            try:
                items.append((key, _shape(value.unpack(node, fresh=True))))
            except RuntimeError:           # freed or modified in place since
                items.append((key, "(freed)"))
        elif isinstance(value, (int, float, bool, tuple, list)) and len(str(value)) < 40:
            items.append((key, str(value)))
    return items


def collect(outputs, params=None):
    """Walk the backward graph from ``outputs`` (a tensor or a sequence of tensors)."""
    outs = list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]
    names = {id(p): n for n, p in (params or {}).items()}
    graph, counts = Graph(), {}

    def label(base):
        counts[base] = counts.get(base, 0) + 1
        return base if counts[base] == 1 else f"{base}_{counts[base]}"

    stack = []
    for i, out in enumerate(outs):
        key = ("out", i)
        graph.nodes[key] = NodeInfo(label(f"output{'' if len(outs) == 1 else i}"), "Output",
                                    [("shape", _shape(out))], "output")
        if out.grad_fn is not None:
            graph.edges.append((id(out.grad_fn), key))
            stack.append(out.grad_fn)
    while stack:
        node = stack.pop()
        if id(node) in graph.nodes:
            continue
        variable = getattr(node, "variable", None)
        if variable is not None:            # AccumulateGrad: a leaf tensor
            name = names.get(id(variable), "")
            graph.nodes[id(node)] = NodeInfo(label(name or "leaf"), "AccumulateGrad",
                                             [("shape", _shape(variable))], "leaf")
            continue
        graph.nodes[id(node)] = NodeInfo(label(node.name()), node.name(), _saved_items(node))
        for nxt, _ in node.next_functions:
            if nxt is not None:
                graph.edges.append((id(nxt), id(node)))
                stack.append(nxt)
    return graph


_STYLE = {"op": 'fillcolor="lightgrey"', "leaf": 'fillcolor="lightblue"',
          "output": 'fillcolor="darkolivegreen1"'}


def _escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def to_dot(output, params=None, name="backward"):
    """Graphviz DOT source of the backward graph of ``output``; ``params`` maps names to
    tensors (``dict(model.named_parameters())``) so leaves show their names."""
    graph = collect(output, params)
    ids = {key: f"n{i}" for i, key in enumerate(graph.nodes)}
    lines = [f"digraph {name} {{",
             '    node [shape=box, style="filled,rounded", fontname="monospace", fontsize=10]']
    for key, info in graph.nodes.items():
        title = info.label if info.kind != "op" or info.label == info.op else info.op
        rows = [title] + [f"{k}: {v}" for k, v in info.saved]
        lines.append(f'    {ids[key]} [label="{_escape(chr(10).join(rows))}", '
                     f"{_STYLE[info.kind]}]".replace(chr(10), "\\n"))
    for src, dst in graph.edges:
        lines.append(f"    {ids[src]} -> {ids[dst]}")
    lines.append("}")
    return "\n".join(lines) + "\n"
