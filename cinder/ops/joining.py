"""Shape and joining ops: repeat/tile/repeat_interleave, roll/rot90/fliplr/flipud, the
stack family (dstack, column_stack), hsplit/vsplit/dsplit, meshgrid, broadcast_tensors /
broadcast_shapes, atleast_1d/2d/3d, ravel, view_as_real/view_as_complex, cartesian_prod,
combinations, and the ``*_copy`` forms of the view ops.

Where PyTorch builds an op from others (tile from repeat, dstack from cat, meshgrid from
expand) cinder does the same, so the graph nodes are the ones PyTorch records.
"""

import warnings

import numpy as np

from .. import _dtype as D
from .._tensor import Size, Tensor, wrap_dim
from ._layouts import as_suggested, like_preserved
from ._prep import broadcast_shape, check_tensor_arg, shape_arg, wrap, xp_of
from ._registry import needs_grad, node_class, record, register
from ._view_factory import NO_SAVES, view_op

# ----------------------------------------------------------------------------------------------
# repeat / tile / repeat_interleave
# ----------------------------------------------------------------------------------------------


def _repeat_backward(grad, s):
    """Sum the gradient over the copies: view each dim as (repeats, size) and sum repeats."""
    sizes, reps = s.self_sizes, s.repeats
    padded = (1,) * (len(reps) - len(sizes)) + tuple(sizes)
    split = []
    for r, n in zip(reps, padded):
        split += [r, n]
    g = grad.reshape(split).sum(tuple(range(0, 2 * len(reps), 2)))
    return g.reshape(sizes)


RepeatNode = node_class("RepeatBackward0", {"self": _repeat_backward})


def repeat(input, *sizes):
    """The tensor tiled ``sizes[i]`` times along each dim (extra leading dims allowed)."""
    reps = shape_arg(sizes, "repeat")
    nd = input._data.ndim
    if len(reps) < nd:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    if any(r < 0 for r in reps):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(reps)}: "
                           f"{list(reps)}")
    xp = xp_of(input)
    a = input._data.reshape((1,) * (len(reps) - nd) + input._data.shape)
    # (row-major whatever the input's layout: np.tile keeps it when nothing repeats)
    result = wrap(xp.ascontiguousarray(xp.tile(a, reps)), input._dtype, input._device)
    if input._requires_grad and needs_grad(input):
        record(RepeatNode, (input,), (result,), self_sizes=input._data.shape, repeats=reps)
    return result


def tile(input, dims):
    """Like ``repeat``, but ``dims`` shorter than the rank are padded with leading 1s."""
    reps = shape_arg((dims,), "tile")
    nd = input._data.ndim
    return repeat(input, (1,) * (nd - len(reps)) + reps)


