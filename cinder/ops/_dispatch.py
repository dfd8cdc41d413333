"""The dispatch point: the one place every op call passes through.

``dispatching(name, impl)`` wraps an op's implementation into the public function that
``cinder.<name>`` and ``Tensor.<name>`` are; ``dispatching_property`` does the same for the
properties of ``Tensor`` (handlers see ``Tensor.T.__get__``, ``Tensor.grad.__set__``... as in
PyTorch). The wrapper reads one flag (``_C.FLAG.active``); when it is false (no mode on the
stack, no Tensor subclass with a ``__torch_function__`` of its own) the implementation runs at
once. While only such subclasses exist, a call none of whose arguments is one of them (a type
test per argument) runs at once too. Otherwise ``dispatch`` follows ``torch.overrides``:

1. the innermost ``TorchFunctionMode`` is asked first (popped while its handler runs, so the
   ops the handler calls see only the modes below it);
2. then each overloaded argument's ``__torch_function__`` (subclasses before their parents,
   otherwise left to right); the first answer that is not ``NotImplemented`` wins;
3. if every handler declined, PyTorch's ``TypeError``; if there was none, the op runs.

While a profiler records, ``_C.FLAG.profiler`` is set (and ``FLAG.active`` with it): the
wrapper hands the call to it, and it runs the call through ``call`` below as one recorded
range. Autocast and vmap hang here as modes.

Objects that are not Tensors but define ``__torch_function__`` cost nothing on the fast path:
such an object reaches the op's own argument checks, which refuse it with a ``TypeError`` or
``AttributeError``; the wrapper then looks for overloaded arguments and dispatches if it finds
any, so the result is the same as scanning every call up front.
"""

import functools

from .. import _C
from .._tensor import Tensor

__all__ = ["dispatch", "dispatching", "dispatching_property", "enter", "handlers_wanted",
           "overloaded_args", "subclass_in"]

_STATE = _C.STATE
_FLAG = _C.FLAG
_DISABLED = _C._disabled_torch_function_impl
_SUBCLASSES = _C.SUBCLASSES


def subclass_in(args, kwargs):
    """Whether an argument (or an item of a list/tuple argument, as ``overloaded_args`` looks)
    is an instance of a Tensor subclass that takes part in ``__torch_function__``: the per-call
    test that keeps plain tensors on the fast path while such subclasses exist."""
    for a in args:
        cls = type(a)
        if cls in _SUBCLASSES or ((cls is list or cls is tuple) and _any_subclass(a)):
            return True
    if kwargs:
        return subclass_in(kwargs.values(), None)
    return False


def _any_subclass(items):
    for x in items:
        if type(x) in _SUBCLASSES:
            return True
    return False


# ----------------------------------------------------------------------------------------------
# The rule. Every entry point (op functions and methods, the operators of
# ``operators.py``, properties) reads ``_FLAG.active`` inline and, when it is set, hands the call
# to ``enter`` with a ``run`` function that asks ``handlers_wanted``.
# ----------------------------------------------------------------------------------------------

def handlers_wanted(args, kwargs=None):
    """Whether a call with these arguments must be shown to ``__torch_function__`` handlers
    (asked once ``_FLAG.active`` is set): a mode is on some thread's stack (``dispatch`` then
    asks this thread's own state), or an argument, or an item of a list/tuple argument, is an
    instance of a Tensor subclass that takes part."""
    return _FLAG.modes or subclass_in(args, kwargs)


def enter(public, run, impl, args, kwargs):
    """A call past the flag check: a recording profiler runs ``run(public, impl, args,
    kwargs)`` as one recorded range (named after ``public``); otherwise it runs as it is.
    ``run`` decides with ``handlers_wanted`` whether the call is dispatched."""
    profiler = _FLAG.profiler
    if profiler is not None:
        return profiler.call(public, run, impl, args, kwargs)
    return run(public, impl, args, kwargs)


def dispatching(impl, public_name=None, qualname=None):
    """The public function for ``impl``: one flag check, then ``impl`` itself."""
    @functools.wraps(impl)
    def op(*args, **kwargs):
        if _FLAG.active:
            return enter(op, call, impl, args, kwargs)
        # ``call``'s last step, written out here: this is every op's fast path
        try:
            return impl(*args, **kwargs)
        except (TypeError, AttributeError):
            if not overloaded_args(args, kwargs):
                raise
        return dispatch(op, impl, args, kwargs)
    if public_name is not None:
        op.__name__ = public_name
    if qualname is not None:
        op.__qualname__ = qualname
    op._cinder_impl = impl
    return op


