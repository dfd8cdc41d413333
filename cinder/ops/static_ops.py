"""Ops with a layout or a result size fixed in advance: ``nonzero_static`` (the coordinates of
non-zeros, padded or cut to ``size`` rows), ``empty_permuted`` (an uninitialised tensor whose
memory follows a given dimension order) and ``slice_inverse`` (a view of ``input``'s memory
with ``src``'s sizes, strides and offset: functionalization's inverse of ``slice``)."""

import numpy as np

from .. import _dtype as D
from ._prep import wrap, xp_of
from ._registry import FUNCTIONS, register, write_out


def nonzero_static(input, *, size, fill_value=-1, out=None):
    """Like ``nonzero(input)``, but with exactly ``size`` rows: extra rows are dropped, missing
    ones filled with ``fill_value``."""
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = FUNCTIONS["nonzero"](input)._data
    arr = xp_of(input).full((size, input.dim()), fill_value, dtype=np.int64)
    rows = min(size, found.shape[0])
    arr[:rows] = found[:rows]
    result = wrap(arr, D.int64, input._device)
    return result if out is None else write_out(out, result, warn_resize=False)


register("nonzero_static", nonzero_static, family="indexing")


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   pin_memory=False, requires_grad=False):
    """An uninitialised tensor of logical shape ``size`` whose dimensions are laid out in memory
    in the order ``physical_layout`` (outermost first): ``empty_permuted((2, 3, 4), (0, 2, 1))``
    has strides ``(12, 1, 3)``."""
    size, order = tuple(size), tuple(physical_layout)
    if len(size) != len(order):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(size)} is not equal to "
                           f"len(physical_layout) = {len(order)}")
    for i, d in enumerate(order):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and "
                               f"{len(size) - 1}, but got {d} at index {i}).  NB: negative dims "
                               "not currently supported; file an issue if you want it.")
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    dense = FUNCTIONS["empty"]([size[d] for d in order], dtype=dtype, device=device)
    inverse = [order.index(d) for d in range(len(order))]
    result = dense.permute(inverse).detach()
    result._base = None            # a fresh tensor of its own, not a view
    return result.requires_grad_(requires_grad)


register("empty_permuted", empty_permuted, method=False, family="creation")


def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """A view of ``input``'s memory with ``src``'s sizes, strides and storage offset (what
    functionalization uses to undo ``slice``; ``dim``/``start``/``end``/``step`` only describe
    the slice being undone)."""
    return input.as_strided(tuple(src.shape), src.stride(), src.storage_offset())


register("slice_inverse", slice_inverse, family="views")
