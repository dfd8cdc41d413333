"""The pointwise factories: ``binary(...)`` and ``unary(...)`` build an op's function, method,
in-place and ``out=`` forms from a kernel on arrays and the derivative node.

``cinder.ops.pointwise`` (binary arithmetic, comparisons, clamp, where) and
``cinder.ops.unary`` (unary math) are written with them; both names are re-exported from
``cinder.ops.pointwise`` for code written against it.
"""

import numpy as np

from .. import _dtype as D
from .._device import CPU
from .._tensor import Tensor, make_tensor
from ..backend import blas
from .creation import scalar_tensor_like
from .limited_uint import LIMITED, SELF, claim
from ._layouts import pointwise_layout
from ._prep import (
    binary_operands,
    broadcast_shape,
    check_tensor_arg,
    is_scalar,
    not_implemented,
    reraise_broadcast,
    scalar_as,
    wrap,
    xp_of,
)
from ._registry import (
    _check_broadcast_into,
    cast_check,
    check_inplace,
    commit_inplace,
    make_inplace,
    needs_grad,
    record,
    register,
    write_out,
)

# ----------------------------------------------------------------------------------------------
# Factories
# ----------------------------------------------------------------------------------------------

_COMPLEX = frozenset((D.complex64, D.complex128))
_BOOL_COMPLEX = _COMPLEX | {D.bool}
_FLOATING = frozenset((D.float16, D.bfloat16, D.float32, D.float64))
_NOT_INTEGRAL = _FLOATING | _COMPLEX


def _dtype_check(name, check=None, unsupported=None, tensor_other=False, limited=None):
    """Combine the argument checks of a binary op into one ``check(dt, input, other)``.

    ``unsupported`` is ``(kernel_name, dtypes)``: PyTorch has no kernel for those result dtypes
    (NotImplementedError). ``tensor_other``: ``other`` may not be a Python scalar.
    ``limited``: the kernel name refusing the limited unsigned dtypes (``limited_uint.py``).
    """
    if unsupported is None and not tensor_other and limited is None:
        return check
    kernel_name, bad = unsupported if unsupported is not None else (None, ())
    if limited is not None:
        bad = frozenset(bad) | LIMITED

    def refuse(dt, input, other):
        # PyTorch checks that the shapes broadcast before it looks for a kernel
        broadcast_shape(input._data.shape, np.shape(getattr(other, "_data", other)))
        not_implemented(limited if dt in LIMITED else kernel_name, dt)

    if check is None and not tensor_other:
        def dtypes_only(dt, input, other):     # the common case, kept short
            if dt in bad:
                refuse(dt, input, other)
        return dtypes_only

    def combined(dt, input, other):
        if tensor_other:
            check_tensor_arg(other, name)
        if dt in bad:
            refuse(dt, input, other)
        if check is not None:
            check(dt, input, other)
    return combined


# Result dtypes the scalar fast path of ``binary`` serves: a float tensor op a Python
# int/float keeps the tensor's dtype.
_SCALAR_FAST = frozenset((D.float32, D.float64))

# The reduced-precision floats. PyTorch's CPU kernels compute them in float32 and round the
# result once; a Python scalar operand is either rounded to the tensor's dtype first (add, sub,
# remainder...) or, for the ops built with ``opmath_scalar=True`` (mul, div), kept in float32.
_REDUCED = frozenset((D.float16, D.bfloat16))
_F32 = np.dtype(np.float32)


def _reduced_scalar_operands(a, b, dt, opmath_scalar):
    """The operands of a float16/bfloat16 tensor op a Python scalar, as PyTorch's CPU kernel
    sees them (NumPy alone would round the scalar to float16, or compute bfloat16 in float32
    and keep the float32 result)."""
    if opmath_scalar:
        return a.astype(_F32), np.float32(b)
    return a, dt.numpy_dtype.type(b)

_ONE = 1    # the default alpha: an identity test keeps the common path short


def _check_alpha(alpha, dt):
    """PyTorch's refusals of an ``alpha`` that the result dtype cannot hold."""
    if isinstance(alpha, (bool, np.bool_)):
        if dt is not D.bool:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, (complex, np.complexfloating)):
        if dt.category != D.COMPLEX:
            raise RuntimeError("For non-complex input tensors, argument alpha must not be a "
                               "complex number.")
    elif not isinstance(alpha, (int, np.integer)) and dt.category < D.FLOATING:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")


def scaled_other(b, alpha, dt):
    """``alpha * other`` in the result dtype (bool stays bool: alpha=2 means True)."""
    _check_alpha(alpha, dt)
    if dt is D.bool:
        return b if alpha else (b & False)
    if dt in _REDUCED:
        # alpha rounded to the dtype, then alpha * other in float32, rounded once with the sum
        return b.astype(_F32) * np.float32(dt.numpy_dtype.type(alpha))
    return b * scalar_as(alpha, dt)


def _scale_by_alpha(name, with_alpha):
    """How ``other`` is multiplied by a non-default ``alpha`` (``add``/``sub``), or the refusal
    of ops that have no ``alpha``."""
    if with_alpha:
        return scaled_other

    def refuse(b, alpha, dt):
        raise TypeError(f"{name}() got an unexpected keyword argument 'alpha'")
    return refuse


