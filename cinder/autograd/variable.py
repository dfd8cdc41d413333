"""``torch.autograd.Variable``: kept for old code; Variables and Tensors are one type now."""

import warnings


def Variable(data, requires_grad=False, volatile=False):
    """The pre-0.4 wrapper: returns the tensor itself (Variables and Tensors merged in 0.4).

    ``volatile=True`` marks the tensor so results computed from it record no graph, as the
    old documentation describes; it warns, as PyTorch did after the merge.
    """
    from .._tensor import Tensor
    if not isinstance(data, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
    if volatile:
        warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                      "instead.", UserWarning, stacklevel=2)
    t = data
    if requires_grad:
        t.requires_grad_(True)
    if volatile:
        t._volatile = True
    return t
