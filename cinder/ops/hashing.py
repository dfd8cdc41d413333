"""``torch.hash_tensor``: a cheap fingerprint of a tensor's values (PyTorch 2.9+).

Mode 0, the only one, widens each element to its 64-bit counterpart (floats to float64,
integers and bool to int64), reads those 64 bits as an unsigned integer and combines them
with XOR, over every element or over ``dim``. The result is uint64 and never requires grad.
"""

import numpy as np

from .. import _dtype as D
from ._prep import wrap, xp_of
from ._reduction_factory import dim_axes, reduced_shape
from ._registry import register, write_out


def _bits64(xp, input):
    """The elements as uint64 bit patterns of their 64-bit widening."""
    a = input._data
    if input._dtype.category == D.FLOATING:
        return a.astype(np.float64).view(np.uint64)
    if input._dtype is D.uint64:
        return a
    return a.astype(np.int64).view(np.uint64)


def _check(input, axes, mode):
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    if input._dtype.category == D.COMPLEX:
        raise NotImplementedError(f'"xor_sum_cpu" not implemented for '
                                  f"'{input._dtype.scalar_name}'")
    if input.numel() == 0:
        if axes is None:
            raise RuntimeError("hash_tensor: Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        for ax in axes:
            if input.shape[ax] == 0:
                raise IndexError(f"hash_tensor: Expected reduction dim {ax} to have non-zero "
                                 f"size.")


def hash_tensor(input, dim=None, *, keepdim=False, mode=0, out=None):
    """The XOR of the elements' 64-bit patterns, over all elements or over ``dim`` (an int
    or a tuple of ints; ``keepdim`` keeps the reduced dims with size 1), as a uint64 tensor.
    Floats are first widened to float64 and integers to int64, so equal values give equal
    hashes whatever their width."""
    axes = dim_axes(input, dim)
    _check(input, axes, mode)
    xp = xp_of(input)
    bits = _bits64(xp, input)
    reduced = xp.bitwise_xor.reduce(bits, axis=axes, keepdims=keepdim) if bits.ndim else bits
    shape = reduced_shape(tuple(input.shape), range(input.dim()) if axes is None else axes,
                          keepdim)
    result = wrap(xp.asarray(reduced, dtype=np.uint64).reshape(shape), D.uint64,
                  input._device)
    if out is not None:
        if out._dtype is not D.uint64:
            raise RuntimeError(f"Expected result to be of dtype uint64, but got "
                               f"{out._dtype.scalar_name}")
        return write_out(out, result)
    return result


register("hash_tensor", hash_tensor, family="reduction")
