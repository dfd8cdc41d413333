"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

Each is thread-local, like PyTorch's: a ``no_grad`` block in one thread does not switch recording
off in another. Every mode works as a context manager and as a decorator.
"""

import functools
import inspect
import threading
import warnings

from .._launcher import launcher_depth

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "set_multithreading_enabled",
           "is_multithreading_enabled", "is_view_replay_enabled", "enforce_grad_layout_policy"]


class _ModeState(threading.local):
    def __init__(self):
        self.grad_enabled = True
        self.inference = False
        self.multithreading = True      # (recorded: cinder's engine runs on the caller)
        self.grad_layout_enforced = True   # leaves' .grad take the leaf's strides


STATE = _ModeState()


class _AnomalyState:
    """Anomaly detection: remember where each node was created, check backward for NaN."""

    def __init__(self):
        self.enabled = False
        self.check_nan = True

    def attach(self, node):
        """Remember the user's frames that created ``node`` (cinder's own frames dropped, so the
        trace ends at the user's line, as PyTorch's does for built-in ops)."""
        import os
        import traceback
        package_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        stack = traceback.extract_stack()[:-1]
        stack = stack[launcher_depth([f.filename for f in stack]):]   # (`cinder run`'s own)
        frames = [f for f in stack
                  if not os.path.abspath(f.filename).startswith(package_dir + os.sep)]
        node._anomaly_trace = "".join(traceback.format_list(frames))


ANOMALY = _AnomalyState()


def is_grad_enabled():
    """Whether operations are being recorded for autograd in this thread."""
    return STATE.grad_enabled


def is_inference_mode_enabled():
    return STATE.inference


class _DecoratorContextManager:
    """Lets a context-manager class double as a function decorator (including generators)."""

    def __call__(self, func):
        if inspect.isclass(func):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You "
                "should only decorate functions or methods. To preserve the current behavior of "
                "class decoration, you can directly decorate the `__init__` method and nothing "
                "else.", FutureWarning, stacklevel=2)
            cls = func

            def func(*args, **kwargs):
                return cls(*args, **kwargs)
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def _wrap_generator(self, func):
        """Run each step of the generator inside the mode, never the caller's code between."""
        @functools.wraps(func)
        def generator_wrapper(*args, **kwargs):
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as exc:
                        with self.clone():
                            response = gen.throw(exc)
                    else:
                        with self.clone():
                            response = gen.send(request)
            except StopIteration as stop:
                return stop.value
        return generator_wrapper

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """A mode usable bare as a decorator too: ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class _SwitchGradMode(_NoParamDecoratorContextManager):
    """Grad mode set to ``_enabled`` inside the block, and back to what it was on exit."""

    _enabled = None

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = STATE.grad_enabled
        STATE.grad_enabled = self._enabled

    def __exit__(self, *exc):
        STATE.grad_enabled = self.prev


class no_grad(_SwitchGradMode):
    """Disable gradient recording inside the block (results have ``requires_grad=False``)."""

    _enabled = False


class enable_grad(_SwitchGradMode):
    """Enable gradient recording inside the block, e.g. inside a ``no_grad`` region."""

    _enabled = True


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode on or off. Takes effect at once when called as a function."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError("set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                            f"not {type(mode).__name__}")
        self.prev = STATE.grad_enabled
        self.mode = mode
        STATE.grad_enabled = mode

    def __call__(self, func):
        STATE.grad_enabled = self.prev      # used as a decorator: undo the eager switch
        return super().__call__(func)

    def __enter__(self):
        STATE.grad_enabled = self.mode

    def __exit__(self, *exc):
        STATE.grad_enabled = self.prev

    def __repr__(self):
        # as PyTorch prints it (notebooks echo the object set_grad_enabled(...) returns)
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"

    def clone(self):
        return self.__class__(self.mode)


class _ThreadSwitch(_DecoratorContextManager):
    """A per-thread setting (``STATE.<_attr>``) switched as soon as the object is made, so
    that calling it as a function works too; leaving a ``with`` block puts the old value
    back."""

    _attr = None

    def __init__(self, mode):
        self.prev = getattr(STATE, self._attr)
        self.mode = mode
        setattr(STATE, self._attr, bool(mode))

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        setattr(STATE, self._attr, self.prev)

    def clone(self):
        return self.__class__(self.mode)


class set_multithreading_enabled(_ThreadSwitch):
    """Whether backward may run on device worker threads (PyTorch's engine uses them for
    accelerators). cinder's engine always runs on the calling thread; the switch is kept,
    per thread, for ``is_multithreading_enabled``. Takes effect at once as a function."""

    _attr = "multithreading"


def is_multithreading_enabled():
    """Whether backward may use worker threads (see ``set_multithreading_enabled``)."""
    return STATE.multithreading


class enforce_grad_layout_policy(_ThreadSwitch):
    """Whether a leaf's new ``.grad`` must have the leaf's strides (the "gradient layout
    contract", on by default): off, backward may keep a gradient it created as the
    ``.grad`` whatever its strides, instead of copying it into the leaf's layout, and does
    not warn about a mismatch. A gradient that must be copied anyway still gets the leaf's
    layout. Per thread; takes effect at once when called as a function."""

    _attr = "grad_layout_enforced"

    def __init__(self, enable=True):
        super().__init__(enable)

    def __call__(self, func):
        STATE.grad_layout_enforced = self.prev      # used as a decorator: undo the switch
        return super().__call__(func)


def is_view_replay_enabled():
    """Whether views are rebuilt by replaying their view ops (PyTorch's debugging switch,
    off by default; cinder records views one way)."""
    return False


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``, and tensors made inside are *inference tensors*.

    Inference tensors may not be saved for backward or modified in place outside the mode,
    the restrictions PyTorch enforces. ``inference_mode(False)`` switches the mode off (and
    grad mode on) inside an enclosing inference_mode block.
    """

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)                  # bare @inference_mode on a function

    def __init__(self, mode=True):
        self.mode = mode
        self.prev_grad = True
        self.prev_inf = False

    def __enter__(self):
        self.prev_grad, self.prev_inf = STATE.grad_enabled, STATE.inference
        STATE.grad_enabled = not self.mode
        STATE.inference = self.mode

    def __exit__(self, *exc):
        STATE.grad_enabled, STATE.inference = self.prev_grad, self.prev_inf

    def clone(self):
        return self.__class__(self.mode)
