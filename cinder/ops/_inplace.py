"""The one generator of in-place methods (``Tensor.add_``, ``Tensor.clamp_``, ``Tensor.eq_``...)
and the rules every in-place write follows.

``make_inplace(fn, name, ...)`` turns the out-of-place ``fn`` into ``Tensor.<name>_``:

1. PyTorch's refusals (``check_inplace``): a leaf that requires grad (or a view of one), an
   inference tensor outside inference mode, and a tensor whose elements share memory
   (internal overlap, from ``expand``);
2. for pointwise ops, every tensor argument must broadcast to ``self``'s shape (checked first);
   the op's own refusals (``precheck``) come next;
3. when the call is recorded, the op reads a snapshot of ``self`` (the old values its
   derivative needs), computes, and ``commit_inplace`` writes the result into ``self``: the
   cast rule (a result may not go down a dtype category: float into int), the version
   counter bump, and the graph rebased onto ``self`` (``views.rebase_history``, which also
   handles a view whose base must see the change).

Ops that PyTorch has only as an in-place write (``zero_``, ``fill_``, ``copy_``, the random
fills ``uniform_``/``normal_``...) come from ``inplace_only``: their entry gives the write and
the generator gives the refusals, the version bump and the recording.

A family may give a faster method for the common case (``fast``: the binary ops write straight
into ``self`` when nothing is recorded); it receives the generic method as its fallback, so
every path still ends in the same checks.
"""

from .._tensor import Tensor, make_tensor
from ..autograd import grad_mode
from ..autograd.graph import BEFORE_INPLACE
from ._registry import record, register
from ._prep import broadcast_shape, is_scalar, result_type

__all__ = ["cast_check", "check_fits", "check_inplace", "commit_inplace",
           "inplace_only", "make_inplace"]


def make_inplace(fn, name, *, pointwise=False, bool_result=False, precheck=None, fast=None):
    """``Tensor.<name>_`` from the out-of-place ``fn``: compute, then write into ``self``.

    ``pointwise``: every tensor argument broadcasts against ``self``, and PyTorch checks that
    the result fits ``self``'s shape before anything else; a result dtype that cannot be cast
    into ``self`` is refused before a missing kernel is reported. ``bool_result``: the result
    is bool (comparisons, logical ops), which fits every dtype: it is written back in
    ``self``'s dtype. ``precheck(self, *args, **kwargs)``: the op's own refusals of the
    in-place form (``abs_`` of a complex tensor, ``addmm_`` of a wrongly shaped ``self``).
    ``fast(generic)``: builds a faster method that falls back to ``generic``.
    """
    def inplace(self, *args, **kwargs):
        check_inplace(self)
        if pointwise:
            _check_broadcast_into(self, args)
        if precheck is not None:
            precheck(self, *args, **kwargs)
        # A bool result is never differentiable: nothing to snapshot for a derivative.
        recording = not bool_result and grad_mode.STATE.grad_enabled and (
            self._requires_grad or _any_requires_grad(args) or _any_requires_grad(kwargs.values()))
        src = _snapshot_for_backward(self) if recording else self
        try:
            result = fn(src, *args, **kwargs)
        except NotImplementedError:
            if pointwise and not bool_result:
                # A pointwise op refuses a result it cannot cast into self before it looks
                # for a kernel, so that error wins over the missing kernel.
                cast_check(result_type(self, *[a for a in args
                                               if isinstance(a, Tensor) or is_scalar(a)]),
                           self._dtype)
            raise
        return commit_inplace(self, result)
    _name_inplace(inplace, name)
    if fast is None:
        return inplace
    return _name_inplace(fast(inplace), name)


