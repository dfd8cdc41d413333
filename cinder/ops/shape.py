"""Joining ops: cat / concat / concatenate, stack (and their gradients: split / unbind)."""

from .._tensor import Tensor, wrap_dim
from ._prep import as_compute, common_device, dims_arg, result_type, wrap, xp_of
from ._layouts import in_format, like_preserved, suggested_format
from ._registry import (OpNode, _real_for_real_inputs, alias, needs_grad, node_class, record,
                        register, write_out)


class _JoinBackward(OpNode):
    """One gradient per joined tensor: slices of the output gradient (cat) or its unbind (stack)."""

    __slots__ = ()

    def backward(self, grad_outputs):
        grad = grad_outputs[0]
        if grad is None:
            return (None,) * len(self.next_functions)
        dim, sizes = self.saved("dim"), self.saved("sizes")
        if self.saved("stacked"):
            return _real_for_real_inputs(list(grad.unbind(dim)), self._input_meta)
        grads = grad.split([0 if s is None else s for s in sizes], dim)
        # a legacy empty 1-d input was skipped by cat: its gradient is empty 1-d as well
        grads = [grad.new_zeros(0) if s is None else g for s, g in zip(sizes, grads)]
        return _real_for_real_inputs(grads, self._input_meta)


def _join_node(name):
    cls = type(name, (_JoinBackward,), {"__slots__": (),
                                          "_saves": frozenset({"dim", "sizes", "stacked"})})
    cls.__module__ = "cinder.autograd.generated"
    return cls


CatBackward = _join_node("CatBackward0")
StackBackward = _join_node("StackBackward0")


def _check_seq(tensors, name):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    if len(tensors) == 0:
        if name == "cat":
            raise ValueError("torch.cat(): expected a non-empty list of Tensors")
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")


def _legacy_empty(t):
    """A 1-d tensor with no elements: old PyTorch's "empty tensor", which cat skips."""
    return t._data.ndim == 1 and t._data.shape[0] == 0


def cat(tensors, dim=0, *, out=None):
    """Concatenate along an existing ``dim`` (dtypes promote; legacy empty 1-D are skipped)."""
    _check_seq(tensors, "cat")
    tensors = list(tensors)
    parts = [t for t in tensors if not _legacy_empty(t)] or tensors[:1]
    ref = parts[0]
    if ref.dim() == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = wrap_dim(dim, ref.dim())
    for i, t in enumerate(parts):
        if t.dim() != ref.dim():
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.dim()} and "
                               f"{t.dim()}")
        for k in range(ref.dim()):
            if k != d and t.shape[k] != ref.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{ref.shape[k]} but got size {t.shape[k]} for tensor number {i} in the list.")
    dt = result_type(*parts)
    dev = common_device(parts)
    xp = xp_of(ref)
    arrays = [as_compute(t, dt, dev) for t in parts]
    res = xp.concatenate(arrays, axis=d)
    if not all(a.flags.c_contiguous for a in arrays):
        res = _cat_layout(xp, res, arrays)
    result = wrap(res, dt, dev)
    if needs_grad(*tensors):
        sizes = [None if _legacy_empty(t) and t is not parts[0] else t.shape[d]
                 for t in tensors]
        record(CatBackward, tensors, (result,), dim=d, sizes=sizes, stacked=False)
    return write_out(out, result) if out is not None else result


def _cat_layout(xp, res, arrays):
    """``cat``'s result in PyTorch's layout: the memory format every input reads as from its
    strides (channels-last when all are), else row-major."""
    formats = {suggested_format(a) for a in arrays}
    want = formats.pop() if len(formats) == 1 else "contiguous_format"
    if want == "contiguous_format":
        return res if res.flags.c_contiguous else xp.ascontiguousarray(res)
    return res if suggested_format(res) == want else in_format(res, want)


register("cat", cat, method=False, family="shape", nodes=(CatBackward,))
alias("concat", "cat")
alias("concatenate", "cat")


def stack(tensors, dim=0, *, out=None):
    """Join along a new ``dim``; all tensors must have the same shape."""
    _check_seq(tensors, "stack")
    ref = tensors[0]
    d = wrap_dim(dim, ref.dim() + 1)
    for i, t in enumerate(tensors):
        if t.shape != ref.shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(ref.shape)} at entry 0 and {list(t.shape)} at entry {i}")
    dt = result_type(*tensors)
    dev = common_device(tensors)
    xp = xp_of(ref)
    arrays = [as_compute(t, dt, dev) for t in tensors]
    res = xp.stack(arrays, axis=d)
    if not res.flags.c_contiguous:      # NumPy followed the inputs' (non-row-major) layout
        res = _stack_layout(xp, res, arrays, d)
    result = wrap(res, dt, dev)
    if needs_grad(*tensors):
        record(StackBackward, tensors, (result,), dim=d, sizes=None, stacked=True)
    return write_out(out, result) if out is not None else result


def _stack_layout(xp, res, arrays, d):
    """``stack``'s result in PyTorch's layout: it concatenates along ``d`` and views the
    result with the new dim (so the inputs' common memory format survives), but stacks along
    a new last dim as ``cat`` of unsqueezed inputs, which is always row-major."""
    if d == arrays[0].ndim:
        return xp.ascontiguousarray(res)
    joined = res.reshape(res.shape[:d] + (-1,) + res.shape[d + 2:])
    joined = _cat_layout(xp, joined, arrays)
    return joined.reshape(res.shape)


register("stack", stack, method=False, family="shape", nodes=(StackBackward,))


def hstack(tensors, *, out=None):
    """Join horizontally: along dim 0 for 1-D tensors, dim 1 otherwise."""
    _check_seq(tensors, "hstack")
    ts = [t if t.dim() else t.reshape(1) for t in tensors]
    return cat(ts, 0 if ts[0].dim() == 1 else 1, out=out)


def vstack(tensors, *, out=None):
    """Join vertically, turning 1-D tensors into rows first."""
    _check_seq(tensors, "vstack")
    return cat([t if t.dim() >= 2 else t.reshape(1, -1) for t in tensors], 0, out=out)


register("hstack", hstack, method=False, family="shape")
register("vstack", vstack, method=False, family="shape")
alias("row_stack", "vstack")


FlipNode = node_class("FlipBackward0", {"self": lambda grad, s: grad.flip(s.dims)})


def flip(input, dims):
    """A copy with the order of elements reversed along ``dims`` (a tuple or list of ints)."""
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"flip(): argument 'dims' (position 2) must be tuple of ints, not "
                        f"{type(dims).__name__}")
    dims = dims_arg(tuple(dims), input.dim()) if input.dim() else ()
    xp = xp_of(input)
    arr = xp.flip(input._data, axis=dims) if dims else input._data
    if input._data.flags.c_contiguous:
        arr = xp.array(arr, copy=True)
    else:
        arr = like_preserved(arr, input._data, copy=True)   # not the flipped strides
    result = wrap(arr, input._dtype, input._device)
    if input._requires_grad and needs_grad(input):
        record(FlipNode, (input,), (result,), dims=dims)
    return result


def _flip_method(self, *dims):
    """``t.flip(0, 1)`` or ``t.flip((0, 1))``."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    return flip(self, tuple(dims))


register("flip", flip, method=_flip_method, family="shape", nodes=(FlipNode,))