register("repeat", repeat, function_too=False, family="joining", nodes=(RepeatNode,))
register("tile", tile, family="joining")


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeats each element (or slice along ``dim``) ``repeats`` times, consecutively;
    ``repeats`` may be a tensor giving one count per element."""
    if repeats is None:
        # torch.repeat_interleave(counts): each index i repeated counts[i] times
        counts = input
        from .creation import arange
        return repeat_interleave(arange(counts._data.shape[0], device=counts._device), counts)
    d = 0 if dim is None else wrap_dim(dim, max(input._data.ndim, 1))
    if isinstance(repeats, Tensor) and repeats._data.ndim > 0 and repeats._data.size != 1:
        if dim is None:
            input = input.reshape(-1)
        n = (input._data.shape or (1,))[d]
        if repeats._data.ndim != 1 or repeats._data.shape[0] != n:
            raise RuntimeError("repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats._data.shape[0]} and input.size({d}) "
                               f"= {n}")
        if repeats._data.size and int(repeats._data.min()) < 0:
            raise RuntimeError("repeats can not be negative")
        xp = xp_of(input)
        index = xp.repeat(xp.arange(n), repeats._data.astype(np.int64))
        return input.index_select(d, wrap(index, D.int64, input._device))
    r = int(repeats.item() if isinstance(repeats, Tensor) else repeats)
    if r < 0:
        raise RuntimeError("repeats can not be negative")
    if not (input._requires_grad and needs_grad(input)):
        # one NumPy call; the view chain below is kept for the graph (ViewBackward0 as in
        # PyTorch, whose repeat_interleave is that same chain)
        data = input._data
        data = data.reshape(-1) if dim is None or not data.ndim else data
        return wrap(xp_of(input).repeat(data, r, axis=d), input._dtype, input._device)
    if dim is None:
        input = input.reshape(-1)
    if input._data.ndim == 0:
        input = input.reshape(1)
    shape = list(input._data.shape)
    expanded = shape[:d + 1] + [r] + shape[d + 1:]
    return input.unsqueeze(d + 1).expand(expanded).contiguous().flatten(d, d + 1)


register("repeat_interleave", repeat_interleave, family="joining")

# ----------------------------------------------------------------------------------------------
# roll / rot90 / fliplr / flipud
# ----------------------------------------------------------------------------------------------

RollNode = node_class("RollBackward0", {
    "self": lambda grad, s: grad.roll(tuple(-k for k in s.shifts), s.dims)})


def _int_tuple(x):
    return (int(x),) if isinstance(x, (int, np.integer)) else tuple(int(v) for v in x)


def roll(input, shifts, dims=None):
    """Shifts elements along ``dims`` cyclically (the flattened tensor when ``dims`` is None)."""
    check_tensor_arg(input, "roll", "input", 1)
    shifts = _int_tuple(shifts)
    dims_t = () if dims is None else _int_tuple(dims)
    if dims is None and len(shifts) != 1:
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
    if dims is not None and len(shifts) != len(dims_t):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:"
                           f"{len(dims_t)}")
    xp = xp_of(input)
    if dims is None:
        res = xp.roll(input._data.reshape(-1), shifts[0]).reshape(input._data.shape)
    else:
        axes = tuple(wrap_dim(d, max(input._data.ndim, 1)) for d in dims_t)
        res = xp.roll(input._data, shifts, axes) if input._data.ndim else input._data.copy()
    # rolled along dims, PyTorch keeps the memory format the input suggests (channels-last)
    res = xp.ascontiguousarray(res) if dims is None else as_suggested(res, input._data)
    result = wrap(res, input._dtype, input._device)
    if input._requires_grad and needs_grad(input):
        record(RollNode, (input,), (result,), shifts=shifts, dims=dims)
    return result


Rot90Node = node_class("Rot90Backward0", {"self": lambda grad, s: grad.rot90(-s.k, s.dims)})


def rot90(input, k=1, dims=(0, 1)):
    """Rotates by 90 degrees ``k`` times in the plane of ``dims`` (from the first towards the
    second)."""
    check_tensor_arg(input, "rot90", "input", 1)
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    nd = input._data.ndim
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = wrap_dim(dims[0], nd), wrap_dim(dims[1], nd)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    result = wrap(_rotated(xp_of(input), input._data, k % 4, d0, d1), input._dtype,
                  input._device)
    if input._requires_grad and needs_grad(input):
        record(Rot90Node, (input,), (result,), k=k, dims=(d0, d1))
    return result


def _rotated(xp, arr, k, d0, d1):
    """``arr`` rotated ``k`` (0-3) quarter turns as PyTorch composes it, which decides the
    strides: a flip (a copy in the input's layout), then for odd ``k`` a transposed view of
    that copy; no turn is a row-major copy."""
    if k == 0:
        return xp.array(arr, copy=True, order="C")
    flipped = xp.flip(arr, (d0, d1) if k == 2 else d1 if k == 1 else d0)
    out = like_preserved(flipped, arr, copy=True)
    return out if k == 2 else out.swapaxes(d0, d1)


def fliplr(input):
    """Reverses the order of columns (dim 1)."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input):
    """Reverses the order of rows (dim 0)."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


register("roll", roll, family="joining", nodes=(RollNode,))
register("rot90", rot90, family="joining", nodes=(Rot90Node,))
register("fliplr", fliplr, family="joining")
register("flipud", flipud, family="joining")

# ----------------------------------------------------------------------------------------------
# atleast_Nd / stacks / splits
# ----------------------------------------------------------------------------------------------


def _each(fn, tensors):
    """``atleast_*`` take one tensor, several, or one sequence of them."""
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return fn(tensors[0])
    if len(tensors) == 1:
        tensors = tensors[0]
    return tuple(fn(t) for t in tensors)


def _at1(t):
    return t.reshape(1) if t._data.ndim == 0 else t


def _at2(t):
    nd = t._data.ndim
    return t.reshape(1, 1) if nd == 0 else t.unsqueeze(0) if nd == 1 else t


def _at3(t):
    nd = t._data.ndim
    if nd == 0:
        return t.reshape(1, 1, 1)
    if nd == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1) if nd == 2 else t


def atleast_1d(*tensors):
    """Inputs with fewer than 1 dim are viewed as 1-D."""
    return _each(_at1, tensors)


def atleast_2d(*tensors):
    """Inputs with fewer than 2 dims gain leading size-1 dims."""
    return _each(_at2, tensors)


def atleast_3d(*tensors):
    """Inputs with fewer than 3 dims are viewed as 3-D (1-D (n) becomes (1, n, 1))."""
    return _each(_at3, tensors)


def _check_list(name, tensors):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")


def dstack(tensors, *, out=None):
    """Stacks along the third dim (after making each input at least 3-D)."""
    from .shape import cat
    _check_list("dstack", tensors)
    return cat([_at3(t) for t in tensors], 2, out=out)


def column_stack(tensors, *, out=None):
    """Stacks 1-D inputs as columns, 2-D inputs side by side (along dim 1)."""
    from .shape import cat
    _check_list("column_stack", tensors)
    cols = [t.reshape(t._data.size, 1) if t._data.ndim <= 1 else t for t in tensors]
    return cat(cols, 1, out=out)


register("dstack", dstack, method=False, family="joining")
register("column_stack", column_stack, method=False, family="joining")
register("atleast_1d", atleast_1d, method=False, family="joining")
register("atleast_2d", atleast_2d, method=False, family="joining")
register("atleast_3d", atleast_3d, method=False, family="joining")


def _directional_split(name, dim, min_dims):
    def fn(input, indices_or_sections):
        nd = input._data.ndim
        if nd < min_dims:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} "
                               f"dimension, but got a tensor with {nd} dimensions!")
        d = 0 if (name == "hsplit" and nd == 1) else dim
        if isinstance(indices_or_sections, (int, np.integer)):
            size = input._data.shape[d]
            if indices_or_sections == 0 or size % indices_or_sections:
                raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but "
                                   f"the size of the dimension {size} is not divisible by the "
                                   f"split_size {indices_or_sections}!")
        return input.tensor_split(indices_or_sections, d)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``tensor_split`` along dim {dim} (exact sections only, as NumPy's {name})."
    register(name, fn, family="joining")
    return fn


hsplit = _directional_split("hsplit", 1, 1)
vsplit = _directional_split("vsplit", 0, 2)
dsplit = _directional_split("dsplit", 2, 3)

# ----------------------------------------------------------------------------------------------
# meshgrid / broadcast_tensors / broadcast_shapes
# ----------------------------------------------------------------------------------------------


def _tensor_list(tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0])
    return list(tensors)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D (or 0-d) tensors: with ``indexing='ij'`` output i varies
    along dim i; ``'xy'`` swaps the first two dims (Cartesian)."""
    ts = _tensor_list(tensors)
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in ts:
        if t._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t}")
    first = ts[0]
    for t in ts[1:]:
        if t._dtype is not first._dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    swap = indexing == "xy" and len(ts) >= 2
    order = [1, 0] + list(range(2, len(ts))) if swap else list(range(len(ts)))
    flat = [t.reshape(-1) if t._data.ndim == 0 else t for t in ts]
    shape = [flat[i]._data.shape[0] for i in order]
    grids = []
    for i, t in enumerate(flat):
        view = [1] * len(ts)
        view[order.index(i)] = -1
        grids.append(t.view(view).expand(shape))
    return tuple(grids)


