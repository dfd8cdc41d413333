"""Recurrent kernels: one layer, one direction of an Elman RNN (tanh/relu), LSTM or GRU.

A sequence is given in PyTorch's packed layout: ``input`` is (N, I) with the rows of time
step t at ``offsets[t] : offsets[t] + batch_sizes[t]`` (a padded (T, B, I) sequence is the
special case where every batch size is B). At step t only the first ``batch_sizes[t]`` rows
of the state advance; the rest keep their value, which gives each sequence its own final
state in both directions.

Speed: the input projection ``x @ W_ih.T + b`` of the whole sequence is one GEMM hoisted out
of the time loop; each step then needs one GEMM ``h @ W_hh.T`` for all gates at once. The
backward pass runs through time once, computing every gate gradient, and then finds the
weight gradients as whole-sequence GEMMs. The backward is an explicit kernel (not cinder
ops); under ``create_graph=True`` the gradients come instead from the same layer written in
differentiable cinder ops (``_layer_ops``), so higher-order gradients work.

An LSTM on a padded sequence takes tighter loops (``lstm_loop`` / ``lstm_back_loop``: the gate
scale folded into the weights, one GEMM a step, no per-step allocations) in the gate-major
layout: per-step arrays are (features, batch), so each gate is a contiguous block. One
direction runs as ``_lstm_forward_uniform`` (per layer, and for ``rnn_stack.py``, all layers
as one node); ``rnn_pair.py`` runs both directions of a layer together through the same
loops.
"""

import numpy as np

from .._prep import xp_of
from .._registry import FUNCTIONS, needs_grad, node_class, record, register
from ._utils import ArrayBackward, like

__all__ = ["rnn_layer"]

GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _sigmoid(xp, a):
    # sigmoid(a) = (tanh(a / 2) + 1) / 2: stable for any |a| and three array passes.
    t = xp.tanh(a * 0.5)
    t += 1
    t *= 0.5
    return t


_AFFINE = {}


def _lstm_gate_affine(xp, hs, dtype):
    """Per-column factors turning the LSTM gates' tanh into sigmoids (i, f, o) and plain tanh
    (g): ``act = tanh(pre * k) * k + shift`` with k = 1/2 (exact in binary floating point).
    NumPy's are built once per size and dtype and only read (CuPy's live on one device, so
    they are built per call)."""
    key = (hs, np.dtype(dtype).name)
    if xp is np and key in _AFFINE:
        return _AFFINE[key]
    k = xp.full(4 * hs, 0.5, dtype=dtype)
    k[2 * hs:3 * hs] = 1
    shift = xp.where(k == 1, 0, 0.5).astype(dtype)
    if xp is np:
        _AFFINE[key] = (k, shift)
    return k, shift


def _steps(batch_sizes, reverse):
    """(row offset, batch size) of each time step, in processing order."""
    offsets = np.concatenate([[0], np.cumsum(batch_sizes)[:-1]]).astype(np.int64)
    order = range(len(batch_sizes) - 1, -1, -1) if reverse else range(len(batch_sizes))
    return [(int(offsets[t]), int(batch_sizes[t])) for t in order]


# ----------------------------------------------------------------------------------------------
# Forward: one step per mode, saving what the backward needs
# ----------------------------------------------------------------------------------------------

