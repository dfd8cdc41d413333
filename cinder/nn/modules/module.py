"""``nn.Module``: the base class of every layer and model.

A Module keeps its parameters, buffers and child modules in three dicts (``_parameters``,
``_buffers``, ``_modules``). Attribute assignment routes values into them (``self.w =
Parameter(...)`` registers a parameter), attribute lookup finds them again, and everything
else (``state_dict``, ``to``, ``train``, ``named_parameters``, the repr) walks those dicts.
Calling a module runs its forward with the forward/backward hooks around it.
"""

import itertools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ... import _dtype as D
from ..._tensor import Tensor
from ...autograd import grad_mode
from ...utils.hooks import BackwardHook
from ..parameter import Buffer, Parameter
from . import _module_support as G
from ._module_support import (  # noqa: F401  (public here, as in PyTorch)
    _MIXED_LOCAL,
    _add_hook,
    _CallState,
    _global_backward_hooks,
    _global_backward_pre_hooks,
    _global_buffer_registration_hooks,
    _global_forward_hooks,
    _global_forward_hooks_always_called,
    _global_forward_hooks_with_kwargs,
    _global_forward_pre_hooks,
    _global_module_registration_hooks,
    _global_parameter_registration_hooks,
    _load_one,
    _parse_to,
    _remove_from,
    _run_module_registration_hooks,
    _same_kind,
    _WrappedHook,
    register_module_backward_hook,
    register_module_buffer_registration_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)
from ...ops.creation import empty_like

