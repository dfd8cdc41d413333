"""``torch.utils.hooks``: the handle returned by every ``register_*hook`` call.

Kept free of other cinder imports: the autograd graph (low in the layering) and nn modules
(high) both hand these out.
"""

import itertools
import weakref

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]


def _ref(d):
    # Hook tables are usually OrderedDicts (weak-referenceable), but plain dicts are not;
    # for those the handle keeps a strong reference.
    try:
        return weakref.ref(d)
    except TypeError:
        return lambda: d


class RemovableHandle:
    """A handle that removes a registered hook: ``handle.remove()``, or use it as a
    context manager so the hook lives only inside the ``with`` block.

    ``extra_dict`` (a dict or a list of dicts) names further tables holding entries under the
    same id (e.g. a module's "hooks that take kwargs" set); ``remove`` clears those too.
    """

    id: int
    next_id = 0
    _ids = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = _ref(hooks_dict)
        self.id = next(RemovableHandle._ids)
        RemovableHandle.next_id = self.id + 1
        if extra_dict is None:
            extras = ()
        elif isinstance(extra_dict, list):
            extras = tuple(extra_dict)
        else:
            extras = (extra_dict,)
        self.extra_dict_ref = tuple(_ref(d) for d in extras)

    @property
    def hooks_dict(self):
        return self.hooks_dict_ref()

    def remove(self):
        """Unregister the hook (a no-op when it is already gone)."""
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            table = ref()
            if table is not None and self.id in table:
                del table[self.id]

    def __getstate__(self):
        extras = tuple(ref() for ref in self.extra_dict_ref)
        return (self.hooks_dict_ref(), self.id, extras)

    def __setstate__(self, state):
        table, self.id, extras = state[0], state[1], (state[2] if len(state) > 2 else ())
        self.hooks_dict_ref = _ref({} if table is None else table)
        self.extra_dict_ref = tuple(_ref(d) for d in extras if d is not None)
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def unserializable_hook(f):
    """Mark a tensor hook as one that cannot be pickled (checked by ``warn_if_has_hooks``)."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor):
    """Warn when ``tensor`` carries backward hooks that would be lost by serialization."""
    import warnings
    hooks = getattr(tensor, "_backward_hooks", None) or getattr(tensor, "_hooks", None)
    if hooks:
        for k in hooks:
            hook = hooks[k]
            if not hasattr(hook, "__torch_unserializable__"):
                warnings.warn(f"backward hook {repr(hook)} on tensor will not be serialized.  "
                              "If this is expected, you can decorate the function with "
                              "@torch.utils.hooks.unserializable_hook to suppress this warning",
                              stacklevel=2)


class BackwardHook:
    """The machinery behind a Module's full backward hooks and backward pre-hooks.

    The module's tensor inputs and outputs pass through an identity autograd Function, so the
    graph has one node where the gradients of the outputs arrive (pre-hooks run there) and one
    where the gradients of the inputs leave (hooks run there). Non-tensor arguments show up as
    None in the tuples handed to the user's hooks.
    """

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn):
        def hook(grad_input, _):
            if self.grad_outputs is None:
                return None
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)

        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        from .._tensor import Tensor
        from ..autograd import grad_mode
        idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in idx]
        if not (any(t.requires_grad for t in tensors) and grad_mode.STATE.grad_enabled):
            return args, None
        new_tensors = _BackwardHookFunction.get().apply(*tensors)
        if not isinstance(new_tensors, tuple):
            new_tensors = (new_tensors,)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input "
                               "Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors if t.grad_fn is not None and
                    t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if not grad_fns:
            raise RuntimeError("Error while setting up backward hooks. Please open an issue "
                               "with a code sample to reproduce this.")
        fn(grad_fns[0])
        arg_list = list(args)
        for i, val in zip(idx, new_tensors):
            arg_list[i] = val
        out = tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)
        return out, idx

    def setup_input_hook(self, args):
        res, idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = idx
        return res

    def _run_output_hooks(self, grad_output):
        self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                 self.n_outputs)
        expected = len(self.grad_outputs)
        for pre_hook in self.user_pre_hooks:
            new = pre_hook(self.module, self.grad_outputs)
            if new is None:
                continue
            if len(new) != expected:
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(new)}, but expected {expected}")
            self.grad_outputs = new
        local = self.grad_outputs
        if self.input_tensors_index is None:
            # No input needs a gradient: the hooks fire here, with None for every grad_input.
            import warnings
            warnings.warn("Full backward hook is firing when gradients are computed with "
                          "respect to module outputs since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=5)
            grad_inputs = self._pack_with_none([], [], self.n_inputs)
            for user_hook in self.user_hooks:
                res = user_hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple) and
                                            all(el is None for el in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        if local is not None:
            return tuple(local[i] for i in self.output_tensors_index)
        return None

    def setup_output_hook(self, args):
        def fn(grad_fn):
            grad_fn.register_hook(lambda _, grad_output: self._run_output_hooks(grad_output))

        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = idx
        return res if is_tuple else res[0]


class _BackwardHookFunction:
    """Builds (once, lazily: autograd sits above this file) the identity Function whose node
    is named ``BackwardHookFunctionBackward``."""

    _cls = None

    @classmethod
    def get(cls):
        if cls._cls is None:
            from ..autograd.function import Function

            class BackwardHookFunction(Function):
                @staticmethod
                def forward(ctx, *args):
                    ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
                    return args

                @staticmethod
                def backward(ctx, *args):
                    return args

            cls._cls = BackwardHookFunction
        return cls._cls
