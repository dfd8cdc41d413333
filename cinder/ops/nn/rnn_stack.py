"""A whole stack of unidirectional LSTM layers over a padded sequence as one op and one
graph node (``_lstm_stack``).

Why one node: at the sizes LSTMs are usually trained at on a CPU (batch 16, hidden 64) the
framework work around each layer (a select per initial state, a reshape, one recorded kernel
per layer, the engine visiting each node) costs about as much as a layer's NumPy calls. Here
the module makes one call: the kernel runs the layers one after another with ``rnn.py``'s
padded-sequence LSTM loop in the gate-major layout (per time step one GEMM
``[W_hh | W_ih | b] @ [h; x_t; 1]`` and a few NumPy calls on contiguous gate blocks), and
its backward runs them in reverse, handing each layer's input gradient to the layer below.

A note on what was tried: running the layers as a wavefront (layer l at time t beside layer
l + 1 at time t - 1, so each NumPy call advances every layer) halves the number of calls per
step. With the row layout the input projection of the layers above the first then became a
small GEMM per step and cost more than the saved calls. With the gate-major layout each
step's GEMM already includes the input, so that cost is gone, but measured on the
benchmark's 2-layer LSTM(32->64), batch 16, the wavefront forward ran no faster (~700 us
both): the per-step NumPy calls at these sizes are mostly arithmetic (a tanh over 4H x B
values), not call overhead, and the per-layer views of the wave arrays slowed the backward.
So the layers run one after another.

Used for LSTMs without projection, one direction, padded input, no dropout between layers
while training, float32/float64 NumPy arrays; a bidirectional layer runs as one
``_lstm_pair`` kernel (``rnn_pair.py``), everything else as one ``_rnn_layer`` node per layer
and direction (``rnn.py``). Under ``create_graph=True`` the gradients come from the layers
written in differentiable cinder ops (``rnn._layer_ops``).
"""

import functools
from types import SimpleNamespace

import numpy as np

from .._registry import needs_grad, node_class, record, register
from ..shape import StackBackward
from . import rnn as _rnn
from ._utils import ArrayBackward, like

__all__ = ["lstm_stack", "run_stack", "stack_fits"]


def stack_fits(input, num_layers, bidirectional, proj_size, dropout_active):
    """Whether a padded (T, B, I) LSTM forward can run as one ``lstm_stack`` kernel."""
    data = input._data
    return (type(data) is np.ndarray and data.dtype.char in "fd"     # float32, float64
            and not bidirectional and not proj_size and not dropout_active
            and num_layers >= 1 and data.ndim == 3 and data.shape[0] > 0 and data.shape[1] > 0)


_NAMES = ("w_ih", "w_hh", "b_ih", "b_hh")


def _forward(x, h0, c0, layers, steps, batch):
    """Run the layers one after another; returns (output (T*B, H), h_n (L, B, H),
    c_n (L, B, H), what the backward needs: each layer's input and saved arrays)."""
    sizes = np.full(steps, batch, dtype=np.int64)
    saved, h_n, c_n = [], [], []
    for lay, (w_ih, w_hh, b_ih, b_hh) in enumerate(layers):
        out, h, c, arrays = _rnn._forward(np, "LSTM", x, h0[lay], c0[lay], w_ih, w_hh, b_ih,
                                          b_hh, None, sizes, False)
        saved.append((x, arrays))
        h_n.append(h)
        c_n.append(c)
        x = out
    return x, np.stack(h_n), np.stack(c_n), {"layers": saved, "sizes": sizes}


def _backward(layers, saved, gout, gh, gc, needed):
    """Gradients of x, h0, c0 and each layer's weights (those ``needed``) as a dict: the
    layers in reverse, each one's input gradient the output gradient of the layer below."""
    grads = {}
    h0_grads, c0_grads = [None] * len(layers), [None] * len(layers)
    for lay in range(len(layers) - 1, -1, -1):
        x, arrays = saved["layers"][lay]
        w_ih, w_hh, b_ih, _ = layers[lay]
        names = [f"p{lay}_{n}" for n in _NAMES]
        wanted = {n for n, full in zip(_NAMES, names) if full in needed}
        if lay or "x" in needed:
            wanted.add("x")
        layer = SimpleNamespace(mode="LSTM", arrays=arrays, w_ih_arr=w_ih, w_hh_arr=w_hh,
                                w_hr_arr=None, x_arr=x, has_bias=b_ih is not None,
                                batch_sizes=saved["sizes"], reverse=False)
        g = _rnn._backward(np, layer, gout, gh[lay].copy(), gc[lay].copy(), wanted)
        for n, full in zip(_NAMES, names):
            if g.get(n) is not None and full in needed:
                grads[full] = g[n]
        h0_grads[lay], c0_grads[lay] = g["h0"], g["c0"]
        gout = g.get("x")
    if gout is not None:
        grads["x"] = gout
    grads["h0"], grads["c0"] = np.stack(h0_grads), np.stack(c0_grads)
    return grads


# ----------------------------------------------------------------------------------------------
# The op and its node
# ----------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _input_names(num_layers, has_bias):
    """The node's input names: x, h0, c0, then ``p{layer}_{w_ih, w_hh, b_ih, b_hh}``."""
    per = ("w_ih", "w_hh", "b_ih", "b_hh") if has_bias else ("w_ih", "w_hh")
    return ("x", "h0", "c0") + tuple(f"p{lay}_{n}" for lay in range(num_layers) for n in per)


