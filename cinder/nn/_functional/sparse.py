"""``nn.functional``, lookup functions: one_hot, embedding, embedding_bag.

Re-exported by ``cinder/nn/functional.py`` (the module users import).
"""

from ... import _dtype as D
from ...autograd.grad_mode import no_grad
from ...ops.nn import embedding as _embedding
from . import _op

__all__ = ["one_hot", "embedding", "embedding_bag"]

_BAG_MODES = ("sum", "mean", "max")


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


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embeddings without building the per-index rows' tensor
    as an output: ``input`` is 2-D (one fixed-length bag per row) or 1-D with ``offsets``
    marking where each bag starts. ``per_sample_weights`` (mode 'sum') scales each row.
    Rows at ``padding_idx`` take no part (nor in a mean's count); an empty bag gives zeros.
    (``torch.embedding_bag`` does the pooling.)"""
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         f"is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        offsets = _op("arange")(0, input.numel(), max(input.shape[1], 1), dtype=input.dtype,
                                device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in _BAG_MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        with no_grad():
            _embedding.embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    return _op("embedding_bag")(weight, input, offsets, scale_grad_by_freq,
                                _BAG_MODES.index(mode), sparse, per_sample_weights,
                                include_last_offset, padding_idx)[0]
