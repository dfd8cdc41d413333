"""Flatten parameters into one vector and back."""

from ..._tensor import Tensor
from ...ops import FUNCTIONS

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param, old):
    """-1 for CPU, the CUDA index otherwise; parameters must all share one device."""
    current = param.get_device() if param.device.type == "cuda" else -1
    if old is None:
        return current
    if current != old:
        raise TypeError("Found two parameters on different devices, this is currently not "
                        "supported.")
    return old


def parameters_to_vector(parameters):
    """One 1-d tensor holding every parameter, flattened and concatenated."""
    device = None
    vec = []
    for param in parameters:
        device = _check_param_device(param, device)
        vec.append(param.view(-1))
    return FUNCTIONS["cat"](vec)


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of ``vec`` into the parameters (their ``.data``)."""
    if not isinstance(vec, Tensor):
        from ..modules.module import typename
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    device = None
    pointer = 0
    for param in parameters:
        device = _check_param_device(param, device)
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
