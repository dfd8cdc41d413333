"""The vectorised kernels of wave 4 (s4/samplers): multinomial with replacement drawn for all
rows at once (bit for bit with PyTorch's stream, errors raised at PyTorch's stream position),
and the fused grid_sampler and embedding_bag kernels (values and gradients vs PyTorch)."""

import numpy as np
import pytest
import torch

import cinder


def _dtype(lib, name):
    return getattr(lib, name)


def _probs(shape, seed):
    """Random unnormalised probabilities with zero entries (never drawn) in every row."""
    a = np.random.default_rng(seed).random(shape).astype(np.float32)
    a[a < 0.25] = 0
    a[..., 0] += 0.01
    return a


# ---------------------------------------------------------------------------------------------
# multinomial with replacement
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("shape,k", [((300, 40), 10), ((9,), 5), ((3, 1), 4), ((5, 33), 100),
                                     ((2, 3000), 7)])
@pytest.mark.parametrize("seed", [0, 11])
def test_multinomial_replacement_matches_stream(dtype, shape, k, seed):
    probs = _probs(shape, seed)
    results = []
    for lib in (torch, cinder):
        lib.manual_seed(seed)
        drawn = lib.multinomial(lib.tensor(probs).to(_dtype(lib, dtype)), k, True)
        results.append((drawn.numpy(), str(drawn.dtype).split(".")[-1], lib.rand(3).numpy()))
    (t_draw, t_dtype, t_next), (c_draw, c_dtype, c_next) = results
    assert c_dtype == t_dtype == "int64"
    np.testing.assert_array_equal(c_draw, t_draw)
    np.testing.assert_array_equal(c_next, t_next)  # the stream moved by the same amount


def test_categorical_sample_matches_stream():
    logits = np.random.default_rng(2).standard_normal((200, 30)).astype(np.float32)
    drawn = []
    for lib in (torch, cinder):
        lib.manual_seed(4)
        drawn.append(lib.distributions.Categorical(logits=lib.tensor(logits)).sample((6,)))
    np.testing.assert_array_equal(drawn[1].numpy(), drawn[0].numpy())


@pytest.mark.parametrize("bad_row", [[0.5, float("nan")], [0.5, float("inf")], [0.0, 0.0],
                                     [0.5, -1.0], [float("nan"), float("inf")],
                                     [float("inf"), -1.0]])
@pytest.mark.parametrize("k", [1, 3])
def test_multinomial_replacement_errors_at_torch_stream_position(bad_row, k):
    """PyTorch checks each row as it reaches it (after drawing for the rows before), except on
    its one-sample path, which checks the whole tensor first, with its own message."""
    outcome = []
    for lib in (torch, cinder):
        lib.manual_seed(3)
        with pytest.raises(RuntimeError) as info:
            lib.multinomial(lib.tensor([[1.0, 1.0], [1.0, 2.0], bad_row]), k, True)
        outcome.append((str(info.value), lib.rand(2).numpy().tolist()))
    assert outcome[1] == outcome[0]
