"""Whole RNN/LSTM/GRU modules pickled with ``save(module)`` load in the other library and run
(the word language model example saves its whole model). PyTorch's ``RNNBase.__setstate__``
reads ``_flat_weights`` from the pickled instance dict, so cinder's pickle must carry it."""

import io
import warnings

import numpy as np
import pytest
import torch

import cinder

MAKERS = {
    "lstm_bidirectional": lambda nn: nn.LSTM(3, 4, 2, bidirectional=True),
    "gru_no_bias": lambda nn: nn.GRU(3, 4, bias=False),
    "rnn_relu": lambda nn: nn.RNN(3, 4, nonlinearity="relu"),
    "lstm_projected": lambda nn: nn.LSTM(3, 4, proj_size=2),
}
X = np.linspace(-1, 1, 30, dtype=np.float32).reshape(5, 2, 3)


def _roundtrip(src, dst, name):
    src.manual_seed(0)
    module = MAKERS[name](src.nn)
    buffer = io.BytesIO()
    src.save(module, buffer)
    buffer.seek(0)
    loaded = dst.load(buffer, weights_only=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # PyTorch's oneDNN note for projected LSTMs
        expected = module(src.tensor(X))[0].detach().numpy()
        got = loaded(dst.tensor(X))[0].detach().numpy()
    return loaded, expected, got


@pytest.mark.parametrize("name", sorted(MAKERS))
@pytest.mark.parametrize("direction", ["cinder_to_torch", "torch_to_cinder"])
def test_whole_module_loads_and_runs_in_the_other_library(name, direction):
    src, dst = (cinder, torch) if direction == "cinder_to_torch" else (torch, cinder)
    loaded, expected, got = _roundtrip(src, dst, name)
    assert type(loaded) is getattr(dst.nn, type(loaded).__name__)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    assert len(loaded._flat_weights) == len(loaded._flat_weights_names)
    loaded.flatten_parameters()


def test_reloaded_in_cinder_tracks_reassigned_weights():
    """After a round trip, _flat_weights still follows the module's parameters."""
    loaded, _, _ = _roundtrip(cinder, cinder, "gru_no_bias")
    loaded.weight_hh_l0 = cinder.nn.Parameter(cinder.zeros(12, 4))
    assert loaded._flat_weights[1] is loaded.weight_hh_l0
