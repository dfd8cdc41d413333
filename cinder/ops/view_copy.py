"""``<view>_copy``: every view op PyTorch also offers as a copy (``view_copy``, ``slice_copy``,
``transpose_copy``, ``alias_copy``, ``view_as_complex_copy``...).

A copy op returns what the view would show, in fresh contiguous memory (no ``_base``, its own
version counter). One generator, ``publish_copy``, builds each from its view: it takes the
view, copies the values, and keeps the view's graph node under PyTorch's name for the copy
(``TransposeBackward0_copy``), so the derivative is the view's own.
"""

from .._tensor import Tensor, wrap_dim
from ..autograd.grad_mode import no_grad
from ._prep import check_tensor_arg, wrap
from ._registry import FUNCTIONS, OpNode, needs_grad, node_class, record, register, write_out
from .view_select import _slice
from .views import make_view

__all__ = ["alias_copy", "detach_copy", "narrow_copy", "publish_copy", "slice_copy"]

_COPY_NODES = {}


def _copy_node_class(cls):
    """``<View>Backward0_copy``: the same formulas under PyTorch's name for the copy op."""
    name = cls.__name__ + "_copy"
    if name not in _COPY_NODES:
        _COPY_NODES[name] = type(name, (cls,), {"__slots__": ()})
        _COPY_NODES[name].__module__ = cls.__module__
    return _COPY_NODES[name]


def _fresh(v):
    """A contiguous copy of the view ``v`` that takes over ``v``'s place in the graph."""
    c = wrap(v._data.copy(), v._dtype, v._device)     # ndarray.copy() is C-contiguous
    node = v._grad_fn
    if node is not None and isinstance(node, OpNode):
        if not type(node).__name__.endswith("_copy"):    # (shared by unbind's outputs)
            node.__class__ = _copy_node_class(type(node))
        c._grad_fn, c._output_nr, c._requires_grad = node, v._output_nr, True
    return c


def publish_copy(view_name, view_fn=None, precheck=None):
    """Publish ``cinder.<view_name>_copy``: ``view_fn`` (default: the registered view op of
    that name) computed as a new tensor. ``precheck(input)`` holds the copy's own refusals."""
    name = view_name + "_copy"

    def fn(input, *args, out=None, **kwargs):
        check_tensor_arg(input, name, "input", 1)
        if precheck is not None:
            precheck(input)
        view = (view_fn or FUNCTIONS.get(view_name) or getattr(Tensor, view_name))(
            input, *args, **kwargs)
        if isinstance(view, (tuple, list)):
            result = type(view)(_fresh(v) for v in view)
        else:
            result = _fresh(view)
        if out is not None:
            return write_out(out, result)
        return result
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Like ``{view_name}``, but the result is a new tensor, not a view."
    register(name, fn, method=False, family="views", tags=("views", "copy"))
    return fn


for _view in ("expand", "permute", "squeeze", "unsqueeze", "t", "transpose", "view", "select",
              "unbind", "split", "split_with_sizes", "unfold", "as_strided", "view_as_real"):
    publish_copy(_view)

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


def _no_complex_grad(input):
    if needs_grad(input):
        raise RuntimeError("view_as_complex_copy does not support automatic differentiation for "
                           "outputs with complex dtype.")


alias_copy = publish_copy("alias", _alias)
slice_copy = publish_copy("slice", _slice_view)
view_as_complex_copy = publish_copy("view_as_complex", precheck=_no_complex_grad)


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