def broadcast_tensors(*tensors):
    """Views of the tensors expanded to their common broadcast shape."""
    ts = _tensor_list(tensors)
    shape = broadcast_shape(*(t._data.shape for t in ts)) if ts else ()
    return tuple(t if t._data.shape == shape else t.expand(shape) for t in ts)


def broadcast_shapes(*shapes):
    """The shape that tensors of ``shapes`` broadcast to (ints count as 1-D shapes)."""
    norm = [(s,) if isinstance(s, (int, np.integer)) else tuple(s) for s in shapes]
    for s in norm:
        for n in s:
            if n < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                                   f"{list(s)}")
    return Size(broadcast_shape(*norm)) if norm else Size(())


register("meshgrid", meshgrid, method=False, family="joining")
register("broadcast_tensors", broadcast_tensors, method=False, family="joining")
register("broadcast_shapes", broadcast_shapes, method=False, family="joining")


def ravel(input):
    """The tensor flattened to 1-D (a view when possible)."""
    return input.contiguous().view(-1)


register("ravel", ravel, family="joining")

# ----------------------------------------------------------------------------------------------
# view_as_real / view_as_complex
# ----------------------------------------------------------------------------------------------

ViewAsRealNode = node_class("ViewAsRealBackward0", {
    "self": lambda grad, s: view_as_complex(grad.contiguous())})
