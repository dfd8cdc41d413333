"""Views that pick part of a tensor: select, narrow (slicing), diagonal, unfold, and the
multi-output views unbind, split, split_with_sizes, chunk, tensor_split.

The single-output views are ``view_op`` entries (``_view_factory.py``: function, method and
``_copy`` form from one geometry); the multi-output ones share ``_multi_view`` and publish their
``_copy`` forms beside their entries. Their derivatives embed the gradient into zeros of the
input's shape (``views.view_scatter``) or stack/concatenate the pieces' gradients.
"""

from .. import backend
from .._storage import storage_view
from .._tensor import Tensor, wrap_dim
from ._registry import needs_grad, node_class, record, register
from ._view_factory import publish_copy, view_op, view_tensor
from .views import _backend_strided, make_view, view_scatter

# -- narrowing views: the backward embeds the gradient into zeros ----------------------------

SelectNode = node_class("SelectBackward0", {
    "self": lambda grad, s: view_scatter(grad, s.self_sizes, lambda t: t.select(s.dim, s.index))})
SliceNode = node_class("SliceBackward0", {
    "self": lambda grad, s: view_scatter(
        grad, s.self_sizes, lambda t: _slice(t, s.dim, s.start, s.end, s.step))})
DiagonalNode = node_class("DiagonalBackward0", {
    "self": lambda grad, s: view_scatter(
        grad, s.self_sizes, lambda t: t.diagonal(s.offset, s.dim1, s.dim2))})


