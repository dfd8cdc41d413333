"""View ops: results share memory with their input (NumPy views), and the version counter.

Each view op is one ``view_op`` entry (``_view_factory.py``): a geometry function that checks
the arguments and answers the NumPy view, the node and what it saves; the factory publishes the
function, method, ``_copy`` op, in-place view method (``t_``...) and aliases from it.
``make_view`` (the one place a view tensor is made) is re-exported here for the other view
files. ``rebase_history`` is what happens when a view is modified in place while autograd
records: the base's history is rewritten through a ``CopySlices`` node so gradients flow
through the modified region. Composites of views (``reshape``, ``flatten``, ``movedim``...)
are plain ``register`` entries.
"""

import warnings

import numpy as np

from .. import _dtype as D
from .. import backend
from .._storage import storage_view
from .._tensor import Size, make_tensor, wrap_dim
from ..autograd.engine import validate_grads
from ..autograd.graph import Node
from ..autograd.grad_mode import no_grad
from ._layouts import plain
from ._prep import dims_arg, shape_arg, wrap, xp_of
from ._registry import alias, needs_grad, node_class, publish_attribute, record, register
from ._view_factory import NO_SAVES, make_view, view_op


def _infer_size(shape, numel):
    """Resolve a single -1 in ``shape`` (PyTorch's ``infer_size`` and its messages)."""
    infer = None
    known = 1
    for i, n in enumerate(shape):
        if n == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif n >= 0:
            known *= n
        else:
            raise RuntimeError(f"invalid shape dimension {n} at index {i} of shape "
                               f"{list(shape)}")
    if numel == known or (infer is not None and known > 0 and numel % known == 0):
        if infer is None:
            return tuple(shape)
        if known == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} "
                               "because the unspecified dimension size -1 can be any value and "
                               "is ambiguous")
        shape = list(shape)
        shape[infer] = numel // known
        return tuple(shape)
    raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")


