"""``nn.functional``, lookup functions: one_hot, embedding, embedding_bag.

Re-exported by ``cinder/nn/functional.py`` (the module users import).
"""

from ... import _dtype as D
from ...autograd.grad_mode import no_grad
from ...ops.nn import embedding as _embedding
from . import _op

__all__ = ["one_hot", "embedding", "embedding_bag"]


def one_hot(tensor, num_classes=-1):
    """Int64 one-hot encoding with a new last dimension of size ``num_classes`` (the largest
    class + 1 when -1)."""
    if tensor._dtype is not D.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.max()) + 1
    if tensor.numel() and int(tensor.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if tensor.numel() and int(tensor.max()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    # PyTorch's own composite: zeros with a class dimension, a 1 scattered at each index.
    out = tensor.new_zeros(tuple(tensor.shape) + (num_classes,))
    return out.scatter_(-1, tensor.unsqueeze(-1), 1)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Look up rows of ``weight`` (num_embeddings, embedding_dim) by the integer ``input``.

    ``padding_idx`` rows get no gradient; with ``max_norm`` the looked-up rows are first
    renormalised in place; ``scale_grad_by_freq`` divides gradients by index frequency.
    ``sparse=True`` is accepted but the gradient is dense (cinder has no sparse tensors).
    """
    if padding_idx is not None:
        n = weight.size(0)
        if padding_idx > 0 and padding_idx >= n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            if padding_idx < -n:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = n + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        with no_grad():
            _embedding.embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    return _embedding.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def _bag_layout(input, offsets, include_last_offset):
    """(flat indices, bag of each index (-1 before the first offset), number of bags) of an
    embedding_bag call, computed with ops."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        bags, length = input.shape
        bag_of = _op("arange")(bags * length, device=input.device) // max(length, 1)
        return input.reshape(-1), bag_of, bags
    if input.dim() != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.dim() != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    bags = offsets.shape[0] - 1 if include_last_offset else offsets.shape[0]
    # Index i belongs to the last bag starting at or before it. PyTorch's CPU kernel runs the
    # last bag to the end of the input even when include_last_offset gives a smaller final
    # offset, which this rule does too (only the first ``bags`` offsets are starts).
    starts = offsets[:bags].to(D.int64)
    positions = _op("arange")(input.shape[0], device=input.device)
    bag_of = _op("searchsorted")(starts, positions, right=True) - 1
    return input, bag_of, bags


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embeddings without building the per-index rows' tensor
    as an output: ``input`` is 2-D (one fixed-length bag per row) or 1-D with ``offsets``
    marking where each bag starts. ``per_sample_weights`` (mode 'sum') scales each row.
    Rows at ``padding_idx`` take no part (nor in a mean's count); an empty bag gives zeros."""
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    flat, bag_of, bags = _bag_layout(input, offsets, include_last_offset)
    rows = embedding(flat, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1, 1)
    keep = bag_of >= 0
    if padding_idx is not None:
        keep = keep.logical_and(flat != padding_idx % weight.shape[0])
    bag_of, rows = bag_of[keep], rows[keep]
    out = weight.new_zeros((bags, weight.shape[1]))
    if mode == "max":
        # include_self=False: an empty bag keeps its zeros
        return out.scatter_reduce(0, bag_of.unsqueeze(1).expand_as(rows), rows, "amax",
                                  include_self=False)
    out = out.index_add(0, bag_of, rows)
    if mode == "mean":
        count = _op("bincount")(bag_of, minlength=bags).clamp(min=1)
        out = out / count.unsqueeze(1).to(out.dtype)
    return out