def _select_geometry(input, dim, index):
    """The slice at ``index`` along ``dim``, without that dim (a view)."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, nd)
    n = input._data.shape[d]
    index = int(index)
    if index < -n or index >= n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {d}")
    if index < 0:
        index += n
    # The trailing Ellipsis keeps NumPy from returning a scalar copy for 1-d input.
    key = (slice(None),) * d + (index, Ellipsis)
    return input._data[key], SelectNode, {"self_sizes": input._data.shape, "dim": d,
                                          "index": index}


select = view_op("select", _select_geometry, (SelectNode,))


def _slice(input, dim, start, end, step):
    d = wrap_dim(dim, input._data.ndim)
    return make_view(input, _slice_array(input, d, start, end, step), SliceNode,
                     self_sizes=input._data.shape, dim=d, start=start, end=end, step=step)


def _slice_array(input, d, start, end, step):
    """``input._data`` sliced along ``d`` (``start``/``end`` already within bounds)."""
    arr = input._data
    out = arr[(slice(None),) * d + (slice(start, end, step),)]
    if out.size == 0 and arr.size != 0:
        # NumPy may reset the pointer of an empty slice; PyTorch keeps the offset of ``start``.
        offset = input.storage_offset() + start * input.stride(d)
        out = storage_view(backend.storage_root(arr), arr.dtype, out.shape,
                           tuple(s // arr.itemsize for s in out.strides), offset)
    return out


def narrow(input, dim, start, length):
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, nd)
    n = input._data.shape[d]
    start = int(start)
    if start < -n or start > n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got "
                         f"{start})")
    if start < 0:
        start += n
    if length < 0 or start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return _slice(input, d, start, start + length, 1)


register("narrow", narrow, family="views")


def _diagonal_geometry(input, offset=0, dim1=0, dim2=1):
    """The diagonal over dims ``dim1``/``dim2``, as a new last dim (a view)."""
    nd = input._data.ndim
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    arr = _diagonal_view(input._data, offset, d1, d2)
    return arr, DiagonalNode, {"self_sizes": input._data.shape, "offset": offset, "dim1": d1,
                               "dim2": d2}


def _diagonal_view(arr, offset, d1, d2):
    """A writable strided view of the diagonal (``np.diagonal`` returns a read-only one)."""
    n1, n2 = arr.shape[d1], arr.shape[d2]
    s1, s2 = arr.strides[d1], arr.strides[d2]
    if offset >= 0:
        length, start = max(min(n1, n2 - offset), 0), offset * s2
    else:
        length, start = max(min(n1 + offset, n2), 0), -offset * s1
    keep = [d for d in range(arr.ndim) if d not in (d1, d2)]
    shape = tuple(arr.shape[d] for d in keep) + (length,)
    strides = tuple(arr.strides[d] for d in keep) + (s1 + s2,)
    if length == 0:
        root = backend.storage_root(arr)
        offset = (backend.data_ptr(arr) - backend.data_ptr(root)) // arr.itemsize
        return storage_view(root, arr.dtype, shape, tuple(st // arr.itemsize for st in strides),
                            offset)
    key = [slice(None)] * arr.ndim
    step = s2 if offset >= 0 else s1
    if step:            # (along an expanded, zero-stride dim the diagonal starts in place)
        key[d2 if offset >= 0 else d1] = slice(start // step, None)
    shifted = arr[tuple(key)]
    return _backend_strided(shifted, shape, strides)


diagonal = view_op("diagonal", _diagonal_geometry, (DiagonalNode,))

UnfoldNode = node_class("UnfoldBackward0", {
    "self": lambda grad, s: _unfold_backward(grad, s.self_sizes, s.dim, s.size, s.step)})


def _unfold_backward(grad, sizes, dim, size, step):
    # Windows may overlap, so add each window offset's slab instead of scattering.
    from .creation import zeros
    out = zeros(sizes, dtype=grad.dtype, device=grad.device)
    n_windows = grad.shape[dim]
    for k in range(size):
        stop = k + step * (n_windows - 1) + 1
        out = _add_into(out, dim, k, stop, step, grad.select(-1, k))
    return out


def _add_into(out, dim, start, stop, step, part):
    key = (slice(None),) * dim + (slice(start, stop, step),)
    piece = out[key] + part
    return _replace_slab(out, key, piece)


def _replace_slab(out, key, piece):
    from .indexing import index_put_slices
    return index_put_slices(out, key, piece)


def _unfold_geometry(input, dimension, size, step):
    """Windows of ``size`` along ``dimension`` every ``step``, as a new last dim (a view)."""
    nd = input._data.ndim
    d = wrap_dim(dimension, nd) if nd else 0
    n = input._data.shape[d] if nd else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    count = (n - size) // step + 1
    shape = list(input._data.shape)
    strides = list(input._data.strides)
    item_stride = strides[d] if nd else input._dtype.itemsize
    if nd:
        shape[d] = count
        strides[d] = item_stride * step
    arr = _backend_strided(input._data, tuple(shape) + (size,), tuple(strides) + (item_stride,))
    return arr, UnfoldNode, {"self_sizes": input._data.shape, "dim": d, "size": size,
                             "step": step}


unfold = view_op("unfold", _unfold_geometry, (UnfoldNode,), function=False)

# -- multi-output views: unbind, split, chunk ------------------------------------------------

UnbindNode = node_class("UnbindBackward0", {
    "self": lambda grads, s: _stack_grads(grads, s.self_sizes, s.dim)}, num_outputs=None)
SplitNode = node_class("SplitBackward0", {
    "self": lambda grads, s: _cat_grads(grads, s.self_sizes, s.dim, s.sizes)}, num_outputs=None)
SplitSizesNode = node_class("SplitWithSizesBackward0", {
    "self": lambda grads, s: _cat_grads(grads, s.self_sizes, s.dim, s.sizes)}, num_outputs=None)


def _fill_missing(grads, shapes, like):
    from .creation import zeros
    return [g if g is not None else zeros(sh, dtype=like.dtype, device=like.device)
            for g, sh in zip(grads, shapes)]


def _stack_grads(grads, sizes, dim):
    from .shape import stack
    like = next(g for g in grads if g is not None)
    shape = list(sizes)
    del shape[dim]
    return stack(_fill_missing(grads, [tuple(shape)] * len(grads), like), dim)


def _cat_grads(grads, sizes, dim, split_sizes):
    from .shape import cat
    like = next(g for g in grads if g is not None)
    shapes = []
    for n in split_sizes:
        sh = list(sizes)
        sh[dim] = n
        shapes.append(tuple(sh))
    return cat(_fill_missing(grads, shapes, like), dim)


def _multi_view(input, arrays, node_cls, **saved):
    outs = [view_tensor(input, arr) for arr in arrays]
    if input._requires_grad and needs_grad(input):
        node = record(node_cls, (input,), outs, **saved)
        node._num_outputs = len(outs)
    return tuple(outs)


def unbind(input, dim=0):
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, nd)
    lead = (slice(None),) * d
    arrays = [input._data[lead + (i, Ellipsis)] for i in range(input._data.shape[d])]
    return _multi_view(input, arrays, UnbindNode, self_sizes=input._data.shape, dim=d)


register("unbind", unbind, family="views", nodes=(UnbindNode,))
publish_copy("unbind", unbind)


def split(tensor, split_size_or_sections, dim=0):
    """Pieces of ``split_size`` along ``dim`` (last may be smaller), or of the given sizes."""
    nd = tensor._data.ndim
    d = wrap_dim(dim, nd)
    n = tensor._data.shape[d] if nd else 1
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != n:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size "
                f"at dimension {d}), but got split_sizes={sizes}")
        node = SplitSizesNode
    else:
        size = int(split_size_or_sections)
        if size <= 0 and n > 0 or size < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size="
                               f"{size}")
        sizes = [size] * (n // size) + ([n % size] if n % size else []) if size else [0]
        if n == 0:
            sizes = [0]
        node = SplitNode
    arrays, start = [], 0
    for s in sizes:
        arrays.append(_slice_array(tensor, d, start, start + s, 1))
        start += s
    return _multi_view(tensor, arrays, node, self_sizes=tensor._data.shape, dim=d, sizes=sizes)


register("split", split, family="views", nodes=(SplitNode, SplitSizesNode))
publish_copy("split", split)
def split_with_sizes(input, split_sizes, dim=0):
    """Pieces of the given ``split_sizes`` along ``dim`` (``split`` with a list)."""
    return split(input, list(split_sizes), dim)


register("split_with_sizes", split_with_sizes, family="views")
publish_copy("split_with_sizes", split_with_sizes)


def chunk(input, chunks, dim=0):
    """``chunks`` pieces (ceil-sized, so possibly fewer) along ``dim``."""
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    n = input.shape[wrap_dim(dim, input.dim())]
    size = -(-n // chunks) if n else 1
    return split(input, size, dim)


register("chunk", chunk, family="views")


def tensor_split(input, indices_or_sections, dim=0):
    """Split into pieces at the given indices, or into ``n`` nearly equal pieces; each piece
    is a ``narrow``-style slice (SliceBackward0), as in PyTorch."""
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    d = wrap_dim(dim, nd)
    n = input._data.shape[d]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        if k <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {k}")
        base, extra = divmod(n, k)
        bounds, start = [], 0
        for i in range(k):
            stop = start + base + (1 if i < extra else 0)
            bounds.append((start, stop))
            start = stop
    else:
        cuts = [int(i) for i in indices_or_sections]
        edges = [0] + cuts + [n]
        bounds = []
        for a, b in zip(edges[:-1], edges[1:]):
            a = min(max(a + n if a < 0 else a, 0), n)
            b = min(max(b + n if b < 0 else b, 0), n)
            bounds.append((a, max(a, b)))
    return tuple(_slice(input, d, a, b, 1) for a, b in bounds)


register("tensor_split", tensor_split, family="views")