def inplace_only(name, write, *, overlap_ok=False, precheck=None, family="", nodes=(),
                 function_too=False, publish=True):
    """``Tensor.<name>`` (``name`` ends in ``_``) for an op that exists only as a write into
    ``self``: ``write(self, *args, **kwargs)`` checks its arguments, stores the new values into
    ``self._data`` and answers what to record: None, or ``(node class, inputs, saved dict)``.

    The generator adds what every such write shares: ``precheck(self, *args, **kwargs)`` (the
    op's refusals PyTorch reports before the in-place ones), ``check_inplace`` (``overlap_ok``
    for writes that give every element one value: ``zero_``; a function of the arguments when
    that depends on them, as for ``fill_``), the version bump, and
    the node recorded as ``self``'s new history (``rebase_history``, so a view's base sees it).
    ``publish=False`` returns the method for another entry's in-place form (``fill`` ->
    ``fill_``); otherwise it is registered as the op ``name``.
    """
    def method(self, *args, **kwargs):
        if precheck is not None:
            precheck(self, *args, **kwargs)
        check_inplace(self, overlap_ok if overlap_ok.__class__ is bool
                      else overlap_ok(self, *args, **kwargs))
        recorded = write(self, *args, **kwargs)
        self._bump_version()
        if recorded is not None:
            node, inputs, saved = recorded
            from .views import rebase_history
            result = make_tensor(self._data, self._dtype, self._device)
            record(node, inputs, (result,), **saved)
            rebase_history(self, result)
        return self
    method.__name__ = name
    method.__qualname__ = "Tensor." + name
    method.__doc__ = write.__doc__
    if publish:
        register(name, method, function_too=function_too, family=family, nodes=tuple(nodes))
    return method


def _any_requires_grad(values):
    for a in values:
        if isinstance(a, Tensor) and a._requires_grad:
            return True
    return False


def _name_inplace(method, name):
    method.__name__ = name + "_"
    method.__qualname__ = "Tensor." + name + "_"
    method.__doc__ = f"In-place version of :meth:`Tensor.{name}`."
    return method


# ----------------------------------------------------------------------------------------------
# The rules
# ----------------------------------------------------------------------------------------------

def check_inplace(t, overlap_ok=False):
    """PyTorch's refusals before modifying ``t`` in place.

    ``overlap_ok`` is for writes that give every element the same value (``fill_``, ``zero_``),
    which PyTorch allows on expanded tensors.
    """
    if not overlap_ok and 0 in t._data.strides and t._data.size:
        _check_no_internal_overlap(t)
    base = t._base
    # PyTorch asks the view question first: a view that requires grad (itself, or through
    # its base) whose base is a leaf.
    if grad_mode.STATE.grad_enabled and base is not None and base._grad_fn is None \
            and (base._requires_grad or t._requires_grad and t._grad_fn is None):
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    if grad_mode.STATE.grad_enabled and t._requires_grad and t._grad_fn is None \
            and not t._volatile:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    if t._is_inference and not grad_mode.STATE.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not "
                           "allowed.You can make a clone to get a normal tensor before doing "
                           "inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
                           "details.")
    if BEFORE_INPLACE[0] is not None:
        BEFORE_INPLACE[0](t)      # allow_mutation_on_saved_tensors copies what was saved of t


def _check_no_internal_overlap(t):
    """A stride-0 dim of size > 1 means several elements share memory: writing is ambiguous."""
    for n, st in zip(t._data.shape, t._data.strides):
        if st == 0 and n > 1:
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                "operation.")


def cast_check(result_dtype, out_dtype, out_name="desired output type"):
    """In-place/out= results may not go down a category (float result into a long tensor)."""
    if result_dtype.category > out_dtype.category:
        raise RuntimeError(f"result type {result_dtype.scalar_name} can't be cast to the "
                           f"{out_name} {out_dtype.scalar_name}")


def _check_broadcast_into(self, args):
    """PyTorch checks an in-place op's output shape before anything else: every tensor
    argument must broadcast to ``self``'s shape."""
    for a in args:
        if isinstance(a, Tensor):
            check_fits(self._data.shape, a._data.shape)


def check_fits(shape, other):
    """``other`` must broadcast to exactly ``shape`` (an in-place result written into a tensor
    of ``shape``); otherwise PyTorch's error."""
    if other != shape:
        full = broadcast_shape(shape, other)       # raises when they don't broadcast at all
        if full != shape:
            raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast "
                               f"shape {list(full)}")


def _snapshot_for_backward(t):
    """An alias of ``t``'s graph position with its current values, so a node recorded before
    ``t`` is overwritten still sees the old values (PyTorch saves ``original_self`` likewise)."""
    snap = make_tensor(t._data.copy(), t._dtype, t._device, t._requires_grad)
    snap._grad_fn = t._grad_fn
    snap._output_nr = t._output_nr
    return snap


def commit_inplace(self, result):
    """Write ``result`` into ``self``; bump the version; move the graph onto ``self``."""
    cast_check(result._dtype, self._dtype)
    check_fits(self._data.shape, result._data.shape)
    self._data[...] = result._data
    self._bump_version()
    if result._grad_fn is not None:
        from .views import rebase_history
        rebase_history(self, result)
    return self
