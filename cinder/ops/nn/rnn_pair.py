"""Both directions of one bidirectional LSTM layer over a padded sequence as one kernel
(the op ``_lstm_pair``).

The forward and the reverse direction of a layer are independent recurrences of the same
shape, so they can advance together: at loop step ``s`` the forward direction runs time ``s``
and the reverse direction time ``T - 1 - s``. Every per-step array is stored in loop-step
order and gate-major as ``(steps, 2, features, B)``, so one step of both directions is one
block: each NumPy call and one batched GEMM ``(2, 4H, H + I + 1) @ (2, H + I + 1, B)`` serve
both directions, which halves the per-step call overhead at no extra arithmetic. The
reverse direction's rows are turned back into time order once, after the loop.

The arithmetic per direction is ``rnn.py``'s padded-sequence LSTM loop (``lstm_loop``: gate
scale folded into the weights, each step's GEMM ``[W_hh | W_ih | b] @ [h; x_t; 1]``, each
gate a contiguous block); the backward runs the same pairing in reverse and then forms the
weight gradients as whole-sequence GEMMs per direction. Used by ``nn.LSTM`` for
bidirectional layers without projection on padded float32/float64 NumPy input; the output
stays two tensors (PyTorch's per-direction nodes, joined by ``cat``), so dropout between
layers and every printed node name are unchanged.
Under ``create_graph=True`` the gradients come from ``rnn._layer_ops`` in each direction.
"""

from types import SimpleNamespace

import numpy as np

from .._registry import needs_grad, node_class, record, register
from . import rnn as _rnn
from ._utils import ArrayBackward, like

__all__ = ["lstm_pair", "pair_fits"]

_INPUTS = ("x", "h0_f", "c0_f", "h0_r", "c0_r", "w_ih_f", "w_hh_f", "b_ih_f", "b_hh_f",
           "w_ih_r", "w_hh_r", "b_ih_r", "b_hh_r")


def pair_fits(input):
    """Whether a padded (T*B, I) layer input can run as one ``lstm_pair`` kernel."""
    data = input._data
    return (type(data) is np.ndarray and data.dtype.char in "fd"     # float32, float64
            and data.shape[0] > 0)


def _reverse_time(a, steps):
    """Rows of ``a`` (T*B, .) with the time order reversed (a copy)."""
    return np.ascontiguousarray(a.reshape(steps, -1, a.shape[-1])[::-1]).reshape(a.shape)


def _forward(x, h0, c0, wf, wr, steps):
    """Both directions; ``h0``/``c0`` are (2, B, H) (forward, reverse), ``wf``/``wr`` each
    direction's (w_ih, w_hh, b_ih, b_hh). Returns (out_f, out_r (T*B, H) in time order,
    h_n (2, B, H), c_n (2, B, H), saved arrays)."""
    dt = x.dtype
    batch, hs = h0.shape[1], h0.shape[2]
    n_in = x.shape[1]
    # per direction [W_hh | W_ih | b] @ [h; x_t; 1], the gate-major step's one GEMM
    w = np.stack([_rnn._fused_weights(np, *wd) for wd in (wf, wr)])
    z = np.empty((steps + 1, 2, hs + n_in + 1, batch), dtype=dt)    # slots in loop-step order
    xt = x.reshape(steps, batch, n_in).transpose(0, 2, 1)
    z[:steps, 0, hs:hs + n_in] = xt
    z[:steps, 1, hs:hs + n_in] = xt[::-1]             # loop step s runs time T - 1 - s
    z[:, :, -1] = 1
    z[0, :, :hs] = h0.transpose(0, 2, 1)
    cell = np.empty((steps + 1, 2, hs, batch), dtype=dt)
    cell[0] = c0.transpose(0, 2, 1)
    acts = np.empty((steps, 2, 4 * hs, batch), dtype=dt)
    tc = np.empty((steps, 2, hs, batch), dtype=dt)
    h, c = _rnn.lstm_loop(np, cell[0], w, z[:-1], acts, cell[1:], tc, z[1:, :, :hs],
                          range(steps))
    rows = np.ascontiguousarray(z[:, :, :hs].transpose(1, 0, 3, 2))   # (2, T + 1, B, H)
    out_f = rows[0, 1:].reshape(steps * batch, hs)
    out_r = np.ascontiguousarray(rows[1, :0:-1]).reshape(steps * batch, hs)
    saved = dict(acts=acts, tc=tc, cprev=cell[:-1], hprev=rows[:, :-1])
    return out_f, out_r, h.transpose(0, 2, 1).copy(), c.transpose(0, 2, 1).copy(), saved


