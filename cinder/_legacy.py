"""Legacy API kept for old code and the seed material: typed tensor classes
(``torch.FloatTensor``, ``torch.cuda.LongTensor``...), and ``set_default_tensor_type``
(``Variable`` lives in ``autograd/variable.py``)."""

import warnings

from . import _dtype as D
from ._device import device as device_cls
from ._tensor import Tensor


class tensortype(type):
    """Metaclass of the typed tensor classes: calling one constructs, isinstance checks dtype."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj._dtype is cls._dtype and \
            (obj._device.type == "cuda") == cls._is_cuda

    def __call__(cls, *args, **kwargs):
        from .ops.creation import legacy_new
        dev = device_cls("cuda") if cls._is_cuda else None
        t = legacy_new(Tensor, cls._dtype, dev, args, kwargs)
        return t

    def __repr__(cls):
        return f"<class '{cls._type_name}'>"

    @property
    def dtype(cls):
        return cls._dtype

    @property
    def is_cuda(cls):
        return cls._is_cuda


def _typed(dtype, cuda):
    prefix = "torch.cuda." if cuda else "torch."
    name = dtype._tensor_name
    cls = tensortype(name, (), {"_dtype": dtype, "_is_cuda": cuda,
                                "_type_name": prefix + name})
    cls.__module__ = prefix.rstrip(".")
    return cls


CPU_TYPES = {d._tensor_name: _typed(d, False) for d in D.ALL_DTYPES}
CUDA_TYPES = {d._tensor_name: _typed(d, True) for d in D.ALL_DTYPES}


def set_default_tensor_type(t):
    """Deprecated: set the default float dtype (and device, for the CUDA types)."""
    warnings.warn(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
        UserWarning, stacklevel=2)
    name = t if isinstance(t, str) else getattr(t, "_type_name", None)
    if name is None or name.split(".")[-1] not in CPU_TYPES:
        raise TypeError(f"invalid type object: only floating-point types are supported as the "
                        f"default type")
    cls = (CUDA_TYPES if ".cuda." in name else CPU_TYPES)[name.split(".")[-1]]
    if cls._dtype.category != D.FLOATING:
        raise TypeError("only floating-point types are supported as the default type")
    D.set_default_dtype(cls._dtype)
    from . import _device
    _device.set_default_device("cuda" if cls._is_cuda else "cpu")
