"""Embedding lookup with a sorted segment-sum backward, and the in-place max-norm renorm.

The gradient of a lookup sends each output row back to the weight row it was read from, and
an index that appears many times gets the sum of its rows. Sorting the indices puts equal
ones next to each other, so one ``np.add.reduceat`` sums every run at once — no ``np.add.at``.
"""

import numpy as np

from ... import _dtype as D
from .._prep import xp_of
from .._registry import needs_grad, record, register
from ._utils import adjoint_node, index_tensor, like


def segment_rows(xp, index, rows, num_rows, padding_idx=None, scale_by_freq=False):
    """A (num_rows, D) array whose row i is the sum of ``rows[j]`` over all j with
    ``index[j] == i`` (``padding_idx`` rows stay zero; with ``scale_by_freq`` each sum is
    divided by how often its index occurs)."""
    out = xp.zeros((num_rows, rows.shape[1]), dtype=rows.dtype)
    if index.size == 0:
        return out
    order = xp.argsort(index, kind="stable")
    sorted_idx = index[order]
    starts = xp.concatenate([xp.zeros(1, dtype=np.int64),
                             xp.flatnonzero(sorted_idx[1:] != sorted_idx[:-1]) + 1])
    sums = xp.add.reduceat(rows[order], starts, axis=0)
    keys = sorted_idx[starts]
    if scale_by_freq:
        counts = xp.diff(xp.concatenate([starts, xp.asarray([index.size])]))
        sums = sums / counts[:, None].astype(sums.dtype)
    out[keys] = sums
    if padding_idx is not None and padding_idx >= 0:
        out[padding_idx] = 0
    return out


def _weight_grad(grad, s):
    xp = xp_of(grad)
    g = grad._data.reshape(-1, grad.shape[-1])
    padding = s.padding_idx if s.padding_idx >= 0 else None
    gw = segment_rows(xp, s.indices.ravel(), g, s.num_weights, padding, s.scale_grad_by_freq)
    return like(gw, grad)


def _lookup_adjoint(gg, sv):
    """Rows of ``gg`` (num_weights, D) picked by the saved indices, zero at ``padding_idx``:
    the derivative of the embedding backward. As PyTorch's embedding_dense_double_backward,
    it does not apply ``scale_grad_by_freq``."""
    flat = sv.indices.ravel()
    rows = gg.index_select(0, index_tensor(flat, gg))
    if sv.padding_idx >= 0:
        rows = rows * like((flat != sv.padding_idx)[:, None], gg)
    return rows.reshape(tuple(sv.indices.shape) + (gg.shape[1],))


EmbeddingNode = adjoint_node("EmbeddingBackward0", {"weight": _weight_grad, "indices": None},
                             saves_also=("indices", "num_weights", "padding_idx",
                                         "scale_grad_by_freq"), adjoint=_lookup_adjoint)


def _check_indices(indices, fn):
    if indices._dtype not in (D.int64, D.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {indices.type()} "
                           f"instead (while checking arguments for {fn})")


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` (num_embeddings, D) picked by integer ``indices``: a (*indices.shape,
    D) tensor. ``padding_idx`` rows get no gradient. ``sparse`` is accepted, but the gradient
    is always dense (cinder has no sparse tensors)."""
    _check_indices(indices, "embedding")
    if weight._data.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    xp = xp_of(weight)
    idx = indices._data.astype(np.int64, copy=False)
    n = weight.shape[0]
    if idx.size and (int(idx.min()) < -n or int(idx.max()) >= n):
        raise IndexError("index out of range in self")
    result = like(weight._data[idx], weight)
    if needs_grad(weight):
        record(EmbeddingNode, (weight, None), (result,), indices=xp.where(idx < 0, idx + n, idx),
               num_weights=n, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq)
    return result


register("embedding", embedding, method=False, family="nn.embedding", nodes=(EmbeddingNode,))


def embedding_renorm_(weight, indices, max_norm, norm_type):
    """Rescale, in place, each row of ``weight`` named in ``indices`` whose ``norm_type``-norm
    exceeds ``max_norm`` so that its norm becomes ``max_norm`` (PyTorch's 1e-7 guard)."""
    xp = xp_of(weight)
    rows = xp.unique(indices._data.astype(np.int64).ravel())
    w = weight._data
    sel = w[rows].astype(np.float64) if w.dtype != np.float64 else w[rows]
    if norm_type == float("inf"):
        norms = xp.abs(sel).max(axis=1)
    elif norm_type == 0:
        norms = (sel != 0).sum(axis=1).astype(sel.dtype)
    else:
        norms = (xp.abs(sel) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    big = norms > max_norm
    scale = (max_norm / (norms[big] + 1e-7)).astype(w.dtype)
    w[rows[big]] = w[rows[big]] * scale[:, None]
    weight._bump_version()
    return weight


register("embedding_renorm_", embedding_renorm_, method=False, family="nn.embedding")
