"""``torch.nn.utils.prune``: zeroing parts of a module's parameters through a mask.

Pruning a parameter ``name`` of a module changes the module in three ways, all visible in its
``state_dict``:

- the original values move to a new parameter ``name + "_orig"`` (the one the optimizer trains);
- a buffer ``name + "_mask"`` holds ones where values are kept and zeros where they are cut;
- ``name`` becomes a plain tensor attribute, ``mask * orig``, recomputed before every forward by
  the pruning method itself, registered as a forward pre-hook.

Pruning the same parameter again combines the methods in a ``PruningContainer``: the new method
only chooses among the values the earlier ones kept. ``remove`` makes the pruning permanent
(``name`` is a parameter again, holding the masked values) and takes the hook away.

The methods that choose values (``L1Unstructured``, ``LnStructured``, the random ones) draw their
choices with ``topk``/``kthvalue`` and ``rand`` in the order PyTorch does, so after the same
``manual_seed`` the same values are cut.
"""

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ..._layout import contiguous_format
from ...ops import FUNCTIONS as _F
from .convert_parameters import parameters_to_vector

__all__ = ["BasePruningMethod", "CustomFromMask", "Identity", "L1Unstructured",
           "LnStructured", "PruningContainer", "RandomStructured", "RandomUnstructured",
           "custom_from_mask", "global_unstructured", "identity", "is_pruned",
           "l1_unstructured", "ln_structured", "random_structured", "random_unstructured",
           "remove"]


class BasePruningMethod(ABC):
    """A way of choosing which entries of a tensor to cut. Subclasses say how in
    ``compute_mask``; an instance attached to a module (by ``apply``) is the forward pre-hook
    that recomputes the pruned parameter from its ``_orig`` and ``_mask``."""

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for ``t``: ``default_mask`` (what earlier pruning kept) with more of
        its ones turned to zeros."""

    def apply_mask(self, module):
        """``mask * orig`` for the parameter this method prunes on ``module``."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with a new ``cls(*args, **kwargs)``, ranking its entries by
        ``importance_scores`` (same shape; the parameter itself when None). Returns the
        method now attached to the module (a container when ``name`` was pruned before)."""
        method = _attach(cls, module, name, args, kwargs)
        orig = getattr(module, name)
        if importance_scores is None:
            importance_scores = orig
        elif importance_scores.shape != orig.shape:
            raise AssertionError(
                f"importance_scores should have the same shape as parameter {name} of "
                f"{module}, got {importance_scores.shape} vs {orig.shape}")
        first = not isinstance(method, PruningContainer)
        if first:
            # the values move to ``<name>_orig``; the mask starts all ones
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _F["ones_like"](orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone(
                memory_format=contiguous_format)
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:               # leave the module as it was
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` with this method's mask applied (no module involved)."""
        if importance_scores is None:
            importance_scores = t
        elif importance_scores.shape != t.shape:
            raise AssertionError("importance_scores should have the same shape as tensor t, "
                                 f"got {importance_scores.shape} vs {t.shape}")
        if default_mask is None:
            default_mask = _F["ones_like"](t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning of ``module`` permanent: the parameter takes back its name,
        holding the masked values; ``_orig`` and ``_mask`` go."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be "
                                 "removed")
        name = self._tensor_name
        weight = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters[name + "_orig"]
        orig.data = weight.data
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


def _attach(cls, module, name, args, kwargs):
    """A new ``cls`` for ``module.<name>``, combined with the method already pruning it (whose
    hook is taken off: ``apply`` registers the combination)."""
    old, keys = None, []
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            old = hook
            keys.append(key)
    if len(keys) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} "
                             f"of module {module}. Use a PruningContainer.")
    for key in keys:
        del module._forward_pre_hooks[key]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if old is None:
        return method
    container = old if isinstance(old, PruningContainer) else PruningContainer(old)
    container.add_pruning_method(method)
    return container


