"""A whole stack of unidirectional LSTM layers over a padded sequence as one kernel.

Why: at the sizes LSTMs are usually trained at on a CPU (batch 16, hidden 64) one time step of
one layer is one small GEMM plus about ten NumPy calls on (B, 4H) arrays, and those calls cost
more in Python overhead than in arithmetic. Running the layers one after another pays that
overhead once per layer and step. This kernel advances all layers together, so each call
works on every layer at once.

The wavefront. Layer ``l`` at time ``t`` needs layer ``l - 1``'s output at time ``t`` and its
own state at time ``t - 1``. So at wavefront step ``s`` layer ``l`` can run time ``t = s - l``:
layer 0 runs t = s, layer 1 runs t = s - 1 (whose input layer 0 made at the previous step),
and so on. With T time steps and L layers there are ``S = T + L - 1`` wavefront steps; at the
first and last ``L - 1`` of them only some layers have work (``_active``)::

    step s:   0    1    2   ...  T-1   T   ...
    layer 0:  t0   t1   t2  ...  tT-1
    layer 1:       t0   t1  ...  tT-2  tT-1

Every per-step array is stored in wavefront order, ``buf[s, l]`` = layer ``l`` at step ``s``,
so the rows of all active layers at one step are one contiguous block ``buf[s, lo:hi]`` and one
NumPy call advances them all.

Layout of one step. Layer l >= 1 computes its gates from ``z = [in_l(t), h_l(t-1), 1]``: one
GEMM ``z @ Wk_l`` with ``Wk_l = [W_ih^T; W_hh^T; b_ih + b_hh]`` covers the input projection,
the recurrence and the biases (the input of a layer above the first is not known before the
loop, so its projection cannot be hoisted out as a whole-sequence GEMM). ``Z[s, l]`` holds that
``z``; a layer's new hidden state is written straight into ``Z[s + 1, l]`` (its own next
recurrence) and copied into ``Z[s + 1, l + 1]`` (the next layer's input). Layer 0's input
projection is one whole-sequence GEMM before the loop, as in ``rnn.py``. The gate scale of the
sigmoid-through-tanh trick (k = 1/2 for i, f, o, exact in binary floating point) is folded into
the weights once, so a step needs no extra multiply before its tanh.

The backward runs the same wavefront in reverse: layer l at time t needs the gradient flowing
into its output from layer l + 1 at time t (computed one wavefront step earlier, as the
input-part of ``dpre_{l+1}(t) @ [W_ih | W_hh]``) and from itself at time t + 1 (the hidden part
of the same product). The weight gradients are whole-sequence GEMMs after the loop; the ones
column of ``Z`` makes the last column of ``dpre^T @ Z`` the bias gradient.

Used for LSTMs without projection, one direction, padded input, no dropout between layers
while training, float32/float64 NumPy arrays; everything else runs layer by layer
(``rnn.py``). Under ``create_graph=True`` the gradients come from the layers written in
differentiable cinder ops (``rnn._layer_ops``).
"""

from types import SimpleNamespace

import numpy as np

from ...autograd import grad_mode
from .._registry import FUNCTIONS, needs_grad, node_class, record, register
from ._utils import like, recompute_grads
from .rnn import _NODE_NAMES, _lstm_back_factors, _lstm_gate_affine, _layer_ops

__all__ = ["lstm_stack", "stack_fits"]


def stack_fits(input, num_layers, bidirectional, proj_size, dropout_active):
    """Whether a padded (T, B, I) LSTM forward can run as one ``lstm_stack`` kernel."""
    data = input._data
    return (type(data) is np.ndarray and data.dtype in (np.float32, np.float64)
            and not bidirectional and not proj_size and not dropout_active
            and num_layers >= 1 and data.ndim == 3 and data.shape[0] > 0 and data.shape[1] > 0)


def _active(s, steps, layers):
    """The layers ``lo:hi`` with work at wavefront step ``s``."""
    return max(0, s - steps + 1), min(layers, s + 1)


def _step_keys(total, steps, layers):
    """Per wavefront step: (active layers as a slice, the index of their rows in a
    ``buf[s, l]`` array at this step, at the next step). A full step indexes with the integer
    alone, which is cheaper than a tuple."""
    keys = []
    for s in range(total):
        lo, hi = _active(s, steps, layers)
        full = (lo, hi) == (0, layers)
        span = slice(lo, hi)
        keys.append((span, s if full else (s, span), s + 1 if full else (s + 1, span)))
    return keys


def _clear_idle(steps, *bufs):
    """Zero the slots of layers with no work at a step (the ramps of the wavefront), so the
    whole-array passes over these buffers see finite numbers there."""
    for buf in bufs:
        for lay in range(buf.shape[1]):
            buf[:lay, lay] = 0
            buf[lay + steps:, lay] = 0


