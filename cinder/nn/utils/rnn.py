"""Variable-length sequences for recurrent layers: packing, padding and their inverses.

A packed sequence stores the batch's sequences sorted longest first and interleaved by time
step: ``data`` holds step 0 of every sequence, then step 1 of those still running, and so on;
``batch_sizes[t]`` says how many sequences run at step t. Moving between the padded and the
packed layouts is one gather (``index_select``) each way, so gradients flow through both.
"""

from collections import namedtuple

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor
from ...ops import FUNCTIONS as _OPS

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]

_PackedSequenceBase = namedtuple("PackedSequence_",
                                 ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PackedSequenceBase):
    """The packed form of a batch of variable-length sequences (made by
    :func:`pack_padded_sequence` or :func:`pack_sequence`, not by hand).

    ``data`` is the interleaved steps, ``batch_sizes`` (int64, CPU) the number of sequences
    alive at each step, ``sorted_indices``/``unsorted_indices`` the permutation to
    longest-first order and back (None when the input was already sorted).
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence "
                             "should never be created manually.")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The sequence with ``data`` (and the index tensors' device) converted as by
        ``Tensor.to``; ``batch_sizes`` stays on the CPU."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        def move(t):
            return None if t is None else t.to(data.device)
        return type(self)(data, self.batch_sizes, move(self.sorted_indices),
                          move(self.unsorted_indices))

    def cuda(self, *args, **kwargs):
        return self.to(self.data.cuda(*args, **kwargs).device)

    def cpu(self):
        return self.to("cpu")

    def double(self):
        return self.to(dtype=D.float64)

    def float(self):
        return self.to(dtype=D.float32)

    def half(self):
        return self.to(dtype=D.float16)

    def long(self):
        return self.to(dtype=D.int64)

    def int(self):
        return self.to(dtype=D.int32)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def invert_permutation(permutation):
    """The inverse of a 1-d index permutation (None stays None)."""
    if permutation is None:
        return None
    perm = permutation.cpu().numpy()
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.size, dtype=perm.dtype)
    return _OPS["from_numpy"](inv).to(permutation.device)


def _batch_sizes(lengths):
    """batch_sizes[t] = how many of the (descending) lengths exceed t."""
    steps = np.arange(int(lengths[0]))
    return (lengths[None, :] > steps[:, None]).sum(1).astype(np.int64)


def _step_and_batch(batch_sizes):
    """(time step, batch slot) of every packed row."""
    t_idx = np.repeat(np.arange(batch_sizes.size), batch_sizes)
    b_idx = np.concatenate([np.arange(n) for n in batch_sizes])
    return t_idx, b_idx


def _packed_rows(batch_sizes, size1, batch_first):
    """Row of the flattened padded input (``T*B`` or ``B*T`` rows; ``size1`` is its second
    dimension) that each packed row reads."""
    t_idx, b_idx = _step_and_batch(batch_sizes)
    return b_idx * size1 + t_idx if batch_first else t_idx * size1 + b_idx


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (``T x B x *``, or ``B x T x *`` with ``batch_first``) whose
    sequences have the given ``lengths``. Unless ``enforce_sorted``, the batch is sorted by
    length first and the permutation is kept in the result."""
    if isinstance(lengths, Tensor):
        lens = lengths.cpu().numpy().astype(np.int64)
    else:
        lens = np.asarray(lengths, dtype=np.int64)
    sorted_indices = None
    if not enforce_sorted:
        # PyTorch sorts with torch.sort(descending=True), whose order of equal lengths is
        # std::sort's, not the stable one
        order = _OPS["sort"](_OPS["from_numpy"](lens), descending=True).indices.numpy()
        lens = lens[order]
        sorted_indices = _OPS["from_numpy"](order.astype(np.int64)).to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if lens.size and lens.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if np.any(np.diff(lens) > 0):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                           "pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    steps = input.shape[1] if batch_first else input.shape[0]
    if lens[0] > steps:
        raise RuntimeError(f"Expected sequence length to be larger than or equal to "
                           f"{lens[0]}, got {steps}")   # checked as PyTorch's kernel does
    batch_sizes = _batch_sizes(lens)
    rows = _packed_rows(batch_sizes, input.shape[1], batch_first)
    flat = input.reshape((-1,) + tuple(input.shape[2:]))
    data = flat.index_select(0, _OPS["from_numpy"](rows).to(input.device))
    return PackedSequence(data, _OPS["from_numpy"](batch_sizes), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo :func:`pack_padded_sequence`: the padded batch (in the original order) and a
    tensor of the sequence lengths."""
    batch_sizes = sequence.batch_sizes.numpy().astype(np.int64)
    max_len = batch_sizes.size
    if total_length is not None:
        if total_length < max_len:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {max_len}")
        max_len = total_length
    data = sequence.data
    batch = int(batch_sizes[0])
    t_idx, b_idx = _step_and_batch(batch_sizes)
    # Every padded slot reads a packed row, or the extra padding row appended at the end.
    source = np.full((max_len, batch), data.shape[0], dtype=np.int64)
    source[t_idx, b_idx] = np.arange(data.shape[0])
    if batch_first:
        source = source.T
    pad_row = _OPS["full"]((1,) + tuple(data.shape[1:]), padding_value, dtype=data.dtype,
                          device=data.device)
    table = _OPS["cat"]([data, pad_row], 0)
    padded = table.index_select(0, _OPS["from_numpy"](source.reshape(-1)).to(data.device))
    padded = padded.reshape(source.shape + tuple(data.shape[1:]))
    lengths = _OPS["from_numpy"]((batch_sizes[None, :] > np.arange(batch)[:, None]).sum(1)
                                .astype(np.int64))
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.cpu()]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of different lengths (each ``L x *``) into one ``T x B x *`` tensor
    (``B x T x *`` with ``batch_first``), filling with ``padding_value`` on
    ``padding_side``."""
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    longest = max(s.shape[0] for s in sequences)
    rows = []
    for s in sequences:
        gap = longest - s.shape[0]
        if gap:
            fill = _OPS["full"]((gap,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype,
                               device=s.device)
            s = _OPS["cat"]([s, fill] if padding_side == "right" else [fill, s], 0)
        rows.append(s)
    return _OPS["stack"](rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Split a padded batch back into a list of its sequences (without padding)."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(n)] for seq, n in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences (each ``L x *``): :func:`pad_sequence` then
    :func:`pack_padded_sequence`."""
    lengths = _OPS["as_tensor"]([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a :class:`PackedSequence` holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
