"""Legacy API kept for old code and the seed material: the legacy constructors
(``torch.Tensor(2, 3)``, ``torch.Tensor([1, 2])``, ``torch.Tensor(ndarray)``, ``t.new(...)``),
the typed tensor classes (``torch.FloatTensor``, ``torch.cuda.LongTensor``...), the typed storage
classes (``torch.FloatStorage``...) and ``set_default_tensor_type``. ``Variable`` lives in
``autograd/variable.py``.
"""

import warnings

import numpy as np

from . import _dtype as D
from . import backend
from . import _device
from ._device import CPU
from ._device import device as device_cls
from ._device import get_default_device
from ._storage import TypedStorage, UntypedStorage, adopt_numpy, storage_view
from ._tensor import Size, Tensor, make_tensor
from .ops import creation as _creation  # noqa: F401  (imported first: ``Tensor.new`` is ours)
from .ops.creation import tensor
from .ops.indexing import AliasNode
from .ops.views import make_view


_SIGNATURES = ("(*, torch.device device = None)", "(torch.Storage storage)", "(Tensor other)",
               "(tuple of ints size, *, torch.device device = None)",
               "(object data, *, torch.device device = None)")


def _options(dtype):
    return (f"TensorOptions(dtype={dtype.cpp_name}, device=cpu, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


def _bad_keywords(args, kwargs):
    """PyTorch's argument-parser error for keywords the legacy constructor does not take."""
    got = [type(a).__name__ for a in args]
    got += [f"{k}={'torch.dtype' if isinstance(v, D.dtype) else type(v).__name__}"
            for k, v in kwargs.items()]
    bad = ", ".join(k for k in kwargs if k != "device")
    note = f"\n      didn't match because some of the keywords were incorrect: {bad}"
    lines = []
    for i, sig in enumerate(_SIGNATURES):
        attach = (i == 0) if len(args) <= 1 else (i >= 3)
        lines.append(f" * {sig}{note if attach else ''}")
    return TypeError(f"new() received an invalid combination of arguments - got "
                     f"({', '.join(got)}), but expected one of:\n" + "\n".join(lines) + "\n")


def _size_from_args(args):
    shape = []
    for i, n in enumerate(args):
        if isinstance(n, Tensor) and n._data.ndim == 0 and n._dtype.category == D.INTEGRAL:
            n = int(n.item())
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {i + 1} "
                            f"with error \"type must be tuple of ints,but got "
                            f"{type(n).__name__}\"")
        shape.append(int(n))
    for n in shape:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {shape}")
    return tuple(shape)


def _check_real_numbers(data):
    """The legacy constructors parse every element as a number of the target type."""
    if isinstance(data, (list, tuple, range)):
        for item in data:
            _check_real_numbers(item)
    elif not isinstance(data, (bool, int, float, complex, np.number, np.bool_, Tensor)):
        raise TypeError(f"must be real number, not {type(data).__name__}")