# ----------------------------------------------------------------------------------------------
# Forward
# ----------------------------------------------------------------------------------------------

def _padded_rows(shape, dt):
    """An empty array of ``shape`` whose rows start 64-byte aligned (each row padded to a
    multiple of 16 elements): the GEMMs and ufuncs on its row blocks run faster aligned."""
    width = shape[-1]
    padded = -(-width // 16) * 16
    return np.empty(shape[:-1] + (padded,), dtype=dt)[..., :width]


def _gate_weights(layers, dt):
    """Layer 0's scaled ``W_ih^T``, ``W_hh^T``, bias, and the stacked ``Wk_l`` (L, 2H+1, 4H)
    of the layers above it (``Wk_0`` unused), all with the gate scale k folded in."""
    w_ih0, w_hh0, b_ih0, b_hh0 = layers[0]
    hs = w_hh0.shape[1]
    k, _ = _lstm_gate_affine(np, hs, dt)
    bias0 = (b_ih0 + b_hh0) * k if b_ih0 is not None else None
    wk = np.zeros((len(layers), 2 * hs + 1, 4 * hs), dtype=dt)
    for lay, (w_ih, w_hh, b_ih, b_hh) in enumerate(layers[1:], 1):
        wk[lay, :hs] = w_ih.T
        wk[lay, hs:2 * hs] = w_hh.T
        if b_ih is not None:
            wk[lay, 2 * hs] = b_ih + b_hh
    wk *= k
    return w_ih0.T * k, w_hh0.T * k, bias0, wk


def _forward(x, h0, c0, layers, steps, batch):
    """Run the stack; returns (output (T*B, H), h_n (L, B, H), c_n (L, B, H), saved arrays)."""
    dt = x.dtype
    nl, hs = len(layers), h0.shape[2]
    total = steps + nl - 1
    k, shift = _lstm_gate_affine(np, hs, dt)
    w_ih0k, w_hh0k, bias0, wk = _gate_weights(layers, dt)
    xw = x @ w_ih0k                          # layer 0's input projection, hoisted
    if bias0 is not None:
        xw += bias0
    xw = xw.reshape(steps, batch, 4 * hs)
    # wavefront-order buffers (see the module docstring); z's last column is the ones column
    z = _padded_rows((total + 1, nl + 1, batch, 2 * hs + 1), dt)
    z[..., 2 * hs] = 1
    c = np.empty((total + 1, nl, batch, hs), dtype=dt)
    acts = np.empty((total, nl, batch, 4 * hs), dtype=dt)
    tc = np.empty((total, nl, batch, hs), dtype=dt)
    _clear_idle(steps, acts, tc)
    for lay in range(nl):                    # each layer's initial state, read at step s = l
        z[lay, lay, :, hs:2 * hs] = h0[lay]
        c[:lay, lay] = 0
        c[lay, lay] = c0[lay]
        c[lay + steps + 1:, lay] = 0
    gi, gf, gg, go = (acts[..., j * hs:(j + 1) * hs] for j in range(4))
    zin, zh = z[..., :hs], z[..., hs:2 * hs]
    ig = np.empty((nl, batch, hs), dtype=dt)
    for s, (span, cur, nxt) in enumerate(_step_keys(total, steps, nl)):
        lo, hi = span.start, span.stop
        if lo == 0:
            np.matmul(zh[s, 0], w_hh0k, out=acts[s, 0])
            acts[s, 0] += xw[s]
        upper = max(lo, 1)
        if upper < hi:
            np.matmul(z[s, upper:hi], wk[upper:hi], out=acts[s, upper:hi])
        a = acts[cur]
        np.tanh(a, out=a)                    # sigmoid(p) = tanh(p / 2) / 2 + 1 / 2
        a *= k
        a += shift
        cnew = c[nxt]
        np.multiply(gf[cur], c[cur], out=cnew)
        cnew += np.multiply(gi[cur], gg[cur], out=ig[span])
        np.tanh(cnew, out=tc[cur])
        np.multiply(go[cur], tc[cur], out=zh[s + 1, span])
        # the same product again as the next layer's input (the top's: the output); a copy
        # within z would go through a temporary, as NumPy sees the two views overlap
        np.multiply(go[cur], tc[cur], out=zin[s + 1, lo + 1:hi + 1])
    out = z[nl:nl + steps, nl, :, :hs].reshape(steps * batch, hs)
    h_n = np.stack([z[lay + steps, lay, :, hs:2 * hs] for lay in range(nl)])
    c_n = np.stack([c[lay + steps, lay] for lay in range(nl)])
    return out, h_n, c_n, dict(z=z, c=c, acts=acts, tc=tc)


# ----------------------------------------------------------------------------------------------
# Backward
# ----------------------------------------------------------------------------------------------

def _backward(x, layers, saved, gout, gh, gc, steps, needed):
    """Gradients of x, h0, c0 and every layer's weights (those ``needed``) as a dict."""
    z, acts = saved["z"], saved["acts"]
    total, nl, batch, gates = acts.shape
    hs = gates // 4
    rows = total * nl * batch
    factors = _lstm_back_factors(dict(acts=acts.reshape(rows, gates),
                                      cprev=saved["c"][:-1].reshape(rows, hs),
                                      tc=saved["tc"].reshape(rows, hs)))
    fa, fb, fk, ff = (f.reshape((total, nl, batch) + f.shape[1:]) for f in factors)
    dpre = np.empty((total, nl, batch, 4, hs), dtype=acts.dtype)
    dz = np.empty((total + 1, nl + 1, batch, 2 * hs), dtype=acts.dtype)
    dz[nl:nl + steps, nl, :, :hs] = gout.reshape(steps, batch, hs)
    for lay in range(nl):
        dz[lay + steps, lay, :, hs:] = gh[lay]
    w_hh0 = layers[0][1]
    wb = np.zeros((nl, 4 * hs, 2 * hs), dtype=acts.dtype)
    for lay, (w_ih, w_hh, _, _) in enumerate(layers[1:], 1):
        wb[lay, :, :hs] = w_ih
        wb[lay, :, hs:] = w_hh
    dc = gc.copy()
    dht_buf, dct_buf = np.empty_like(dc), np.empty_like(dc)
    dct3 = dct_buf[:, :, None, :]
    dpre3, dpre_o = dpre[..., :3, :], dpre[..., 3, :]
    dzin, dzh = dz[..., :hs], dz[..., hs:]
    for s, (span, cur, _) in reversed(list(enumerate(_step_keys(total, steps, nl)))):
        lo, hi = span.start, span.stop
        # gradient into h_l(t): from layer l at t + 1 and from layer l + 1 at t (or the output)
        dht = np.add(dzh[s + 1, span], dzin[s + 1, lo + 1:hi + 1], out=dht_buf[span])
        dct = np.multiply(dht, fk[cur], out=dct_buf[span])
        dct += dc[span]
        np.multiply(dct3[span], fa[cur], out=dpre3[cur])
        np.multiply(dht, fb[cur], out=dpre_o[cur])
        np.multiply(dct, ff[cur], out=dc[span])
        if lo == 0:
            np.matmul(dpre[s, 0].reshape(batch, gates), w_hh0, out=dzh[s, 0])
        upper = max(lo, 1)
        if upper < hi:
            np.matmul(dpre[s, upper:hi].reshape(hi - upper, batch, gates), wb[upper:hi],
                      out=dz[s, upper:hi])
    grads = {"h0": np.stack([dz[lay, lay, :, hs:] for lay in range(nl)]), "c0": dc}
    for lay in range(nl):
        _layer_weight_grads(grads, lay, x, layers, dpre, z, steps, needed)
    return grads


def _layer_weight_grads(grads, lay, x, layers, dpre, z, steps, needed):
    """Layer ``lay``'s weight and bias gradients (and the input's, for layer 0) as
    whole-sequence GEMMs over its rows of the wavefront arrays."""
    batch, hs = dpre.shape[2], dpre.shape[4]
    names = [f"p{lay}_{n}" for n in ("w_ih", "w_hh", "b_ih", "b_hh")]
    d = np.ascontiguousarray(dpre[lay:lay + steps, lay]).reshape(steps * batch, 4 * hs)
    has_bias = layers[lay][2] is not None
    if lay == 0:
        if "x" in needed:
            grads["x"] = (d @ layers[0][0]).reshape(steps, batch, x.shape[1])
        if names[0] in needed:
            grads[names[0]] = d.T @ x
        zl = z[0:steps, 0, :, hs:].reshape(steps * batch, hs + 1)
        prod = d.T @ zl                      # [dW_hh | db]
        w_ih = None
        w_hh, bias = prod[:, :hs], prod[:, hs]
    else:
        zl = z[lay:lay + steps, lay].reshape(steps * batch, 2 * hs + 1)
        prod = d.T @ zl                      # [dW_ih | dW_hh | db]
        w_ih, w_hh, bias = prod[:, :hs], prod[:, hs:2 * hs], prod[:, 2 * hs]
    for name, g in zip(names, (w_ih, w_hh, bias, bias)):
        if g is not None and name in needed and (has_bias or "_b" not in name):
            grads[name] = np.array(g)         # a contiguous copy each (b_ih, b_hh share values)


# ----------------------------------------------------------------------------------------------
# The op and its node
# ----------------------------------------------------------------------------------------------

def _param_names(num_layers, has_bias):
    per = ("w_ih", "w_hh", "b_ih", "b_hh") if has_bias else ("w_ih", "w_hh")
    return tuple(f"p{lay}_{n}" for lay in range(num_layers) for n in per)


def _stack_ops(s, x, h0, c0, *params):
    """The stack's forward in differentiable ops, layer after layer (double backward)."""
    per = 4 if s.has_bias else 2
    x = x.reshape(s.steps * s.batch, x.shape[2])
    layer = SimpleNamespace(mode="LSTM", batch_sizes=np.full(s.steps, s.batch, np.int64),
                            reverse=False, seq_shape=None)
    hs, cs = [], []
    for lay in range(s.num_layers):
        w = list(params[lay * per:(lay + 1) * per]) + [None, None]
        x, h, c = _layer_ops(layer, x, h0[lay], c0[lay], w[0], w[1], w[2], w[3], None)
        hs.append(h)
        cs.append(c)
    if s.seq_shape is not None:
        x = x.reshape(tuple(s.seq_shape) + (x.shape[1],))
    return (x, *hs, *cs)


class _StackNode:
    """Backward of the whole stack: every input's gradient from one reverse wavefront."""

    __slots__ = ()

    def _apply_formulas(self, grads):
        keys = ("x", "h0", "c0") + _param_names(self.num_layers, self.has_bias)
        if grad_mode.STATE.grad_enabled:    # create_graph=True: differentiable gradients
            return tuple(None if edge is None else g for g, (edge, _) in zip(
                recompute_grads(self, _stack_ops, keys, grads), self.next_functions))
        self.saved("x")                     # the saved input: raises once freed
        nl, steps, batch = self.num_layers, self.steps, self.batch
        acts = self.arrays["acts"]
        hs, dt = acts.shape[3] // 4, acts.dtype
        ref = next(g for g in grads if g is not None)
        gout = grads[0]._data if grads[0] is not None else np.zeros((steps * batch, hs), dt)
        gh = np.zeros((nl, batch, hs), dt)
        gc = np.zeros((nl, batch, hs), dt)
        for lay in range(nl):
            for target, g in ((gh, grads[1 + lay]), (gc, grads[1 + nl + lay])):
                if g is not None:
                    target[lay] = g._data
        needed = {name for name, (edge, _) in zip(keys, self.next_functions)
                  if edge is not None}
        arrays = _backward(self.x_arr, self.layer_arrays, self.arrays, gout, gh, gc, steps,
                           needed)
        return tuple(None if edge is None or arrays.get(name) is None else
                     like(arrays[name], ref)
                     for name, (edge, _) in zip(keys, self.next_functions))


_NODES = {}


def _node(name, num_layers, has_bias):
    """The node class for this stack shape, printing as ``name`` (one of rnn's names)."""
    key = (name, num_layers, has_bias)
    if key not in _NODES:
        keys = ("x", "h0", "c0") + _param_names(num_layers, has_bias)
        base = node_class(name, {k: None for k in keys},
                          saves_also=keys + ("seq_shape", "arrays", "layer_arrays", "x_arr",
                                             "num_layers", "has_bias", "steps", "batch"),
                          num_outputs=1 + 2 * num_layers)
        _NODES[key] = type(name, (_StackNode, base), {"__slots__": (),
                                                      "__module__": base.__module__})
    return _NODES[key]


def lstm_stack(input, hx, cx, params, has_bias, num_layers, node_name="RnnLayerBackward0"):
    """``num_layers`` unidirectional LSTM layers without projection over a padded (T, B, I)
    ``input``, from initial states ``hx``/``cx`` (L, B, H); ``params`` lists each layer's
    ``w_ih, w_hh`` (then ``b_ih, b_hh`` when ``has_bias``). Returns the output (T, B, H) and
    each layer's final hidden and cell state: ``(out, h_0, ..., h_{L-1}, c_0, ..., c_{L-1})``.
    The graph node prints as ``node_name`` (one of ``rnn._NODE_NAMES``)."""
    if node_name not in _NODE_NAMES:
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
        keys = ("x", "h0", "c0") + _param_names(num_layers, has_bias)
        record(_node(node_name, num_layers, has_bias), (input, hx, cx, *params), results,
               **dict(zip(keys, (input, hx, cx, *params))), seq_shape=(steps, batch),
               arrays=saved, layer_arrays=layers, x_arr=x, num_layers=num_layers,
               has_bias=has_bias, steps=steps, batch=batch)
    return results


def run_stack(input, hx, cx, params, has_bias, num_layers, node_name="RnnLayerBackward0"):
    """``lstm_stack`` with the per-layer states stacked: ``(output, h_n, c_n)``."""
    res = lstm_stack(input, hx, cx, params, has_bias, num_layers, node_name)
    stack = FUNCTIONS["stack"]
    return res[0], stack(list(res[1:1 + num_layers]), 0), stack(list(res[1 + num_layers:]), 0)


register("_lstm_stack", lstm_stack, method=False, function_too=False, family="nn.rnn",
         nodes=())