def binary(name, kernel, node=None, *, promote_int_to_float=False,
           check=None, method=True, inplace=True, unsupported=None, tensor_other=False,
           scalar_node=None, alpha=False, precheck=None, inplace_any_dtype=False, ufunc=None,
           opmath_scalar=False):
    """Define a binary op ``name(input, other, *, out=None)`` from ``kernel(xp, a, b)``.

    ``node`` is the graph-node class (None: not differentiable); ``scalar_node`` the one used when
    ``other`` is a Python scalar, where PyTorch names it differently (bool-valued ops are
    built by ``comparison.comparison``). ``promote_int_to_float`` makes integer inputs compute
    in the default float dtype (true division). ``check(dt, input, other)`` may raise for bad
    arguments; ``unsupported``/``tensor_other`` add PyTorch's dtype and argument refusals;
    ``precheck(input, other)`` runs before the operands are read. ``alpha=True`` adds the
    ``alpha`` keyword (``input + alpha * other``, saved for the derivative).
    ``inplace_any_dtype``: the in-place fast path serves every dtype, not only floating ones.
    ``ufunc`` names the NumPy ufunc the kernel is, so CPU calls skip the kernel's frame.
    ``opmath_scalar``: a Python scalar meets a float16/bfloat16 tensor in float32 (PyTorch's
    mul and div) instead of being rounded to the tensor's dtype first.
    """
    check = _dtype_check(name, check, unsupported, tensor_other, claim(name))
    scale = _scale_by_alpha(name, alpha)
    np_ufunc = getattr(np, ufunc) if ufunc else None

    def fn(input, other, *, alpha=_ONE, out=None):
        if np_ufunc is not None and (other.__class__ is float or other.__class__ is int) \
                and input.__class__ is Tensor and input._dtype in _SCALAR_FAST \
                and input._device is CPU and not input._requires_grad \
                and alpha is _ONE and out is None:
            # A float CPU tensor and a Python number, nothing to record (``img.div(255)`` in a
            # data pipeline): the same checks and ufunc as below, without the operand plumbing.
            if precheck is not None:
                precheck(input, other)
            if check is not None:
                check(input._dtype, input, other)
            return make_tensor(np_ufunc(input._data, float(other)), input._dtype, CPU)
        if not isinstance(input, Tensor):
            # torch.add(2, t): the first argument may be a scalar when the second is a tensor
            input = scalar_tensor_like(input, other)
        if precheck is not None:
            precheck(input, other)
        a, b, dt, dev = binary_operands(input, other, name)
        if check is not None:
            check(dt, input, other)
        if dt in _REDUCED and not isinstance(other, Tensor):
            a, b = _reduced_scalar_operands(a, b, dt, opmath_scalar)
        if alpha is not _ONE:
            b = scale(b, alpha, dt)
        if promote_int_to_float and dt.category < D.FLOATING:
            dt = D.get_default_dtype()
            a = a.astype(dt.numpy_dtype)
            if not is_scalar(b):
                b = b.astype(dt.numpy_dtype)
            else:
                b = float(b)
        try:
            if np_ufunc is not None and dev.type == "cpu":
                res = np_ufunc(a, b)
            else:
                res = kernel(np if dev.type == "cpu" else xp_of(input), a, b)
        except ValueError as exc:
            reraise_broadcast(exc, a, b)
        if res.dtype != dt.numpy_dtype:
            # a reduced-float op computed in float32, or a kernel whose NumPy scalar widened
            # the result: the tensor holds its own dtype, rounded once
            res = res.astype(dt.numpy_dtype)
        if not a.flags.c_contiguous and res.ndim > 1:
            # NumPy and PyTorch differ only when the first operand is not row-major
            res = pointwise_layout(res, (a, b))
        result = wrap(res, dt, dev)
        if node is not None and (input._requires_grad or getattr(other, "_requires_grad", 0)) \
                and needs_grad(input, other if isinstance(other, Tensor) else None):
            tensor = isinstance(other, Tensor)
            record(node if tensor or scalar_node is None else scalar_node,
                   (input, other if tensor else None), (result,), self=input, other=other,
                   alpha=alpha)
        if out is not None:
            return write_out(out, result)
        return result

    fn.__name__ = fn.__qualname__ = name
    if not inplace:
        inp = None
    else:
        inp = make_inplace(fn, name, pointwise=True, fast=_direct_write(
            name, kernel, check, precheck, inplace_any_dtype,
            alpha_sign=(-1 if name == "sub" else 1) if alpha else 0,
            opmath_scalar=opmath_scalar))
    register(name, fn, method=method, inplace=inp, family="pointwise",
             nodes=(node,) if scalar_node is None else (node, scalar_node))
    return fn


