"""``torch.histogramdd``: a D-dimensional histogram of the points in the last dimension of
``input`` (counts, or a density, with optional weights), through ``numpy.histogramdd``."""

import builtins

import numpy as np

from .. import _dtype as D
from .. import return_types
from .._tensor import Tensor
from ._prep import not_implemented, wrap
from ._registry import register


def _bins_arg(bins, dims, input):
    if isinstance(bins, int):
        return [bins] * dims
    bins = list(bins)
    if len(bins) != dims:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    for i, b in enumerate(bins):
        if isinstance(b, Tensor) and b._dtype is not input._dtype:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have "
                               f"the same dtype, but got input with dtype "
                               f"{input._dtype.scalar_name.lower()} and bins for dimension {i} "
                               f"with dtype {b._dtype.scalar_name.lower()}")
    return [np.asarray(b._data) if isinstance(b, Tensor) else b for b in bins]


def _range_arg(range, dims):
    if range is None:
        return None
    if len(range) != 2 * dims:
        raise RuntimeError(f"torch.histogramdd: for a {dims}-dimensional histogram range should "
                           f"have {2 * dims} elements, but got {len(range)}")
    return [(range[2 * i], range[2 * i + 1]) for i in builtins.range(dims)]


def histogramdd(input, bins, range=None, weight=None, density=False):
    """``(hist, bin_edges)``: the histogram of the points ``input[..., :]`` (D coordinates
    each), with ``bins`` a count, one count per dimension, or one tensor of edges per
    dimension; ``range`` gives (min, max) per dimension as a flat list."""
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    if input._dtype not in (D.float32, D.float64):
        not_implemented("histogramdd", input._dtype)
    dims = input.shape[-1]
    points = np.asarray(input._data).reshape(-1, dims)
    w = None if weight is None else np.asarray(weight._data).reshape(-1)
    hist, edges = np.histogramdd(points, bins=_bins_arg(bins, dims, input),
                                 range=_range_arg(range, dims), weights=w, density=density)
    dt, dev = input._dtype, input._device
    return return_types.histogramdd((
        wrap(hist.astype(dt.numpy_dtype), dt, dev),
        tuple(wrap(e.astype(dt.numpy_dtype), dt, dev) for e in edges)))


register("histogramdd", histogramdd, method=False, family="sorting")
