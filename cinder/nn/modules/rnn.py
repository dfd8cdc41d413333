"""Recurrent layers: RNN, LSTM, GRU (stacked, bidirectional, packed input) and their cells.

Each layer and direction runs as one ``_rnn_layer`` kernel (``cinder/ops/nn/rnn.py``) over
the sequence in packed row order, so padded and packed inputs share one code path, and the
dropout between layers sees the same elements in the same order as PyTorch's (same RNG draws).
"""

import math
import numbers
import warnings

import numpy as np

from ..._runtime import warn_once
from ...autograd import grad_mode
from ...backends import mkldnn as _mkldnn
from ...amp.autocast_mode import STATE, _cast
from ...ops import FUNCTIONS as _OPS

from .. import functional as F
from .. import init
from ...ops.nn.rnn import rnn_layer
from ...ops.nn import rnn_pair as _pair
from ...ops.nn import rnn_stack as _stack
from ..parameter import Parameter
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


_PACKED = []


def _packed_sequence_class():
    # Imported on first use: importing nn.utils while nn.modules loads would let the star
    # import in nn/__init__ bind ``nn.utils`` to ``nn.modules.utils``.
    if not _PACKED:
        from ..utils.rnn import PackedSequence
        _PACKED.append(PackedSequence)
    return _PACKED[0]


def _apply_permutation(tensor, permutation, dim=1):
    return tensor.index_select(dim, permutation)