ViewAsComplexNode = node_class("ViewAsComplexBackward0", {
    "self": lambda grad, s: view_as_real(grad.contiguous() if grad._data.ndim else grad)})


def _view_as_real_geometry(input):
    """A real view of a complex tensor with a trailing dim of 2 (real, imaginary)."""
    check_tensor_arg(input, "view_as_real", "input", 1)
    if input._dtype.category != D.COMPLEX:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    rdt = input._dtype.to_real()
    a = input._data
    arr = np.lib.stride_tricks.as_strided(a.real, a.shape + (2,), a.strides + (rdt.itemsize,)) \
        if xp_of(input) is np else a.view(rdt.numpy_dtype).reshape(a.shape + (2,))
    return arr, ViewAsRealNode, NO_SAVES


def _view_as_complex_geometry(input):
    """A complex view of a real tensor whose last dim has size 2 and stride 1."""
    check_tensor_arg(input, "view_as_complex", "input", 1)
    dt = input._dtype
    if dt is D.float16:
        raise RuntimeError("view_as_complex: cinder has no complex32 (chalf) dtype")
    if dt not in (D.float32, D.float64):
        raise RuntimeError("view_as_complex is only supported for floating point tensors, but "
                           f"got a tensor of scalar type: {dt.scalar_name}")
    a = input._data
    if not a.ndim or a.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if a.strides[-1] != dt.itemsize:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % (2 * dt.itemsize) for s in a.strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    cdt = dt.to_complex()
    # the last dim (2 contiguous reals) becomes one complex element
    arr = a.view(cdt.numpy_dtype)[..., 0]
    return arr, ViewAsComplexNode, NO_SAVES


def _no_complex_grad(input):
    if needs_grad(input):
        raise RuntimeError("view_as_complex_copy does not support automatic differentiation for "
                           "outputs with complex dtype.")


view_as_real = view_op("view_as_real", _view_as_real_geometry, (ViewAsRealNode,), method=False,
                       result_dtype=lambda input: input._dtype.to_real())
view_as_complex = view_op("view_as_complex", _view_as_complex_geometry, (ViewAsComplexNode,),
                          method=False, result_dtype=lambda input: input._dtype.to_complex(),
                          copy_precheck=_no_complex_grad)

# ----------------------------------------------------------------------------------------------
# cartesian_prod / combinations
# ----------------------------------------------------------------------------------------------


def cartesian_prod(*tensors):
    """All combinations of one element from each 1-D tensor, one combination per row."""
    ts = _tensor_list(tensors)
    for t in ts:
        if t._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._data.shape)}")
    if len(ts) == 1:
        return ts[0]
    from .shape import stack
    return stack([g.reshape(-1) for g in meshgrid(ts, indexing="ij")], 1)


def combinations(input, r=2, with_replacement=False):
    """All length-``r`` combinations of the elements of a 1-D tensor (like itertools)."""
    if input._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input._data.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    from .shape import stack
    if r == 0:
        return input.new_empty((0,))
    n = input._data.shape[0]
    grids = np.meshgrid(*([np.arange(n)] * r), indexing="ij")
    keep = np.ones(grids[0].shape, bool)
    for a, b in zip(grids[:-1], grids[1:]):
        keep &= (a <= b) if with_replacement else (a < b)
    cols = [wrap(g[keep].astype(np.int64), D.int64, input._device) for g in grids]
    return stack([input.index_select(0, c) for c in cols], 1)


register("cartesian_prod", cartesian_prod, method=False, family="joining")
register("combinations", combinations, method=False, family="joining")
