"""``scatter`` / ``scatter_kwargs`` / ``gather``: spread nested inputs over devices and bring
nested outputs back.

Tensors are cut along ``dim`` (through the ``Scatter`` / ``Gather`` autograd Functions, so
gradients flow back); tuples, lists, dicts and namedtuples are walked into; anything else is
handed to every device as the same object.
"""

from ..._tensor import Tensor
from ._functions import Gather, Scatter

__all__ = ["scatter", "scatter_kwargs", "gather"]


def _is_namedtuple(obj):
    """Whether ``obj`` is an instance of a ``collections.namedtuple`` / ``typing.NamedTuple``."""
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def _scatter_map(obj, target_gpus, dim):
    """One version of ``obj`` per device (fewer if a tensor has fewer slices than devices)."""
    def walk(item):
        return _scatter_map(item, target_gpus, dim)

    if isinstance(obj, Tensor):
        return Scatter.apply(target_gpus, None, dim, obj)
    if _is_namedtuple(obj):
        return [type(obj)(*parts) for parts in zip(*map(walk, obj))]
    if isinstance(obj, tuple) and len(obj) > 0:
        return list(zip(*map(walk, obj)))
    if isinstance(obj, list) and len(obj) > 0:
        return [list(parts) for parts in zip(*map(walk, obj))]
    if isinstance(obj, dict) and len(obj) > 0:
        return [type(obj)(parts) for parts in zip(*map(walk, obj.items()))]
    return [obj for _ in target_gpus]


def scatter(inputs, target_gpus, dim=0):
    """``inputs`` cut into one piece per device of ``target_gpus``: tensors in chunks along
    ``dim``, containers element by element, other objects repeated."""
    return _scatter_map(inputs, target_gpus, dim)


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    """``scatter`` of the positional ``inputs`` and of ``kwargs``, padded to the same length
    with ``()`` / ``{}``; returns (tuple of input tuples, tuple of kwargs dicts)."""
    scattered_inputs = scatter(inputs, target_gpus, dim) if inputs else []
    scattered_kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(scattered_inputs) < len(scattered_kwargs):
        scattered_inputs.extend(() for _ in range(len(scattered_kwargs) - len(scattered_inputs)))
    elif len(scattered_kwargs) < len(inputs):
        scattered_kwargs.extend({} for _ in range(len(scattered_inputs) - len(scattered_kwargs)))
    return tuple(scattered_inputs), tuple(scattered_kwargs)


def _gather_map(outputs, target_device, dim):
    first = outputs[0]
    if isinstance(first, Tensor):
        return Gather.apply(target_device, dim, *outputs)
    if first is None:
        return None
    if isinstance(first, dict):
        if not all(len(first) == len(d) for d in outputs):
            raise ValueError("All dicts must have the same number of keys")
        return type(first)((k, _gather_map([d[k] for d in outputs], target_device, dim))
                           for k in first)
    # a map object, as PyTorch's: a string output gathers into str(<map object>), there too
    parts = map(lambda p: _gather_map(p, target_device, dim), zip(*outputs, strict=True))
    if _is_namedtuple(first):
        return type(first)._make(parts)
    return type(first)(parts)


def gather(outputs, target_device, dim=0):
    """One object from the per-device ``outputs``: tensors concatenated along ``dim`` on
    ``target_device`` ('cpu' for the CPU), containers rebuilt element by element."""
    return _gather_map(outputs, target_device, dim)
