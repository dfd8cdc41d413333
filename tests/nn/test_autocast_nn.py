"""nn under CPU autocast, against PyTorch: the dtypes (and values) F.pad's modes and the
recurrent modules produce inside ``autocast("cpu", dtype=bfloat16)``, and pdist's refusal of
half-precision inputs on the CPU."""

import numpy as np
import pytest
import torch

import cinder

PAD_SHAPES = {1: (2, 3, 5), 2: (1, 2, 4, 5), 3: (1, 1, 3, 4, 5)}


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("dtype", ["bfloat16", "float32"])
def test_pad_modes_under_autocast(mode, dims, dtype):
    """reflect (1-2 dims) and replicate run in float32, the other modes keep the dtype."""
    x = np.random.default_rng(dims).standard_normal(PAD_SHAPES[dims]).astype(np.float32)
    results = []
    for lib in (torch, cinder):
        t = lib.tensor(x).to(getattr(lib, dtype))
        with lib.autocast("cpu", dtype=lib.bfloat16):
            y = lib.nn.functional.pad(t, (1, 2) * dims, mode=mode)
            m = lib.nn.ReflectionPad1d(1)(t) if dims == 1 and mode == "reflect" else y
        results.append((str(y.dtype), str(m.dtype), y.float().numpy()))
    assert results[0][:2] == results[1][:2]
    np.testing.assert_array_equal(results[1][2], results[0][2])


@pytest.mark.parametrize("build", [
    lambda nn: nn.LSTM(3, 4), lambda nn: nn.LSTM(3, 4, num_layers=2, bidirectional=True),
    lambda nn: nn.RNN(3, 4), lambda nn: nn.RNN(3, 4, nonlinearity="relu"),
    lambda nn: nn.GRU(3, 4)])
def test_recurrent_modules_under_autocast(build):
    """LSTM (PyTorch's mkldnn_rnn_layer) and RNN run in bfloat16, GRU stays float32; the
    values agree to bfloat16's precision and gradients reach the float32 parameters."""
    x = np.random.default_rng(0).standard_normal((5, 2, 3)).astype(np.float32)
    results = []
    for lib in (torch, cinder):
        lib.manual_seed(0)
        m = build(lib.nn)
        with lib.autocast("cpu", dtype=lib.bfloat16):
            out, state = m(lib.tensor(x))
        states = state if isinstance(state, tuple) else (state,)
        out.float().sum().backward()
        grads = [p.grad.dtype for p in m.parameters()]
        results.append(([str(t.dtype) for t in (out,) + states], grads,
                        out.detach().float().numpy()))
    assert results[0][0] == results[1][0]
    assert [str(g) for g in results[0][1]] == [str(g) for g in results[1][1]]
    np.testing.assert_allclose(results[1][2], results[0][2], rtol=0.05, atol=0.05)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_pdist_half_precision_is_refused(dtype):
    errors = []
    for lib in (torch, cinder):
        with pytest.raises(NotImplementedError) as info:
            lib.nn.functional.pdist(lib.ones(3, 2, dtype=getattr(lib, dtype)))
        errors.append(str(info.value))
    assert errors[0] == errors[1]