def _forward(xp, mode, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, reverse):
    """Run the layer; returns (output (N, Hout), h_n, c_n, saved arrays for backward)."""
    if mode == "LSTM" and w_hr is None and _uniform(batch_sizes):
        return _lstm_forward_uniform(xp, x, h0, c0, w_ih, w_hh, b_ih, b_hh, len(batch_sizes),
                                     reverse)
    xw = x @ w_ih.T                         # the hoisted input projection
    if b_ih is not None:                    # GRU keeps b_hh inside the reset gate's product
        xw += b_ih if mode == "GRU" else b_ih + b_hh
    n_rows = x.shape[0]
    hout = h0.shape[1]
    out = xp.empty((n_rows, hout), dtype=x.dtype)
    h = h0.copy()
    c = None if c0 is None else c0.copy()
    hprev = xp.empty((n_rows, hout), dtype=x.dtype)   # state before each step, row-aligned
    acts = xp.empty_like(xw)                # activated gates
    extra = {}
    if mode == "LSTM":
        hsize = c0.shape[1]
        extra["cprev"] = xp.empty((n_rows, hsize), dtype=x.dtype)
        extra["cnew"] = xp.empty((n_rows, hsize), dtype=x.dtype)
        extra["tc"] = xp.empty((n_rows, hsize), dtype=x.dtype)
        affine = _lstm_gate_affine(xp, hsize, x.dtype)
        if w_hr is not None:
            extra["hh"] = xp.empty((n_rows, hsize), dtype=x.dtype)
    elif mode == "GRU":
        extra["hwn"] = xp.empty((n_rows, h0.shape[1]), dtype=x.dtype)
    for off, n in _steps(batch_sizes, reverse):
        rows = slice(off, off + n)
        hp = h[:n]
        hprev[rows] = hp
        g = hp @ w_hh.T
        if mode == "GRU":
            hnew = _gru_step(xp, xw[rows], g, b_hh, hp, acts[rows], extra["hwn"][rows])
        elif mode == "LSTM":
            extra["cprev"][rows] = c[:n]
            g += xw[rows]
            cnew = extra["cnew"][rows]
            hnew = _lstm_step(xp, g, c[:n], acts[rows], cnew, extra["tc"][rows], affine)
            c[:n] = cnew
            if w_hr is not None:
                extra["hh"][rows] = hnew
                hnew = hnew @ w_hr.T
        else:
            g += xw[rows]
            hnew = xp.tanh(g) if mode == "RNN_TANH" else xp.maximum(g, 0)
            acts[rows] = hnew
        h[:n] = hnew
        out[rows] = hnew
    return out, h, c, dict(hprev=hprev, acts=acts, **extra)


def _lstm_step(xp, g, c, acts, cnew, tc, affine, hout=None):
    """Gates i, f, g, o from pre-activations ``g`` (n, 4H), written to ``acts``; the new cell
    goes to ``cnew`` and its tanh to ``tc``; returns the new hidden state (written to
    ``hout`` when given)."""
    k, shift = affine
    hs = c.shape[1]
    g *= k
    xp.tanh(g, out=g)
    xp.multiply(g, k, out=acts)
    acts += shift
    i, f, gg, o = acts[:, :hs], acts[:, hs:2 * hs], acts[:, 2 * hs:3 * hs], acts[:, 3 * hs:]
    xp.multiply(f, c, out=cnew)
    cnew += i * gg
    xp.tanh(cnew, out=tc)
    return xp.multiply(o, tc, out=hout)


def _uniform(batch_sizes):
    """Whether every time step has the whole batch (a padded (T, B, I) sequence)."""
    return len(batch_sizes) > 0 and batch_sizes[-1] > 0 and batch_sizes[0] == batch_sizes[-1]


def _gate_major(xp, w, k=None):
    """``w`` (4H, ...) or (4H,) with its gate blocks moved from PyTorch's order (i, f, g, o)
    to the gate-major forward's order (o, i, f, g), times ``k`` on the first three blocks
    when given: the three sigmoid gates then form one block, which two calls activate
    (the backward keeps PyTorch's order, see ``_lstm_backward_uniform``)."""
    hs = w.shape[0] // 4
    out = xp.concatenate([w[3 * hs:], w[:3 * hs]])
    if k is not None:
        out[:3 * hs] *= k
    return out


def _fused_weights(xp, w_ih, w_hh, b_ih, b_hh):
    """``[W_hh | W_ih | b]`` (4H, H + I + 1) for the gate-major step's one GEMM: gate-major
    order, the sigmoid gates' rows scaled by 1/2, ``b = b_ih + b_hh`` (zeros without bias)."""
    hs, n_in = w_hh.shape[1], w_ih.shape[1]
    w = xp.empty((4 * hs, hs + n_in + 1), dtype=w_hh.dtype)
    w[:, :hs] = _gate_major(xp, w_hh, 0.5)
    w[:, hs:hs + n_in] = _gate_major(xp, w_ih, 0.5)
    if b_ih is None:
        w[:, -1] = 0
    else:
        w[:, -1] = _gate_major(xp, b_ih + b_hh, 0.5)
    return w


