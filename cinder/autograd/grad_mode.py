"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

Each is thread-local, like PyTorch's: a ``no_grad`` block in one thread does not switch recording
off in another. Every mode works as a context manager and as a decorator.
"""

import functools
import inspect
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]


class _ModeState(threading.local):
    def __init__(self):
        self.grad_enabled = True
        self.inference = False


STATE = _ModeState()


class _AnomalyState:
    """Anomaly detection: remember where each node was created, check backward for NaN."""

    def __init__(self):
        self.enabled = False
        self.check_nan = True

    def attach(self, node):
        import traceback
        node._anomaly_trace = "".join(traceback.format_stack()[:-2])


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
            raise RuntimeError("Decorating classes is not supported")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def generator_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        gen.close()
                        raise
                    except BaseException as exc:
                        with self.clone():
                            response = gen.throw(exc)
                    else:
                        with self.clone():
                            response = gen.send(request)
            return generator_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Disable gradient recording inside the block (results have ``requires_grad=False``)."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = STATE.grad_enabled
        STATE.grad_enabled = False

    def __exit__(self, *exc):
        STATE.grad_enabled = self.prev


class enable_grad(_DecoratorContextManager):
    """Enable gradient recording inside the block, e.g. inside a ``no_grad`` region."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = STATE.grad_enabled
        STATE.grad_enabled = True

    def __exit__(self, *exc):
        STATE.grad_enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode on or off. Takes effect at once when called as a function."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'mode' must be bool, not "
                            f"{type(mode).__name__}")
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

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``, and tensors made inside are *inference tensors*.

    Inference tensors may not be saved for backward or modified in place outside the mode,
    the restrictions PyTorch enforces.
    """

    def __init__(self, mode=True):
        self.mode = mode
        self.prev_grad = True
        self.prev_inf = False

    def __call__(self, func):
        if isinstance(func, bool):          # inference_mode(False) used as @inference_mode(False)
            return self.__class__(func)
        return super().__call__(func)

    def __enter__(self):
        self.prev_grad, self.prev_inf = STATE.grad_enabled, STATE.inference
        if self.mode:
            STATE.grad_enabled = False
        STATE.inference = self.mode

    def __exit__(self, *exc):
        STATE.grad_enabled, STATE.inference = self.prev_grad, self.prev_inf

    def clone(self):
        return self.__class__(self.mode)