def _stack_ops(s, x, h0, c0, *params):
    """The stack's forward in differentiable ops, layer after layer (double backward)."""
    per = 4 if s.has_bias else 2
    x = x.reshape(s.steps * s.batch, x.shape[2])
    layer = SimpleNamespace(mode="LSTM", batch_sizes=np.full(s.steps, s.batch, np.int64),
                            reverse=False, seq_shape=None)
    hs, cs = [], []
    for lay in range(s.num_layers):
        w = list(params[lay * per:(lay + 1) * per]) + [None, None]
        x, h, c = _rnn._layer_ops(layer, x, h0[lay], c0[lay], w[0], w[1], w[2], w[3], None)
        hs.append(h)
        cs.append(c)
    if s.seq_shape is not None:
        x = x.reshape(tuple(s.seq_shape) + (x.shape[1],))
    return (x, *hs, *cs)


class _StackNode(ArrayBackward):
    """Backward of the whole stack: every input's gradient, the layers in reverse."""

    __slots__ = ()
    _composite = staticmethod(lambda s, *inputs: _stack_ops(s, *inputs))

    def _input_names(self):
        return _input_names(self.num_layers, self.has_bias)

    def _array_grads(self, grads, needed):
        nl, steps, batch = self.num_layers, self.steps, self.batch
        w_hh = self.layer_arrays[0][1]
        hs, dt = w_hh.shape[1], w_hh.dtype
        gout = (grads[0]._data.reshape(steps * batch, hs) if grads[0] is not None else
                np.zeros((steps * batch, hs), dt))
        gh = np.zeros((nl, batch, hs), dt)
        gc = np.zeros((nl, batch, hs), dt)
        for lay in range(nl):
            for target, g in ((gh, grads[1 + lay]), (gc, grads[1 + nl + lay])):
                if g is not None:
                    target[lay] = g._data
        arrays = _backward(self.layer_arrays, self.arrays, gout, gh, gc, needed)
        if "x" in arrays:
            arrays["x"] = arrays["x"].reshape(steps, batch, arrays["x"].shape[1])
        return arrays, next(g for g in grads if g is not None)


_NODES = {}


def _node(name, num_layers, has_bias):
    """The node class for this stack shape, printing as ``name`` (one of rnn's names)."""
    key = (name, num_layers, has_bias)
    if key not in _NODES:
        keys = _input_names(num_layers, has_bias)
        base = node_class(name, {k: None for k in keys},
                          saves_also=keys + ("seq_shape", "arrays", "layer_arrays", "num_layers",
                                             "has_bias", "steps", "batch"),
                          num_outputs=1 + 2 * num_layers)
        _NODES[key] = type(name, (_StackNode, base), {"__slots__": (),
                                                      "__module__": base.__module__})
    return _NODES[key]


def _run(input, hx, cx, params, has_bias, num_layers, node_name):
    """``lstm_stack``'s work; returns its results and the stacked final states' arrays."""
    if node_name not in _rnn._NODE_NAMES:
        raise ValueError(f"unknown node name {node_name}")
    steps, batch = input.shape[0], input.shape[1]
    x = input._data.reshape(steps * batch, input.shape[2])
    per = 4 if has_bias else 2
    layers = []
    for lay in range(num_layers):
        w = [p._data for p in params[lay * per:(lay + 1) * per]]
        layers.append((w[0], w[1], w[2], w[3]) if has_bias else (w[0], w[1], None, None))
    out, h_n, c_n, saved = _forward(x, hx._data, cx._data, layers, steps, batch)
    out = out.reshape(steps, batch, out.shape[1])
    results = (like(out, input), *(like(h, input) for h in h_n),
               *(like(c, input) for c in c_n))
    if needs_grad(input, hx, cx, *params):
        keys = _input_names(num_layers, has_bias)
        record(_node(node_name, num_layers, has_bias), (input, hx, cx, *params), results,
               **dict(zip(keys, (input, hx, cx, *params))), seq_shape=(steps, batch),
               arrays=saved, layer_arrays=layers, num_layers=num_layers,
               has_bias=has_bias, steps=steps, batch=batch)
    return results, h_n, c_n


def lstm_stack(input, hx, cx, params, has_bias, num_layers, node_name="RnnLayerBackward0"):
    """``num_layers`` unidirectional LSTM layers without projection over a padded (T, B, I)
    ``input``, from initial states ``hx``/``cx`` (L, B, H); ``params`` lists each layer's
    ``w_ih, w_hh`` (then ``b_ih, b_hh`` when ``has_bias``). Returns the output (T, B, H) and
    each layer's final hidden and cell state: ``(out, h_0, ..., h_{L-1}, c_0, ..., c_{L-1})``.
    The graph node prints as ``node_name`` (one of ``rnn._NODE_NAMES``), as the
    per-layer nodes would."""
    return _run(input, hx, cx, params, has_bias, num_layers, node_name)[0]


def _stacked(parts, arr, ref):
    """The per-layer states ``parts`` stacked along a new dim 0, as PyTorch's ``torch.stack``
    of them (its node, StackBackward0), reusing ``arr``: the kernel has already stacked the
    same values (``np.stack`` in ``_forward``), so no second stack is made."""
    result = like(arr, ref)
    if needs_grad(*parts):
        record(StackBackward, parts, (result,), dim=0, sizes=None, stacked=True)
    return result


def run_stack(input, hx, cx, params, has_bias, num_layers, node_name="RnnLayerBackward0"):
    """``lstm_stack`` with the per-layer states stacked: ``(output, h_n, c_n)``."""
    res, h_n, c_n = _run(input, hx, cx, params, has_bias, num_layers, node_name)
    return (res[0], _stacked(res[1:1 + num_layers], h_n, input),
            _stacked(res[1 + num_layers:], c_n, input))


register("_lstm_stack", lstm_stack, method=False, function_too=False, family="nn.rnn",
         nodes=())