def _view_strides(old_shape, old_strides, new_shape):
    """Strides (bytes) that show ``new_shape`` without copying, or None when impossible.

    Splits the old dims into contiguous chunks and maps the new dims onto them (the rule
    PyTorch's ``computeStride`` implements).
    """
    if not old_shape:
        return tuple(0 if n == 1 else None for n in new_shape) if all(n == 1 for n in new_shape) \
            else None
    numel = int(np.prod(old_shape))
    if numel == 0:
        return None
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = old_strides[-1]
    tensor_numel = 1
    view_numel = 1
    for d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[d]
        if d == 0 or (old_shape[d - 1] != 1 and
                      old_strides[d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base = old_strides[d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def _backend_strided(arr, shape, strides):
    """A view of ``arr``'s memory (starting at its first element) with byte ``strides``."""
    return backend.array_module_of(arr).lib.stride_tricks.as_strided(arr, shape, strides)


ViewNode = node_class("ViewBackward0", {"self": lambda grad, s: grad.reshape(s.self_sizes)})
UnsafeViewNode = node_class("UnsafeViewBackward0", {
    "self": lambda grad, s: grad.reshape(s.self_sizes)})
ReshapeAliasNode = node_class("ReshapeAliasBackward0", {
    "self": lambda grad, s: grad.reshape(s.self_sizes)})


def _view_geometry(input, shape):
    """A view with a new shape (or, given a dtype, the same bytes reinterpreted)."""
    if len(shape) == 1 and isinstance(shape[0], D.dtype):
        return _view_dtype(input, shape[0])
    shape = _infer_size(shape_arg(shape, "view"), input._data.size)
    arr = input._data
    try:
        new = arr.reshape(shape) if arr.flags.c_contiguous else _reshape_no_copy(arr, shape)
    except ValueError:
        new = None
    if new is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return new, ViewNode, {"self_sizes": arr.shape}


def _reshape_no_copy(arr, shape):
    strides = _view_strides(arr.shape, arr.strides, shape)
    if strides is None:
        if arr.size == 0:
            return arr.reshape(shape)
        return None
    return _backend_strided(arr, shape, strides)


def _view_dtype(input, dt):
    """The same bytes seen as ``dt``; not differentiable, shares the version counter only."""
    old = input._dtype
    if dt.itemsize != old.itemsize:
        what = f"to view {old.scalar_name} as {dt.scalar_name} (different element sizes)"
        arr = input._data
        if arr.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if input.stride(-1) != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {input.stride(-1)}")
        if dt.itemsize > old.itemsize:
            ratio = dt.itemsize // old.itemsize
            if arr.shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got "
                                   f"{arr.shape[-1]}")
            for st in input.stride()[:-1]:
                if st % ratio:
                    raise RuntimeError(f"self.stride(i) must be divisible by {ratio} {what}, "
                                       f"but got {st} for some i < dim - 1")
            if input.storage_offset() % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, "
                                   f"but got {input.storage_offset()}")
    # NumPy reinterprets any array whose last axis is dense, the condition checked above.
    out = make_tensor(input._data.view(dt.numpy_dtype), dt, input._device)
    out._vc = input._shared_version_counter()
    out._is_inference = input._is_inference
    return out


def _view_or_reshape(input, *shape):
    """What ``view_copy`` copies: ``input.view(*shape)``, or, where ``input``'s strides cannot
    show the new shape, its values reshaped under the view's node (PyTorch's ``view_copy``
    falls back to ``reshape`` there instead of refusing; ``view(dtype)`` has no fallback)."""
    if len(shape) == 1 and isinstance(shape[0], D.dtype):
        return view(input, *shape)
    arr = input._data
    size = _infer_size(shape_arg(shape, "view"), arr.size)
    if arr.flags.c_contiguous or _reshape_no_copy(arr, size) is not None:
        return view(input, *shape)
    result = wrap(arr.reshape(size), input._dtype, input._device)      # (a copy)
    if input._requires_grad and needs_grad(input):
        record(ViewNode, (input,), (result,), self_sizes=arr.shape)
    return result


view = view_op("view", _view_geometry, (ViewNode,), function=False, copy=_view_or_reshape,
               varargs="shape")


def view_as(self, other):
    """``self.view(other.size())``."""
    return view(self, other.shape)


register("view_as", view_as, function_too=False, family="views")


def reshape(input, *shape):
    """A view when the strides allow it, otherwise a copy (as PyTorch decides)."""
    shape = _infer_size(shape_arg(shape, "reshape"), input._data.size)
    arr = input._data
    if input.is_contiguous():
        new = arr.reshape(shape) if arr.flags.c_contiguous else _reshape_no_copy(arr, shape)
        return make_view(input, new, ViewNode, self_sizes=arr.shape)
    new = _reshape_no_copy(arr, shape)
    if new is not None:
        return make_view(input, new, ReshapeAliasNode, self_sizes=arr.shape)
    copy = input.clone(memory_format="contiguous")
    out = make_tensor(copy._data.reshape(shape), input._dtype, input._device)
    if copy._requires_grad and needs_grad(copy):
        record(UnsafeViewNode, (copy,), (out,), self_sizes=arr.shape)
    return out


register("reshape", reshape, family="views")


def reshape_as(self, other):
    """``self.reshape(other.size())``."""
    return reshape(self, other.shape)


register("reshape_as", reshape_as, function_too=False, family="views")

AsStridedNode = node_class("AsStridedBackward0", {
    "self": lambda grad, s: _as_strided_backward(grad, s)},
    saves_also=("self_sizes", "self_strides", "self_offset", "self_storage_numel", "stride",
                "offset"))


def _as_strided_backward(grad, s):
    """Sum ``grad`` into a zero storage at the places the view read (overlaps add up), then
    read the input's geometry out of that storage."""
    from .creation import zeros
    from .indexing import index_put
    xp = xp_of(grad)
    flat = xp.full(grad.shape, s.offset, dtype=np.int64)
    for d, (n, st) in enumerate(zip(grad.shape, s.stride)):
        shape = [1] * grad.dim()
        shape[d] = n
        flat = flat + (xp.arange(n, dtype=np.int64) * st).reshape(shape)
    storage = zeros(s.self_storage_numel, dtype=grad.dtype, device=grad.device)
    storage = index_put(storage, (flat.reshape(-1),), grad.reshape(-1), accumulate=True)
    return storage.as_strided(s.self_sizes, s.self_strides, s.self_offset)


def _as_strided_geometry(input, size, stride, storage_offset=None):
    """A view with explicit size, stride (elements) and storage offset over the same storage."""
    item = input._dtype.itemsize
    root = backend.storage_root(input._data)
    offset = input.storage_offset() if storage_offset is None else int(storage_offset)
    size, stride = tuple(int(n) for n in size), tuple(int(st) for st in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    for st in stride:
        if st < 0:
            raise RuntimeError("as_strided: Negative strides are not supported at the moment, "
                               f"got strides: {list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    need = offset + sum((n - 1) * st for n, st in zip(size, stride)) + 1 if all(size) else 0
    storage_bytes = _storage_nbytes(root)
    if need * item > storage_bytes:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {item} requiring a storage size of {need * item} are out of bounds "
            f"for storage of size {storage_bytes}")
    arr = storage_view(root, input._dtype.numpy_dtype, size, stride, offset)
    return arr, AsStridedNode, {
        "self_sizes": input._data.shape, "self_strides": input.stride(),
        "self_offset": input.storage_offset(), "self_storage_numel": storage_bytes // item,
        "stride": stride, "offset": offset}


def _storage_nbytes(root):
    if not root.size:
        return 0
    return root.itemsize + sum((n - 1) * s for n, s in zip(root.shape, root.strides))


as_strided = view_op("as_strided", _as_strided_geometry, (AsStridedNode,),
                     inplace={"AsStridedBackward0": "AsStridedBackward1"})

ExpandNode = node_class("ExpandBackward0", {
    "self": lambda grad, s: grad.sum_to_size(s.self_sizes)})


def _expand_geometry(input, sizes):
    """Broadcast to ``sizes`` without copying (-1 keeps a dim); new dims get stride 0."""
    sizes = shape_arg(sizes, "expand")
    shape = input._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand(torch.{input._dtype._tensor_name}{{{list(shape)}}}, size={list(sizes)}): "
            "the number of sizes provided "
            f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor "
            f"({len(shape)})")
    lead = len(sizes) - len(shape)
    target = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            target.append(s)
            continue
        cur = shape[i - lead]
        if s == -1:
            s = cur
        if cur != s and cur != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                f"{list(shape)}")
        target.append(s)
    # A zero stride repeats a size-1 (or new) dim; unlike np.broadcast_to this stays writable.
    # PyTorch's geometry: a new leading dim of size 1 gets the stride a dense dim would have.
    old_strides = input._data.strides
    strides = [0] * len(target)
    inner = 0
    for i in range(len(target) - 1, -1, -1):
        j = i - lead
        size = shape[j] if j >= 0 else 1
        stride = old_strides[j] if j >= 0 else inner
        if size != target[i]:
            stride = 0
        strides[i] = stride
        inner = target[i] * stride
    arr = _backend_strided(input._data, tuple(target), tuple(strides))
    return arr, ExpandNode, {"self_sizes": shape}


