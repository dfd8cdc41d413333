"""Non-reentrant checkpoint as PyTorch builds it (saved-tensor hooks over the segment's own
graph) and the reentrant ``CheckpointFunction`` node, against PyTorch: node names, how often
and how far the segment is recomputed, the errors for a segment that saves something else the
second time or is unpacked twice, contexts, and the module's small helpers.

Each case is a snippet run with ``L = torch`` and with ``L = cinder``; what it records
(``out.append``), the exception it ends with and its warnings must be the same."""

import re
import warnings

import pytest
import torch

import cinder

_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def _run(code, lib):
    out = []
    scope = {"L": lib, "CP": lib.utils.checkpoint, "out": out}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(code, scope)
            error = None
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            error = (type(e).__name__, _ADDRESS.sub("", str(e)).replace("torch.", "L.")
                     .replace("cinder.", "L."))
    said = [str(w.message).split(" (Triggered internally")[0] for w in caught]
    return [_ADDRESS.sub("", repr(v)).replace("torch.", "L.").replace("cinder.", "L.")
            for v in out], error, said


SEGMENT = """
calls = []
L.manual_seed(0)
lin = L.nn.Linear(3, 3)
def seg(t, scale=1.0):
    calls.append("start")
    h = lin(t).tanh()
    calls.append("after the last save")
    return h.sum(1) + t.sum(1) + scale
x = L.linspace(-1, 1, 6).reshape(2, 3).requires_grad_()
"""

CASES = {
    "non_reentrant_graph": SEGMENT + """
y = CP.checkpoint(seg, x, use_reentrant=False, scale=2.0)
out.append((y.grad_fn, y.grad_fn.next_functions, list(calls)))
y.sum().backward()
out.append((x.grad, lin.weight.grad, list(calls)))
""",
    "no_early_stop": SEGMENT + """
with CP.set_checkpoint_early_stop(False):
    y = CP.checkpoint(seg, x, use_reentrant=False)
y.sum().backward()
out.append(list(calls))
y2 = CP.checkpoint(seg, x, use_reentrant=False, early_stop=False)
y2.sum().backward()
out.append(list(calls))
""",
    "retain_graph_recomputes_per_pass": SEGMENT + """
y = CP.checkpoint(seg, x, use_reentrant=False)
y.sum().backward(retain_graph=True)
y.sum().backward()
out.append((len(calls), x.grad))
g, = L.autograd.grad(CP.checkpoint(seg, x, use_reentrant=False).sum(), lin.weight)
out.append((len(calls), g))
""",
    "graph_exec_group": SEGMENT + """
y = CP.checkpoint(seg, x, use_reentrant=False)
with CP.GraphExecGroup():
    (g1,) = L.autograd.grad(y.sum(), lin.weight, retain_graph=True)
    out.append(len(calls))
with CP.GraphExecGroup():
    with CP.GraphExecGroup():
        pass
""",
    "reentrant_node": SEGMENT + """
y = CP.checkpoint(seg, x, use_reentrant=True)
out.append((y.grad_fn.name(), list(calls)))
y.sum().backward()
out.append((x.grad, lin.weight.grad, len(calls)))
L.autograd.grad(CP.checkpoint(seg, x, use_reentrant=True).sum(), x)
""",
    "reentrant_function_apply": SEGMENT + """
y = CP.CheckpointFunction.apply(seg, True, x)
y.sum().backward()
out.append((type(y.grad_fn).__name__, x.grad))
CP.CheckpointFunction.apply(lambda t: t.detach() * 2, True, x).sum().backward()
""",
    "different_shapes_on_recompute": """
state = {"n": 3}
def seg(t):
    state["n"] += 1
    return (t[:state["n"] % 2 + 1] * t[:state["n"] % 2 + 1]).sum()
x = L.ones(4, requires_grad=True)
y = CP.checkpoint(seg, x, use_reentrant=False)
y.backward()
""",
    "fewer_saves_on_recompute": """
state = {"first": True}
def seg(t):
    first, state["first"] = state["first"], False
    return (t * t).exp().sum() if first else t.sum()
x = L.ones(4, requires_grad=True)
CP.checkpoint(seg, x, use_reentrant=False).backward()
""",
    "unpacked_twice": """
class Twice(L.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * 2
    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        b, = ctx.saved_tensors
        return g * 2
x = L.ones(3, requires_grad=True)
CP.checkpoint(lambda t: Twice.apply(t * 1), x, use_reentrant=False).sum().backward()
""",
    "input_changed_in_place": """
x = L.ones(3, requires_grad=True)
a = x * 1
y = CP.checkpoint(lambda t: (t * t).sum(), a, use_reentrant=False)
a.add_(1)
y.backward()
""",
    "context_fn": """
log = []
class Ctx:
    def __init__(self, name): self.name = name
    def __enter__(self): log.append(self.name + " in")
    def __exit__(self, *e): log.append(self.name + " out")
x = L.ones(3, requires_grad=True)
y = CP.checkpoint(lambda t: (t * t).sum(), x, use_reentrant=False,
                  context_fn=lambda: (Ctx("fwd"), Ctx("recompute")))
y.backward()
out.append(log)
CP.checkpoint(lambda t: t * 2, x, use_reentrant=False, debug=True,
              context_fn=lambda: (Ctx("a"), Ctx("b")))
""",
    "bad_arguments": """
x = L.ones(3, requires_grad=True)
for kw in ({"determinism_check": "strict", "use_reentrant": False},
           {"use_reentrant": True, "debug": True}, {"use_reentrant": True, "alpha": 1}):
    try:
        CP.checkpoint(lambda t: t * 2, x, **kw)
    except ValueError as e:
        out.append(str(e))
y = CP.checkpoint(lambda t: (t * t).sum(), x, use_reentrant=False, determinism_check="none")
y.backward()
out.append(x.grad)
""",
    "no_grad_and_outer_hooks": """
x = L.ones(3, requires_grad=True)
with L.no_grad():
    out.append(CP.checkpoint(lambda t: t * 2, x, use_reentrant=False).requires_grad)
packed = []
with L.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.shape) or t, lambda t: t):
    y = CP.checkpoint(lambda t: (t.exp() * t).sum(), x, use_reentrant=False)
out.append(len(packed))
y.backward()
out.append(x.grad)
""",
    "dropout_replayed": """
L.manual_seed(0)
x = L.ones(4, 5, requires_grad=True)
y = CP.checkpoint(lambda t: L.nn.functional.dropout(t, 0.5).exp().sum(), x, use_reentrant=False)
L.rand(3)
y.backward()
out.append(x.grad)
""",
    "helpers": """
a, b = L.ones(2, requires_grad=True), L.zeros(2)
d = CP.detach_variable((a, b, 3))
out.append((d[0].requires_grad, d[0].grad_fn, d[1].requires_grad, d[2], d[0] is a))
CP.check_backward_validity([b, 1])
out.append([type(c).__name__ for c in CP.noop_context_fn()])
out.append(CP.DefaultDeviceType.get_device_type())
CP.DefaultDeviceType.set_device_type("cuda")
out.append(CP.get_device_states(a, 3))
CP.detach_variable([a])
""",
}


@pytest.mark.parametrize("case", list(CASES))
def test_checkpoint_like_torch(case):
    assert _run(CASES[case], cinder) == _run(CASES[case], torch)
