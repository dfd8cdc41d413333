"""``<view>_copy``: every view op PyTorch also offers as a copy (``view_copy``, ``slice_copy``,
``transpose_copy``, ``alias_copy``, ``view_as_complex_copy``...).

A copy op returns what the view would show, in fresh contiguous memory (no ``_base``, its own
version counter). The view factory (``_view_factory.publish_copy``) builds each from its view
entry: it takes the view, copies the values, and keeps the view's graph node under PyTorch's
name for the copy (``TransposeBackward0_copy``), so the derivative is the view's own. This
file holds the copies of views that are not ops of their own (``alias``, ``slice``) and the
copies PyTorch gives their own nodes (``detach_copy``, ``narrow_copy``).
"""

from .._tensor import wrap_dim
from ..autograd.grad_mode import no_grad
from ._prep import check_tensor_arg, wrap
from ._registry import needs_grad, node_class, record, register, write_out
from .view_select import _slice
from ._view_factory import publish_copy
from .views import make_view

__all__ = ["alias_copy", "detach_copy", "narrow_copy", "publish_copy", "slice_copy"]

# -- the copies of views cinder does not publish as ops of their own -----------------------------

AliasNode = node_class("AliasBackward0", {"self": lambda grad, s: grad})


def _alias(input):
    """``torch.ops.aten.alias``: a view of the whole tensor."""
    return make_view(input, input._data.view(), AliasNode)


def _slice_view(input, dim=0, start=None, end=None, step=1):
    """``aten.slice``: ``input[..., start:end:step]`` along ``dim`` with PyTorch's clamping."""
    d = wrap_dim(dim, input._data.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    n = input._data.shape[d]
    start = 0 if start is None else (start + n if start < 0 else start)
    end = n if end is None else (end + n if end < 0 else end)
    start = min(max(start, 0), n)
    end = min(max(end, start), n)
    return _slice(input, d, start, end, step)


alias_copy = publish_copy("alias", _alias)
slice_copy = publish_copy("slice", _slice_view)


def _not_implemented(grad, s):
    raise RuntimeError("derivative for aten::detach_copy is not implemented")


DetachCopyNode = node_class("NotImplemented", {"self": _not_implemented})


def detach_copy(input, *, out=None):
    """``detach`` as a new tensor. (PyTorch records a node that refuses to differentiate.)"""
    check_tensor_arg(input, "detach_copy", "input", 1)
    result = wrap(input._data.copy(), input._dtype, input._device)
    if input._requires_grad and needs_grad(input):
        record(DetachCopyNode, (input,), (result,))
    return write_out(out, result) if out is not None else result


register("detach_copy", detach_copy, method=False, family="views", nodes=(DetachCopyNode,),
         tags=("views", "copy"))

# -- narrow_copy: a method too, with its own node ----------------------------------------------


def narrow_copy(input, dim, start, length):
    """``narrow`` as a new tensor."""
    with no_grad():
        piece = input.narrow(dim, start, length)
    result = wrap(piece._data.copy(), input._dtype, input._device)
    if input._requires_grad and needs_grad(input):
        record(NarrowCopyNode, (input,), (result,), self_sizes=input._data.shape,
               dim=wrap_dim(dim, input._data.ndim), start=start, length=length)
    return result


def _narrow_backward(grad, s):
    from .creation import zeros
    out = zeros(s.self_sizes, dtype=grad.dtype, device=grad.device)
    return out.slice_scatter(grad, s.dim, s.start, s.start + s.length)


NarrowCopyNode = node_class("NarrowCopyBackward0", {"self": _narrow_backward})
register("narrow_copy", narrow_copy, family="views", nodes=(NarrowCopyNode,))
