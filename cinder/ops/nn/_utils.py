"""Helpers shared by the nn kernels: argument tuples, sliding windows, scatter-free adds."""

from types import SimpleNamespace

import numpy as np

from ... import _dtype as D
from ... import backend
from ..._tensor import make_tensor
from ...autograd import grad_mode
from .._prep import xp_of
from .._registry import record
from ...autograd.engine import run_backward

__all__ = ["ntuple", "like", "windows", "add_windows", "float_kernel_dtype", "check_float",
           "scatter_sum", "adjoint_node", "recompute_node",
           "recompute_grads", "index_tensor"]


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
    return backend.strided_view(arr, shape, strides)


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
# Double backward of fused kernels
# ----------------------------------------------------------------------------------------------
#
# Two shapes of fused backward, two ways to make it differentiable (PyTorch's derivatives.yaml
# does the same with ``*_backward`` entries of their own):
# - a backward that is linear in the incoming gradient and reads the input only through saved
#   indices or sizes (pooling, padding, resampling, shuffles, im2col, embedding): its own
#   derivative with respect to that gradient is the forward map again (``adjoint_node``);
# - a non-linear backward (norms, attention, recurrent layers): under ``create_graph=True`` the
#   gradients are taken through the same forward written in differentiable cinder ops
#   (``recompute_node`` / ``recompute_grads``), so they carry a graph of their own.


def index_tensor(arr, like_t):
    """An int64 tensor holding the index array ``arr`` on ``like_t``'s device."""
    return make_tensor(arr.astype(np.int64, copy=False), D.int64, like_t._device)


def _frozen(node, grad):
    """What ``node`` saved, read once (the double-backward node keeps these values even after
    the first node frees its buffers), plus the incoming gradient's shape."""
    values = {key: node.saved(key) for key in node._saved}
    return SimpleNamespace(grad_shape=tuple(grad.shape), **values)


def _zeros_for(gg, meta):
    shape, dtype, device = meta
    return make_tensor(xp_of(gg).zeros(shape, dtype=dtype.numpy_dtype), dtype, device)


def _adjoint_guarded(formula, double, index, adjoint, zero_self):
    def guarded(grad, s):
        out = formula(grad, s)
        if out is None or not grad_mode.STATE.grad_enabled:
            return out
        self_edge = s.next_functions[index] if zero_self else (None, 0)
        if not grad._requires_grad and self_edge[0] is None:
            return out
        node = record(double, (grad if grad._requires_grad else None, None), (out,),
                      first=_frozen(s, grad), self_meta=s._input_meta[index], adjoint=adjoint)
        if node is not None and zero_self:
            # The input's own edge: its gradient is zero (the indices are piecewise constant)
            # but it exists, as in PyTorch, so grad(grad_input, input) gives zeros.
            node.next_functions = (node.next_functions[0], self_edge)
        return out
    return guarded


def adjoint_node(name, formulas, saves_also=(), *, adjoint, zero_self=False):
    """``node_class`` for a fused kernel whose backward is linear in the incoming gradient.

    ``adjoint(gg, saved)`` is the op's forward map applied to ``gg`` (shaped like the input),
    written in differentiable cinder ops; ``saved`` holds the first node's saved values and
    ``grad_shape``. With create_graph=True each gradient the node returns is recorded as the
    output of ``<name minus 0>Backward0``, whose derivative is ``adjoint``. ``zero_self`` also
    connects the input itself, with a zero gradient (max pooling's ``self: zeros_like(self)``).
    """
    from .._registry import node_class
    double = node_class(name.replace("Backward0", "BackwardBackward0"), {
        "grad_output": lambda gg, b: b.adjoint(gg, b.first),
        "self": lambda gg, b: _zeros_for(gg, b.self_meta)},
        saves_also=("first", "self_meta", "adjoint"))
    wrapped = {k: (None if f is None else _adjoint_guarded(f, double, i, adjoint, zero_self))
               for i, (k, f) in enumerate(formulas.items())}
    return node_class(name, wrapped, saves_also=saves_also)


def recompute_grads(node, composite, keys, grads):
    """Gradients for ``node``'s inputs ``keys`` (saved under those names) as differentiable
    tensors: run ``composite(node, *inputs)`` — the op's forward in cinder ops — and
    backpropagate ``grads`` (one per output, None allowed) through it with create_graph."""
    tensors = [node.saved(k) for k in keys]
    live = [t for t in tensors if t is not None and t._requires_grad]
    outs = composite(node, *tensors)
    outs = outs if isinstance(outs, tuple) else (outs,)
    grads = grads if isinstance(grads, tuple) else (grads,)
    roots, root_grads = [], []
    for out, g in zip(outs, grads):
        if out is not None and g is not None and out._grad_fn is not None:
            roots.append((out._grad_fn, out._output_nr))
            root_grads.append(g)
    if not roots or not live:
        return (None,) * len(keys)
    found = iter(run_backward(roots, root_grads, True, True, inputs=live, accumulate=False,
                              allow_unused=True))
    return tuple(next(found) if t is not None and t._requires_grad else None
                 for t in tensors)


def recompute_node(name, formulas, saves_also=(), *, composite, joint=None):
    """``node_class`` whose fast ``formulas`` serve ordinary backward passes, and which under
    create_graph=True differentiates ``composite(node, *inputs)`` instead (see
    ``recompute_grads``). The node saves every input under its formula's name. ``joint``, when
    given, is ``joint(grad, node, wanted) -> one gradient per input`` (``wanted``: whether
    each input has an edge); it replaces the per-input formulas in ordinary backward passes
    so that work they share is done once."""
    from .._registry import _real_for_real_inputs, node_class
    keys = tuple(formulas)
    base = node_class(name, formulas, saves_also=tuple(saves_also) + keys)

    def _apply_formulas(self, grad):
        if not grad_mode.STATE.grad_enabled:
            if joint is None:
                return base._apply_formulas(self, grad)
            wanted = tuple(edge is not None for edge, _ in self.next_functions)
            return _real_for_real_inputs(joint(grad, self, wanted), self._input_meta)
        grads = recompute_grads(self, composite, keys, grad)
        return tuple(None if edge is None else g
                     for g, (edge, _) in zip(grads, self.next_functions))

    cls = type(name, (base,), {"__slots__": (), "_apply_formulas": _apply_formulas})
    cls.__module__ = base.__module__
    return cls


class ArrayBackward:
    """Mixin of the RNN nodes whose backward is one NumPy kernel over the whole sequence.

    The node names its inputs (``_input_names()``, saved under those names, the first being
    the input ``x``) and gives ``_composite``, its forward in differentiable ops; a subclass
    writes ``_array_grads(grads, needed)``, returning ``({input name: gradient array}, a
    gradient tensor to take device and dtype from)`` for the inputs in ``needed``. Under
    create_graph=True the gradients come from the composite instead (``recompute_grads``)."""

    __slots__ = ()

    def _apply_formulas(self, grads):
        names = self._input_names()
        if grad_mode.STATE.grad_enabled:    # create_graph=True: differentiable gradients
            return tuple(None if edge is None else g for g, (edge, _) in zip(
                recompute_grads(self, type(self)._composite, names, grads),
                self.next_functions))
        self.saved("x")                     # the saved input: raises once it is freed
        live = [edge is not None for edge, _ in self.next_functions]
        arrays, ref = self._array_grads(grads, {n for n, ok in zip(names, live) if ok})
        return tuple(like(arrays[n], ref) if ok and arrays.get(n) is not None else None
                     for n, ok in zip(names, live))
