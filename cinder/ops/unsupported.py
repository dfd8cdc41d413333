"""``tensor.<name>`` for a method of a deliberately excluded PyTorch family (sparse,
quantized, named tensors...) raises an AttributeError that names the family and the reason,
instead of Python's bare "'Tensor' object has no attribute"."""

from .._tensor import Tensor
from ._unsupported import family_of, unsupported_message


def _tensor_getattr(self, name):
    # Only reached when normal lookup fails, so it costs nothing on the fast path.
    found = None if name.startswith("_") else family_of("Tensor", name)
    if found is not None:
        raise AttributeError(unsupported_message(f"Tensor.{name}", *found), name=name, obj=self)
    raise AttributeError(f"'Tensor' object has no attribute '{name}'", name=name, obj=self)


if "__getattr__" not in Tensor.__dict__:
    Tensor.__getattr__ = _tensor_getattr