__all__ = [
    "Module",
    "register_module_backward_hook",
    "register_module_buffer_registration_hook",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


def typename(obj):
    """The type name PyTorch's messages print (``torch.typename``): 'torch.FloatTensor' for a
    tensor, 'int' for a builtin, 'package.module.Class' otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    if not hasattr(obj, "__qualname__"):
        module = type(obj).__module__ or ""
    if module in ("", "builtins", "__builtin__"):
        return qualname
    return module + "." + qualname


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it missed and the ones it did not expect."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s_, num_spaces):
    """Indent every line but the first of ``s_`` (how child reprs nest inside a parent's)."""
    lines = s_.split("\n")
    if len(lines) == 1:
        return s_
    first = lines.pop(0)
    return first + "\n" + "\n".join(num_spaces * " " + line for line in lines)


def _forward_unimplemented(self, *input):
    """The forward of a Module subclass that did not define one."""
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function')


_HOOK_TABLES = ("_backward_pre_hooks", "_backward_hooks", "_forward_hooks",
                "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_state_dict_hooks",
                "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                "_load_state_dict_post_hooks")


class Module:
    """Base class for all neural network modules; subclass it and define ``forward``.

    Assigning a Parameter, a Module or a Buffer as an attribute registers it, so that
    ``parameters()``, ``state_dict()``, ``to()`` and the repr all see it.
    """

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False
    _compiled_call_impl = None
    forward = _forward_unimplemented

    def __init__(self, *args, **kwargs):
        if not self.call_super_init and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if not self.call_super_init and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                            f"but {len(args) + 1} were given")
        # Written through object.__setattr__: our own __setattr__ reads these dicts.
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_is_full_backward_hook", None)
        for name in _HOOK_TABLES:
            setattr_(name, OrderedDict())
        setattr_("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    # ------------------------------------------------------------------------------------------
    # Registration
    # ------------------------------------------------------------------------------------------
    def _check_new_name(self, kind, table, name):
        """PyTorch's checks on the name of a new parameter or buffer (``kind``)."""
        if table not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[table]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name, tensor, persistent=True):
        """Add a buffer (module state that is not a parameter). A non-persistent buffer is
        left out of ``state_dict``."""
        self._check_new_name("buffer", "_buffers", name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        for hook in _global_buffer_registration_hooks.values():
            output = hook(self, name, tensor)
            if output is not None:
                tensor = output
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Add a parameter (a ``Parameter`` or None) under ``name``."""
        self._check_new_name("parameter", "_parameters", name)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' as a "
                             "function of another Tensor, compute the value in the forward() "
                             "method.")
        for hook in _global_parameter_registration_hooks.values():
            output = hook(self, name, param)
            if output is not None:
                param = output
        self._parameters[name] = param

    def add_module(self, name, module):
        """Add a child module, reachable as the attribute ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = _run_module_registration_hooks(self, name, module)

    def register_module(self, name, module):
        """Alias of :meth:`add_module`."""
        self.add_module(name, module)

    # ------------------------------------------------------------------------------------------
    # Lookup by dotted path
    # ------------------------------------------------------------------------------------------
    def get_submodule(self, target):
        """The submodule at the dotted path ``target`` ('' is this module)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """Replace (or, unless ``strict``, add) the submodule at the dotted path ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError("`module` is not an nn.Module, found " + str(type(module)))
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target):
        """The parameter at the dotted path ``target``."""
        _, name, param = G._attribute_at(self, target)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at the dotted path ``target``."""
        mod, name, buffer = G._attribute_at(self, target)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return buffer

    def get_extra_state(self):
        """Extra (non-tensor) state to store in ``state_dict``; override together with
        :meth:`set_extra_state`."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
            "bug-report.yml to report this bug.")

    def set_extra_state(self, state):
        """Restore what :meth:`get_extra_state` returned."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
            "bug-report.yml to report this bug.")

    # ------------------------------------------------------------------------------------------
    # Converting parameters and buffers
    # ------------------------------------------------------------------------------------------
    def _apply(self, fn, recurse=True):
        """Replace every parameter, gradient and buffer ``t`` by ``fn(t)`` (children first).

        A parameter keeps its identity (its data is swapped) when the result lives on the same
        kind of device, so optimizers holding the parameter still see it.
        """
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with grad_mode.no_grad():
                applied = fn(param)
            grad = param.grad
            if _same_kind(param, applied):
                param.data = applied
                out = param
            else:
                out = Parameter(applied, param.requires_grad)
                self._parameters[key] = out
            if grad is not None:
                with grad_mode.no_grad():
                    grad_applied = fn(grad)
                if _same_kind(grad, grad_applied) and out.grad is not None:
                    out.grad.data = grad_applied
                else:
                    out.grad = grad_applied.requires_grad_(grad.requires_grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn):
        """Call ``fn`` on every submodule (children first) and on this module; returns self.
        The usual way to initialise a model's weights."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def cuda(self, device=None):
        """Move every parameter and buffer to a CUDA device."""
        return self._apply(lambda t: t.cuda(device))

    def cpu(self):
        """Move every parameter and buffer to the CPU."""
        return self._apply(lambda t: t.cpu())

    def _to_device_type(self, kind, device):
        def refuse(t):
            raise AssertionError(f"Torch not compiled with {kind.upper()} enabled")
        return self._apply(refuse)

    def xpu(self, device=None):
        """Move every parameter and buffer to an XPU (cinder has none: this raises)."""
        return self._to_device_type("xpu", device)

    def ipu(self, device=None):
        """Move every parameter and buffer to an IPU (cinder has none: this raises)."""
        return self._to_device_type("ipu", device)

    def mtia(self, device=None):
        """Move every parameter and buffer to an MTIA device (cinder has none: this raises)."""
        return self._to_device_type("mtia", device)

    def type(self, dst_type):
        """Cast every parameter and buffer to ``dst_type``."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        """Cast floating-point parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        """Cast floating-point parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        """Cast floating-point parameters and buffers to float16."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        """Cast floating-point parameters and buffers to bfloat16."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device, recurse=True):
        """Move parameters and buffers to ``device`` without copying their values."""
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def to(self, *args, **kwargs):
        """Move and/or cast parameters and buffers: ``to(device=None, dtype=None,
        non_blocking=False)``, ``to(dtype)``, ``to(tensor)``, ``to(memory_format=...)`` (for
        the 4-d and 5-d ones). Integer tensors keep their dtype;
        the dtype must be floating point or complex."""
        device, dtype, non_blocking, memory_format = _parse_to(*args, **kwargs)
        if dtype is not None:
            if dtype.category < D.FLOATING:
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, "
                                f"but got desired dtype={dtype}")
            if dtype.category == D.COMPLEX:
                warnings.warn(
                    "Complex modules are a new feature under active development whose design "
                    "may change, and some modules might not work as expected when using complex "
                    "tensors as parameters or buffers. Please file an issue at https://github.com/"
                    "pytorch/pytorch/issues/new?template=bug-report.yml if a complex module does "
                    "not work as expected.", stacklevel=2)

        def convert(t):
            keep = not (t.is_floating_point() or t.is_complex())
            kwargs = {"non_blocking": non_blocking}
            if device is not None:
                kwargs["device"] = device
            if dtype is not None and not keep:
                kwargs["dtype"] = dtype
            if memory_format is not None and t.dim() in (4, 5):     # (weights of convs)
                kwargs["memory_format"] = memory_format
            return t.to(**kwargs)

        return self._apply(convert)

    def share_memory(self):
        """Move parameters and buffers to shared memory (see ``Tensor.share_memory_``)."""
        return self._apply(lambda t: t.share_memory_())

    # ------------------------------------------------------------------------------------------
    # Hooks
    # ------------------------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` (or ``hook(module, args, kwargs)`` with ``with_kwargs``) runs
        before forward and may return replacement args (or ``(args, kwargs)``)."""
        handle = _add_hook(self._forward_pre_hooks, hook,
                           extra_dict=self._forward_pre_hooks_with_kwargs)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """``hook(module, args, output)`` runs after forward and may return a replacement
        output; ``always_call`` runs it even when forward raised."""
        handle = _add_hook(self._forward_hooks, hook, extra_dict=[
            self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` runs when the gradients of the module's outputs are
        known; may return replacement grad_output."""
        handle = _add_hook(self._backward_pre_hooks, hook)
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` runs when the gradients of the module's
        inputs are known; may return replacement grad_input."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(_MIXED_LOCAL)
        self._is_full_backward_hook = True
        handle = _add_hook(self._backward_hooks, hook)
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook):
        """The legacy backward hook: attached to the grad_fn of the output, so it sees only
        that node's gradients. Deprecated in favour of :meth:`register_full_backward_hook`."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(_MIXED_LOCAL)
        self._is_full_backward_hook = False
        return _add_hook(self._backward_hooks, hook)

    def _get_backward_hooks(self):
        full, non_full = [], []
        if G._global_is_full_backward_hook is True:
            full += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        if G._global_is_full_backward_hook is False:
            non_full += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full += self._backward_hooks.values()
        return full, non_full

    def _get_backward_pre_hooks(self):
        return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn):
        if not isinstance(result, Tensor):
            if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
                warnings.warn("Using non-full backward hooks on a Module that does not return a "
                              "single Tensor or a tuple of Tensors is deprecated and will be "
                              "removed in future versions. This hook will be missing some of the "
                              "grad_output. Please use register_full_backward_hook to get the "
                              "documented behavior.", FutureWarning, stacklevel=2)
                return
        else:
            result = (result,)
        if not isinstance(inputs, Tensor):
            if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
                warnings.warn("Using non-full backward hooks on a Module that does not take as "
                              "input a single Tensor or a tuple of Tensors is deprecated and "
                              "will be removed in future versions. This hook will be missing "
                              "some of the grad_input. Please use register_full_backward_hook "
                              "to get the documented behavior.", FutureWarning, stacklevel=2)
                return
        else:
            inputs = (inputs,)
        out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
        if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
            warnings.warn("Using a non-full backward hook when outputs are nested in python data "
                          "structure is deprecated and will be removed in future versions. This "
                          "hook will be missing some grad_output.", FutureWarning, stacklevel=2)
        elif len(out_grad_fn) > 1:
            warnings.warn("Using a non-full backward hook when outputs are generated by different "
                          "autograd Nodes is deprecated and will be removed in future versions. "
                          "This hook will be missing some grad_output. Please use "
                          "register_full_backward_hook to get the documented behavior.",
                          FutureWarning, stacklevel=2)
        else:
            inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
            next_functions = {n[0] for n in grad_fn.next_functions}
            if inputs_grad_fn != next_functions:
                warnings.warn("Using a non-full backward hook when the forward contains multiple "
                              "autograd Nodes is deprecated and will be removed in future "
                              "versions. This hook will be missing some grad_input. Please use "
                              "register_full_backward_hook to get the documented behavior.",
                              FutureWarning, stacklevel=2)

    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` runs before ``state_dict`` collects entries."""
        return _add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` runs after ``state_dict``; it
        may edit the dict in place and must return None."""
        hook._from_public_api = True
        return _add_hook(self._state_dict_hooks, hook)

    def _register_state_dict_hook(self, hook):
        # The private form: a non-None return value replaces the state dict.
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via register_state_dict_post_hook")
        return _add_hook(self._state_dict_hooks, hook)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        return _add_hook(self._load_state_dict_pre_hooks,
                         _WrappedHook(hook, self if with_module else None))

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` runs before a module loads its entries."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` runs after ``load_state_dict``; it may edit the
        key lists in place and must return None."""
        return _add_hook(self._load_state_dict_post_hooks, hook)

    # ------------------------------------------------------------------------------------------
    # Calling
    # ------------------------------------------------------------------------------------------
    def _call_impl(self, *args, **kwargs):
        forward_call = self.forward
        if not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks
                or self._forward_pre_hooks or _global_backward_pre_hooks
                or _global_backward_hooks or _global_forward_hooks
                or _global_forward_pre_hooks):
            return forward_call(*args, **kwargs)
        state = _CallState(args, kwargs)
        try:
            return self._call_with_hooks(forward_call, state)
        except Exception:
            self._run_always_called_hooks(state)
            raise

    def _wrapped_call_impl(self, *args, **kwargs):
        return self._call_impl(*args, **kwargs)

    def _slow_forward(self, *input, **kwargs):
        # PyTorch's tracing-aware forward; cinder does not trace, so it is forward itself
        return self.forward(*input, **kwargs)

    __call__ = _call_impl
    T_destination = dict

    def _run_forward_pre_hooks(self, state):
        for hook_id, hook in (*_global_forward_pre_hooks.items(),
                              *self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                out = hook(self, state.args, state.kwargs)
                if out is not None:
                    if isinstance(out, tuple) and len(out) == 2:
                        state.args, state.kwargs = out
                    else:
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {out}.")
            else:
                out = hook(self, state.args)
                if out is not None:
                    state.args = out if isinstance(out, tuple) else (out,)

    def _call_with_hooks(self, forward_call, state):
        full_hooks, non_full_hooks, pre_hooks = [], [], []
        if self._backward_pre_hooks or _global_backward_pre_hooks:
            pre_hooks = self._get_backward_pre_hooks()
        if self._backward_hooks or _global_backward_hooks:
            full_hooks, non_full_hooks = self._get_backward_hooks()
        if _global_forward_pre_hooks or self._forward_pre_hooks:
            self._run_forward_pre_hooks(state)
        bw_hook = None
        if full_hooks or pre_hooks:
            bw_hook = BackwardHook(self, full_hooks, pre_hooks)
            state.args = bw_hook.setup_input_hook(state.args)
        state.result = forward_call(*state.args, **state.kwargs)
        if _global_forward_hooks or self._forward_hooks:
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called or \
                        hook_id in _global_forward_hooks_always_called:
                    state.called.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs or \
                        hook_id in _global_forward_hooks_with_kwargs:
                    out = hook(self, state.args, state.kwargs, state.result)
                else:
                    out = hook(self, state.args, state.result)
                if out is not None:
                    state.result = out
        result = state.result
        if bw_hook:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a Tensor "
                              f"or a tuple of Tensors but received {type(result)}", stacklevel=2)
            result = bw_hook.setup_output_hook(result)
        if non_full_hooks:
            var = result
            while not isinstance(var, Tensor):
                if isinstance(var, dict):
                    var = next(v for v in var.values() if isinstance(v, Tensor))
                else:
                    var = var[0]
            grad_fn = var.grad_fn
            if grad_fn is not None:
                for hook in non_full_hooks:
                    grad_fn.register_hook(_WrappedHook(hook, self))
                self._maybe_warn_non_full_backward_hook(state.args, result, grad_fn)
        return result

    def _run_always_called_hooks(self, state):
        """After forward raised: run the ``always_call`` forward hooks that have not run;
        their own errors become warnings (the original error is re-raised)."""
        G._run_always_called(self, state, _global_forward_hooks,
                             _global_forward_hooks_always_called, (),
                             "global module forward hook")
        G._run_always_called(self, state, self._forward_hooks,
                             self._forward_hooks_always_called, self._forward_hooks_with_kwargs,
                             "module forward hook")

    # ------------------------------------------------------------------------------------------
    # Attribute routing
    # ------------------------------------------------------------------------------------------
    def __getstate__(self):
        return self.__dict__.copy()

    def __setstate__(self, state):
        self.__dict__.update(state)
        # Modules pickled by older versions lack some of the hook tables.
        for name in _HOOK_TABLES:
            if name not in self.__dict__:
                self.__dict__[name] = OrderedDict()
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)

    def __getattr__(self, name):
        d = self.__dict__
        if "_parameters" in d and name in d["_parameters"]:
            return d["_parameters"][name]
        if "_buffers" in d and name in d["_buffers"]:
            return d["_buffers"][name]
        if "_modules" in d and name in d["_modules"]:
            return d["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove_from(name, d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            _remove_from(name, d, self._parameters, self._buffers,
                         self._non_persistent_buffers_set)
            modules[name] = _run_module_registration_hooks(self, name, value)
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = _run_module_registration_hooks(self, name, value)
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    # ------------------------------------------------------------------------------------------
    # state_dict
    # ------------------------------------------------------------------------------------------
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Put this module's own parameters, persistent buffers and extra state into
        ``destination`` (children are handled by ``state_dict``)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An ordered dict of every parameter and persistent buffer by dotted name, detached
        unless ``keep_vars``; its ``_metadata`` records each module's ``_version``."""
        if args:
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module."
                "state_dict for details.", FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if result is not None:
                    destination = result
            elif result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Copy this module's own entries (keys starting with ``prefix``) from ``state_dict``,
        recording missing/unexpected keys and errors instead of raising."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        persistent = {k: v for k, v in self._buffers.items()
                      if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(),
                                                         persistent.items()) if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                _load_one(self, name, key, param, state_dict[key], assign, error_msgs)
            elif strict:
                missing_keys.append(key)
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_key:
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy parameters and buffers from ``state_dict`` into this module and its children.

        ``strict``: keys must match exactly (otherwise RuntimeError listing them). ``assign``:
        take the state dict's tensors themselves instead of copying into the existing ones.
        Returns ``_IncompatibleKeys(missing_keys, unexpected_keys)``.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items()
                                 if k.startswith(child_prefix)}, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise RuntimeError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified,it should be done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ------------------------------------------------------------------------------------------
    # Iteration
    # ------------------------------------------------------------------------------------------
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or id(v) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse=True):
        """Iterate over the parameters (of submodules too unless ``recurse=False``)."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Iterate over ``(dotted name, parameter)``; a shared parameter appears once unless
        ``remove_duplicate=False``."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def buffers(self, recurse=True):
        """Iterate over the buffers."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """Iterate over ``(dotted name, buffer)``."""
        yield from self._named_members(lambda m: m._buffers.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def children(self):
        """Iterate over the direct child modules."""
        for _, module in self.named_children():
            yield module

    def named_children(self):
        """Iterate over ``(name, child)`` for the direct children (each module once)."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self):
        """Iterate over every module in the tree, this one first."""
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Iterate over ``(dotted name, module)`` for the whole tree, depth first."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub_prefix, remove_duplicate)

    # ------------------------------------------------------------------------------------------
    # Modes and gradients
    # ------------------------------------------------------------------------------------------
    def train(self, mode=True):
        """Set training mode (``mode=True``) or evaluation mode here and in every submodule."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """Evaluation mode; the same as ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` on every parameter (to freeze or unfreeze a model)."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of every parameter: to None (default) or to zeros."""
        if getattr(self, "_is_replica", False):
            warnings.warn(
                "Calling .zero_grad() from a module created with nn.DataParallel() has no "
                "effect. The parameters are copied (in a differentiable manner) from the original "
                "module. This means they are not leaf nodes in autograd and so don't accumulate "
                "gradients. If you need gradients in your forward method, consider using "
                "autograd.grad instead.", stacklevel=2)
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    # ------------------------------------------------------------------------------------------
    # Printing and introspection
    # ------------------------------------------------------------------------------------------
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The text inside the parentheses of the repr; override to describe settings."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = ["(" + key + "): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __dir__(self):
        keys = (dir(type(self)) + list(self.__dict__) + list(self._parameters)
                + list(self._modules) + list(self._buffers))
        return sorted(k for k in keys if not k[0].isdigit())

    def _replicate_for_data_parallel(self):
        replica = self.__new__(type(self))
        replica.__dict__ = self.__dict__.copy()
        replica._parameters = {}
        replica._buffers = replica._buffers.copy()
        replica._modules = replica._modules.copy()
        replica._is_replica = True
        return replica

    def compile(self, *args, **kwargs):
        """Accepted for compatibility: cinder runs modules eagerly, so nothing changes."""