expand = view_op("expand", _expand_geometry, (ExpandNode,), function=False, varargs="sizes")


def expand_as(self, other):
    """``self.expand(other.size())``."""
    return expand(self, other.shape)


register("expand_as", expand_as, function_too=False, family="views")


def broadcast_to(input, size):
    return expand(input, size)


register("broadcast_to", broadcast_to, family="views")

TransposeNode = node_class("TransposeBackward0", {
    "self": lambda grad, s: grad.transpose(s.dim0, s.dim1)})
TNode = node_class("TBackward0", {"self": lambda grad, s: grad.t()})
PermuteNode = node_class("PermuteBackward0", {
    "self": lambda grad, s: grad.permute(_inverse_perm(s.dims))})


def _inverse_perm(dims):
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d] = i
    return tuple(inv)


def _transpose_geometry(input, dim0, dim1):
    """Swap dims ``dim0`` and ``dim1`` (a view)."""
    nd = input._data.ndim
    d0, d1 = wrap_dim(dim0, nd), wrap_dim(dim1, nd)
    arr = input._data.swapaxes(d0, d1) if nd else input._data
    return arr, TransposeNode, {"dim0": d0, "dim1": d1}


transpose = view_op("transpose", _transpose_geometry, (TransposeNode,),
                    inplace={"TransposeBackward0": "TransposeBackward1"},
                    aliases=("swapaxes", "swapdims"))


