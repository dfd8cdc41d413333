"""``torch.bilinear``: ``y[..., k] = x1 W[k] x2 + b[k]`` for every output feature ``k``,
computed as two matrix products (no loop over the output features)."""

from .._registry import register


def bilinear(input1, input2, weight, bias=None):
    """Inputs ``(..., in1)`` and ``(..., in2)`` with ``weight`` of shape ``(out, in1, in2)``
    give ``(..., out)``."""
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError("bilinear(): input batch dimensions do not match: got "
                           f"{list(input1.shape[:-1])} and {list(input2.shape[:-1])}")
    out_f, in1, in2 = weight.shape
    if input1.shape[-1] != in1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {in1}")
    if input2.shape[-1] != in2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {in2}")
    lead = tuple(input1.shape[:-1])
    x1 = input1.reshape(-1, in1)
    x2 = input2.reshape(-1, in2)
    # (n, in1) @ (in1, out * in2) -> (n, out, in2); then each row meets x2 over in2
    w = weight.permute(1, 0, 2).reshape(in1, out_f * in2)
    t = x1.matmul(w).reshape(-1, out_f, in2)
    out = t.matmul(x2.unsqueeze(-1)).squeeze(-1).reshape(lead + (out_f,))
    return out if bias is None else out + bias


register("bilinear", bilinear, method=False, family="nn.linear")