class PruningContainer(BasePruningMethod):
    """The pruning methods applied, in turn, to one parameter. Its mask is the last method's
    choice among the entries the earlier ones kept."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
        for method in args:
            self.add_pruning_method(method)

    def add_pruning_method(self, method):
        """Append ``method`` (it must prune the same parameter)."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """The newest method's mask computed on what is still kept: the kept entries
        (unstructured), the kept slices along its ``dim`` (structured), or everything
        (global)."""
        method = self._pruning_methods[-1]
        mask = default_mask.to(dtype=t.dtype)
        kept = _kept_region(method, t, default_mask)
        mask[kept] = method.compute_mask(t[kept], default_mask=default_mask[kept]).to(
            dtype=mask.dtype)
        return mask


def _kept_region(method, t, mask):
    """The index selecting what ``method`` may still choose from in a container."""
    kind = method.PRUNING_TYPE
    if kind == "unstructured":
        return mask == 1
    if kind == "global":
        return (slice(None),) * t.dim()
    if kind != "structured":
        raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
    if not hasattr(method, "dim"):
        raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the '
                             "attribute `dim` defined.")
    n_dims = t.dim()
    dim = method.dim + n_dims if method.dim < 0 else method.dim
    if dim < 0:
        raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
    # a slice along ``dim`` is still there while any of its entries is kept
    alive = mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
    return tuple(alive if d == dim else slice(None) for d in range(n_dims))


class Identity(BasePruningMethod):
    """Prunes nothing: the module gets ``_orig``, an all-ones ``_mask`` and the hook."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Cuts ``amount`` entries (a count, or a fraction of the tensor) chosen at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        return _cut(default_mask, _count_to_prune(self.amount, t.nelement()),
                    lambda: _F["rand_like"](t), largest=True)

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Cuts the ``amount`` entries of smallest absolute value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        return _cut(default_mask, _count_to_prune(self.amount, t.nelement()), t.abs,
                    largest=False)

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Cuts ``amount`` whole slices along ``dim`` (channels of a conv weight with ``dim=0``),
    chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        size = _check_structured(t, self.dim)
        count = _count_to_prune(self.amount, size)
        if not count:
            return default_mask
        draws = _F["rand"](size)
        # the ``count`` lowest draws are cut (ties above the threshold survive)
        keep = draws > draws.kthvalue(count).values
        mask = _slices_of(t, self.dim, keep)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Cuts the ``amount`` slices along ``dim`` of smallest ``n``-norm (``n`` as ``p`` in
    ``torch.norm``: an int, ``inf``, ``-inf``, ``'fro'``, ``'nuc'``)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        size = _check_structured(t, self.dim)
        count = _count_to_prune(self.amount, size)
        dim = self.dim % t.dim()
        norms = _F["norm"](t, p=self.n, dim=[d for d in range(t.dim()) if d != dim])
        kept = norms.topk(size - count, largest=True).indices
        if not count:
            return default_mask
        mask = _slices_of(t, self.dim, kept)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Cuts where a given ``mask`` is zero."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match "
                                 f"self.mask shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


# ----------------------------------------------------------------------------------------------
# The functional forms: each prunes ``module.<name>`` in place and returns the module
# ----------------------------------------------------------------------------------------------

def identity(module, name):
    """Attach pruning to ``module.<name>`` without cutting anything."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Cut ``amount`` random entries of ``module.<name>``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Cut the ``amount`` entries of ``module.<name>`` of smallest magnitude (or smallest
    ``importance_scores``)."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Cut ``amount`` random slices along ``dim`` of ``module.<name>``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Cut the ``amount`` slices along ``dim`` of ``module.<name>`` of smallest ``n``-norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    """Cut ``module.<name>`` where ``mask`` is zero."""
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune several parameters together, as one long vector: ``pruning_method(**kwargs)``
    (an unstructured method) chooses among all their entries at once, so a layer with smaller
    values loses more of them. ``parameters`` is an iterable of ``(module, name)`` pairs;
    ``importance_scores`` may map some pairs to their own scores."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    if importance_scores is None:
        importance_scores = {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = parameters_to_vector([importance_scores.get((m, n), getattr(m, n))
                                   for m, n in parameters])
    default_mask = parameters_to_vector([getattr(m, n + "_mask", _F["ones_like"](getattr(m, n)))
                                         for m, n in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final = container.compute_mask(scores, default_mask)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        custom_from_mask(module, name, final[start:start + param.numel()].view_as(param))
        start += param.numel()


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent (see ``BasePruningMethod.remove``)."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module):
    """Whether ``module`` or any module inside it has a pruning hook."""
    return any(isinstance(hook, BasePruningMethod)
               for _, sub in module.named_modules() for hook in sub._forward_pre_hooks.values())


# ----------------------------------------------------------------------------------------------
# Checks and small helpers
# ----------------------------------------------------------------------------------------------

def _check_amount(amount):
    """``amount`` must be a non-negative int (a count) or a float in [0, 1] (a fraction)."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (amount < 0 if isinstance(amount, numbers.Integral) else
            not 0.0 <= float(amount) <= 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _count_to_prune(amount, size):
    """How many of ``size`` entries (or slices) ``amount`` asks to cut."""
    count = amount if isinstance(amount, numbers.Integral) else round(amount * size)
    if isinstance(amount, numbers.Integral) and amount > size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to "
                         f"prune={size}")
    return count


def _cut(default_mask, count, scores, largest):
    """A copy of ``default_mask`` with zeros at the ``count`` largest (or smallest) entries
    of ``scores()`` (called only when there is something to cut: the random methods draw
    nothing then, as in PyTorch)."""
    mask = default_mask.clone(memory_format=contiguous_format)
    if count:
        mask.view(-1)[scores().view(-1).topk(count, largest=largest).indices] = 0
    return mask


def _check_structured(t, dim):
    """The size of ``t`` along ``dim``, after checking structured pruning can apply."""
    if t.dim() <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {t.shape} with {t.dim()} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")
    return t.shape[dim]


def _slices_of(t, dim, which):
    """A mask shaped like ``t`` that is one on the slices along ``dim`` that ``which`` (a bool
    mask or indices) selects, zero elsewhere."""
    mask = _F["zeros_like"](t)
    mask[tuple(which if d == dim % t.dim() else slice(None) for d in range(t.dim()))] = 1
    return mask
