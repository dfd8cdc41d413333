"""Comparisons and logical binary ops: eq, ne, lt, le, gt, ge (and their aliases ``greater``,
``less_equal``...), logical_and, logical_or, logical_xor.

They share one shape, so one factory, ``comparison``, builds them: the result is always bool
and never differentiable; ``other`` may be a Tensor or a Python scalar (or, for the logical
ops, only a Tensor); ``out=`` takes a bool tensor (or any dtype the bool result casts into);
the in-place form ``a.eq_(b)`` writes the bool result back in ``a``'s own dtype.
"""

import numpy as np

from .. import _dtype as D
from ._inplace import make_inplace
from ._pointwise_factory import _COMPLEX
from .limited_uint import LIMITED, claim
from ._layouts import pointwise_layout
from ._prep import binary_operands, broadcast_shape, check_tensor_arg, not_implemented, \
    reraise_broadcast, wrap, xp_of
from ._registry import alias, register, write_out

__all__ = ["comparison", "eq", "ge", "gt", "le", "logical_and", "logical_or", "logical_xor",
           "lt", "ne"]


def comparison(name, ufunc, *, ordered=False, tensor_other=False, aliases=()):
    """Define the bool-valued binary op ``name(input, other, *, out=None)`` from the NumPy
    ufunc named ``ufunc``.

    ``ordered``: an ordering (``lt``...), which complex numbers do not have, so PyTorch has no
    kernel for complex inputs (NotImplementedError, after the shapes are checked).
    ``tensor_other``: ``other`` must be a Tensor (``logical_and``). ``aliases`` are published
    as other names of the op (``greater`` for ``gt``).
    """
    np_ufunc = getattr(np, ufunc)
    limited = claim(name)       # the kernel refusing uint16/32/64, if PyTorch's does

    def fn(input, other, *, out=None):
        # unlike ``torch.add(2, t)``, PyTorch's comparisons take no scalar ``input``
        check_tensor_arg(input, name, "input", 1)
        a, b, dt, dev = binary_operands(input, other, name)
        if tensor_other:
            check_tensor_arg(other, name)
        if (ordered and dt in _COMPLEX) or (limited is not None and dt in LIMITED):
            broadcast_shape(input._data.shape, np.shape(getattr(other, "_data", other)))
            not_implemented(limited if dt in LIMITED else f"{name}_cpu", dt)
        try:
            if dev.type == "cpu":
                res = np_ufunc(a, b)
            else:
                res = getattr(xp_of(input), ufunc)(a, b)
        except ValueError as exc:
            reraise_broadcast(exc, a, b)
        if not a.flags.c_contiguous and res.ndim > 1:
            res = pointwise_layout(res, (a, b))     # NumPy differs only then
        result = wrap(res, D.bool, dev)
        if out is not None:
            return write_out(out, result)
        return result

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Elementwise ``{ufunc}`` of ``input`` and ``other`` (broadcast): a bool "
                  "tensor.")
    register(name, fn, inplace=make_inplace(fn, name, pointwise=True, bool_result=True),
             family="pointwise", tags=("pointwise", "comparison"))
    for other_name in aliases:
        alias(other_name, name)
    return fn


eq = comparison("eq", "equal")
ne = comparison("ne", "not_equal", aliases=("not_equal",))
lt = comparison("lt", "less", ordered=True, aliases=("less",))
le = comparison("le", "less_equal", ordered=True, aliases=("less_equal",))
gt = comparison("gt", "greater", ordered=True, aliases=("greater",))
ge = comparison("ge", "greater_equal", ordered=True, aliases=("greater_equal",))

logical_and = comparison("logical_and", "logical_and", tensor_other=True)
logical_or = comparison("logical_or", "logical_or", tensor_other=True)
logical_xor = comparison("logical_xor", "logical_xor", tensor_other=True)
