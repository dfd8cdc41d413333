"""``torch.embedding_bag``: sums, means or maxima over bags of embedding rows, the kernel
behind ``nn.functional.embedding_bag``.

The pooled rows are a composite of the embedding lookup (``embedding.py``) and an index_add
(sum, mean) or a scatter-amax (max), so gradients reach the weight at every order. Like
PyTorch's CPU kernel it also returns three integer bookkeeping tensors: the bag of each index
(``offset2bag``), the number of rows that counted in each bag (``bag_size``) and, in max mode,
the weight row each maximum came from (``max_indices``).
"""

import numpy as np

from ... import _dtype as D
from .._prep import xp_of
from ...autograd import grad_mode
from ...backend.sparse import csr_matrix
from .._registry import needs_grad, node_class, record, register
from .embedding import _check_indices
from ._utils import float_kernel_dtype, like

_SUM, _MEAN, _MAX = 0, 1, 2


def _check(weight, indices, offsets, mode, per_sample_weights, padding_idx):
    """PyTorch's argument checks; returns the padding row (-1 for none)."""
    _check_indices(indices, "embedding_bag")
    _check_indices(offsets, "embedding_bag")
    if mode not in (_SUM, _MEAN, _MAX):
        raise RuntimeError("`mode` must be sum, mean, or max.")
    if per_sample_weights is not None and mode != _SUM:
        raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
    n = weight.shape[0]
    _check_range(indices, n, mode)
    if offsets.numel() and int(offsets[0]) != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {int(offsets[0])}")
    if padding_idx is None:
        return -1
    if not -n <= padding_idx < n:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, {-n} through "
                           f"{n - 1}, but got {padding_idx}")
    return padding_idx % n


def _check_range(indices, n, mode):
    """Every index must name a row (no negative indices here, unlike ``embedding``)."""
    flat = indices._data.reshape(-1)
    bad = (flat < 0) | (flat >= n)
    if not bad.any():
        return
    at = int(bad.argmax())
    value = int(flat[at])
    if mode == _MAX:
        raise RuntimeError(f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found "
                           f"idx to be {value}")
    raise RuntimeError(f"Index {at} of input takes value {value} which is not in the valid "
                       f"range [0, {n})")


def _bag_of(xp, indices, offsets, bags):
    """The bag of each index: the last of the first ``bags`` offsets at or before it (so the
    last bag runs to the end of the input, as in PyTorch's CPU kernel, even when
    ``include_last_offset`` gives a smaller final offset)."""
    starts = offsets._data[:bags].astype(np.int64)
    n = indices.shape[0]
    if bags and int(starts[0]) == 0:
        ends = xp.empty_like(starts)
        ends[:-1], ends[-1] = starts[1:], n
        lengths = ends - starts
        if bool((lengths >= 0).all()) and int(starts[-1]) <= n:
            # sorted offsets (the usual case): each bag's number repeated over its run
            return xp.repeat(xp.arange(bags), lengths)
    return xp.searchsorted(starts, xp.arange(n), side="right") - 1


def _fast_path(weight, mode, padding):
    """Whether PyTorch's CPU kernel takes its index-select path (sum or mean of float rows,
    no padding), whose bookkeeping differs from the general path's."""
    return mode != _MAX and padding < 0 and weight._dtype in (D.float32, D.float16, D.bfloat16)


