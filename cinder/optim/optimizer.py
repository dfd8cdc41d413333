"""``torch.optim.Optimizer``: the base every optimizer builds on.

It owns what is common to all algorithms: parameter groups (each a dict of options plus its
``params`` list), per-parameter ``state``, ``zero_grad``, the step/state_dict hooks, and the
``state_dict``/``load_state_dict`` pair in PyTorch's exact layout so checkpoints move between
the two libraries. Subclasses supply ``__init__`` (validation and defaults) and ``step``.
"""

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.profiler import record_function
from ..utils.hooks import RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()


class _RequiredParameter:
    """Marks an option every parameter group must give (it has no default)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def register_optimizer_step_pre_hook(hook):
    """Call ``hook(optimizer, args, kwargs)`` before every optimizer's ``step``."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """Call ``hook(optimizer, args, kwargs)`` after every optimizer's ``step``."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _typename(obj):
    """``torch.typename``: 'torch.FloatTensor' for tensors, the qualified class name otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    module = cls.__module__
    if module in ("builtins", "__builtin__", None):
        return cls.__qualname__
    return f"{module}.{cls.__qualname__}"


def _use_grad_for_differentiable(step):
    """Run ``step`` with grad mode on only when the optimizer was built ``differentiable``."""
    @functools.wraps(step)
    def run(self, *args, **kwargs):
        with grad_mode.set_grad_enabled(self.defaults["differentiable"]):
            return step(self, *args, **kwargs)
    return run


def _hooked_step(step):
    """Wrap a subclass's ``step`` so the global and per-instance step hooks run around it, all
    inside a ``record_function`` range named ``Optimizer.step#<class>.step`` (what a recording
    profiler shows, as PyTorch's ``Optimizer.profile_hook_step`` names it).

    Hooks see ``args`` with the optimizer itself first, as PyTorch passes them.
    """
    @functools.wraps(step)
    def run(*args, **kwargs):
        with record_function(f"Optimizer.step#{type(args[0]).__name__}.step"):
            return _run_hooked(step, args, kwargs)
    run.hooked = True
    return run


def _run_hooked(step, args, kwargs):
    """``step`` with the global and per-instance step hooks around it."""
    self = args[0]
    for pre_hook in chain(_global_optimizer_pre_hooks.values(),
                          self._optimizer_step_pre_hooks.values()):
        result = pre_hook(self, args, kwargs)
        if result is not None:
            if isinstance(result, tuple) and len(result) == 2:
                args, kwargs = result
            else:
                raise RuntimeError(f"{step} must return None or a tuple of (new_args, "
                                   f"new_kwargs), but got {result}.")
    out = step(*args, **kwargs)
    self._optimizer_step_code()
    for post_hook in chain(self._optimizer_step_post_hooks.values(),
                           _global_optimizer_post_hooks.values()):
        post_hook(self, args, kwargs)
    return out


def _closure_loss(closure):
    """Run a step's closure (with grad mode on, as PyTorch does) and return its loss."""
    if closure is None:
        return None
    with grad_mode.enable_grad():
        return closure()


def _check(condition, message):
    """Raise PyTorch's ValueError for a bad optimizer option."""
    if not condition:
        raise ValueError(message)


def _check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    _check(0.0 <= lr, f"Invalid learning rate: {lr}")


def _get_value(x):
    """A Python number from a one-element tensor (``step`` is kept as one)."""
    return x.item() if isinstance(x, Tensor) else x


