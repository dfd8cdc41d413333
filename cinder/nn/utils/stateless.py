"""``functional_call``: run a module with some parameters/buffers replaced by given tensors
(the module's own tensors are put back afterwards)."""

import contextlib
import warnings

__all__ = ["functional_call"]


def _untie_named_tensors_map(module, values):
    """Extend ``values`` to every name sharing a tensor with a given name (tied weights)."""
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    groups = {}
    for name, t in named.items():
        groups.setdefault(id(t), set()).add(name)
    tied = {n: names for names in groups.values() if len(names) > 1 for n in names}
    given_tied = [n for n in values if n in tied]
    for name in given_tied:
        names = tied[name]
        if len(names.intersection(given_tied)) > 1 and \
                len({id(values[n]) for n in names if n in values}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, "
                             "which are tied. Consider using tie_weights=False")
    out = dict(values)
    for name in given_tied:
        for other in tied[name]:
            out[other] = values[name]
    return out


def _owner(module, name):
    path, _, leaf = name.rpartition(".")
    return (module.get_submodule(path) if path else module), leaf


def _swap(module, name, value):
    """Put ``value`` in place of the tensor ``name``; returns what was there (or a marker)."""
    owner, leaf = _owner(module, name)
    for table in (owner._parameters, owner._buffers):
        if leaf in table:
            old = table[leaf]
            table[leaf] = value
            return old
    old = owner.__dict__.get(leaf, _MISSING)
    object.__setattr__(owner, leaf, value)
    return old


_MISSING = object()


def _check_keys(module, values):
    keys = {n for n, _ in module.named_parameters(remove_duplicate=False)}
    keys |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
    missing = sorted(keys - set(values))
    unexpected = sorted(set(values) - keys)
    msgs = []
    if unexpected:
        msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if msgs:
        raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
            module._get_name(), "\n\t".join(msgs)))


@contextlib.contextmanager
def _reparametrize_module(module, values, tie_weights=False, strict=False):
    values = _untie_named_tensors_map(module, values) if tie_weights else values
    if strict:
        _check_keys(module, values)
    originals = {}
    try:
        for name, value in values.items():
            originals[name] = _swap(module, name, value)
        yield
    finally:
        for name, old in originals.items():
            if old is _MISSING:
                owner, leaf = _owner(module, name)
                owner.__dict__.pop(leaf, None)
            else:
                _swap(module, name, old)


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                     tie_weights=True, strict=False):
    from ..parallel import DataParallel
    if isinstance(module, DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    kwargs = {} if kwargs is None else kwargs
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights, strict):
        return module(*args, **kwargs)


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Deprecated: use ``torch.func.functional_call`` (the same function)."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)
