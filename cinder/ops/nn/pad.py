"""Padding: constant (any number of dims, negative pads crop) and reflect / replicate /
circular (the last 1-3 dims).

The non-constant modes are index maps: each output position along a padded dim reads one
input position. The forward pass is one ``take`` per padded dim; the backward pass sums the
gradient of every output that read an input position, as a product with the (out, in) 0/1
matrix of that map, so repeated reads add up without ``np.add.at``.
"""

import numpy as np

from .._layouts import as_suggested, row_major
from .._prep import xp_of
from .._registry import needs_grad, record, register
from ._utils import adjoint_node, like

# ----------------------------------------------------------------------------------------------
# Constant padding
# ----------------------------------------------------------------------------------------------


def _pairs(pad, ndim):
    """Per-dim (before, after) pairs from PyTorch's last-dim-first flat ``pad`` list."""
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {ndim}")
    pairs = [(0, 0)] * ndim
    for i in range(len(pad) // 2):
        pairs[ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return pairs


def _slices(pairs, shape):
    """(source slices into the input, destination slices into the output)."""
    src, dst = [], []
    for (lo, hi), n in zip(pairs, shape):
        src.append(slice(max(-lo, 0), n - max(-hi, 0)))
        start = max(lo, 0)
        dst.append(slice(start, start + n - max(-lo, 0) - max(-hi, 0)))
    return tuple(src), tuple(dst)


def _constant_grad(grad, s):
    xp = xp_of(grad)
    gx = xp.zeros(s.self_shape, dtype=grad._data.dtype)
    gx[s.src] = grad._data[s.dst]
    return like(gx, grad)


ConstantPadNode = adjoint_node("ConstantPadNdBackward0", {"self": _constant_grad},
                               saves_also=("self_shape", "src", "dst", "pad"),
                               adjoint=lambda gg, sv: constant_pad_nd(gg, sv.pad, 0))


def constant_pad_nd(input, pad, value=0):
    """Pad (or, with negative values, crop) the trailing dims with ``value``; ``pad`` lists
    (before, after) for the last dim first."""
    shape = input._data.shape
    pairs = _pairs(pad, len(shape))
    out_shape = []
    for i, ((lo, hi), n) in enumerate(zip(pairs, shape)):
        size = n + lo + hi
        if size < 0:
            raise RuntimeError(f"The input size {n}, plus negative padding {lo} and {hi} "
                               f"resulted in a negative output size, which is invalid. Check "
                               f"dimension {i} of your input.")
        out_shape.append(size)
    xp = xp_of(input)
    out = xp.full(tuple(out_shape), value, dtype=input._data.dtype)
    src, dst = _slices(pairs, shape)
    if all(s.stop > s.start for s in src):
        out[dst] = input._data[src]
    result = like(as_suggested(out, input._data), input)     # channels-last stays so
    if needs_grad(input):
        record(ConstantPadNode, (input,), (result,), self_shape=shape, src=src, dst=dst,
               pad=pad)
    return result


register("constant_pad_nd", constant_pad_nd, method=False, family="nn.pad",
         nodes=(ConstantPadNode,))

# ----------------------------------------------------------------------------------------------
# Reflect / replicate / circular
# ----------------------------------------------------------------------------------------------


def _index_map(mode, n, lo, hi):
    """Input position read by each output position along one dim."""
    pos = np.arange(-lo, n + hi)
    if mode == "reflect":
        pos = np.abs(pos)
        pos = np.where(pos >= n, 2 * (n - 1) - pos, pos)
    elif mode == "replicate":
        pos = np.clip(pos, 0, n - 1)
    else:
        pos = pos % n
    return pos


def _map_grad(grad, s):
    xp = xp_of(grad)
    g = grad._data
    for axis, idx, n in zip(s.axes, s.maps, s.sizes):
        onehot = np.zeros((len(idx), n), dtype=g.dtype)
        onehot[np.arange(len(idx)), idx] = 1
        g = xp.moveaxis(xp.matmul(xp.moveaxis(g, axis, -1), xp.asarray(onehot)), -1, axis)
    return like(xp.ascontiguousarray(g), grad)


_MODE_NAMES = {"reflect": "ReflectionPad", "replicate": "ReplicationPad",
               "circular": "CircularPad"}
_MapNodes = {(mode, k): adjoint_node(f"{prefix}{k}DBackward0", {"self": _map_grad},
                                     saves_also=("axes", "maps", "sizes", "pad", "mode"),
                                     adjoint=lambda gg, sv: index_pad(gg, sv.pad, sv.mode))
             for mode, prefix in _MODE_NAMES.items() for k in (1, 2, 3)}


def _check_mode_pad(mode, input, pairs, axes):
    for axis in sorted(axes, reverse=True):     # PyTorch checks the last dim first
        lo, hi = pairs[axis]
        n = input.shape[axis]
        if mode == "reflect" and (lo >= n or hi >= n):
            # PyTorch numbers the pad argument of the dim: #4 for the last, #6 before it...
            arg = 4 + 2 * (input.dim() - 1 - axis)
            raise RuntimeError(f"Argument #{arg}: Padding size should be less than the "
                               f"corresponding input dimension, but got: padding ({lo}, {hi}) "
                               f"at dimension {axis} of input {list(input.shape)}")
        if mode == "circular" and (lo > n or hi > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "replicate" and n == 0 and (lo or hi):
            raise RuntimeError("input tensor must have at least one element along each padded "
                               "dim")


def index_pad(input, pad, mode):
    """Pad the last ``len(pad) // 2`` dims (1 to 3) by ``mode``: 'reflect' (mirror without
    repeating the edge), 'replicate' (repeat the edge) or 'circular' (wrap around)."""
    xp = xp_of(input)
    pairs = _pairs(pad, input._data.ndim)
    k = len(pad) // 2
    axes = tuple(range(input._data.ndim - k, input._data.ndim))
    _check_mode_pad(mode, input, pairs, axes)
    arr = input._data
    maps, sizes = [], []
    for axis in axes:
        idx = _index_map(mode, arr.shape[axis], *pairs[axis])
        maps.append(idx)
        sizes.append(arr.shape[axis])
        arr = xp.take(arr, xp.asarray(idx), axis=axis)
    # reflect/replicate keep a channels-last input's layout; circular pads row-major
    arr = row_major(arr) if mode == "circular" else as_suggested(arr, input._data)
    result = like(arr, input)
    if needs_grad(input):
        record(_MapNodes[(mode, k)], (input,), (result,), axes=axes, maps=maps, sizes=sizes,
               pad=pad, mode=mode)
    return result


register("index_pad", index_pad, method=False, function_too=False, family="nn.pad")