def call(public, impl, args, kwargs):
    """An op call past the flag check (the ``run`` of ``dispatching``'s wrapper): dispatched
    when handlers are wanted; otherwise ``impl``, unless it refuses an argument that turns
    out to have a ``__torch_function__`` (see the module's docstring)."""
    if handlers_wanted(args, kwargs):
        return dispatch(public, impl, args, kwargs)
    try:
        return impl(*args, **kwargs)
    except (TypeError, AttributeError):
        if not overloaded_args(args, kwargs):
            raise
    return dispatch(public, impl, args, kwargs)


def _takes_part(arg):
    """Whether ``arg`` is an overloaded argument: not a plain Tensor, and it has a
    ``__torch_function__`` that is not the opt-out."""
    cls = type(arg)
    if cls is Tensor:
        return False
    tf = getattr(cls, "__torch_function__", None)
    return tf is not None and tf is not _DISABLED


def _add(found, arg):
    """Add ``arg`` to the overloaded arguments ``found`` (a list, or None for none yet)."""
    cls = type(arg)
    if found is None:
        return [arg]
    if any(type(f) is cls for f in found):
        return found
    # A subclass goes before its parent class (PyTorch's order); otherwise left to right.
    for i, f in enumerate(found):
        if issubclass(cls, type(f)):
            found.insert(i, arg)
            return found
    found.append(arg)
    return found


def _visit(found, a):
    if isinstance(a, (list, tuple)):
        for x in a:
            if _takes_part(x):
                found = _add(found, x)
    elif _takes_part(a):
        found = _add(found, a)
    return found


def overloaded_args(args, kwargs=None):
    """The arguments whose ``__torch_function__`` must be asked, in PyTorch's order (one per
    type). Lists and tuples of arguments are looked into one level deep, as PyTorch's argument
    parser does for ``TensorList`` arguments. Allocates nothing when there are none (the
    common case while a mode is active)."""
    found = None
    for a in args:
        found = _visit(found, a)
    if kwargs:
        for a in kwargs.values():
            found = _visit(found, a)
    if found is None:
        return ()
    if _STATE.subclass_off:
        # Inside DisableTorchFunctionSubclass only non-Tensor objects are still asked.
        found = [a for a in found if not isinstance(a, Tensor)]
    return found


def dispatch(public, impl, args, kwargs, relevant=None):
    """The slow path: ask the active mode, then the overloaded arguments, then run ``impl``.

    ``relevant`` narrows the arguments searched for overloads (``handle_torch_function``'s
    ``relevant_args``); by default every argument is.
    """
    if not _STATE.active and relevant is None:
        # another thread's mode (or a Disable* block here): nothing to do in this thread
        try:
            return impl(*args, **kwargs)
        except (TypeError, AttributeError):
            if not overloaded_args(args, kwargs):
                raise
    overloaded = overloaded_args(args if relevant is None else relevant,
                                 kwargs if relevant is None else None)
    if not overloaded and not _mode_here():
        return impl(*args, **kwargs)
    return _ask_handlers(public, impl, args, kwargs, overloaded,
                         tuple(type(a) for a in overloaded))


def _mode_here():
    """Whether this thread has a mode to ask (on its stack, not inside DisableTorchFunction)."""
    return bool(_STATE.modes) and not _STATE.all_off


def _ask_handlers(public, impl, args, kwargs, overloaded, types, label=None):
    """Ask this thread's innermost mode, then each overloaded argument; PyTorch's
    ``TypeError`` (``label`` names the function in it) if all of them decline."""
    asked_mode = None
    if _mode_here():
        mode = asked_mode = _C._pop_torch_function_stack()
        try:
            result = mode.__torch_function__(public, types, args, kwargs)
        finally:
            _C._push_on_torch_function_stack(mode)
        if result is not NotImplemented:
            return result
    for arg in overloaded:
        result = arg.__torch_function__(public, types, args, kwargs)
        if result is not NotImplemented:
            return result
    if overloaded or asked_mode is not None:
        raise TypeError(_unhandled_message(public, asked_mode, overloaded, label))
    return impl(*args, **kwargs)


