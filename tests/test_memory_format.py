"""Memory formats against PyTorch: ``contiguous``/``clone``/``to`` with ``channels_last`` and
``channels_last_3d`` (strides, when the input itself comes back, the rank errors), the layout
PyTorch reads from strides for ``to`` (size-1 dims are ambiguous and count as contiguous), the
layout ops keep on such inputs, and ``Module.to(memory_format=...)``."""

import pytest
import torch

import cinder
from tests.oracle import outcome

X4 = "L.arange(120.).reshape(2, 3, 4, 5)"
X5 = "L.arange(720.).reshape(2, 3, 4, 5, 6)"
CL = f"{X4}.contiguous(memory_format=L.channels_last)"

EXPRS = [
    f"{CL}.stride()", f"{X4}.to(memory_format=L.channels_last).stride()",
    f"{X5}.contiguous(memory_format=L.channels_last_3d).stride()",
    f"{X5}.to(memory_format=L.channels_last_3d).stride()",
    f"{X4}.clone(memory_format=L.channels_last).stride()", f"{CL}.clone().stride()",
    f"{CL}.clone(memory_format=L.contiguous_format).stride()",
    "L.arange(24.).reshape(2, 3, 4).contiguous(memory_format=L.channels_last)",
    "L.arange(24.).reshape(2, 3, 4).to(memory_format=L.channels_last)",
    "L.arange(24.).reshape(2, 3, 4).clone(memory_format=L.channels_last)",
    f"{X4}.contiguous(memory_format=L.channels_last_3d)",
    f"{X4}.contiguous(memory_format=L.preserve_format).stride()",
    f"{CL}.contiguous(memory_format=L.preserve_format)",
    f"(lambda x: x.contiguous(memory_format=L.channels_last) is x)({CL})",
    f"(lambda x: x.to(memory_format=L.channels_last) is x)({CL})",
    f"(lambda x: x.to(memory_format=L.contiguous_format) is x)({X4})",
    "(lambda x: x.to(memory_format=L.contiguous_format) is x)(L.zeros(3, 4).t())",
    f"{CL}.contiguous().stride()", f"{CL}.to(memory_format=L.contiguous_format).stride()",
    f"{X4}.to(L.float64, memory_format=L.channels_last).stride()",
    "L.zeros(2, 1, 4, 5).contiguous(memory_format=L.channels_last).stride()",
    "L.zeros(2, 3, 1, 1).to(memory_format=L.channels_last).stride()",
    "L.zeros(2, 3, 1, 1).contiguous(memory_format=L.channels_last).stride()",
    "L.zeros(1, 3, 1, 5).to(memory_format=L.channels_last).stride()",
    f"({CL} * 2).stride()", f"L.nn.functional.relu({CL}).stride()", f"{CL}.sum(1).stride()",
    f"L.empty_like({CL}).stride()", f"{CL}.view(-1).shape",
    f"{CL}.is_contiguous(memory_format=L.channels_last)", f"{CL}.is_contiguous()",
    f"{X4}.requires_grad_().contiguous(memory_format=L.channels_last).grad_fn.name()",
    f"{X4}.requires_grad_().to(memory_format=L.channels_last).grad_fn.name()",
    "L.nn.Conv2d(3, 4, 3).to(memory_format=L.channels_last).weight.stride()",
    "L.nn.Conv2d(3, 4, 3).to(memory_format=L.channels_last).bias.stride()",
    "L.nn.Conv3d(2, 4, 3).to(memory_format=L.channels_last_3d).weight.stride()",
]


# The layout of results computed from non-row-major inputs: PyTorch writes scans, softmax,
# masked_fill and cat row-major (cat: channels-last when every input is), sort into an
# empty_like of its input.
T = "(L.arange(24.).reshape(4, 6).t() * 1)"
LAYOUT_OPS = ["{x}.cumsum(1)", "{x}.cumprod(0)", "{x}.cummax(1).values", "{x}.cummin(0).indices",
              "{x}.logcumsumexp(1)", "{x}.softmax(0)", "{x}.log_softmax(1)",
              "{x}.masked_fill({x} > 3, 0)", "{x}.sort(0).values", "{x}.sort(1).indices",
              "{x}.argsort(0)", "L.cat([{x}, {x}])", "L.cat([{x}, {x}.contiguous()])",
              "{x}.gather(0, L.zeros_like({x}, dtype=L.long))", "{x}.tril()", "{x}.triu(1)",
              "{x}.repeat(*[1] * {x}.dim())"]
EXPRS += [f"{op.format(x=x)}.stride()" for op in LAYOUT_OPS for x in (T, CL)]
EXPRS += [f"{T}.cumsum(1).view(-1).shape", f"L.cat([{T}, {T}]).view(-1).shape"]


@pytest.mark.parametrize("expr", EXPRS)
def test_memory_formats_match_torch(expr):
    assert outcome(expr, cinder) == outcome(expr, torch)


def test_channels_last_keeps_values_and_gradients():
    for lib in (cinder, torch):
        x = lib.arange(120.).reshape(2, 3, 4, 5).requires_grad_()
        y = x.to(memory_format=lib.channels_last)
        (y * y).sum().backward()
        assert y.tolist() == x.tolist()
        assert x.grad.tolist() == (2 * x).tolist()