def _lstm_forward_uniform(xp, x, h0, c0, w_ih, w_hh, b_ih, b_hh, steps, reverse):
    """``_forward`` for an LSTM without projection on a padded sequence, in the gate-major
    layout: every per-step array is (features, B) (``h`` (H, B), gates (4H, B)), so each gate
    of a step is one contiguous (H, B) block and the step's products run on contiguous
    memory (a product of strided column blocks of a (B, 4H) row costs NumPy one inner loop
    per row, several times slower at these sizes). The gates are kept in the order
    (o, i, f, g) (``_gate_major``), the sigmoid gates' scale 1/2 folded into the weights and
    bias (exact in binary floating point).

    Each step is one GEMM ``[W_hh | W_ih | b] @ [h; x_t; 1]``: a buffer ``z`` (T + 1, H + I + 1,
    B) holds per slot the state before a step, that step's input and a row of ones, and each
    step writes its new state straight into the next slot's state rows (this measured faster
    than a hoisted input projection, which needs a batched GEMM and an add per step in this
    layout). Cell states live in a (T + 1, H, B) buffer, the initial state in the extra slot,
    so the state before each step is a view. Returns the output and final states in
    PyTorch's (rows, features) layout and the saved arrays (gate activations (T, 4H, B), cell
    states, tanh of the cells, and the hidden state before each step as (T * B, H) rows for
    the weight gradient)."""
    batch, hs = c0.shape
    dt = x.dtype
    n_in = x.shape[1]
    w = _fused_weights(xp, w_ih, w_hh, b_ih, b_hh)
    # slot t + 1 holds time t's output going forwards (slot t backwards), the initial state
    # the remaining slot; the slots before each step ("prev") hold the inputs
    first, outs, prev = (steps, slice(0, steps), slice(1, None)) if reverse else (
        0, slice(1, None), slice(0, steps))
    z = xp.empty((steps + 1, hs + n_in + 1, batch), dtype=dt)
    z[prev, hs:hs + n_in] = x.reshape(steps, batch, n_in).transpose(0, 2, 1)
    z[:, -1] = 1
    z[first, :hs] = h0.T
    cbuf = xp.empty((steps + 1, hs, batch), dtype=dt)
    cbuf[first] = c0.T
    acts = xp.empty((steps, 4 * hs, batch), dtype=dt)
    tc = xp.empty((steps, hs, batch), dtype=dt)
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    h, c = lstm_loop(xp, cbuf[first], w, z[prev], acts, cbuf[outs], tc, z[outs, :hs], order)
    rows = xp.ascontiguousarray(z[:, :hs].transpose(0, 2, 1))    # (T + 1, B, H)
    out = rows[outs].reshape(steps * batch, hs)
    saved = dict(layout="gate-major", acts=acts, tc=tc, cprev=cbuf[prev],
                 hprev=rows[prev].reshape(steps * batch, hs))
    return out, h.T.copy(), c.T.copy(), saved


def lstm_loop(xp, c, w, z, acts, cell, tc, out, order):
    """The padded LSTM time loop, gate-major (see ``_lstm_forward_uniform``): at each step
    ``t`` of ``order`` the gates ``acts[t]`` (4H, B), order (o, i, f, g), from one GEMM
    ``w @ z[t]`` (``w`` the scaled ``[W_hh | W_ih | b]``, ``z[t]`` the stacked state, input
    and ones), the new cell ``cell[t]`` from the previous one (``c`` before the first step),
    its tanh ``tc[t]`` and the new hidden state ``out[t]`` (H, B), which must be the state
    rows of the ``z`` slot of the next step. A leading dim after the step one (both
    directions of ``rnn_pair.py``) runs as batched GEMMs. Returns the final (h, c)."""
    hs = cell.shape[-2]
    go, gi, gf, gg = (acts[..., j * hs:(j + 1) * hs, :] for j in range(4))
    sig = acts[..., :3 * hs, :]             # the sigmoid gates o, i, f
    ig = xp.empty(cell.shape[1:], dtype=acts.dtype)
    # the ufuncs looked up once and given their outputs positionally (NumPy and CuPy take
    # both): ~0.05 us less per call, at seven calls a step
    tanh, multiply = xp.tanh, xp.multiply
    h = None
    for t in order:
        a = acts[t]
        xp.matmul(w, z[t], out=a)
        tanh(a, a)                          # sigmoid(p) = tanh(p / 2) / 2 + 1 / 2
        s = sig[t]
        s *= 0.5
        s += 0.5
        c_t = cell[t]
        multiply(gf[t], c, c_t)
        c_t += multiply(gi[t], gg[t], ig)
        tanh(c_t, tc[t])
        h = multiply(go[t], tc[t], out[t])
        c = c_t
    return h, c


