"""The low-level switches PyTorch keeps in ``torch._C`` for ``__torch_function__``.

This module sits with the tensor core, below the op table: it holds the per-thread state that
the op table's dispatch point reads (the stack of ``TorchFunctionMode`` s and whether
``__torch_function__`` handling is switched off), and the two context managers that switch it
off. The dispatch point itself is ``cinder/ops/_dispatch.py``; the user API is
``cinder.overrides``.

``FLAG.active`` is the one flag every op call reads: it is true only while some thread has a
mode on its stack or a Tensor subclass with its own ``__torch_function__`` exists. When it is
false an op call pays that one attribute read and nothing else. When it is true only because
such a subclass exists, a call whose arguments are all of other types (``SUBCLASSES`` lists the
ones that take part) still runs at once; otherwise this thread's ``STATE.active`` (which also
counts the Disable* blocks) says whether to dispatch.
"""

import threading

__all__ = ["DisableTorchFunction", "DisableTorchFunctionSubclass", "FLAG", "STATE", "SUBCLASSES",
           "_disabled_torch_function_impl", "_get_function_stack_at", "_is_torch_function_enabled",
           "_len_torch_function_stack", "_pop_torch_function_stack",
           "_push_on_torch_function_stack"]


class _DispatchState(threading.local):
    """Per-thread dispatch switches (modes are thread-local in PyTorch too)."""

    def __init__(self):
        self.modes = []             # the TorchFunctionMode stack, innermost last
        self.subclass_off = 0       # > 0 inside DisableTorchFunctionSubclass / DisableTorchFunction
        self.all_off = 0            # > 0 inside DisableTorchFunction (modes skipped too)
        self.active = _SUBCLASSES[0]
        # (subclass_off, all_off) as they were outside the backward pass running, if any:
        # the user's own code inside it (a custom Function's backward) runs with them
        self.outside_backward = None

    def refresh(self):
        """Recompute ``active`` after any switch changed."""
        modes_on = bool(self.modes) and not self.all_off
        subclasses_on = _SUBCLASSES[0] and not self.subclass_off
        self.active = modes_on or subclasses_on


# Whether any Tensor subclass with its own __torch_function__ was ever defined (process-wide:
# class definitions are not per thread). A one-element list so the Tensor core can set it.
_SUBCLASSES = [False]

# The Tensor subclasses that take part in __torch_function__ (nn.Parameter, which opts out, is
# not one): the dispatch point tests an argument's type against this set, so that plain
# tensors keep the fast path while such subclasses exist.
SUBCLASSES = set()

STATE = _DispatchState()


class _Flag:
    """The process-wide flag every op call reads (a plain attribute: cheaper than a
    thread-local one). True while any thread has a mode or a subclass exists; the slow path
    then asks this thread's ``STATE`` whether there is anything to do."""

    __slots__ = ("active", "modes", "profiler")

    def __init__(self):
        self.active = False
        self.modes = 0              # modes on the stacks of all threads
        self.profiler = None        # the recording profiler (autograd/_profiler_recorder.py)

    def refresh(self):
        self.active = bool(self.modes) or _SUBCLASSES[0] or self.profiler is not None


FLAG = _Flag()


def note_subclass(cls):
    """Called when ``cls``, a Tensor subclass that takes part in ``__torch_function__``, is
    defined."""
    SUBCLASSES.add(cls)
    _SUBCLASSES[0] = True
    STATE.refresh()
    FLAG.refresh()


class _DisabledImpl:
    """``torch._C._disabled_torch_function_impl``: a class that sets its ``__torch_function__``
    to this (as ``nn.Parameter`` does) opts out; ops on it behave as on a plain Tensor.

    A callable object rather than a function, so that as a class attribute it is not bound to
    the instance (PyTorch's is a builtin, which does not bind either).
    """

    __name__ = "_disabled_torch_function_impl"

    def __call__(self, func, types, args=(), kwargs=None):
        with DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))

    def __repr__(self):
        return "<built-in function _disabled_torch_function_impl>"


_disabled_torch_function_impl = _DisabledImpl()


class DisableTorchFunctionSubclass:
    """Inside this block, Tensor subclasses' ``__torch_function__`` is not called (modes still
    are). PyTorch's default ``Tensor.__torch_function__`` runs the op inside one."""

    def __enter__(self):
        STATE.subclass_off += 1
        STATE.refresh()
        return self

    def __exit__(self, *exc):
        STATE.subclass_off -= 1
        STATE.refresh()
        return False


class DisableTorchFunction:
    """Inside this block, neither subclasses nor modes see ops: every op runs directly."""

    def __enter__(self):
        STATE.subclass_off += 1
        STATE.all_off += 1
        STATE.refresh()
        return self

    def __exit__(self, *exc):
        STATE.subclass_off -= 1
        STATE.all_off -= 1
        STATE.refresh()
        return False


class BackwardPass(DisableTorchFunction):
    """The engine's scope: its own formulas run below ``__torch_function__`` (PyTorch runs them
    in C++), and the switches outside are kept for ``UserCode``."""

    def __enter__(self):
        self.previous = STATE.outside_backward
        STATE.outside_backward = (STATE.subclass_off, STATE.all_off)
        return super().__enter__()

    def __exit__(self, *exc):
        STATE.outside_backward = self.previous
        return super().__exit__(*exc)


class UserCode:
    """Inside a backward pass, user code (a custom Function's ``backward``) sees modes and
    subclasses as it would outside the pass, as in PyTorch: autocast entered there applies,
    a ``TorchFunctionMode`` sees its ops."""

    def __enter__(self):
        self.saved = None
        outside = STATE.outside_backward
        if outside is not None:
            self.saved = (STATE.subclass_off, STATE.all_off)
            STATE.subclass_off, STATE.all_off = outside
            STATE.refresh()
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            STATE.subclass_off, STATE.all_off = self.saved
            STATE.refresh()
        return False


def _is_torch_function_enabled():
    return not STATE.subclass_off


def _push_on_torch_function_stack(mode):
    STATE.modes.append(mode)
    STATE.refresh()
    FLAG.modes += 1
    FLAG.refresh()


def _pop_torch_function_stack():
    mode = STATE.modes.pop()
    STATE.refresh()
    FLAG.modes -= 1
    FLAG.refresh()
    return mode


def _len_torch_function_stack():
    return len(STATE.modes)


def _get_function_stack_at(i):
    return STATE.modes[i]
