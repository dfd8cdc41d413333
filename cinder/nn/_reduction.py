"""Loss reductions: the ``reduction`` string as PyTorch's enum, and the legacy
``size_average``/``reduce`` arguments translated (with their deprecation warning)."""

import warnings

_ENUM = {"none": 0, "mean": 1, "sum": 2}


def get_enum(reduction):
    """0 for 'none', 1 for 'mean', 2 for 'sum'; ValueError for anything else."""
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", stacklevel=2)
        return 1
    if reduction not in _ENUM:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _ENUM[reduction]


def legacy_get_string(size_average, reduce, emit_warning=True):
    """The ``reduction`` string that the old ``size_average``/``reduce`` pair means (both
    default to True): mean, sum (``size_average=False``) or none (``reduce=False``)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use "
                      f"reduction='{ret}' instead.", stacklevel=2)
    return ret


def legacy_get_enum(size_average, reduce, emit_warning=True):
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))
