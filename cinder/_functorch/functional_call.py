"""``torch.func.functional_call`` and ``stack_module_state``: run a module on given parameter
and buffer tensors, and stack the states of several like modules for ``vmap`` (ensembling)."""

from ..nn.utils.stateless import _functional_call
from ..ops import FUNCTIONS

__all__ = ["functional_call", "stack_module_state"]


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call ``module(*args, **kwargs)`` with its parameters and buffers replaced by the tensors
    of ``parameter_and_buffer_dicts`` (a dict from names such as ``"fc.weight"`` to tensors, or
    a tuple/list of such dicts whose keys do not overlap); the module's own tensors are put
    back afterwards. ``args`` may be a single value or a tuple. With ``tie_weights`` a value
    given for one of several tied names serves them all; ``strict`` demands every name."""
    if isinstance(parameter_and_buffer_dicts, dict):
        values = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (tuple, list)):
        values = _merge_dicts(parameter_and_buffer_dicts)
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(parameter_and_buffer_dicts)}")
    return _functional_call(module, values, args, kwargs, tie_weights=tie_weights,
                            strict=strict)


def _merge_dicts(dicts):
    if not all(isinstance(d, dict) for d in dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                         "dictionaries")
    counts = {}
    for d in dicts:
        for key in d:
            counts[key] = counts.get(key, 0) + 1
    repeated = [key for key, n in counts.items() if n > 1]
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional "
                         "call is ambiguous")
    return {k: v for d in dicts for k, v in d.items()}


def stack_module_state(models):
    """``(params, buffers)``: for ``M`` modules of one class, dicts from each parameter and
    buffer name to the ``M`` tensors stacked along a new first dimension, ready for
    ``vmap(..., in_dims=(0, 0, None))`` over :func:`functional_call`. Stacked parameters are new
    leaves (``requires_grad`` when the originals require grad), so an optimizer can train
    them."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    first_type = type(models[0])
    if not all(type(m) is first_type for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers


def _stacked_leaf(tensors, name):
    flags = {t.requires_grad for t in tensors}
    if len(flags) > 1:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    stacked = FUNCTIONS["stack"](tensors)
    if flags == {True}:
        stacked = stacked.detach().requires_grad_()
    return stacked
