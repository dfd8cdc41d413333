"""``torch.amp.custom_fwd``/``custom_bwd`` on a custom autograd Function under CPU autocast,
against PyTorch: the dtypes the forward and backward see, the values and gradients, with and
without ``cast_inputs``, inside and outside autocast; and ``nn.utils``'s conv weight
memory-format converters."""

import numpy as np
import pytest
import torch

import cinder
from tests.oracle import outcome

A = np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32)


def _run(lib, cast_inputs, autocast_on):
    seen = {}

    class MatSquare(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu", cast_inputs=cast_inputs)
        def forward(ctx, x):
            ctx.save_for_backward(x)
            y = x @ x
            seen["forward"] = (str(x.dtype), str(y.dtype))
            return y

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            gx = g @ x.t() + x.t() @ g
            seen["backward"] = (str(g.dtype), str(gx.dtype))
            return gx

    x = lib.tensor(A, requires_grad=True)
    with lib.autocast("cpu", dtype=lib.bfloat16, enabled=autocast_on):
        y = MatSquare.apply(x)
    y.float().sum().backward()
    return seen, str(y.dtype), y.float().detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("cast_inputs", [None, "float32", "bfloat16"])
@pytest.mark.parametrize("autocast_on", [True, False])
def test_custom_fwd_bwd_match_torch(cast_inputs, autocast_on):
    got = _run(cinder, cast_inputs and getattr(cinder, cast_inputs), autocast_on)
    want = _run(torch, cast_inputs and getattr(torch, cast_inputs), autocast_on)
    assert got[:2] == want[:2]
    np.testing.assert_allclose(got[2], want[2], rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(got[3], want[3], rtol=2e-2, atol=2e-2)


def test_device_type_must_be_a_string():
    for lib in (cinder, torch):
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            lib.amp.custom_fwd(lambda ctx, x: x, device_type=None)


@pytest.mark.parametrize("expr", [
    "L.nn.utils.convert_conv2d_weight_memory_format(L.nn.Sequential(L.nn.Conv2d(3, 4, 3), "
    "L.nn.Sequential(L.nn.ConvTranspose2d(4, 2, 3)), L.nn.Linear(2, 2)), "
    "L.channels_last)[1][0].weight.stride()",
    "L.nn.utils.convert_conv2d_weight_memory_format(L.nn.Conv2d(3, 4, 3), "
    "L.channels_last).weight.stride()",
    "L.nn.utils.convert_conv3d_weight_memory_format(L.nn.Conv3d(3, 4, 3), "
    "L.channels_last_3d).weight.stride()",
    "type(L.nn.utils.convert_conv2d_weight_memory_format(L.nn.Conv2d(3, 4, 3), "
    "L.channels_last).weight).__name__",
    "L.nn.utils.convert_conv2d_weight_memory_format(L.nn.Conv3d(3, 4, 3), "
    "L.channels_last).weight.stride()",
])
def test_conv_weight_memory_format(expr):
    assert outcome(expr, cinder) == outcome(expr, torch)


def test_custom_bwd_autocast_with_a_tensor_subclass_defined(tmp_path):
    """With a ``__torch_function__`` subclass defined anywhere, backward runs below the
    dispatch switches; the user's backward must still see autocast as outside the pass (a
    fresh process: the subclass flag stays on for good once set)."""
    import subprocess
    import sys
    from pathlib import Path
    script = tmp_path / "run.py"
    script.write_text(
        "import cinder, torch\n"
        "class Sub(cinder.Tensor):\n"
        "    @classmethod\n"
        "    def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
        "        return super().__torch_function__(func, types, args, kwargs or {})\n"
        "from tests.test_amp_custom_function import _run\n"
        "got, want = _run(cinder, None, True), _run(torch, None, True)\n"
        "assert got[:2] == want[:2], (got[:2], want[:2])\n"
        "print('ok')\n")
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, str(script)], cwd=root, capture_output=True,
                         text=True, env={**__import__("os").environ, "PYTHONPATH": str(root)})
    assert out.stdout.strip() == "ok", out.stderr
