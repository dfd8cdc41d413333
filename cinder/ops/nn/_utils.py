"""Helpers shared by the nn kernels: argument tuples, sliding windows, scatter-free adds."""

import numpy as np

from ... import _dtype as D
from ..._tensor import make_tensor
from ...autograd import grad_mode
from ...autograd.graph import SavedTensor
from .._prep import xp_of
from .._registry import record

__all__ = ["ntuple", "like", "windows", "add_windows", "float_kernel_dtype", "check_float",
           "scatter_sum", "first_order_node"]


def ntuple(value, n, name="argument"):
    """``value`` as a tuple of ``n`` ints (an int repeats; a 1-sequence repeats too)."""
    if isinstance(value, (list, tuple)):
        if len(value) == 1 and n > 1:
            return tuple(int(value[0]) for _ in range(n))
        if len(value) != n:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                               f"values to match the convolution dimensions, but got "
                               f"{name}={list(value)}")
        return tuple(int(v) for v in value)
    return (int(value),) * n


def like(arr, t, dtype=None):
    """A result tensor holding ``arr``, on ``t``'s device, in ``t``'s dtype unless given."""
    dt = t._dtype if dtype is None else dtype
    if arr.dtype != dt.numpy_dtype:
        arr = arr.astype(dt.numpy_dtype)
    return make_tensor(arr, dt, t._device)


def float_kernel_dtype(t):
    """The NumPy dtype a float kernel computes in: half types go through float32 (BLAS has
    no half GEMM) and come back rounded once, as PyTorch's CPU kernels accumulate in float."""
    if t._dtype in (D.float16, D.bfloat16):
        return np.dtype(np.float32)
    return t._dtype.numpy_dtype


def check_float(t, kernel):
    """Refuse integer and bool inputs the way PyTorch's CPU kernels do."""
    if t._dtype.category != D.FLOATING:
        raise RuntimeError(f'"{kernel}" not implemented for \'{t._dtype.scalar_name}\'')


def windows(xp, arr, ksize, stride, dilation, out, kernel_first=True):
    """A strided view of every window of ``arr`` (N, C, *spatial) without copying.

    With ``kernel_first`` the view is (N, C, *k, *out) — the layout whose reshape to
    (N, C*K, L) is the im2col matrix; otherwise (N, C, *out, *k).
    """
    lead = arr.strides[:2]
    sp = arr.strides[2:]
    k_strides = tuple(s * d for s, d in zip(sp, dilation))
    o_strides = tuple(s * st for s, st in zip(sp, stride))
    if kernel_first:
        shape = arr.shape[:2] + tuple(ksize) + tuple(out)
        strides = lead + k_strides + o_strides
    else:
        shape = arr.shape[:2] + tuple(out) + tuple(ksize)
        strides = lead + o_strides + k_strides
    return xp.lib.stride_tricks.as_strided(arr, shape, strides, writeable=False)


def add_windows(target, cols, ksize, stride, dilation, out):
    """The adjoint of ``windows``: add ``cols`` (N, C, *k, *out) into ``target`` (N, C,
    *spatial) window by window. One vectorised add per kernel offset, so overlapping windows
    accumulate correctly without ``np.add.at``."""
    nd = len(ksize)
    for offset in np.ndindex(*ksize):
        dst = (slice(None), slice(None)) + tuple(
            slice(o * d, o * d + (n - 1) * s + 1, s)
            for o, d, n, s in zip(offset, dilation, out, stride))
        target[dst] += cols[(slice(None), slice(None)) + offset + (slice(None),) * nd]
    return target


def scatter_sum(xp, flat_index, values, size):
    """``out[flat_index[i]] += values[i]`` for a 1-d ``out`` of ``size`` (repeated indices add
    up), by a sort-free ``bincount`` rather than ``np.add.at``."""
    if xp is np:
        res = np.bincount(flat_index, weights=values.astype(np.float64, copy=False),
                          minlength=size)
        return res
    out = xp.zeros(size, dtype=values.dtype)
    xp.add.at(out, flat_index, values)       # cupy's add.at is an atomic scatter: fast on GPU
    return out


def tensor_of(t):
    """The backend array namespace of ``t`` (re-exported for the kernels)."""
    return xp_of(t)


# ----------------------------------------------------------------------------------------------
# Nodes whose backward kernels are first order only
# ----------------------------------------------------------------------------------------------

_ERROR_NODES = {}


def _double_backward_error(name):
    """A node class that refuses to be differentiated (a second backward through ``name``)."""
    if name not in _ERROR_NODES:
        def refuse(grad, s):
            raise RuntimeError(f"cinder: double backward through {name} is not implemented "
                               "(its backward is a fused first-order kernel)")
        from .._registry import node_class
        _ERROR_NODES[name] = node_class(f"{name}Backward", {f"input{i}": refuse
                                                            for i in range(8)})
    return _ERROR_NODES[name]


def _guarded(formula, name):
    def guarded(grad, s):
        out = formula(grad, s)
        if out is not None and grad_mode.STATE.grad_enabled:
            # create_graph=True: the result must not look like a constant. Connect it to the
            # incoming gradient and the saved tensors through a node that raises if used.
            live = [grad] if grad._requires_grad else []
            for key, value in s._saved.items():
                if isinstance(value, SavedTensor):
                    t = s.saved(key)
                    if t._requires_grad:
                        live.append(t)
            if live:
                record(_double_backward_error(name), tuple(live[:8]), (out,))
        return out
    return guarded


def first_order_node(name, formulas, saves_also=()):
    """``node_class`` for a fused kernel whose backward is not itself differentiable: with
    create_graph=True its gradients carry a node that raises on a second backward, instead
    of silently acting as constants. ``saves_also`` must name everything the formulas read."""
    from .._registry import node_class
    wrapped = {k: (None if f is None else _guarded(f, name)) for k, f in formulas.items()}
    return node_class(name, wrapped, saves_also=saves_also)