def _backward(x, wf, wr, saved, gout_f, gout_r, gh, gc, steps, needed):
    """Gradients (a dict named as ``_INPUTS``) of those ``needed``, from the output grads
    (T*B, H) per direction and the final states' grads (2, B, H)."""
    acts = saved["acts"]
    _, _, gates, batch = acts.shape
    hs = gates // 4
    gout = np.empty((steps, 2, hs, batch), dtype=acts.dtype)   # loop-step order, gate-major
    gout[:, 0] = gout_f.reshape(steps, batch, hs).transpose(0, 2, 1)
    gout[:, 1] = gout_r.reshape(steps, batch, hs)[::-1].transpose(0, 2, 1)
    w_hh_t = np.stack([wf[1].T, wr[1].T])               # (2, H, 4H): dh = W_hh^T dpre
    dpre = np.empty_like(acts)
    dh, dc = _rnn.lstm_back_loop(np, _rnn._lstm_back_factors_gm(np, saved), dpre, gout,
                                 np.ascontiguousarray(gh.transpose(0, 2, 1)),
                                 np.ascontiguousarray(gc.transpose(0, 2, 1)), w_hh_t,
                                 range(steps - 1, -1, -1))
    dh, dc = dh.transpose(0, 2, 1), dc.transpose(0, 2, 1)
    grads = {"h0_f": dh[0].copy(), "h0_r": dh[1].copy(), "c0_f": dc[0].copy(),
             "c0_r": dc[1].copy()}
    d_rows = np.ascontiguousarray(dpre.transpose(1, 0, 3, 2))   # (2, T, B, 4H)
    x_rev = _reverse_time(x, steps) if ("w_ih_r" in needed) else None
    for d, (sfx, w, xd) in enumerate((("_f", wf, x), ("_r", wr, x_rev))):
        # this direction's rows in loop-step order (time order reversed for "_r")
        p = d_rows[d].reshape(steps * batch, gates)
        if "w_ih" + sfx in needed:
            grads["w_ih" + sfx] = p.T @ xd
        if "w_hh" + sfx in needed:
            grads["w_hh" + sfx] = p.T @ saved["hprev"][d].reshape(steps * batch, hs)
        if w[2] is not None and ("b_ih" + sfx in needed or "b_hh" + sfx in needed):
            grads["b_ih" + sfx] = _rnn._column_sum(p)
            grads["b_hh" + sfx] = grads["b_ih" + sfx].copy()
        if "x" in needed:
            dx = p @ w[0]
            grads["x"] = dx if d == 0 else grads["x"] + _reverse_time(dx, steps)
    return grads


def _pair_ops(s, x, h0_f, c0_f, h0_r, c0_r, *weights):
    """Both directions in differentiable ops (the double-backward path)."""
    outs = []
    for d in range(2):
        layer = SimpleNamespace(mode="LSTM", batch_sizes=s.batch_sizes, reverse=d == 1,
                                seq_shape=s.seq_shape)
        h0, c0 = (h0_f, c0_f) if d == 0 else (h0_r, c0_r)
        outs.append(_rnn._layer_ops(layer, x, h0, c0, *weights[4 * d:4 * d + 4], None))
    (out_f, h_f, c_f), (out_r, h_r, c_r) = outs
    return out_f, out_r, h_f, h_r, c_f, c_r


class _PairNode(ArrayBackward):
    """Backward of both directions of a layer from one pass through time."""

    __slots__ = ()
    _composite = staticmethod(lambda s, *inputs: _pair_ops(s, *inputs))

    @staticmethod
    def _input_names():
        return _INPUTS

    def _array_grads(self, grads, needed):
        x, wf, wr, steps = self.x_arr, self.wf, self.wr, self.steps
        hs, dt = wf[1].shape[1], x.dtype
        batch = x.shape[0] // steps

        def arr(g, shape):
            return np.zeros(shape, dt) if g is None else g._data.reshape(shape)
        gout_f, gout_r = (arr(g, (steps * batch, hs)) for g in grads[:2])
        gh = np.stack([arr(g, (batch, hs)) for g in grads[2:4]])
        gc = np.stack([arr(g, (batch, hs)) for g in grads[4:6]])
        arrays = _backward(x, wf, wr, self.arrays, gout_f, gout_r, gh, gc, steps, needed)
        if "x" in arrays:
            arrays["x"] = arrays["x"].reshape(self._input_meta[0][0])
        return arrays, next(g for g in grads if g is not None)


_Base = node_class("LstmPairBackward0", {k: None for k in _INPUTS},
                   saves_also=_INPUTS + ("seq_shape", "arrays", "batch_sizes", "x_arr", "wf",
                                         "wr", "steps"), num_outputs=6)
_NODES = {name: type(name, (_PairNode, _Base), {"__slots__": (), "__module__": _Base.__module__})
          for name in _rnn._NODE_NAMES}


def lstm_pair(input, h0_f, c0_f, h0_r, c0_r, weights_f, weights_r, steps, seq_shape=None,
              node_name="RnnLayerBackward0"):
    """Both directions of one bidirectional LSTM layer without projection over a padded
    sequence: ``input`` (T*B, I) in time-major rows, each direction's initial states (B, H)
    and weights ``(w_ih, w_hh, b_ih, b_hh)`` (biases may be None). Returns
    ``(out_f, out_r, h_f, h_r, c_f, c_r)``; the outputs come as (T, B, H) with ``seq_shape``
    (T, B). The graph node prints as ``node_name`` (one of ``rnn._NODE_NAMES``)."""
    arr = lambda t: None if t is None else t._data    # noqa: E731
    wf, wr = tuple(map(arr, weights_f)), tuple(map(arr, weights_r))
    h0 = np.stack([h0_f._data, h0_r._data])
    c0 = np.stack([c0_f._data, c0_r._data])
    out_f, out_r, h_n, c_n, saved = _forward(input._data, h0, c0, wf, wr, steps)
    if seq_shape is not None:
        out_f = out_f.reshape(tuple(seq_shape) + (out_f.shape[1],))
        out_r = out_r.reshape(tuple(seq_shape) + (out_r.shape[1],))
    results = tuple(like(a, input) for a in (out_f, out_r, h_n[0], h_n[1], c_n[0], c_n[1]))
    inputs = (input, h0_f, c0_f, h0_r, c0_r, *weights_f, *weights_r)
    if needs_grad(*inputs):
        record(_NODES[node_name], inputs, results, **dict(zip(_INPUTS, inputs)),
               seq_shape=seq_shape, arrays=saved,
               batch_sizes=np.full(steps, input.shape[0] // steps, dtype=np.int64),
               x_arr=input._data, wf=wf, wr=wr, steps=steps)
    return results


register("_lstm_pair", lstm_pair, method=False, function_too=False, family="nn.rnn",
         nodes=tuple(_NODES.values()))
