"""Views of the parts of a complex tensor: ``real`` and ``imag`` (also the ``Tensor.real`` /
``Tensor.imag`` properties). ``view_as_real``/``view_as_complex`` are in ``joining.py``."""

from .. import _dtype as D
from ._registry import node_class, publish_attribute
from ._view_factory import NO_SAVES, view_op

# ----------------------------------------------------------------------------------------------
# real / imag: views of the parts of a complex tensor
# ----------------------------------------------------------------------------------------------

RealNode = node_class("SelectBackward0", {"self": lambda grad, s: grad.to(s.complex_dtype)})
ImagNode = node_class("SelectBackward0", {"self": lambda grad, s: grad * 1j})


def _real_geometry(input):
    """The real part: a view for complex tensors, the tensor itself for real ones."""
    if input._dtype.category != D.COMPLEX:
        return input
    return input._data.real, RealNode, {"complex_dtype": input._dtype}


def _imag_geometry(input):
    """The imaginary part of a complex tensor, as a view."""
    if input._dtype.category != D.COMPLEX:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return input._data.imag, ImagNode, NO_SAVES


def _real_dtype(input):
    return input._dtype.to_real()


# PyTorch has no real_copy/imag_copy; the properties Tensor.real/.imag are published below.
real = view_op("real", _real_geometry, (RealNode,), method=False, copy=False,
               result_dtype=_real_dtype)
imag = view_op("imag", _imag_geometry, (ImagNode,), method=False, copy=False,
               result_dtype=_real_dtype)
publish_attribute("real", real, "real", prop=True)
publish_attribute("imag", imag, "imag", prop=True)
