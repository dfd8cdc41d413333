"""``channel_shuffle``: interleave the channel groups of (N, C, *) (ShuffleNet).

Its gradient is the inverse permutation, which is again a channel shuffle (with ``C / groups``
groups), so the formula is the op itself.
"""

from .._layouts import as_suggested
from .._prep import wrap
from .._registry import needs_grad, node_class, record, register

ChannelShuffleNode = node_class("ChannelShuffleBackward0", {
    "self": lambda grad, s: channel_shuffle(grad, s.channels // s.groups)},
    saves_also=("channels", "groups"))


def channel_shuffle(input, groups):
    """(N, C, *) -> the C channels split into ``groups`` and interleaved."""
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    shape = input._data.shape
    if len(shape) <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(shape)}")
    channels = shape[1]
    if channels % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {channels} "
                           f"channels and {groups} groups.")
    a = input._data.reshape((shape[0], groups, channels // groups) + shape[2:])
    out = a.swapaxes(1, 2).reshape(shape)        # reshape of the swapped view copies
    result = wrap(as_suggested(out, input._data), input._dtype, input._device)
    if needs_grad(input):
        record(ChannelShuffleNode, (input,), (result,), channels=channels, groups=groups)
    return result


register("channel_shuffle", channel_shuffle, method=False, family="nn.shuffle",
         nodes=(ChannelShuffleNode,))