def _t_geometry(input):
    """Transpose a tensor of at most 2 dims."""
    nd = input._data.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    return input._data.T, TNode, NO_SAVES


t = view_op("t", _t_geometry, (TNode,), inplace={"TBackward0": "TBackward1"})


def _permute_geometry(input, dims):
    """Reorder the dims (a view)."""
    dims = shape_arg(dims, "permute")
    nd = input._data.ndim
    if len(dims) != nd:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does "
                           "not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {nd} is not equal to len(dims) = {len(dims)}")
    dims = tuple(wrap_dim(d, nd) for d in dims)
    if len(set(dims)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return input._data.transpose(dims), PermuteNode, {"dims": dims}


permute = view_op("permute", _permute_geometry, (PermuteNode,), varargs="dims")


def _T(self):
    nd = self._data.ndim
    if nd == 2:
        return make_view(self, self._data.T, PermuteNode, dims=(1, 0))
    if nd == 0:
        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                      "these cases.", UserWarning, stacklevel=2)
    else:
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
            "reverse the dimensions of a tensor.", UserWarning, stacklevel=2)
    return permute(self, tuple(range(nd - 1, -1, -1)))


def _mT(self, name="mT"):
    if self._data.ndim < 2:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of "
                           f"matrices. Got {self._data.ndim}-D tensor.")
    return transpose(self, -2, -1)


def _H(self):
    nd = self._data.ndim
    if nd != 2:
        hint = " For batches of matrices, consider using tensor.mH" if nd > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {nd}-D "
                           f"tensor.{hint}")
    out = transpose(self, 0, 1)
    return out.conj() if self.is_complex() else out


def _mH(self):
    out = _mT(self, "mH")
    return out.conj() if self.is_complex() else out


publish_attribute("T", _T, "permute", prop=True)
publish_attribute("mT", _mT, "transpose", prop=True)
publish_attribute("H", _H, None, prop=True)
publish_attribute("mH", _mH, None, prop=True)
publish_attribute("adjoint", _mH)


