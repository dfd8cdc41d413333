"""The recurrent functions PyTorch publishes on ``torch``: the one-step cells
(``rnn_tanh_cell``, ``rnn_relu_cell``, ``lstm_cell``, ``gru_cell``) and the whole stacked,
optionally bidirectional networks (``rnn_tanh``, ``rnn_relu``, ``lstm``, ``gru``) over a padded
(T, B, I) sequence or packed rows with ``batch_sizes``. Every layer and direction runs as one
``_rnn_layer`` kernel (``rnn.py``), as in ``nn.RNN``/``nn.LSTM``/``nn.GRU``.

``params`` lists, per layer and direction, ``w_ih, w_hh`` then ``b_ih, b_hh`` when
``has_biases``, then the LSTM projection ``w_hr`` when there is one (PyTorch's flat order).
"""

import numpy as np

from .._layouts import pointwise_layout
from .._registry import FUNCTIONS, register
from .dropout import dropout
from .rnn import rnn_layer
from . import rnn_pair as _pair
from . import rnn_stack as _stack

# ----------------------------------------------------------------------------------------------
# Cells: one time step
# ----------------------------------------------------------------------------------------------


def _cell(mode, input, hx, cx, w_ih, w_hh, b_ih, b_hh):
    _, h, c = rnn_layer(input, hx, cx, w_ih, w_hh, b_ih, b_hh, None, mode, [input.shape[0]])
    return h, c


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``tanh(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``."""
    return _cell("RNN_TANH", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``relu(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``."""
    return _cell("RNN_RELU", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step from ``hx = (h, c)``; returns ``(h', c')`` (gates in i, f, g, o order)."""
    h, c = hx
    return _cell("LSTM", input, h, c, w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step: ``(1 - z) * n + z * hx`` (gates in r, z, n order)."""
    h = _cell("GRU", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]
    if not hx._data.flags.c_contiguous:
        # PyTorch's cell ends in pointwise ops led by ``hx``: the result takes hx's dim order
        h._data = pointwise_layout(h._data, [hx._data, h._data])
    return h


for _fn in (rnn_tanh_cell, rnn_relu_cell, lstm_cell, gru_cell):
    register(_fn.__name__, _fn, method=False, family="nn.rnn")

# ----------------------------------------------------------------------------------------------
# Whole networks
# ----------------------------------------------------------------------------------------------


def _layer_weights(params, count, has_biases):
    """Split the flat ``params`` into ``count`` groups of (w_ih, w_hh, b_ih, b_hh, w_hr)."""
    params = list(params)
    per = len(params) // count
    groups = []
    for k in range(count):
        group = params[k * per:(k + 1) * per]
        w_ih, w_hh = group[0], group[1]
        b_ih, b_hh = (group[2], group[3]) if has_biases else (None, None)
        w_hr = group[4 if has_biases else 2] if per in (3, 5) else None
        groups.append((w_ih, w_hh, b_ih, b_hh, w_hr))
    return groups


def _run(mode, input, batch_sizes, h0, c0, params, has_biases, num_layers, p, train,
         bidirectional, batch_first):
    """All layers and directions; returns ``(output, h_n, c_n)`` (``c_n`` None but for LSTM)."""
    padded = batch_sizes is None
    if padded:
        if batch_first:
            input = input.transpose(0, 1)
        steps, batch = input.shape[0], input.shape[1]
        x = input.reshape(steps * batch, input.shape[2])
        sizes = np.full(steps, batch, dtype=np.int64)
        seq_shape = (steps, batch)
    else:
        x, sizes, seq_shape = input, batch_sizes.numpy().astype(np.int64), None
    directions = 2 if bidirectional else 1
    per = len(params) // (num_layers * directions)
    if padded and mode == "LSTM" and _stack.stack_fits(input, num_layers, bidirectional,
                                                per in (3, 5), bool(p and train)):
        x, h_n, c_n = _stack.run_stack(input, h0, c0, list(params), has_biases, num_layers)
        return (x.transpose(0, 1) if batch_first else x), h_n, c_n
    weights = _layer_weights(params, num_layers * directions, has_biases)
    h_out, c_out = [], []
    for layer in range(num_layers):
        if padded and layer:
            x = x.reshape(-1, x.shape[-1])
        outs = []
        if (mode == "LSTM" and directions == 2 and padded and per not in (3, 5)
                and _pair.pair_fits(x)):        # both directions in one kernel (rnn_pair.py)
            k = 2 * layer
            res = _pair.lstm_pair(x, h0[k], c0[k], h0[k + 1], c0[k + 1], weights[k][:4],
                                  weights[k + 1][:4], steps, seq_shape)
            outs = list(res[:2])
            h_out.extend(res[2:4])
            c_out.extend(res[4:])
        for d in range(directions if not outs else 0):
            k = layer * directions + d
            w_ih, w_hh, b_ih, b_hh, w_hr = weights[k]
            out, h, c = rnn_layer(x, h0[k], None if c0 is None else c0[k], w_ih, w_hh, b_ih,
                                  b_hh, w_hr, mode, sizes, reverse=d == 1, seq_shape=seq_shape)
            outs.append(out)
            h_out.append(h)
            c_out.append(c)
        x = outs[0] if directions == 1 else FUNCTIONS["cat"](outs, -1)
        if p and train and layer < num_layers - 1:
            x = dropout(x, p, True)
    if padded and batch_first:
        x = x.transpose(0, 1)
    h_n = FUNCTIONS["stack"](h_out, 0)
    return x, h_n, FUNCTIONS["stack"](c_out, 0) if c0 is not None else None


def _split_packed(args):
    """``(input, batch_sizes, rest)``: the packed overload passes ``batch_sizes`` second, so
    its ``params`` list comes fourth (third in the padded form)."""
    if len(args) > 3 and isinstance(args[3], (list, tuple)):
        return args[0], args[1], args[2:]
    return args[0], None, args[1:]


def _network(mode):
    def fn(*args):
        input, batch_sizes, rest = _split_packed(args)
        hx, params, has_biases, num_layers, p, train, bidirectional = rest[:7]
        batch_first = rest[7] if batch_sizes is None else False
        h0, c0 = hx if mode == "LSTM" else (hx, None)
        out, h_n, c_n = _run(mode, input, batch_sizes, h0, c0, params, has_biases, num_layers,
                             p, train, bidirectional, batch_first)
        return (out, h_n, c_n) if mode == "LSTM" else (out, h_n)
    return fn


def lstm(*args):
    """``lstm(input, (h0, c0), params, has_biases, num_layers, dropout, train, bidirectional,
    batch_first)`` (or ``lstm(data, batch_sizes, hx, params, ...)`` for packed rows):
    returns ``(output, h_n, c_n)``."""
    return _lstm(*args)


def gru(*args):
    """``gru(input, h0, params, has_biases, num_layers, dropout, train, bidirectional,
    batch_first)`` (or the packed form): returns ``(output, h_n)``."""
    return _gru(*args)


def rnn_tanh(*args):
    """Elman RNN with tanh; arguments as :func:`gru`."""
    return _rnn_tanh(*args)


def rnn_relu(*args):
    """Elman RNN with ReLU; arguments as :func:`gru`."""
    return _rnn_relu(*args)


_lstm, _gru = _network("LSTM"), _network("GRU")
_rnn_tanh, _rnn_relu = _network("RNN_TANH"), _network("RNN_RELU")
for _fn in (lstm, gru, rnn_tanh, rnn_relu):
    register(_fn.__name__, _fn, method=False, family="nn.rnn")
