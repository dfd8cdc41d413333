"""``torch.overrides``: how code outside cinder takes over cinder's ops.

Two ways, both served by the op table's dispatch point (``cinder/ops/_dispatch.py``):

- an argument whose type defines ``__torch_function__`` (a ``Tensor`` subclass, or any object)
  is asked to run every ``cinder.*`` function and ``Tensor`` method it is passed to;
- a ``TorchFunctionMode``, entered as a context manager, sees every op call in its block.

The helpers here let a library function of one's own take part in the same protocol
(``has_torch_function`` / ``handle_torch_function``) and list what can be overridden.
"""

import functools

from . import _C
from ._tensor import Tensor
from .ops import FUNCTIONS, OPS
from .ops._dispatch import dispatch, overloaded_args
from .ops.operators import OPERATORS

__all__ = ["TorchFunctionMode", "get_default_nowrap_functions", "get_ignored_functions",
           "get_overridable_functions", "handle_torch_function", "has_torch_function",
           "has_torch_function_unary", "has_torch_function_variadic", "is_tensor_like",
           "is_tensor_method_or_property"]


class TorchFunctionMode:
    """Base of modes: ``with MyMode():`` routes every op call in the block through
    ``MyMode.__torch_function__(func, types, args, kwargs)``.

    While the handler runs, the mode is off the stack, so ops the handler calls (including
    ``func`` itself) run normally or reach the modes below it. Modes are per thread.
    """

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError()

    def __enter__(self):
        _C._push_on_torch_function_stack(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _C._pop_torch_function_stack()
        return False

    @classmethod
    def push(cls, *args, **kwargs):
        """Make a mode and return it entered-ready (``with Mode.push(): ...``)."""
        return cls(*args, **kwargs)


def _get_current_function_mode():
    stack = _C.STATE.modes
    return stack[-1] if stack else None


def _get_current_function_mode_stack():
    return list(_C.STATE.modes)


def _mode_on():
    return bool(_C.STATE.modes) and not _C.STATE.all_off


def has_torch_function(relevant_args):
    """Whether ``handle_torch_function`` must be called: a mode is active, or some element of
    ``relevant_args`` has a ``__torch_function__`` (plain Tensors and Parameters do not
    count)."""
    return _mode_on() or bool(overloaded_args(tuple(relevant_args)))


def has_torch_function_unary(arg):
    """``has_torch_function((arg,))`` for one argument."""
    return _mode_on() or bool(overloaded_args((arg,)))


def has_torch_function_variadic(*args):
    """``has_torch_function(args)`` with the arguments passed separately."""
    return _mode_on() or bool(overloaded_args(args))


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Run ``public_api(*args, **kwargs)`` through the overrides: the active mode first, then
    the ``__torch_function__`` of each overloaded element of ``relevant_args``.

    Raises ``TypeError`` when every handler returned ``NotImplemented``.
    """
    def unhandled(*a, **k):
        raise TypeError(f"no implementation found for '{public_api.__module__}."
                        f"{public_api.__name__}' on types that implement __torch_function__: "
                        "[]")
    return dispatch(public_api, unhandled, args, kwargs, relevant=tuple(relevant_args))


def is_tensor_like(inp):
    """Whether ``inp`` is a Tensor or behaves as one (its type defines
    ``__torch_function__``)."""
    return type(inp) is Tensor or hasattr(type(inp), "__torch_function__")


def is_tensor_method_or_property(func):
    """Whether ``func`` is a Tensor method or property (what handlers see for ``t.op()``)."""
    qualname = getattr(func, "__qualname__", "")
    return qualname.startswith("Tensor.") or func in _tensor_attributes()


def _tensor_attributes():
    """Every public Tensor attribute that passes the dispatch point (methods, operators, and
    for a property its ``__get__``, which is what handlers receive, as in PyTorch)."""
    found = []
    for name in dir(Tensor):
        attr = Tensor.__dict__.get(name)
        if isinstance(attr, property):
            if getattr(attr.fget, "_cinder_impl", None) is not None:
                found.append(attr.__get__)
        elif getattr(attr, "_cinder_impl", None) is not None or name in OPERATORS:
            found.append(attr)
    return found


def get_default_nowrap_functions():
    """The functions whose results the default ``Tensor.__torch_function__`` returns as they
    are instead of converting them to the subclass: reading a field stored on the tensor
    (``t.grad``), so that ``t.grad is t.grad`` holds."""
    return {Tensor.grad.__get__}


@functools.lru_cache(maxsize=None)
def _overridable():
    import cinder
    functions = sorted({id(f): f for f in FUNCTIONS.values()
                        if getattr(cinder, f.__name__, None) is f}.values(),
                       key=lambda f: f.__name__)
    return {cinder: functions, Tensor: _tensor_attributes()}


def get_overridable_functions():
    """``{namespace: [functions]}`` for everything ``__torch_function__`` can override:
    ``cinder`` (the op functions) and ``cinder.Tensor`` (its op methods and operators)."""
    return {k: list(v) for k, v in _overridable().items()}


def get_ignored_functions():
    """Public functions that take tensors but cannot be overridden (they are not ops, e.g.
    ``cinder.is_tensor``)."""
    import cinder
    table = {id(info.function) for info in OPS.values()}
    return {f for name, f in vars(cinder).items()
            if callable(f) and not isinstance(f, type) and not name.startswith("_")
            and getattr(f, "__module__", "").startswith("cinder")
            and id(f) not in table and getattr(f, "_cinder_impl", None) is None}