def lstm_back_loop(xp, factors, dpre, gout, dh, dc, w_hh_t, order):
    """The padded LSTM backward loop (the reverse of ``lstm_loop``), gate-major: at each
    step ``t`` of ``order`` fills the gate gradients ``dpre[t]`` (4H, B), in PyTorch's gate
    order (i, f, g, o), from the output gradient ``gout[t]`` (H, B), the per-step
    ``factors`` (A, B, K, f; see ``_lstm_back_factors_gm``) and the running state gradients
    (H, B), which it updates in place (``dh = W_hh^T dpre``, ``w_hh_t`` (H, 4H)); returns
    them (dh, dc). Leading dims after the step one as in ``lstm_loop``."""
    A, B, K, f = factors
    dht, dct = xp.empty_like(dh), xp.empty_like(dc)      # per-step buffers, reused
    hs = dh.shape[-2]
    dct3 = dct[..., None, :, :]             # broadcasts over the three gates i, f, g
    dpre_ifg = dpre[..., :3 * hs, :].reshape(dpre.shape[:-2] + (3, hs, dpre.shape[-1]))
    dpre_o = dpre[..., 3 * hs:, :]
    add, multiply = xp.add, xp.multiply     # positional outputs, as in ``lstm_loop``
    for t in order:
        add(dh, gout[t], dht)
        multiply(dht, K[t], dct)
        dct += dc
        multiply(dct3, A[t], dpre_ifg[t])
        multiply(dht, B[t], dpre_o[t])
        multiply(dct, f[t], dc)
        xp.matmul(w_hh_t, dpre[t], out=dh)
    return dh, dc


def _gru_step(xp, xw, hw, b_hh, hp, acts, hwn_out):
    """Gates r, z, n of PyTorch's GRU; the new gate sees ``r * (W_hn h + b_hn)``."""
    hs = hp.shape[1]
    if b_hh is not None:
        hw += b_hh
    acts[:, :2 * hs] = _sigmoid(xp, xw[:, :2 * hs] + hw[:, :2 * hs])
    r, z = acts[:, :hs], acts[:, hs:2 * hs]
    hwn_out[...] = hw[:, 2 * hs:]
    acts[:, 2 * hs:] = xp.tanh(xw[:, 2 * hs:] + r * hw[:, 2 * hs:])
    nn_ = acts[:, 2 * hs:]
    return nn_ + z * (hp - nn_)


# ----------------------------------------------------------------------------------------------
# Backward through time
# ----------------------------------------------------------------------------------------------