def _max_rows(xp, flat, bag_of, weight, bags):
    """For each bag and column, the weight row holding the (first) maximum; 0 for empty bags.
    The kept indices come in bag order, so each bag is one run: the maxima and the first
    position reaching them are two ``reduceat`` passes over the runs, done with the columns
    as rows (a reduction along contiguous memory, several times faster than down columns)."""
    dim = weight.shape[1]
    out = xp.zeros((bags, dim), dtype=np.int64)
    if flat.size == 0:
        return out
    change = bag_of[1:] != bag_of[:-1]
    starts = xp.flatnonzero(xp.concatenate([xp.ones(1, bool), change]))
    lengths = xp.diff(xp.concatenate([starts, xp.array([flat.size])]))
    rows = xp.take(xp.ascontiguousarray(weight.T), flat, axis=1)       # (dim, kept)
    best = xp.maximum.reduceat(rows, starts, axis=1)
    # (int32 positions: half the memory traffic of int64 on this large temporary)
    kind = np.int32 if flat.size < 2 ** 31 - 1 else np.int64
    hits = xp.where(rows == xp.repeat(best, lengths, axis=1),
                    xp.arange(flat.size, dtype=kind), kind(flat.size))
    first = xp.minimum.reduceat(hits, starts, axis=1)
    out[bag_of[starts]] = flat[first].T
    return out


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Pool the rows of ``weight`` named by the 1-D ``indices`` in bags that start at
    ``offsets``: ``mode`` 0 sums (each row scaled by ``per_sample_weights`` when given),
    1 averages, 2 takes the maximum; rows at ``padding_idx`` take no part and an empty bag
    gives zeros. Returns ``(output, offset2bag, bag_size, max_indices)``."""
    padding = _check(weight, indices, offsets, mode, per_sample_weights, padding_idx)
    if include_last_offset and offsets.shape[0] < 1:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")
    xp = xp_of(weight)
    bags = offsets.shape[0] - 1 if include_last_offset else offsets.shape[0]
    flat = indices._data.reshape(-1).astype(np.int64)
    bag_of = _bag_of(xp, indices, offsets, bags)
    keep = bag_of >= 0
    if padding >= 0:
        keep &= flat != padding
    sizes = xp.bincount(bag_of[keep], minlength=bags)[:bags].astype(np.int64)
    if mode == _MAX:
        # each maximum is read from its weight row, so the gradient goes to that row (as
        # PyTorch sends it to max_indices); an empty bag gives zeros
        max_rows = _max_rows(xp, flat[keep], bag_of[keep], weight._data, bags)
        out = weight.gather(0, like(max_rows, weight, D.int64)) * \
            like((sizes > 0)[:, None], weight)
    else:
        max_rows = None
        out = _pooled_sum(weight, offsets, per_sample_weights, include_last_offset,
                          scale_grad_by_freq, padding, mode, flat, keep, bag_of, bags, sizes)
    return (out,) + _bookkeeping(xp, weight, indices, offsets, mode, padding, keep, bag_of,
                                 sizes, bags, out.requires_grad, max_rows)


def _weight_grad(grad, s):
    """Each bag's gradient sent back to the rows it pooled (scaled as the forward scaled
    them): the transposed pooling matrix times the bag gradients. Under create_graph=True
    the same sum in cinder ops (an index_select and an index_add), so it is differentiable."""
    if grad_mode.STATE.grad_enabled:
        return _weight_grad_ops(grad, s)
    xp = xp_of(grad)
    compute = float_kernel_dtype(grad)
    g = grad._data.astype(compute, copy=False)
    if s.counts is not None:
        g = g / s.counts[:, None].astype(compute)
    rows = xp.asarray(s.pool.T @ g)
    if s.freq is not None:
        rows /= xp.maximum(s.freq, 1)[:, None].astype(compute)
    return like(xp.ascontiguousarray(rows), grad)


def _weight_grad_ops(grad, s):
    kept_bags, kept_rows = _index_tensor(s.kept_bags, grad), _index_tensor(s.kept_rows, grad)
    g = grad if s.counts is None else grad / like(s.counts[:, None], grad)
    rows = g.index_select(0, kept_bags)
    if s.kept_weights is not None:
        rows = rows * s.kept_weights.unsqueeze(1)
    if s.freq is not None:
        rows = rows / like(s.freq[s.kept_rows], grad).unsqueeze(1)
    return grad.new_zeros(s.weight_shape).index_add(0, kept_rows, rows)


def _sample_weights_grad(grad, s):
    """d out / d per_sample_weights[j]: the bag's gradient dotted with row j (0 for the
    indices that were not pooled)."""
    if grad_mode.STATE.grad_enabled:
        dots = (grad.index_select(0, _index_tensor(s.kept_bags, grad)) *
                s.weight.index_select(0, _index_tensor(s.kept_rows, grad))).sum(1)
        return dots.new_zeros(s.num_indices).index_add(
            0, _index_tensor(s.kept_positions, grad), dots)
    xp = xp_of(grad)
    compute = float_kernel_dtype(grad)
    out = xp.zeros(s.num_indices, dtype=compute)
    g, w = grad._data.astype(compute, copy=False), s.weight._data.astype(compute, copy=False)
    out[s.kept_positions] = xp.einsum("ij,ij->i", g[s.kept_bags], w[s.kept_rows])
    return like(out, grad)


def _index_tensor(arr, ref):
    return like(arr, ref, D.int64)


EmbeddingBagNode = node_class("EmbeddingBagBackward0", {
    "weight": _weight_grad, "per_sample_weights": _sample_weights_grad},
    saves_also=("counts", "kept_bags", "kept_weights", "freq", "weight_shape", "kept_rows",
                "weight", "num_indices", "kept_positions", "pool"))


def _pooled_sum(weight, offsets, per_sample_weights, include_last_offset, scale_grad_by_freq,
                padding, mode, flat, keep, bag_of, bags, sizes):
    """The (bags, D) sums (means) of the pooled rows, scaled by ``per_sample_weights``: one
    product of the (bags, rows) pooling matrix with the weight; the backward uses the same
    matrix transposed."""
    xp = xp_of(weight)
    pooled = keep
    if include_last_offset and _fast_path(weight, mode, padding) and offsets.numel():
        # PyTorch's index-select fast path sums only up to the final offset, yet counts (and
        # a mean divides by) every index of the last bag
        pooled = keep & (xp.arange(keep.size) < int(offsets[-1]))
    positions = xp.arange(flat.size) if bool(pooled.all()) else xp.flatnonzero(pooled)
    kept_rows, kept_bags = flat[positions], bag_of[positions]
    compute = float_kernel_dtype(weight)
    values = xp.ones(positions.size, compute) if per_sample_weights is None else \
        per_sample_weights._data.reshape(-1)[positions].astype(compute)
    # the kept indices come in bag order, so the row pointers are the bags' running counts
    indptr = xp.zeros(bags + 1, dtype=np.int64)
    xp.cumsum(xp.bincount(kept_bags, minlength=bags)[:bags], out=indptr[1:])
    pool = csr_matrix(xp, values, kept_rows, indptr, (bags, weight.shape[0]))
    out = xp.asarray(pool @ weight._data.astype(compute, copy=False))
    if mode == _MEAN:
        out = out / xp.maximum(sizes, 1)[:, None].astype(compute)
    result = like(xp.ascontiguousarray(out), weight)
    if needs_grad(weight, per_sample_weights):
        freq = None
        if scale_grad_by_freq:
            freq = xp.bincount(flat, minlength=weight.shape[0])
        psw = per_sample_weights
        record(EmbeddingBagNode, (weight, psw), (result,),
               counts=None if mode != _MEAN else xp.maximum(sizes, 1),
               kept_bags=kept_bags, kept_rows=kept_rows, kept_positions=positions,
               weight_shape=tuple(weight.shape), pool=pool,
               kept_weights=None if psw is None else psw.reshape(-1)[
                   _index_tensor(positions, weight)],
               freq=freq, weight=weight, num_indices=flat.size)
    return result


def _bookkeeping(xp, weight, indices, offsets, mode, padding, keep, bag_of, sizes, bags,
                 recorded, max_rows):
    """offset2bag, bag_size and max_indices as PyTorch's CPU kernel leaves them: its
    index-select fast path (sum of float rows, no padding) fills no offset2bag, and a sum
    fills neither bag_size nor max_indices; a mean repeats bag_size as max_indices."""
    dtype = D.promote_types(indices._dtype, offsets._dtype)
    fast_sum = mode == _SUM and _fast_path(weight, mode, padding)
    offset2bag = xp.zeros(0, np.int64) if fast_sum else xp.maximum(bag_of, 0)
    if mode == _SUM:
        # PyTorch's forward-only kernel sizes these by the offsets (include_last_offset or
        # not), the one it runs when a gradient is needed by the bags
        count = bags if recorded else offsets.shape[0]
        bag_size = max_indices = xp.zeros(count, np.int64)
    elif mode == _MEAN:
        bag_size = max_indices = sizes
    else:
        bag_size, max_indices = sizes, max_rows
    return tuple(like(a.copy(), indices, dtype) for a in (offset2bag, bag_size, max_indices))


register("embedding_bag", embedding_bag, method=False, family="nn.embedding")