def _to_scalar(x):
    """A one-element tensor of any shape becomes 0-d; numbers stay numbers."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _get_scalar_dtype():
    """The dtype of the ``step`` counter: float64 under a float64 default dtype, else float32."""
    return D.float64 if D.get_default_dtype() is D.float64 else D.float32


def _hook_handle(hooks, hook, prepend):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


_HOOK_DICTS = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
               "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
               "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks")


class Optimizer:
    """Base class of all optimizers.

    Args:
        params: an iterable of tensors, of ``(name, tensor)`` pairs, or of dicts (parameter
            groups, each with a ``params`` entry and any per-group options).
        defaults (dict): option values used by groups that do not set them.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "hooked", False):
            cls.step = _hooked_step(step)

    def __init__(self, params, defaults):
        self.defaults = defaults
        for name in _HOOK_DICTS:
            setattr(self, name, OrderedDict())
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)
        self._warned_capturable_if_run_uncaptured = True

    # ------------------------------------------------------------------------------------------
    # Pickling and printing
    # ------------------------------------------------------------------------------------------
    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    # Options a subclass added over time: groups pickled or saved without them get these.
    _group_defaults = ()

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in _HOOK_DICTS:
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self.defaults.setdefault("differentiable", False)
        for group in self.param_groups:
            for key, value in self._group_defaults:
                group.setdefault(key, value)

    def __repr__(self):
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # ------------------------------------------------------------------------------------------
    # Hooks
    # ------------------------------------------------------------------------------------------
    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs before ``step``; it may return new
        ``(args, kwargs)``."""
        return _hook_handle(self._optimizer_step_pre_hooks, hook, False)

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs after ``step``."""
        return _hook_handle(self._optimizer_step_post_hooks, hook, False)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """``hook(optimizer)`` runs before ``state_dict`` builds its result."""
        return _hook_handle(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """``hook(optimizer, state_dict)`` runs on the result; a returned dict replaces it."""
        return _hook_handle(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """``hook(optimizer, state_dict)`` runs before loading; a returned dict is loaded
        instead."""
        return _hook_handle(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """``hook(optimizer)`` runs after ``load_state_dict`` finished."""
        return _hook_handle(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ------------------------------------------------------------------------------------------
    # state_dict / load_state_dict
    # ------------------------------------------------------------------------------------------
    def state_dict(self):
        """The optimizer's state as ``{'state': {id: {...}}, 'param_groups': [...]}``.

        Parameters are replaced by integer ids counted across the groups in order; state is
        keyed by those ids. Tensors in the state are the optimizer's own (not copies).
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        ids = {}
        start = 0
        packed_groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                ids.setdefault(id(p), i)
            packed["params"] = [ids[id(p)] for p in group["params"]]
            start += len(packed["params"])
            packed_groups.append(packed)
        packed_state = {(ids[id(k)] if isinstance(k, Tensor) else k): v
                        for k, v in self.state.items()}
        state_dict = {"state": packed_state, "param_groups": packed_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups,
                                                 key=None):
        """How one loaded state tensor is placed: ``step`` stays as saved (float32 on CPU)
        unless the group is fused/capturable; everything else takes the parameter's device
        and, for floating parameters, its dtype."""
        fused = capturable = False
        for group in param_groups:
            if param_id in group["params"]:
                fused = group.get("fused", False)
                capturable = group.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                return value.to(dtype=D.float32, device=param.device)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict):
        """Load a state produced by ``state_dict()`` (cinder's or PyTorch's).

        Saved ids are matched to this optimizer's parameters by position, group by group.
        """
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, param_id, key=None):
            # A deep copy of ``value`` with every tensor placed as the parameter wants it.
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(
                    param, value, param_id, state_dict["param_groups"], key)
            if isinstance(value, dict):
                return {k: cast(param, v, param_id, key=k) for k, v in value.items()}
            if isinstance(value, Iterable) and not isinstance(value, str):
                return type(value)(cast(param, v, param_id) for v in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v, k)
            else:
                state[k] = v
        new_groups = []
        for group, new_group in zip(groups, saved_groups):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            new_groups.append(new_group)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # ------------------------------------------------------------------------------------------
    # Gradients, steps and groups
    # ------------------------------------------------------------------------------------------
    def zero_grad(self, set_to_none=True):
        """Reset every parameter's ``.grad``: to None (default) or to zeros in place (inside
        a ``record_function`` range ``Optimizer.zero_grad#<class>.zero_grad``, as PyTorch's)."""
        with record_function(f"Optimizer.zero_grad#{type(self).__name__}.zero_grad"):
            self._zero_grads(set_to_none)

    @staticmethod
    def profile_hook_step(func):
        """``func`` (an optimizer's ``step``) wrapped so the step hooks run around it inside a
        profiler range named after the optimizer's class. Subclasses get this automatically."""
        return _hooked_step(func)

    def _optimizer_step_code(self):
        """Called after every ``step`` (PyTorch's profilers look for this function); does
        nothing."""

    def _zero_grads(self, set_to_none):
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def step(self, closure=None):
        """Update the parameters once; ``closure`` re-evaluates the model and returns the
        loss."""
        raise NotImplementedError

    def add_param_group(self, param_group):
        """Add a group of parameters (a dict with ``params`` and optional options)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)
        self._split_names(param_group)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(param))
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        self._check_disjoint(param_group)
        self.param_groups.append(param_group)

    def _step_groups(self, closure):
        """The body most ``step`` methods share: run the closure, then hand each group's
        parameters that have gradients (and their state) to ``self._update_group``."""
        loss = _closure_loss(closure)
        sparse_message = f"{type(self).__name__} does not support sparse gradients" \
            if self._refuses_sparse else None
        for group in self.param_groups:
            params, grads, states = self._gather(group, self._new_state, sparse_message)
            self._update_group(group, params, grads, states)
        return loss

    _refuses_sparse = True

    def _gather(self, group, init_state, sparse_message=None):
        """The group's parameters that have a gradient, their gradients and their state dicts;
        ``init_state(p, state, group)`` fills the state of a parameter seen for the first
        time."""
        params, grads, states = [], [], []
        for p in group["params"]:
            if p.grad is None:
                continue
            if sparse_message is not None and p.grad.is_sparse:
                raise RuntimeError(sparse_message)
            state = self.state[p]
            if len(state) == 0:
                init_state(p, state, group)
            params.append(p)
            grads.append(p.grad)
            states.append(state)
        return params, grads, states

    @staticmethod
    def _split_names(param_group):
        """Named parameters ``(name, tensor)`` become ``params`` plus ``param_names``."""
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some "
                                 "param names are missing")
            param_group["param_names"] = names

    def _check_disjoint(self, param_group):
        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=4)
        seen = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