# ----------------------------------------------------------------------------------------------
# Properties
# ----------------------------------------------------------------------------------------------

# Properties whose reads PyTorch runs as an op (and its profiler records as one).
PROPERTY_OPS = {"T": "aten::numpy_T", "mT": "aten::mT", "H": "aten::matrix_H",
                "mH": "aten::mH", "real": "aten::real", "imag": "aten::imag"}


def dispatching_property(name, fget, fset=None, fdel=None, doc=None):
    """``Tensor.<name>`` as a property whose reads, writes and deletes pass the dispatch point
    the way PyTorch's ``handle_torch_function_getter``/``_setter`` do: handlers receive the
    property's own ``__get__`` (``__set__``, ``__delete__``) and ``args`` = the tensor (and the
    new value). When nothing is active each access costs one flag read more than ``fget``."""
    def get(self):
        if _FLAG.active and handlers_wanted((self,)):
            return _dispatch_accessor(prop.__get__, fget, (self,), name + ".__get__")
        return fget(self)

    if name in PROPERTY_OPS:
        # a property PyTorch computes with an op (``t.T`` is aten::numpy_T): a recording
        # profiler sees its reads as that op
        def get(self):          # noqa: F811
            if _FLAG.active:
                return enter(get, read, fget, (self,), {})
            return fget(self)

        def read(_public, _impl, args, _kwargs):
            if handlers_wanted(args):
                return _dispatch_accessor(prop.__get__, fget, args, name + ".__get__")
            return fget(args[0])
        get._cinder_profiler_name = PROPERTY_OPS[name]

    def set_(self, value):
        # the new value never makes a write dispatch (PyTorch asks only the tensor)
        if _FLAG.active and handlers_wanted((self,)):
            return _dispatch_accessor(prop.__set__, fset, (self, value), name + ".__set__")
        fset(self, value)

    def delete(self):
        if _FLAG.active and handlers_wanted((self,)):
            return _dispatch_accessor(prop.__delete__, fdel, (self,), name + ".__delete__")
        fdel(self)

    for fn, suffix in ((get, "getter"), (set_, "setter"), (delete, "deleter")):
        fn.__name__ = fn.__qualname__ = f"Tensor.{name} {suffix}"
    prop = property(get, set_ if fset else None, delete if fdel else None,
                    doc if doc is not None else fget.__doc__)
    prop.fget._cinder_impl = fget
    return prop


def _dispatch_accessor(accessor, impl, args, label):
    """The slow path of a property access. As in PyTorch the tensor is the one overloaded
    argument (the new value of a write is not), and a mode sees the tensor's type in
    ``types`` even for a plain Tensor."""
    if not _STATE.active:
        return impl(*args)
    self = args[0]
    overloaded = () if (_STATE.subclass_off or type(self) not in _SUBCLASSES) else (self,)
    if not overloaded and not _mode_here():
        return impl(*args)
    return _ask_handlers(accessor, impl, args, {}, overloaded, (type(self),),
                         "torch.Tensor." + label)


def _unhandled_message(public, mode, overloaded, label=None):
    """PyTorch's error when every handler declined (worded as ``handle_torch_function``'s
    for Python-level functions such as ``nn.functional``'s, which mark themselves)."""
    if label is not None:
        return _multiple_dispatch_failed(label, mode, overloaded)
    if getattr(public, "_cinder_python_level", False):
        name = public.__module__.replace("cinder", "torch", 1) + "." + public.__name__
        msg = (f"no implementation found for '{name}' on types that implement "
               f"__torch_function__: {[type(a) for a in overloaded]}")
        return msg if mode is None else f"{msg} nor in mode {mode}"
    return _multiple_dispatch_failed(f"{_public_module(public)}.{public.__name__}", mode,
                                     overloaded)


def _multiple_dispatch_failed(name, mode, overloaded):
    lines = [] if mode is None else [f"  - mode object {mode!r}"]
    lines += [f"  - tensor subclass {type(a)}" for a in overloaded]
    return (f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers returned "
            "NotImplemented:\n\n" + "\n".join(lines) +
            "\n\nFor more information, try re-running with TORCH_LOGS=not_implemented")


def _public_module(fn):
    qual = getattr(fn, "__qualname__", "")
    return "torch.Tensor" if qual.startswith("Tensor.") else "torch"
