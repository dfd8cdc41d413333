"""Rows for cinder/nn/modules/rnn.py (LSTM's nested ``(h, c)`` output: tests/nn/test_rnn.py)."""


def rows(M, Arg, floats, ints):
    tol = {"float32": (1e-4, 1e-5)}
    return [
        M("RNN", 3, 5, inputs=floats((4, 2, 3)), tol=tol,
          errors=[floats((4, 2, 4)), floats((2, 4, 2, 3)), floats((4, 2, 3), (2, 2, 5))]),
        M("RNN", 3, 5, 2, kwargs={"nonlinearity": "relu", "bidirectional": True},
          inputs=floats((4, 2, 3), (4, 2, 5)), tol=tol, desc="relu-bi-h0"),
        M("RNN", 3, 4, 2, kwargs={"dropout": 0.5, "batch_first": True}, inputs=floats((2, 5, 3)),
          random=True, tol=tol, desc="dropout-batch_first"),
        M("RNN", 3, 4, kwargs={"bias": False}, inputs=floats((5, 3)), tol=tol,
          desc="unbatched-nobias"),
        M("GRU", 3, 5, inputs=floats((4, 2, 3)), tol=tol, errors=[floats((4, 2, 2))]),
        M("GRU", 3, 5, 2, kwargs={"bidirectional": True, "batch_first": True},
          inputs=floats((2, 4, 3), (4, 2, 5)), tol=tol, desc="bi-batch_first-h0"),
        M("GRU", 3, 4, 3, kwargs={"dropout": 0.3}, inputs=floats((5, 2, 3)), random=True,
          tol=tol, desc="dropout"),
        M("RNNCell", 3, 5, inputs=floats((2, 3), (2, 5)), tol=tol,
          errors=[floats((2, 4)), floats((2, 2, 3))]),
        M("RNNCell", 3, 5, kwargs={"nonlinearity": "relu", "bias": False}, inputs=floats((3,)),
          tol=tol, desc="relu-unbatched"),
        M("LSTMCell", 3, 5, inputs=floats((2, 3)), tol=tol, errors=[floats((2, 4))]),
        M("LSTMCell", 3, 5, kwargs={"bias": False}, inputs=floats((3,)), tol=tol,
          desc="unbatched-nobias"),
        M("GRUCell", 3, 5, inputs=floats((2, 3), (2, 5)), tol=tol, errors=[floats((2, 4))]),
        M("GRUCell", 3, 5, inputs=floats((3,)), tol=tol, desc="unbatched"),
    ]
