"""Views of the parts of a complex tensor: ``real`` and ``imag`` (also the ``Tensor.real`` /
``Tensor.imag`` properties). ``view_as_real``/``view_as_complex`` are in ``joining.py``."""

from .. import _dtype as D
from ._registry import node_class, publish_attribute, register
from .views import make_view

# ----------------------------------------------------------------------------------------------
# real / imag: views of the parts of a complex tensor
# ----------------------------------------------------------------------------------------------

RealNode = node_class("SelectBackward0", {"self": lambda grad, s: grad.to(s.complex_dtype)})
ImagNode = node_class("SelectBackward0", {"self": lambda grad, s: grad * 1j})


def real(input):
    """The real part: a view for complex tensors, the tensor itself for real ones."""
    if input._dtype.category != D.COMPLEX:
        return input
    out = make_view(input, input._data.real, RealNode, complex_dtype=input._dtype)
    out._dtype = input._dtype.to_real()
    return out


def imag(input):
    """The imaginary part of a complex tensor, as a view."""
    if input._dtype.category != D.COMPLEX:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    out = make_view(input, input._data.imag, ImagNode)
    out._dtype = input._dtype.to_real()
    return out


register("real", real, method=False, family="views", nodes=(RealNode,))
register("imag", imag, method=False, family="views", nodes=(ImagNode,))
publish_attribute("real", real, "real", prop=True)
publish_attribute("imag", imag, "imag", prop=True)
