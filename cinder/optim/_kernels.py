"""Helpers the update functions share: reaching a tensor's array, and running an elementwise
update over cache-sized blocks.

An optimizer step is a handful of elementwise passes over each parameter (scale, add, sqrt,
divide...). Written as whole-array NumPy ufuncs with ``out=``, each pass streams the full
parameter through main memory. Running all passes on one block of ~16K elements before moving
to the next keeps the block in the CPU cache, so a large parameter is read and written about
once per step instead of once per pass. The numbers are identical either way: every pass is
elementwise. On CUDA (CuPy) the kernel runs on whole arrays.
"""

import numpy as np

from .. import backend
from ..backend import blas
from .._tensor import make_tensor
from .optimizer import _get_scalar_dtype

BLOCK = 1 << 16


def zeros_state(param, fill=0):
    """A state buffer shaped and typed like ``param`` (``torch.zeros_like``/``full_like``)."""
    arr = param._data
    xp = array_module(param)
    buf = xp.zeros_like(arr) if fill == 0 else xp.full_like(arr, fill)
    return make_tensor(buf, param.dtype, param.device)


def scalar_state(value=0.0):
    """A 0-d float32 CPU tensor (``step``, ``mu_product``, ``eta``...), as PyTorch keeps them."""
    dtype = _get_scalar_dtype()
    return make_tensor(np.array(value, dtype=dtype.numpy_dtype), dtype)


def bump(step_t):
    """``step_t += 1`` on the counter tensor; returns the new count as a Python float."""
    step_t._data += 1
    step_t._bump_version()
    return float(step_t._data)


def array_module(tensor):
    """The array namespace (numpy or cupy) of ``tensor``'s device."""
    return backend.array_module(tensor.device)


def _flat_views(arrays):
    """1-d views of ``arrays`` sharing memory, or None when one of them cannot be viewed so."""
    flat = []
    for a in arrays:
        if a is None:
            flat.append(None)
        elif a.flags.c_contiguous:
            flat.append(a.reshape(-1))
        else:
            return None
    return flat


def run_blocked(kernel, arrays, n_scratch, **options):
    """Call ``kernel(*arrays, *scratch, **options)`` block by block.

    ``arrays`` all have the same shape; the kernel updates some of them in place with ``out=``
    ufuncs and may use the ``n_scratch`` scratch arrays (same dtype as ``arrays[0]``) freely.
    ``None`` entries in ``arrays`` are passed through unchanged (optional state). Contiguous
    CPU arrays are handed over as 1-d views (so BLAS vector routines apply). A kernel that
    needs no scratch makes no temporaries, so it gains nothing from blocks and runs once.
    """
    first = arrays[0]
    if type(first) is not np.ndarray:
        xp = backend.array_module(backend.device_of_array(first))
        kernel(*arrays, *[xp.empty_like(first) for _ in range(n_scratch)], **options)
        return
    flat = _flat_views(arrays)
    if flat is None:
        kernel(*arrays, *[np.empty_like(first) for _ in range(n_scratch)], **options)
        return
    size = first.size
    if size <= BLOCK or n_scratch == 0:
        kernel(*flat, *[np.empty(size, first.dtype) for _ in range(n_scratch)], **options)
        return
    scratch = [np.empty(BLOCK, dtype=first.dtype) for _ in range(n_scratch)]
    for start in range(0, size, BLOCK):
        stop = min(start + BLOCK, size)
        n = stop - start
        kernel(*[None if a is None else a[start:stop] for a in flat],
               *[s[:n] for s in scratch], **options)


def axpy(alpha, x, y):
    """``y += alpha * x``: one fused BLAS pass for contiguous CPU vectors, an ordinary
    expression (with a temporary) otherwise."""
    if not blas.axpy(alpha, x, y):
        y += alpha * x


def effective_grad(xp, grad, param, weight_decay, maximize, out):
    """``(-grad if maximize else grad) + weight_decay * param`` as PyTorch forms it; returns
    ``grad`` itself when nothing changes it (no copy)."""
    if weight_decay != 0:
        xp.multiply(param, weight_decay, out=out)
        if maximize:
            xp.subtract(out, grad, out=out)
        else:
            xp.add(out, grad, out=out)
        return out
    if maximize:
        return xp.negative(grad, out=out)
    return grad


def lerp_(xp, start, end, weight, tmp):
    """``start.lerp_(end, weight)`` with PyTorch's two-sided formula (exact at weight 1)."""
    if weight < 0.5:
        xp.subtract(end, start, out=tmp)
        tmp *= weight
        start += tmp
    else:
        xp.subtract(end, start, out=tmp)
        tmp *= 1 - weight
        xp.subtract(end, tmp, out=start)


def real_view(arr):
    """A complex array's memory seen as real pairs (``view_as_real``); other arrays as they
    are."""
    if arr is not None and arr.dtype.kind == "c":
        return arr.view(arr.real.dtype).reshape(arr.shape + (2,))
    return arr
