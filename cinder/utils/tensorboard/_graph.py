"""add_graph's GraphDef: the module tree plus the autograd graph of one forward pass.

PyTorch traces the model with TorchScript; cinder has no tracer, so it shows what it can
observe directly: every submodule as a node named by its scope
(``LeNet/Sequential[features]/Conv2d[0]``) with its parameters' shapes, and, under
``autograd/``, the backward graph of ``model(*inputs)`` with PyTorch's node names
(``ConvolutionBackward0``...) wired to their inputs and to the parameters (leaves).
"""

from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.versions_pb2 import VersionDef

from ...autograd import _dot


def _attr(text):
    return AttrValue(s=text.encode("utf-8"))


def _module_nodes(model):
    """One node per submodule, scoped under its parent: Class[name] as PyTorch's tracer does."""
    scopes = {"": type(model).__name__}
    nodes = [NodeDef(name=scopes[""], op=type(model).__name__)]
    for name, module in model.named_modules():
        if not name:
            continue
        parent, _, leaf = name.rpartition(".")
        scopes[name] = f"{scopes[parent]}/{type(module).__name__}[{leaf}]"
        attrs = {f"param:{p}": _attr(str(list(t.shape)))
                 for p, t in module.named_parameters(recurse=False)}
        nodes.append(NodeDef(name=scopes[name], op=type(module).__name__,
                             input=[scopes[parent]], attr=attrs))
    return nodes


def _autograd_nodes(outputs, params):
    """The backward graph reachable from ``outputs`` as NodeDefs under ``autograd/``."""
    graph = _dot.collect(outputs, params)
    nodes = []
    for key, info in graph.nodes.items():
        inputs = [f"autograd/{graph.nodes[src].label}" for src, dst in graph.edges if dst == key]
        attrs = {"saved": _attr(", ".join(f"{k}: {v}" for k, v in info.saved))} \
            if info.saved else {}
        nodes.append(NodeDef(name=f"autograd/{info.label}", op=info.op, input=inputs,
                             attr=attrs))
    return nodes


def graph(model, input_to_model):
    """GraphDef for ``model`` run once on ``input_to_model`` (a tensor or a tuple/list)."""
    args = input_to_model if isinstance(input_to_model, (tuple, list)) else (input_to_model,)
    out = model(*args)
    nodes = _module_nodes(model) + _autograd_nodes(out, dict(model.named_parameters()))
    return GraphDef(node=nodes, versions=VersionDef(producer=22))
