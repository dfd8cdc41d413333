"""Helpers of ``module.py``: the global (all-module) hook tables and their ``register_module_*``
functions, the weakly-bound hook wrapper, and the small pieces of ``Module``'s state_dict
loading, ``to()`` parsing and call bookkeeping. ``module.py`` re-exports the public names."""

import functools
import warnings
import weakref
from collections import OrderedDict

from ... import _dtype as D
from ..._device import device as _device_cls
from ..._tensor import Tensor
from ...autograd import grad_mode
from ...utils.hooks import RemovableHandle
from ..parameter import Parameter, is_lazy

_global_buffer_registration_hooks = OrderedDict()
_global_module_registration_hooks = OrderedDict()
_global_parameter_registration_hooks = OrderedDict()
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_is_full_backward_hook = None
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()


def _add_hook(table, hook, extra_dict=None):
    handle = RemovableHandle(table, extra_dict=extra_dict)
    table[handle.id] = hook
    return handle


def register_module_buffer_registration_hook(hook):
    """``hook(module, name, buffer)`` runs on every ``register_buffer``; may return a
    replacement buffer."""
    return _add_hook(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    """``hook(module, name, submodule)`` runs whenever a child module is registered."""
    return _add_hook(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    """``hook(module, name, param)`` runs on every ``register_parameter``."""
    return _add_hook(_global_parameter_registration_hooks, hook)


def register_module_forward_pre_hook(hook):
    """A forward pre-hook ``hook(module, args)`` common to all modules."""
    return _add_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """A forward hook ``hook(module, args, output)`` common to all modules."""
    handle = _add_hook(_global_forward_hooks, hook, extra_dict=_global_forward_hooks_always_called)
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    return handle


_MIXED_GLOBAL = ("Cannot use both regular backward hooks and full backward hooks as a global "
                 "Module hook. Please use only one of them.")
_MIXED_LOCAL = ("Cannot use both regular backward hooks and full backward hooks on a single "
                "Module. Please use only one of them.")


def register_module_backward_hook(hook):
    """The legacy (non-full) backward hook, common to all modules. Deprecated."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is True:
        raise RuntimeError(_MIXED_GLOBAL)
    _global_is_full_backward_hook = False
    return _add_hook(_global_backward_hooks, hook)


def register_module_full_backward_pre_hook(hook):
    """A backward pre-hook ``hook(module, grad_output)`` common to all modules."""
    return _add_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    """A backward hook ``hook(module, grad_input, grad_output)`` common to all modules."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is False:
        raise RuntimeError(_MIXED_GLOBAL)
    _global_is_full_backward_hook = True
    return _add_hook(_global_backward_hooks, hook)


class _WrappedHook:
    """A hook that receives its module as first argument, holding the module weakly (so a
    hook stored on the module does not keep it alive)."""

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if self.with_module:
            self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self):
        state = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            state["module"] = self.module()
        return state

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


class _CallState:
    """What one call of a module passes between its hook stages."""

    __slots__ = ("args", "kwargs", "result", "called")

    def __init__(self, args, kwargs):
        self.args = args
        self.kwargs = kwargs
        self.result = None
        self.called = set()


def _run_always_called(module, state, hooks, always_called, with_kwargs, what):
    """Run the ``always_call`` hooks of ``hooks`` that ``state`` has not run yet (forward
    raised); a hook's own error becomes a warning naming ``what``, so the original error is
    the one re-raised."""
    for hook_id, hook in hooks.items():
        if hook_id in always_called and hook_id not in state.called:
            try:
                if hook_id in with_kwargs:
                    out = hook(module, state.args, state.kwargs, state.result)
                else:
                    out = hook(module, state.args, state.result)
                if out is not None:
                    state.result = out
            except Exception as e:
                warnings.warn(f"{what} with ``always_call=True`` raised an exception that was "
                              f"silenced as another error was raised in forward: {str(e)}",
                              stacklevel=3)


def _attribute_at(root, target):
    """``(owning module, name, value)`` of the attribute at the dotted path ``target`` below
    ``root`` (for get_parameter and get_buffer)."""
    module_path, _, name = target.rpartition(".")
    mod = root.get_submodule(module_path)
    if not hasattr(mod, name):
        raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
    return mod, name, getattr(mod, name)


def _remove_from(name, *dicts_or_sets):
    for d in dicts_or_sets:
        if name in d:
            if isinstance(d, dict):
                del d[name]
            else:
                d.discard(name)


def _run_module_registration_hooks(parent, name, module):
    for hook in _global_module_registration_hooks.values():
        output = hook(parent, name, module)
        if output is not None:
            module = output
    return module


def _same_kind(tensor, applied):
    """Whether ``applied`` may replace ``tensor``'s data in place (same kind of device)."""
    return isinstance(applied, Tensor) and tensor._device.type == applied._device.type


def _load_one(module, name, key, param, input_param, assign, error_msgs):
    """Load one state-dict entry into ``param`` (the module's tensor called ``name``)."""
    if not isinstance(input_param, Tensor):
        error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor '
                          f"or Tensor-like object from checkpoint but received "
                          f"{type(input_param)}")
        return
    lazy = is_lazy(param)
    # Checkpoints from PyTorch 0.3 stored scalars as 1-element vectors.
    if not lazy and param.dim() == 0 and input_param.dim() == 1 and \
            input_param._data.shape[0] == 1:
        input_param = input_param[0]
    if not lazy and input_param._data.shape != param._data.shape:
        error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                          f"{input_param.shape} from checkpoint, the shape in current model is "
                          f"{param.shape}.")
        return
    try:
        with grad_mode.no_grad():
            if assign:
                if isinstance(param, Parameter):
                    if not isinstance(input_param, Parameter):
                        input_param = Parameter(input_param, requires_grad=param.requires_grad)
                    else:
                        input_param.requires_grad_(param.requires_grad)
                setattr(module, name, input_param)
            else:
                param.copy_(input_param)
    except Exception as ex:
        error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the '
                          f"model are {param.size()} and whose dimensions in the checkpoint are "
                          f"{input_param.size()}, an exception occurred : {ex.args}.")


def _parse_to(*args, **kwargs):
    """Split ``Module.to``'s arguments into ``(device, dtype, non_blocking, memory_format)``."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    kwargs.pop("copy", None)
    memory_format = kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments - got unexpected "
                        f"keyword argument '{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        t = rest.pop(0)
        device, dtype = t.device, t.dtype
    elif rest and isinstance(rest[0], D.dtype):
        dtype = rest.pop(0)
    elif rest and (isinstance(rest[0], (str, int, _device_cls)) or rest[0] is None):
        device = rest.pop(0)
        if rest and isinstance(rest[0], D.dtype):
            dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest:
        raise TypeError("to() received an invalid combination of arguments")
    if device is not None and not isinstance(device, _device_cls):
        device = _device_cls(device)
    return device, dtype, non_blocking, memory_format