def _check_sizes(input_size, hidden_size, num_layers, proj_size, dropout, bias, batch_first):
    """PyTorch's constructor checks, in its order."""
    if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1
            or isinstance(dropout, bool)):
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                      "non-zero dropout expects num_layers greater than 1, but got "
                      f"dropout={dropout} and num_layers={num_layers}", stacklevel=3)
    for name, value in (("bias", bias), ("batch_first", batch_first)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
    for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(value, int):
            raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
        if value <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable "
                         "projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNNBase(Module):
    """Shared machinery of :class:`RNN`, :class:`LSTM` and :class:`GRU`: the per-layer,
    per-direction weights (``weight_ih_l{k}[_reverse]``...), their initialisation and the
    forward pass over padded or packed sequences."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        _check_sizes(input_size, hidden_size, num_layers, proj_size, dropout, bias,
                     batch_first)
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        factory = {"device": device, "dtype": dtype}
        directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(directions):
                in_size = input_size if layer == 0 else real_hidden * directions
                shapes = [("weight_ih_l{}{}", (gate_size, in_size)),
                          ("weight_hh_l{}{}", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr_l{}{}", (proj_size, hidden_size)))
                suffix = "_reverse" if direction == 1 else ""
                names = []
                for pattern, shape in shapes:
                    name = pattern.format(layer, suffix)
                    setattr(self, name, Parameter(_OPS["empty"](shape, **factory)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters grouped per layer and direction."""
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        """Kept for API compatibility: cinder's weights need no flat cuDNN buffer."""

    def __getstate__(self):
        # PyTorch keeps ``_flat_weights`` (the parameters in flat order) in the instance dict
        # and its __setstate__ reads it: a whole model pickled here must carry it to load there.
        state = super().__getstate__() if hasattr(super(), "__getstate__") else self.__dict__
        return dict(state, _flat_weights=self._flat_weights)

    def __setstate__(self, state):
        state = dict(state)
        state.pop("_flat_weights", None)        # a property here, derived from the names
        state.pop("_flat_weight_refs", None)
        if "all_weights" in state:              # pickles from PyTorch before 1.0
            state["_all_weights"] = state.pop("all_weights")
        state.setdefault("proj_size", 0)        # LSTMs pickled before PyTorch 1.8
        super().__setstate__(state)

    def reset_parameters(self):
        """Every weight and bias ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # ------------------------------------------------------------------ input checks
    def check_input(self, input, batch_sizes):
        w_dtype = getattr(self, self._flat_weights_names[0]).dtype
        if input.dtype != w_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({w_dtype}). Convert input: input.to({w_dtype}), or convert "
                             f"model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def _expected_size(self, input, batch_sizes, size):
        if batch_sizes is not None:
            batch = int(batch_sizes[0])
        else:
            batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * (2 if self.bidirectional else 1), batch, size)

    def get_expected_hidden_size(self, input, batch_sizes):
        return self._expected_size(input, batch_sizes, self.proj_size or self.hidden_size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    # ------------------------------------------------------------------ forward
    def _zeros_state(self, input, batch, size):
        return _OPS["zeros"](self.num_layers * (2 if self.bidirectional else 1), batch, size,
                            dtype=input.dtype, device=input.device)

    def _prepare(self, input, hx, lstm):
        """Unpack a PackedSequence, or add the batch dimension to an unbatched input (and
        its states). Returns (input, batch_sizes, hx, sorted/unsorted indices, is_batched)."""
        if isinstance(input, _packed_sequence_class()):
            data, batch_sizes, sorted_idx, unsorted_idx = input
            if hx is not None:
                hx = self.permute_hidden(hx, sorted_idx)
            return data, batch_sizes, hx, sorted_idx, unsorted_idx, True
        name = type(self).__name__ if type(self) in (RNN, LSTM, GRU) else "RNN"
        if input.dim() not in (2, 3):
            tail = " tensor" if self.mode.startswith("RNN") else ""
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D"
                             f"{tail} instead")
        is_batched = input.dim() == 3
        want = 3 if is_batched else 2
        kind = "batched 3-D" if is_batched else "unbatched 2-D"
        if hx is not None:
            dims = [s.dim() for s in (hx if lstm else (hx,))]
            if any(d != want for d in dims):
                if lstm:
                    raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D "
                                       f"but got ({dims[0]}-D, {dims[1]}-D) tensors")
                raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got "
                                   f"{dims[0]}-D tensor")
        if not is_batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
            if hx is not None:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1)) if lstm else hx.unsqueeze(1)
        return input, None, hx, None, None, is_batched

    def _autocast_dtype(self):
        """The dtype CPU autocast runs this module's layers in, or None. PyTorch runs LSTM
        without projections as oneDNN's ``mkldnn_rnn_layer`` (on the lower-precision list) and
        the RNN cells through ``linear``, so their outputs and states come in the autocast
        dtype (with ``torch.backends.mkldnn.enabled`` off the LSTM stays float32); GRU cells
        mix in the float32 states and stay float32; a projected LSTM is cast at the end of
        ``_run``."""
        if not STATE.enabled["cpu"] or self.mode == "GRU" or \
                (self.mode == "LSTM" and (self.proj_size > 0 or not _mkldnn._state["enabled"])):
            return None
        return STATE.dtype["cpu"]

    def _run(self, input, hx, cx, batch_sizes):
        """All layers and directions; ``input`` is (N, I) packed rows, or (T, B, I)."""
        dtype = self._autocast_dtype()
        if dtype is not None:
            input, hx = _cast(input, dtype), [_cast(h, dtype) for h in hx]
            cx = None if cx is None else [_cast(c, dtype) for c in cx]
        padded = batch_sizes is None
        name = "StackBackward0"
        if self.mode == "LSTM" and input.device.type == "cpu" and \
                _mkldnn._takes(input.dtype, grad_mode.STATE.grad_enabled):
            # PyTorch's CPU LSTM hands such sequences to oneDNN, which has no projections:
            # a projected one runs the default implementation, saying so once
            if not self.proj_size:
                name = "MkldnnRnnLayerBackward0"
            elif padded and input.numel():
                warn_once("lstm_projections_onednn", "LSTM with projections is not supported "
                          "with oneDNN. Using default implementation.", stacklevel=5)
        if padded and dtype is None and self.mode == "LSTM" and _stack.stack_fits(
                input, self.num_layers, self.bidirectional, self.proj_size,
                bool(self.dropout and self.training)):
            # all layers as one op and one graph node (rnn_stack.py): the common case
            return _stack.run_stack(input, hx, cx, self._flat_weights, self.bias,
                                    self.num_layers, name)
        if padded:
            steps, batch = input.shape[0], input.shape[1]
            x = input.reshape(steps * batch, input.shape[2])
            sizes = np.full(steps, batch, dtype=np.int64)
        else:
            x = input
            sizes = batch_sizes.numpy().astype(np.int64)
        directions = 2 if self.bidirectional else 1
        seq_shape = (input.shape[0], input.shape[1]) if padded else None
        pair = (directions == 2 and padded and dtype is None and self.mode == "LSTM"
                and not self.proj_size)
        h_out, c_out = [], []
        for layer in range(self.num_layers):
            outs = []
            if padded and layer:
                x = x.reshape(-1, x.shape[-1])
            if pair and _pair.pair_fits(x):
                # both directions in one kernel (rnn_pair.py), still two outputs joined by cat
                k = 2 * layer
                # each direction's (w_ih, w_hh, b_ih, b_hh); the biases None without bias
                wf, wr = (list(self.all_weights[j]) + [None, None] for j in (k, k + 1))
                res = _pair.lstm_pair(x, hx[k], cx[k], hx[k + 1], cx[k + 1], wf[:4], wr[:4],
                                      steps, seq_shape, name)
                outs = list(res[:2])
                h_out.extend(res[2:4])
                c_out.extend(res[4:])
            for d in range(directions if not outs else 0):
                k = layer * directions + d
                weights = self.all_weights[k]
                if dtype is not None:
                    weights = [_cast(t, dtype) for t in weights]
                w = dict(zip(("w_ih", "w_hh", "b_ih", "b_hh") if self.bias else
                             ("w_ih", "w_hh"), weights))
                w_hr = weights[-1] if self.proj_size > 0 else None
                out, h, c = rnn_layer(
                    x, hx[k], None if cx is None else cx[k], w["w_ih"], w["w_hh"],
                    w.get("b_ih"), w.get("b_hh"), w_hr, self.mode, sizes, reverse=d == 1,
                    seq_shape=seq_shape, node_name=name)
                outs.append(out)
                h_out.append(h)
                c_out.append(c)
            x = outs[0] if directions == 1 else _OPS["cat"](outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        h_n = _OPS["stack"](h_out, 0)
        c_n = _OPS["stack"](c_out, 0) if cx is not None else None
        if self.mode == "LSTM" and self.proj_size > 0 and STATE.enabled["cpu"]:
            # PyTorch's projected LSTM (not oneDNN's) runs its gates and the projection as
            # autocast linears: the output and h come in the autocast dtype, the cell state
            # (float32 products with c) stays float32; computed here in float32, rounded once
            low = STATE.dtype["cpu"]
            x, h_n = _cast(x, low), _cast(h_n, low)
        return x, h_n, c_n

    def forward(self, input, hx=None):
        lstm = self.mode == "LSTM"
        packed_cls = _packed_sequence_class()
        packed = isinstance(input, packed_cls)
        input, batch_sizes, hx, sorted_idx, unsorted_idx, is_batched = \
            self._prepare(input, hx, lstm)
        if hx is None:
            if batch_sizes is not None:
                batch = int(batch_sizes[0])
            else:
                batch = input.size(0) if self.batch_first else input.size(1)
            hx = self._zeros_state(input, batch, self.proj_size or self.hidden_size)
            if lstm:
                hx = (hx, self._zeros_state(input, batch, self.hidden_size))
        self.check_forward_args(input, hx, batch_sizes)
        if batch_sizes is None and self.batch_first:
            input = input.transpose(0, 1)
        h0, c0 = hx if lstm else (hx, None)
        output, h_n, c_n = self._run(input, h0, c0, batch_sizes)
        hidden = (h_n, c_n) if lstm else h_n
        if packed:
            return (packed_cls(output, batch_sizes, sorted_idx, unsorted_idx),
                    self.permute_hidden(hidden, unsorted_idx))
        if self.batch_first:
            output = output.transpose(0, 1)
        if not is_batched:
            output = output.squeeze(0 if self.batch_first else 1)
            hidden = (h_n.squeeze(1), c_n.squeeze(1)) if lstm else h_n.squeeze(1)
        return output, hidden


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ReLU with
    ``nonlinearity='relu'``), stacked ``num_layers`` deep, optionally bidirectional."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             f"or 'relu'.")
        super().__init__(mode, *args, **kwargs)


class LSTM(RNNBase):
    """Long short-term memory: input/forget/cell/output gates (PyTorch's i, f, g, o order),
    with an optional projection of the hidden state to ``proj_size``. Returns
    ``output, (h_n, c_n)``."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        return self._expected_size(input, batch_sizes, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)


class GRU(RNNBase):
    """Gated recurrent unit with PyTorch's reset/update/new gates (r, z, n); the reset gate
    scales ``W_hn h + b_hn``."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


# ----------------------------------------------------------------------------------------------
# Cells: one time step
# ----------------------------------------------------------------------------------------------

class RNNCellBase(Module):
    """Weights and initialisation shared by the single-step cells."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_OPS["empty"]((num_chunks * hidden_size, input_size),
                                                **factory))
        self.weight_hh = Parameter(_OPS["empty"]((num_chunks * hidden_size, hidden_size),
                                                **factory))
        if bias:
            self.bias_ih = Parameter(_OPS["empty"](num_chunks * hidden_size, **factory))
            self.bias_hh = Parameter(_OPS["empty"](num_chunks * hidden_size, **factory))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        """Every weight and bias ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _step(self, mode, input, states):
        """Run the kernel for one step over a (B, I) batch; returns (h, c)."""
        if input.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} "
                               f"expected {self.input_size}")
        hx = states[0]
        if hx.size(0) != input.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden0 batch "
                               f"size {hx.size(0)}")
        if hx.size(1) != self.hidden_size:
            raise RuntimeError(f"hidden0 has inconsistent hidden_size: got {hx.size(1)}, "
                               f"expected {self.hidden_size}")
        if mode in ("RNN_TANH", "RNN_RELU"):
            # through torch.rnn_tanh_cell / rnn_relu_cell, as PyTorch's RNNCell (CPU autocast
            # runs them in the lower precision: they are linear layers in PyTorch)
            cell = _OPS["rnn_tanh_cell" if mode == "RNN_TANH" else "rnn_relu_cell"]
            return cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                        self.bias_hh), None
        _, h, c = rnn_layer(
            input, hx, states[1] if len(states) > 1 else None, self.weight_ih,
            self.weight_hh, self.bias_ih, self.bias_hh, None, mode, [input.size(0)])
        return h, c

    def _batched(self, name, input, states):
        """Add the batch dimension to a 1-d input and its states; returns is_batched too."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             f"instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if states is None:
            zeros = _OPS["zeros"](input.size(0), self.hidden_size, dtype=input.dtype,
                                 device=input.device)
            states = (zeros, zeros) if name == "LSTMCell" else (zeros,)
        elif not is_batched:
            states = tuple(s.unsqueeze(0) for s in states)
        return input, states, is_batched


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D "
                             f"instead")
        input, states, is_batched = self._batched("RNNCell", input,
                                                  None if hx is None else (hx,))
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        h, _ = self._step("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", input,
                          states)
        return h if is_batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; ``hx`` is ``(h, c)`` and the result is ``(h', c')``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
        input, states, is_batched = self._batched("LSTMCell", input, hx)
        h, c = self._step("LSTM", input, states)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: ``h' = (1 - z) * n + z * h``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected hidden to be 1D or 2D, got {hx.dim()}D "
                             f"instead")
        input, states, is_batched = self._batched("GRUCell", input,
                                                  None if hx is None else (hx,))
        h, _ = self._step("GRU", input, states)
        return h if is_batched else h.squeeze(0)