def _axpy_inplace(self, other, alpha, sign):
    """``self += sign * alpha * other`` as one fused BLAS pass (no temporary), for same-shape
    contiguous float32/float64 CPU tensors when nothing is recorded; None when the tensors do
    not qualify. The fused multiply-add rounds once, as PyTorch's vectorised kernel does, so
    the result matches PyTorch's bit for bit (``a - alpha * b`` in NumPy rounds twice)."""
    if not isinstance(other, Tensor) or self._dtype is not other._dtype \
            or self._dtype not in _AXPY_DTYPES or self._data.shape != other._data.shape \
            or self._device is not other._device or self._device.type != "cpu" \
            or not isinstance(alpha, (int, float)) or isinstance(alpha, bool) \
            or needs_grad(self, other):
        return None
    y, x = self._data, other._data
    if not (y.flags.c_contiguous and x.flags.c_contiguous) or y.size == 0 \
            or np.may_share_memory(x, y):
        return None
    check_inplace(self)
    if not blas.axpy(sign * float(alpha), x.reshape(-1), y.reshape(-1)):
        return None
    self._bump_version()
    return self


_AXPY_DTYPES = frozenset((D.float32, D.float64))


def _direct_write(name, kernel, check, precheck=None, any_dtype=False, alpha_sign=0,
                  opmath_scalar=False):
    """The fast path of ``a.op_(b)`` (for ``make_inplace(fast=...)``): when nothing is
    recorded and the result keeps ``a``'s dtype, the kernel's result is written straight into
    ``a``'s array; everything else goes to the generic in-place method. ``alpha_sign`` (+1
    add, -1 sub, 0 no alpha) enables the fused BLAS path for ``alpha``."""
    def fast(generic):
        def inplace(self, other, *, alpha=_ONE):
            if precheck is not None:
                precheck(self, other)
            if alpha is not _ONE:
                if alpha_sign and _axpy_inplace(self, other, alpha, alpha_sign) is not None:
                    return self
                return generic(self, other, alpha=alpha)
            if needs_grad(self, other if isinstance(other, Tensor) else None):
                return generic(self, other, alpha=alpha)
            check_inplace(self)
            a, b, dt, dev = binary_operands(self, other, name)
            cast_check(dt, self._dtype)
            if check is not None:
                try:
                    check(dt, self, other)
                except (NotImplementedError, RuntimeError):
                    # the output shape is checked first, as in PyTorch
                    _check_broadcast_into(self, (other,))
                    raise
            if dt is self._dtype and (any_dtype or dt.category >= D.FLOATING
                                      and name not in ("div", "pow")):
                if dt in _REDUCED and not isinstance(other, Tensor):
                    a, b = _reduced_scalar_operands(a, b, dt, opmath_scalar)
                xp = np if dev.type == "cpu" else xp_of(self)
                try:
                    res = kernel(xp, a, b)
                except ValueError as exc:
                    reraise_broadcast(exc, a, b)
                if res.shape != self._data.shape:
                    return commit_inplace(self, wrap(res, dt, dev))
                self._data[...] = res
                self._bump_version()
                return self
            return generic(self, other)
        return inplace
    return fast


def unary(name, kernel, node=None, *, float_only=False, int_ok=True, method=True,
          inplace=True, complex_to_real=False, kernel_name=None, inplace_precheck=None):
    """Define ``name(input, *, out=None)`` from ``kernel(xp, a)``.

    ``float_only``: integer/bool inputs compute in the default float dtype (exp, sqrt, ...).
    ``int_ok=False``: integer/bool inputs are refused (NotImplementedError for ``kernel_name``).
    ``inplace_precheck(self)``: the in-place form's own refusals (``acosh_`` while recording).
    """
    limited = claim(name, SELF)

    def fn(input, *, out=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        a, dt = input._data, input._dtype
        if limited is not None and dt in LIMITED:
            not_implemented(limited, dt)
        if float_only and dt.category < D.FLOATING:
            dt = D.get_default_dtype()
            a = a.astype(dt.numpy_dtype)
        elif not int_ok and dt.category != D.FLOATING:
            not_implemented(kernel_name or name + "_cpu", dt)
        if dt in _REDUCED:
            # PyTorch evaluates float16/bfloat16 in float32 and rounds once; a kernel of
            # several NumPy steps would round after each (rsqrt, sigmoid, deg2rad...)
            a = a.astype(_F32)
        xp = np if input._device.type == "cpu" else xp_of(input)
        res = kernel(xp, a)
        out_dt = dt.to_real() if complex_to_real else dt
        if res.dtype != out_dt.numpy_dtype:
            res = res.astype(out_dt.numpy_dtype)
        result = wrap(res, out_dt, input._device)
        if node is not None and input._requires_grad and needs_grad(input):
            record(node, (input,), (result,), self=input)
        if out is not None:
            return write_out(out, result)
        return result

    fn.__name__ = fn.__qualname__ = name
    if inplace and inplace_precheck is not None:
        inplace = make_inplace(fn, name, pointwise=True, precheck=inplace_precheck)
    register(name, fn, method=method, inplace=(inplace or None), family="pointwise",
             nodes=(node,))
    return fn


def _conj(x):
    """The complex conjugate of a tensor or number used in a derivative formula (real values
    pass through)."""
    if isinstance(x, Tensor):
        return x.conj() if x._dtype.category == D.COMPLEX else x
    return x.conjugate() if isinstance(x, complex) else x