def _from_data(data, dtype, dev):
    """``Tensor(data)``: an ndarray of the right dtype is shared, anything else is copied."""
    if isinstance(data, np.ndarray):
        arr = adopt_numpy(data) if data.dtype == dtype.numpy_dtype else \
            data.astype(dtype.numpy_dtype)
    else:
        _check_real_numbers(data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return tensor(data, dtype=dtype, device=dev)
    if dev.type != "cpu":
        arr = backend.to_device(arr, dev)
    return make_tensor(arr, dtype, dev)


def _from_storage(storage, dtype, dev):
    """``Tensor(storage)``: a 1-d tensor over all of the storage, sharing its memory."""
    if isinstance(storage, TypedStorage):
        if storage.dtype is not dtype:
            raise RuntimeError(f"Expected a Storage of type {dtype._tensor_name[:-6]} or an "
                               f"UntypedStorage, but got type {storage.dtype._tensor_name[:-6]} "
                               "for argument 1 'storage'")
        storage = storage._untyped
    numel = storage.nbytes() // dtype.itemsize
    arr = storage_view(storage._bytes, dtype.numpy_dtype, (numel,), (1,), 0)
    return make_tensor(arr, dtype, storage.device)


def legacy_new(dtype, dev, args, kwargs, base_class=False):
    """The legacy constructors: ``Tensor()``, ``Tensor(2, 3)``, ``Tensor(Size)``,
    ``Tensor([1, 2])``, ``Tensor(ndarray)``, ``Tensor(storage)`` and ``Tensor(tensor)``.

    ``dtype``/``dev`` are the class's (or, for ``t.new``, the tensor's). ``base_class`` marks
    ``torch.Tensor`` itself, which takes a tensor of any dtype.
    """
    if any(k != "device" for k in kwargs):
        raise _bad_keywords(args, kwargs)
    if not args:
        return _empty((0,), dtype, dev)
    if "device" in kwargs and kwargs["device"] is not None:
        wanted = device_cls(kwargs["device"])
        if wanted.type != dev.type:
            raise RuntimeError(f"legacy constructor expects device type: {dev.type} but device "
                               f"type: {wanted.type} was passed")
        dev = wanted
    if len(args) == 1:
        data = args[0]
        if isinstance(data, Tensor):
            if data._dtype is not dtype and not base_class:
                raise TypeError(f"expected {_options(dtype)} (got {_options(data._dtype)})")
            return make_view(data, data._data[...], AliasNode)
        if isinstance(data, (UntypedStorage, TypedStorage)):
            return _from_storage(data, dtype, dev)
        if isinstance(data, Size):
            return _empty(_size_from_args(data), dtype, dev)
        if isinstance(data, (list, tuple, range, np.ndarray)):
            return _from_data(data, dtype, dev)
        if isinstance(data, str):
            raise TypeError("new(): invalid data type 'str'")
        if not isinstance(data, (int, np.integer)) or isinstance(data, bool):
            raise TypeError(f"new(): data must be a sequence (got {_qualname(data)})")
    return _empty(_size_from_args(args), dtype, dev)


def _qualname(obj):
    cls = type(obj)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"


def _empty(shape, dtype, dev):
    arr = np.empty(shape, dtype.numpy_dtype)
    if dev.type != "cpu":
        arr = backend.to_device(arr, dev)
    return make_tensor(arr, dtype, dev)


def _default_device():
    return get_default_device()


def tensor_class_new(cls, args, kwargs):
    """``torch.Tensor(...)``: the legacy constructor with the default dtype."""
    t = legacy_new(D.get_default_dtype(), _default_device(), args, dict(kwargs),
                   base_class=True)
    if cls is not Tensor:
        t.__class__ = cls
    return t


def tensor_new(self, *args, **kwargs):
    """``t.new(...)``: the legacy constructor with ``t``'s dtype and device."""
    return legacy_new(self._dtype, self._device, args, kwargs)


Tensor.new = tensor_new


class tensortype(type):
    """Metaclass of the typed tensor classes: calling one constructs, isinstance checks dtype."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj._dtype is cls._dtype and \
            (obj._device.type == "cuda") == cls._is_cuda

    def __subclasscheck__(cls, sub):
        return sub is cls

    def __call__(cls, *args, **kwargs):
        if cls._is_cuda:
            if not backend.cuda_is_available():
                raise TypeError(f"type {cls._type_name} not available. Torch not compiled with "
                                "CUDA enabled.")
            dev = device_cls("cuda", 0)
        else:
            dev = CPU
        return legacy_new(cls._dtype, dev, args, kwargs)

    def __repr__(cls):
        return f"<class '{cls._type_name}'>"

    @property
    def dtype(cls):
        return cls._dtype

    @property
    def is_cuda(cls):
        return cls._is_cuda

    @property
    def is_sparse(cls):
        return False


def _typed(dtype, cuda):
    prefix = "torch.cuda." if cuda else "torch."
    name = dtype._tensor_name
    cls = tensortype(name, (), {"_dtype": dtype, "_is_cuda": cuda,
                                "_type_name": prefix + name})
    cls.__module__ = prefix.rstrip(".")
    return cls


_TENSOR_TYPES_CPU = {d._tensor_name: _typed(d, False) for d in D.ALL_DTYPES}
CUDA_TYPES = {d._tensor_name: _typed(d, True) for d in D.ALL_DTYPES}

# ----------------------------------------------------------------------------------------------
# Typed storages: torch.FloatStorage(3), torch.LongStorage([1, 2]), isinstance checks
# ----------------------------------------------------------------------------------------------


class _LegacyStorageMeta(type):
    """``isinstance(t.storage(), torch.FloatStorage)`` holds for any float32 TypedStorage."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, TypedStorage) and obj.dtype is cls._storage_dtype

    def __call__(cls, *args, wrap_storage=None, device=None):
        # Like PyTorch, torch.FloatStorage(3) makes a plain TypedStorage of that dtype.
        return TypedStorage(*args, dtype=cls._storage_dtype, device=device,
                            wrap_storage=wrap_storage)

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"

    @property
    def dtype(cls):
        return cls._storage_dtype


def _typed_storage_class(dtype):
    name = dtype._tensor_name.replace("Tensor", "Storage")
    cls = _LegacyStorageMeta(name, (TypedStorage,), {"_storage_dtype": dtype})
    cls.__module__ = "torch"
    return cls


STORAGE_TYPES = {cls.__name__: cls for cls in map(_typed_storage_class, D.ALL_DTYPES)}

# Everything this module adds to the ``torch`` namespace (``cinder/__init__`` exports it).
CPU_TYPES = dict(_TENSOR_TYPES_CPU, **STORAGE_TYPES)


def set_default_tensor_type(t):
    """Deprecated: set the default float dtype (and device, for the CUDA types)."""
    warnings.warn(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
        UserWarning, stacklevel=2)
    if isinstance(t, str):
        cls = _class_by_name(t)
    elif isinstance(t, tensortype):
        cls = t
    else:
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if cls._is_cuda and not backend.cuda_is_available():
        raise TypeError(f"type {cls._type_name} not available. Torch not compiled with CUDA "
                        "enabled.")
    if cls._dtype.category != D.FLOATING:
        raise TypeError("only floating-point types are supported as the default type")
    D.set_default_dtype(cls._dtype)
    _device.set_default_device("cuda" if cls._is_cuda else "cpu")


def _class_by_name(name):
    """The class a dotted name like 'torch.cuda.FloatTensor' names (importlib's errors)."""
    parts = name.split(".")
    if parts[0] != "torch":
        raise ModuleNotFoundError(f"No module named '{parts[0]}'")
    table = CUDA_TYPES if parts[1:2] == ["cuda"] else _TENSOR_TYPES_CPU
    leaf = parts[-1]
    if leaf not in table or len(parts) != (3 if table is CUDA_TYPES else 2):
        module = ".".join(parts[:-1])
        raise AttributeError(f"module '{module}' has no attribute '{leaf}'")
    return table[leaf]