def _backward(xp, s, gout, gh, gc, needed=frozenset(("x", "w_ih", "w_hh", "b_ih", "b_hh"))):
    """Gradients of (x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr) from the output grads; of the
    whole-sequence products only those ``needed`` (the input of a first layer usually needs
    none)."""
    mode, sv = s.mode, s.arrays
    w_hh, w_hr = s.w_hh_arr, s.w_hr_arr
    if sv.get("layout") == "gate-major":
        return _lstm_backward_uniform(xp, s, gout, gh, gc, needed)
    acts, hprev = sv["acts"], sv["hprev"]
    n_rows = acts.shape[0]
    # gradients of the input-side gate pre-activations and of the hidden-side ones (the
    # steps together write every row)
    dpre = xp.empty_like(acts)
    dhw = xp.empty_like(acts) if mode == "GRU" else dpre
    dh = gh.copy()
    dc = None if gc is None else gc.copy()
    dhh_all = xp.empty((n_rows, w_hr.shape[0]), acts.dtype) if w_hr is not None else None
    if mode == "LSTM":
        lstm = _lstm_back_factors(xp, sv)
        dpre4 = dpre.reshape(n_rows, 4, acts.shape[1] // 4)
    for off, n in reversed(_steps(s.batch_sizes, s.reverse)):
        rows = slice(off, off + n)
        dht = dh[:n] + gout[rows]
        a = acts[rows]
        if mode == "LSTM":
            if w_hr is not None:
                dhh_all[rows] = dht
                dht = dht @ w_hr
            A, B, K, f = (t[rows] for t in lstm)
            dct = dc[:n] + dht * K
            xp.multiply(dct[:, None, :], A, out=dpre4[rows, :3])
            xp.multiply(dht, B, out=dpre4[rows, 3])
            dc[:n] = dct * f
        elif mode == "GRU":
            dh_direct = _gru_back(xp, a, hprev[rows], sv["hwn"][rows], dht, dpre[rows],
                                  dhw[rows])
        elif mode == "RNN_TANH":
            dpre[rows] = dht * (1 - a * a)
        else:
            dpre[rows] = dht * (a > 0)
        dh_new = dhw[rows] @ w_hh
        if mode == "GRU":
            dh_new += dh_direct
        dh[:n] = dh_new
    return _weight_grads(s, dpre, dhw, hprev, dh, dc, dhh_all, needed)


def _weight_grads(s, dpre, dhw, hprev, dh, dc, dhh_all, needed):
    """The gradient dict from the gate gradients of the whole sequence (whole-sequence GEMMs
    and column sums, each only when ``needed``) and the initial states' gradients."""
    grads = {"h0": dh, "c0": dc}
    if "x" in needed:
        grads["x"] = dpre @ s.w_ih_arr
    if "w_ih" in needed:
        grads["w_ih"] = dpre.T @ s.x_arr
    if "w_hh" in needed:
        grads["w_hh"] = dhw.T @ hprev
    if s.has_bias and ("b_ih" in needed or "b_hh" in needed):
        # when the two sides' gate gradients are one array (all but GRU), one column sum
        # serves both biases
        grads["b_ih"] = _column_sum(dpre)
        grads["b_hh"] = grads["b_ih"].copy() if dhw is dpre else _column_sum(dhw)
    if dhh_all is not None:
        grads["w_hr"] = dhh_all.T @ s.arrays["hh"]
    return grads


def _column_sum(a):
    """``a.sum(0)`` of a (rows, cols) array; for float32/float64 as a GEMV with a ones
    vector, which BLAS runs faster than NumPy's reduction over the rows."""
    if a.dtype.char not in "fd":              # float32, float64
        return a.sum(0)
    ones = a[:, 0].copy()                   # a vector of the array's kind (NumPy or CuPy)
    ones.fill(1)
    return ones @ a


def _lstm_backward_uniform(xp, s, gout, gh, gc, needed):
    """The backward of ``_lstm_forward_uniform`` (gate-major layout): one pass back through
    time fills the gate gradients (T, 4H, B) in PyTorch's gate order (i, f, g, o: the three
    gates the cell gradient multiplies form one block, o another), which one transposing
    copy turns into (T * B, 4H) rows for the whole-sequence weight GEMMs."""
    sv = s.arrays
    acts = sv["acts"]
    steps, gates, batch = acts.shape
    hs = gates // 4
    gout_gm = xp.ascontiguousarray(gout.reshape(steps, batch, hs).transpose(0, 2, 1))
    dpre = xp.empty_like(acts)
    order = range(steps) if s.reverse else range(steps - 1, -1, -1)
    w_hh_t = xp.ascontiguousarray(s.w_hh_arr.T)         # dh = W_hh^T dpre
    dh, dc = lstm_back_loop(xp, _lstm_back_factors_gm(xp, sv), dpre, gout_gm,
                            xp.ascontiguousarray(gh.T), xp.ascontiguousarray(gc.T), w_hh_t,
                            order)
    d_rows = xp.ascontiguousarray(dpre.transpose(0, 2, 1)).reshape(steps * batch, gates)
    return _weight_grads(s, d_rows, d_rows, sv["hprev"], dh.T.copy(), dc.T.copy(), None,
                         needed)


def _lstm_back_factors_gm(xp, sv):
    """``_lstm_back_factors`` for the gate-major layout: from gates (..., 4H, B), the factors
    A (..., 3, H, B) of the gates i, f, g and (..., H, B) factors B, K and the forget gate f
    (the leading dims are the steps, and the directions for ``rnn_pair.py``)."""
    a, cprev, tc = sv["acts"], sv["cprev"], sv["tc"]
    gates, batch = a.shape[-2:]
    hs = gates // 4
    a4 = a.reshape(a.shape[:-2] + (4, hs, batch))
    o, i, f, gg = (a4[..., j, :, :] for j in range(4))
    d = xp.subtract(1, a4[..., :3, :, :])               # sigmoid' = s (1 - s): o, i, f
    d *= a4[..., :3, :, :]
    A = xp.empty(a.shape[:-2] + (3, hs, batch), dtype=a.dtype)
    xp.multiply(d[..., 1, :, :], gg, out=A[..., 0, :, :])
    xp.multiply(d[..., 2, :, :], cprev, out=A[..., 1, :, :])
    tanh_g = A[..., 2, :, :]                            # tanh' = 1 - g^2 for g
    xp.multiply(gg, gg, out=tanh_g)
    xp.subtract(1, tanh_g, out=tanh_g)
    tanh_g *= i
    B = d[..., 0, :, :]
    B *= tc
    K = xp.multiply(tc, tc)
    xp.subtract(1, K, out=K)
    K *= o
    return A, B, K, f


def _lstm_back_factors(xp, sv):
    """Per-row factors of the LSTM step's backward, computed for the whole sequence at once
    so each step only combines them with the incoming gradients:
    ``dpre[i, f, g] = dc_t * A``, ``dpre[o] = dh * B``, ``dc_t = dc + dh * K``. Written into
    their arrays in place (no temporaries: these are whole-sequence passes)."""
    a, cprev, tc = sv["acts"], sv["cprev"], sv["tc"]
    n, hs = tc.shape
    a4 = a.reshape(n, 4, hs)
    i, f, gg, o = a4[:, 0], a4[:, 1], a4[:, 2], a4[:, 3]
    A = xp.empty((n, 3, hs), dtype=a.dtype)
    sig = A[:, :2]                                     # sigmoid' = s (1 - s) for i and f
    xp.subtract(1, a4[:, :2], out=sig)
    sig *= a4[:, :2]
    A[:, 0] *= gg
    A[:, 1] *= cprev
    tanh_g = A[:, 2]                                   # tanh' = 1 - g^2 for g
    xp.multiply(gg, gg, out=tanh_g)
    xp.subtract(1, tanh_g, out=tanh_g)
    tanh_g *= i
    B = xp.subtract(1, o)
    B *= o
    B *= tc
    K = xp.multiply(tc, tc)
    xp.subtract(1, K, out=K)
    K *= o
    return A, B, K, f


def _gru_back(xp, a, hp, hwn, dht, dpre, dhw):
    """One GRU step backwards; fills both gate gradients, returns the direct dh_prev term."""
    hs = hp.shape[1]
    r, z, nn_ = a[:, :hs], a[:, hs:2 * hs], a[:, 2 * hs:]
    dn = dht * (1 - z) * (1 - nn_ * nn_)
    dz = dht * (hp - nn_) * z * (1 - z)
    dr = dn * hwn * r * (1 - r)
    dpre[:, :hs] = dr
    dpre[:, hs:2 * hs] = dz
    dpre[:, 2 * hs:] = dn
    dhw[:, :hs] = dr
    dhw[:, hs:2 * hs] = dz
    dhw[:, 2 * hs:] = dn * r
    return dht * z


_INPUTS = ("x", "h0", "c0", "w_ih", "w_hh", "b_ih", "b_hh", "w_hr")


def _step_ops(mode, xr, hp, cp, w_hh, b_hh, w_hr):
    """One time step in differentiable ops: (new hidden state, new cell state or None)."""
    g = hp.matmul(w_hh.t())
    if mode == "GRU":
        hs = hp.shape[1]
        if b_hh is not None:
            g = g + b_hh
        r = (xr[:, :hs] + g[:, :hs]).sigmoid()
        z = (xr[:, hs:2 * hs] + g[:, hs:2 * hs]).sigmoid()
        new = (xr[:, 2 * hs:] + r * g[:, 2 * hs:]).tanh()
        return new + z * (hp - new), None
    g = g + xr
    if mode == "LSTM":
        i, f, gg, o = g.chunk(4, 1)
        c = f.sigmoid() * cp + i.sigmoid() * gg.tanh()
        h = o.sigmoid() * c.tanh()
        return (h if w_hr is None else h.matmul(w_hr.t())), c
    return (g.tanh() if mode == "RNN_TANH" else g.relu()), None


def _layer_ops(s, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr):
    """The layer's forward in differentiable ops (the double-backward path)."""
    xw = x.matmul(w_ih.t())
    if b_ih is not None:
        xw = xw + b_ih
        if s.mode != "GRU":
            xw = xw + b_hh
    h, c, rows = h0, c0, {}
    for off, n in _steps(s.batch_sizes, s.reverse):
        hn, cn = _step_ops(s.mode, xw[off:off + n], h[:n], None if c is None else c[:n],
                           w_hh, b_hh, w_hr)
        rows[off] = hn
        h = _rejoin(hn, h, n)
        if cn is not None:
            c = _rejoin(cn, c, n)
    out = FUNCTIONS["cat"]([rows[k] for k in sorted(rows)], 0)
    if s.seq_shape is not None:
        out = out.reshape(tuple(s.seq_shape) + (out.shape[1],))
    return out, h, c


def _rejoin(new, old, n):
    """The state after a step that advanced only its first ``n`` rows."""
    if n == old.shape[0]:
        return new
    return FUNCTIONS["cat"]([new, old[n:]], 0)

_Base = node_class("RnnLayerBackward0", {k: None for k in _INPUTS},
                   saves_also=_INPUTS + ("seq_shape", "mode", "arrays", "batch_sizes",
                                         "reverse", "has_bias", "x_arr", "w_ih_arr",
                                         "w_hh_arr", "w_hr_arr"), num_outputs=3)


class RnnLayerNode(ArrayBackward, _Base):
    """Backward of one recurrent layer: every input's gradient from one pass through time."""

    __slots__ = ()
    _composite = staticmethod(lambda s, *inputs: _layer_ops(s, *inputs))

    @staticmethod
    def _input_names():
        return _INPUTS

    def _array_grads(self, grads, needed):
        out_g, h_g, c_g = grads
        s = self
        ref = out_g if out_g is not None else (h_g if h_g is not None else c_g)
        dt, n_rows = s.w_hh_arr.dtype, s.x_arr.shape[0]
        xp = xp_of(ref)
        meta = self._input_meta
        if out_g is not None:
            gout = out_g._data.reshape(n_rows, out_g._data.shape[-1])
        else:
            gout = xp.zeros((n_rows, meta[1][0][1]), dt)
        gh = h_g._data if h_g is not None else xp.zeros(meta[1][0], dt)
        gc = None
        if s.mode == "LSTM":
            gc = c_g._data if c_g is not None else xp.zeros(meta[2][0], dt)
        return _backward(xp, s, gout, gh, gc, needed), ref


# The output's node prints as PyTorch's CPU kernels name it: the oneDNN LSTM layer for float32
# LSTMs, else the stack of per-step outputs of PyTorch's reference loop.
_NODE_NAMES = ("RnnLayerBackward0", "MkldnnRnnLayerBackward0", "StackBackward0")
_NODES = {name: type(name, (RnnLayerNode,),
                     {"__slots__": (), "__module__": RnnLayerNode.__module__})
          for name in _NODE_NAMES}


def rnn_layer(input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, mode, batch_sizes, reverse=False,
              seq_shape=None, node_name="RnnLayerBackward0"):
    """One direction of one layer of ``mode`` ("RNN_TANH", "RNN_RELU", "LSTM", "GRU").

    ``input`` (N, I) holds the sequence in packed row order described by ``batch_sizes``
    (ints, non-increasing); ``hx`` (B, Hout) and, for LSTM, ``cx`` (B, H) are the initial
    states. Returns ``(output (N, Hout), h_n, c_n)`` (``c_n`` is None except for LSTM); with
    ``seq_shape`` (T, B) the output comes as (T, B, Hout). ``node_name`` picks the name the
    graph node prints (one of ``_NODE_NAMES``).
    """
    xp = xp_of(input)
    arr = lambda t: None if t is None else t._data    # noqa: E731
    bs = np.asarray(batch_sizes, dtype=np.int64)
    out, h, c, saved = _forward(xp, mode, input._data, hx._data, arr(cx), w_ih._data,
                                w_hh._data, arr(b_ih), arr(b_hh), arr(w_hr), bs, reverse)
    if seq_shape is not None:
        out = out.reshape(tuple(seq_shape) + (out.shape[1],))
    results = (like(out, input), like(h, input), None if c is None else like(c, input))
    if needs_grad(input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr):
        record(_NODES[node_name], (input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr), results,
               x=input, h0=hx, c0=cx, w_ih=w_ih, w_hh=w_hh, b_ih=b_ih, b_hh=b_hh, w_hr=w_hr,
               seq_shape=seq_shape, mode=mode, arrays=saved, batch_sizes=bs, reverse=reverse,
               has_bias=b_ih is not None, x_arr=input._data, w_ih_arr=w_ih._data,
               w_hh_arr=w_hh._data, w_hr_arr=arr(w_hr))
    return results


register("_rnn_layer", rnn_layer, method=False, function_too=False, family="nn.rnn",
         nodes=tuple(_NODES.values()))
