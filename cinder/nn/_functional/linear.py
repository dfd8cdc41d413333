"""``nn.functional``, ``linear`` (``bilinear`` is the published op, as in PyTorch: see
``cinder/ops/nn/bilinear.py``).

Re-exported by ``cinder/nn/functional.py`` (the module users import).
"""

from ...ops.nn import linear as _lin
from . import _op, dispatched_functional

__all__ = ["linear"]


# Published here already: multi-head attention and the losses call it, and autocast must
# meet it there as PyTorch's meets its aten op.
@dispatched_functional
def linear(input, weight, bias=None):
    """``input @ weight.T + bias``; a 2-d input with a bias is one GEMM (PyTorch's addmm)."""
    if input._dtype is not weight._dtype:
        a, b = input._dtype, weight._dtype
        if bias is None:       # PyTorch's matmul path words it differently from addmm's
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                               f"{a.cpp_name} != {b.cpp_name}")
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                           f"{a.scalar_name} and {b.scalar_name}")
    ndim = input._data.ndim        # (Tensor.dim() is a dispatched op: this path is hot)
    if ndim == 2 and bias is not None:
        if _lin.can_use_linear_2d(input, weight, bias):
            return _lin.linear_2d(input, weight, bias)
        return _op("addmm")(bias, input, weight.t())
    if ndim == 1 and bias is not None:
        # a vector is a batch of one, viewed back (PyTorch's ViewBackward0)
        return linear(input.unsqueeze(0), weight, bias).view(weight.shape[0])
    if ndim > 2 and bias is not None and input.is_contiguous():
        # leading dims folded into one GEMM, then viewed back (PyTorch's ViewBackward0)
        flat = input.reshape(-1, input.shape[-1])
        out = linear(flat, weight, bias)
        return out.view(tuple(input.shape[:-1]) + (out.shape[-1],))
    out = input.matmul(weight.t())
    return out if bias is None else out + bias