def movedim(input, source, destination):
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} dims)")
    nd = input._data.ndim
    nsrc = [wrap_dim(d, nd) for d in src]
    ndst = [wrap_dim(d, nd) for d in dst]
    if len(set(nsrc)) != len(nsrc):
        raise RuntimeError(f"movedim: repeated dim in `source` ({src})")
    if len(set(ndst)) != len(ndst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({dst})")
    order = [None] * nd
    for s_, d_ in zip(nsrc, ndst):
        order[d_] = s_
    rest = iter(d for d in range(nd) if d not in nsrc)
    order = [next(rest) if o is None else o for o in order]
    return permute(input, tuple(order))


register("movedim", movedim, family="views")
alias("moveaxis", "movedim")

SqueezeNode0 = node_class("SqueezeBackward0", {
    "self": lambda grad, s: grad.reshape(s.self_sizes)})
SqueezeNode1 = node_class("SqueezeBackward1", {
    "self": lambda grad, s: grad.reshape(s.self_sizes)})
SqueezeNode2 = node_class("SqueezeBackward2", {
    "self": lambda grad, s: grad.reshape(s.self_sizes)})
UnsqueezeNode = node_class("UnsqueezeBackward0", {"self": lambda grad, s: grad.squeeze(s.dim)})


def _squeeze_geometry(input, dim=None):
    """Remove size-1 dims (all, one, or a tuple of dims; other sizes are left alone)."""
    shape = input._data.shape
    if dim is None:
        axes = tuple(i for i, n in enumerate(shape) if n == 1)
        node = SqueezeNode0
    else:
        axes = dims_arg(dim, len(shape)) if shape else ()
        node = SqueezeNode1 if isinstance(dim, int) else SqueezeNode2
        axes = tuple(a for a in axes if shape and shape[a] == 1)
    arr = input._data.squeeze(axes) if axes else input._data[...]
    return arr, node, {"self_sizes": shape}


squeeze = view_op("squeeze", _squeeze_geometry, (SqueezeNode0, SqueezeNode1, SqueezeNode2),
                  inplace={"SqueezeBackward0": "SqueezeBackward3",
                           "SqueezeBackward1": "SqueezeBackward4",
                           "SqueezeBackward2": "SqueezeBackward5"})


def _unsqueeze_geometry(input, dim):
    """Insert a dim of size 1 at ``dim`` (a view)."""
    d = wrap_dim(dim, input._data.ndim + 1)
    shape = input._data.shape
    # a reshape is what np.expand_dims does, without its Python argument handling (3x faster)
    arr = input._data
    out = arr.reshape(shape[:d] + (1,) + shape[d:])
    if arr.ndim and not plain(arr):
        # PyTorch's stride for the new dim: 1 at the end, else the next dim's extent
        new = arr.itemsize if d == arr.ndim else shape[d] * arr.strides[d]
        strides = arr.strides[:d] + (new,) + arr.strides[d:]
        if out.strides != strides:
            out = _backend_strided(arr, out.shape, strides)
    return out, UnsqueezeNode, {"dim": d}


unsqueeze = view_op("unsqueeze", _unsqueeze_geometry, (UnsqueezeNode,),
                    inplace={"UnsqueezeBackward0": "UnsqueezeBackward1"})


def flatten(input, start_dim=0, end_dim=-1):
    nd = input._data.ndim
    if nd == 0:
        return reshape(input, (1,))
    s, e = wrap_dim(start_dim, nd), wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = input._data.shape
    n = 1
    for k in shape[s:e + 1]:
        n *= k
    return reshape(input, shape[:s] + (n,) + shape[e + 1:])


register("flatten", flatten, family="views")


def unflatten(input, dim, sizes):
    """Split dim ``dim`` into ``sizes`` (one entry may be -1); a view."""
    nd = input._data.ndim
    d = wrap_dim(dim, nd)
    sizes = tuple(int(n) for n in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    shape = input._data.shape
    try:
        sizes = _infer_size(sizes, shape[d])
    except RuntimeError as e:
        if "is invalid for input of size" not in str(e):
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {d} ({shape[d]}) in the input tensor") from None
    return view(input, shape[:d] + sizes + shape[d + 1:])


register("unflatten", unflatten, family="views")

class ViewScatterBackward(Node):
    """Backward of ``view_scatter``: the gradient of the embedded region, via the same view."""

    __slots__ = ("view_fn",)

    def backward(self, grad_outputs):
        return (self.view_fn(grad_outputs[0]),)


ViewScatterBackward.__name__ = "ViewScatterBackward0"


def view_scatter(grad, sizes, view_fn):
    """Zeros of ``sizes`` with ``view_fn(zeros)`` set to ``grad`` (differentiable)."""
    from .creation import zeros
    return _scatter_into(grad, zeros(sizes, dtype=grad.dtype, device=grad.device), view_fn)


def _scatter_into(grad, out, view_fn):
    """``out`` (fresh zeros) with ``view_fn(out)`` set to ``grad``, recorded as
    ViewScatterBackward0 when ``grad`` needs a graph."""
    with no_grad():
        view_fn(out).copy_(grad)
    if needs_grad(grad):
        node = ViewScatterBackward()
        node.view_fn = view_fn
        node.next_functions = (grad._gradient_edge(),)
        out._grad_fn, out._requires_grad, out._output_nr = node, True, 0
    return out


# ----------------------------------------------------------------------------------------------
# In-place on views: rewriting the base's history
# ----------------------------------------------------------------------------------------------


class _Region:
    """Where a view sits in its base's memory: ``of(t)`` is the view's window of a tensor
    laid out like the base (same shape and strides), ``laid_out(t)`` a copy of ``t`` that is.
    The base's strides matter: a base that owns, say, column-major memory has its views'
    windows at other offsets than a row-major tensor of the same shape would."""

    __slots__ = ("base_shape", "base_strides", "offset", "size", "stride")

    def __init__(self, view_t, base_t):
        item = base_t._dtype.itemsize
        base_arr = base_t._data
        self.base_shape = base_arr.shape
        self.base_strides = tuple(st // item for st in base_arr.strides)
        self.offset = (backend.data_ptr(view_t._data) - backend.data_ptr(base_arr)) // item
        self.size, self.stride = view_t._data.shape, view_t.stride()

    def of(self, t):
        if t.stride() != self.base_strides:
            t = self.laid_out(t)
        return t.as_strided(self.size, self.stride, t.storage_offset() + self.offset)

    def laid_out(self, t):
        out = self.zeros_like_base(t)
        out.copy_(t)            # (recorded under create_graph: the copy stays differentiable)
        return out

    def zeros_like_base(self, t):
        from .function_forms import empty_strided
        out = empty_strided(self.base_shape, self.base_strides, dtype=t.dtype, device=t.device)
        with no_grad():
            out.zero_()
        return out


class CopySlices(Node):
    """The base's node after one of its views was modified in place by the op whose node is
    ``fn``.

    Edge 0 leads to the base's previous history; the others are ``fn``'s own edges past its
    first (the op's other inputs). Backward runs ``fn`` on the gradient of the modified
    region: its first result (the gradient of the region's old values) replaces the region in
    the base's gradient, the rest go to the op's other inputs. (``fn`` None: the region was
    overwritten with constants, so its old values get no gradient.)
    """

    __slots__ = ("region", "fn")

    def name(self):
        return "torch::autograd::CopySlices"

    def backward(self, grad_outputs):
        grad = grad_outputs[0]
        if grad is None:
            return (None,) * len(self.next_functions)
        region = self.region
        base_grad = region.laid_out(grad)           # a fresh copy, laid out like the base
        window = region.of(base_grad)
        if self.fn is None:
            with no_grad():
                window.zero_()
            return (base_grad,)
        fn_grads = validate_grads(self.fn, self.fn.backward((window.clone(),)))
        first = fn_grads[0]
        if first is None:
            with no_grad():
                window.zero_()
        else:
            window.copy_(first)
        return (base_grad,) + tuple(fn_grads[1:])

    def release_saved(self):
        if self.fn is not None:
            self.fn.release_saved()


def rebase_history(self, result):
    """After ``self`` was overwritten in place with ``result``, move the graph onto ``self``."""
    base = self._base
    if base is None or not (base._requires_grad or result._requires_grad):
        self._grad_fn = result._grad_fn
        self._output_nr = result._output_nr
        self._requires_grad = True
        return
    fn = result._grad_fn
    node = CopySlices()
    node.region = _Region(self, base)
    node.fn = fn
    base_edge = base._gradient_edge() if base._requires_grad else (None, 0)
    base_meta = (base._data.shape, base._dtype, base._device)
    if fn is None:
        node.next_functions, node._input_meta = (base_edge,), (base_meta,)
    else:
        node.next_functions = (base_edge,) + tuple(fn.next_functions[1:])
        node._input_meta = (base_meta,) + tuple(fn._input_meta[1:])
    base._grad_fn, base._output_nr, base._requires_grad = node, 0, True
    # The view now derives from the rewritten base.
    view_node = _ViewOfBase()
    view_node.region = node.region
    view_node.next_functions = ((node, 0),)
    self._grad_fn, self._output_nr, self._requires_grad = view_node, 0, True


class _ViewOfBase(Node):
    """AsStridedBackward0 of a view whose base was rewritten: embed into the base's shape."""

    __slots__ = ("region",)

    def backward(self, grad_outputs):
        grad, region = grad_outputs[0], self.region
        return (_scatter_into(grad, region.zeros_like_base(grad), region.of),)


_ViewOfBase.__name__ = "AsStridedBackward0"
_ = Size


# The other view families build on ``make_view``/``view_scatter`` above; importing them here
# registers them with this module and keeps ``views.select``... importable.
from .view_select import (  # noqa: E402,F401
    _slice,
    chunk,
    narrow,
    select,
    split,
    split_with_sizes,
    tensor_split,
    unbind,
    unfold,
)
from .view_complex import imag, real  # noqa: E402,F401
