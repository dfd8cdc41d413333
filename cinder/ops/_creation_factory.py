"""The creation factory: the arguments every tensor factory shares, and one entry per family.

``filled(name, ...)`` is the whole definition of a filled-tensor family. From it come
``cinder.<name>`` (``zeros(*size)``, or ``full(size, fill_value)``), ``cinder.<name>_like``
and ``Tensor.new_<name>``, each with PyTorch's Python signature, and all three handle the
shared arguments here, in one place, with PyTorch's errors:

- the size: ``*size`` ints, one sequence (tuple, list, ``torch.Size``) or ``size=``; integer
  0-d tensors and NumPy integers count as ints; a negative size is refused;
- ``dtype`` (a ``torch.dtype``; with ``out=`` it must match ``out``'s), ``layout`` (strided
  only), ``device``, ``requires_grad`` (floating/complex dtypes only), ``pin_memory`` (needs an
  accelerator, as PyTorch says on a machine without one), ``memory_format`` where PyTorch has
  it (``empty`` and the ``_like`` forms: ``channels_last``/``channels_last_3d`` strides, and
  ``preserve_format`` keeping the input's layout), and ``out=`` (resized silently).

The other creation ops (``eye``, ``arange``, ``linspace``...) keep their bodies and call the same
checks (``check_dtype``, ``finish``).
"""

import numpy as np

from .. import _dtype as D
from .. import _layout, backend
from .._device import CPU, as_device
from .._tensor import Tensor, make_tensor
from ._layouts import OUTER_FIRST, empty_preserved, format_order, new_in_order
from ._registry import register, write_out

__all__ = ["check_dtype", "check_options", "filled", "finish", "is_int_arg", "parse_size"]

_MISSING = object()


# ----------------------------------------------------------------------------------------------
# The shared arguments
# ----------------------------------------------------------------------------------------------

def is_int_arg(s):
    """An int as PyTorch's argument parser takes it for a size (not a bool)."""
    if isinstance(s, (int, np.integer)):
        return not isinstance(s, (bool, np.bool_))
    return isinstance(s, Tensor) and s._data.ndim == 0 and s._dtype.category <= D.INTEGRAL \
        and s._dtype is not D.bool


def parse_size(name, args, size=_MISSING, sequence_only=False, negative=None):
    """The shape from ``*size`` positional ``args`` or the ``size=`` keyword, with PyTorch's
    TypeErrors. ``sequence_only``: the size must be one sequence (``full``, ``new_full``).
    ``negative``: the op's own message for a negative size (PyTorch's ``zeros`` has one)."""
    # The common call (plain non-negative ints, given the usual way) checks nothing else.
    if size is _MISSING and args:
        items = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
        if not (sequence_only and items is args):
            for s in items:
                if s.__class__ is not int or s < 0:
                    break
            else:
                return tuple(items)
    return _parse_size(name, args, size, sequence_only, negative)


def _parse_size(name, args, size, sequence_only, negative):
    """``parse_size`` for every other call: other int types, errors."""
    if size is not _MISSING:
        if args:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        if not isinstance(size, (tuple, list)):
            raise TypeError(f"{name}(): argument 'size' must be tuple of ints, not "
                            f"{type(size).__name__}")
        args = (size,)
    if not args:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    items = args
    if len(args) == 1:
        first = args[0]
        if isinstance(first, (tuple, list)):
            items = first
        elif sequence_only or not is_int_arg(first):
            raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
                            f"{type(first).__name__}")
    elif sequence_only:
        raise TypeError(f"{name}() takes 1 positional argument but {len(args)} were given")
    shape = []
    for i, s in enumerate(items):
        if not is_int_arg(s):
            if isinstance(s, (tuple, list)) and items is args:
                raise TypeError(f"{name}() takes 1 positional argument but {len(args)} were "
                                "given")
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got "
                            f"{type(s).__name__}\"")
        shape.append(int(s))
    for s in shape:
        if s < 0:
            if negative is not None:
                raise RuntimeError(negative)
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {shape}")
    return tuple(shape)


def check_dtype(name, dtype, default):
    """``dtype`` if given (it must be a ``torch.dtype``), else ``default``."""
    if dtype is None:
        return default
    if not isinstance(dtype, D.dtype):
        raise TypeError(f"{name}(): argument 'dtype' must be torch.dtype, not "
                        f"{type(dtype).__name__}")
    return dtype


def check_options(name, layout, pin_memory, out=None, dtype=None):
    """PyTorch's refusals of ``layout``, ``pin_memory`` and ``out=`` for a factory."""
    if layout is not None and layout is not _layout.strided:
        if not isinstance(layout, _layout.layout):
            raise TypeError(f"{name}(): argument 'layout' must be torch.layout, not "
                            f"{type(layout).__name__}")
        raise RuntimeError(f"{name}(): cinder has only the strided layout, got {layout}")
    if pin_memory and not backend.cuda_is_available():
        raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; no "
                           "pinned memory allocator is available on this system.")
    if out is not None:
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not "
                            f"{type(out).__name__}")
        if dtype is not None and dtype is not out._dtype:
            raise RuntimeError(f"dtype {dtype.scalar_name} does not match dtype of out "
                               f"parameter ({out._dtype.scalar_name})")


def _check_memory_format(name, memory_format):
    if memory_format is not None and not isinstance(memory_format, _layout.memory_format):
        raise TypeError(f"{name}(): argument 'memory_format' must be torch.memory_format, not "
                        f"{type(memory_format).__name__}")




def _alloc(shape, np_dtype, memory_format, alloc=np.empty):
    """A host array of ``shape`` laid out as ``memory_format`` (contiguous when None)."""
    if memory_format is None or memory_format is _layout.contiguous_format:
        return alloc(shape, dtype=np_dtype)
    if memory_format.name not in OUTER_FIRST:   # preserve_format: no input to preserve
        raise RuntimeError("unsupported memory format Preserve")
    return new_in_order(shape, np_dtype, format_order(memory_format.name, len(shape)), alloc)


def _alloc_like(src, np_dtype, memory_format):
    """An uninitialised host array shaped like ``src``; ``preserve_format`` (the default)
    keeps ``src``'s strides when it is dense (an empty input keeps its strides as they are),
    its dimension order made dense otherwise, as PyTorch's ``empty_like`` does."""
    if memory_format is not None and memory_format is not _layout.preserve_format:
        return _alloc(src.shape, np_dtype, memory_format)
    # (``empty_preserved`` would allocate on ``src``'s device; the factories build host
    # arrays and move them in ``finish``, so the two device cases stay here)
    if not backend.is_numpy(src):
        # a CUDA array: column-major stays column-major (the move to the GPU keeps it)
        f_order = src.flags.f_contiguous and not src.flags.c_contiguous
        return np.empty(src.shape, dtype=np_dtype, order="F" if f_order else "C")
    if src.size == 0:     # (PyTorch counts every empty tensor dense: its strides stay)
        itemsize = np.dtype(np_dtype).itemsize
        strides = tuple(st // src.itemsize * itemsize for st in src.strides)
        return np.lib.stride_tricks.as_strided(np.empty(0, np_dtype), src.shape, strides)
    return empty_preserved(src, np_dtype)


def finish(arr, dtype, device, requires_grad, out=None):
    """Move a freshly made host array to ``device``, wrap it, and honour ``requires_grad`` and
    ``out=`` (which a factory resizes silently; PyTorch then marks ``out`` as requiring grad
    when asked). With no ``device``, the result is made on ``out``'s device, as PyTorch's
    factories do."""
    dev = as_device(out._device if device is None and out is not None else device)
    if dev is not CPU and dev.type != "cpu":
        arr = backend.to_device(arr, dev)
    t = make_tensor(arr, dtype, dev)
    if requires_grad and dtype.category < D.FLOATING:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    if out is not None:
        t = write_out(out, t, warn_resize=False)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _fill_number(name, value, position=2):
    """``fill_value`` as a Python number (a 0-d tensor gives its item), or PyTorch's
    TypeError."""
    if isinstance(value, Tensor):
        return value.item()
    if isinstance(value, (bool, int, float, complex, np.number, np.bool_)):
        return value
    raise TypeError(f"{name}(): argument 'fill_value' (position {position}) must be Number, not "
                    f"{type(value).__name__}")


# ----------------------------------------------------------------------------------------------
# The family entry
# ----------------------------------------------------------------------------------------------

def filled(name, fill, *, alloc=None, value=False, memory_format=False, negative=None,
           doc=""):
    """Define ``cinder.<name>``, ``cinder.<name>_like`` and ``Tensor.new_<name>``.

    ``fill(arr, *value)`` writes the values into a fresh host array; ``alloc(shape, dtype=)``
    makes the fresh contiguous array when that is faster than allocating and filling
    (``np.zeros``). ``value``: the family takes a ``fill_value`` after the size (``full``),
    and its size must be one sequence.
    ``memory_format``: the plain function accepts ``memory_format=`` (``empty``).
    ``negative``: the plain function's own message for a negative size.
    Returns the three implementations (function, like, new) for internal callers.
    """
    takes_memory_format = memory_format

    def make(shape, np_dtype, fmt, values):
        if alloc is not None and (fmt is None or fmt is _layout.contiguous_format):
            return alloc(shape, dtype=np_dtype)
        arr = _alloc(shape, np_dtype, fmt)
        fill(arr, *values)
        return arr

    def function(*size_args, fill_value=_MISSING, out=None, dtype=None, layout=None,
                 device=None, requires_grad=False, pin_memory=False, memory_format=None,
                 size=_MISSING):
        if fill_value is not _MISSING and not value:
            _unexpected(name, "fill_value")
        if memory_format is not None:
            if not takes_memory_format:
                _unexpected(name, "memory_format")
            _check_memory_format(name, memory_format)
        values = ()
        if value:
            size_args, values = _split_value(name, size_args, fill_value)
        shape = parse_size(name, size_args, size, value, negative)
        if layout is not None or pin_memory or out is not None:
            check_options(name, layout, pin_memory, out, dtype)
        if dtype is not None:
            dt = check_dtype(name, dtype, None)
        elif out is not None:
            dt = out._dtype
        else:
            dt = D.scalar_dtype(values[0]) if value else D.get_default_dtype()
        return finish(make(shape, dt.numpy_dtype, memory_format, values), dt, device,
                      requires_grad, out)

    def like(input, *args, fill_value=_MISSING, dtype=None, layout=None, device=None,
             requires_grad=False, memory_format=None, pin_memory=False):
        like_name = name + "_like"
        if not isinstance(input, Tensor):
            raise TypeError(f"{like_name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        values = ()
        if value:
            args, values = _split_value(like_name, (input,) + args, fill_value)
            args = args[1:]
        elif fill_value is not _MISSING:
            _unexpected(like_name, "fill_value")
        if args:
            raise TypeError(f"{like_name}() takes {1 + value} positional argument"
                            f"{'s' if value else ''} but {len(args) + 1 + value} were given")
        dt = input._dtype if dtype is None else check_dtype(like_name, dtype, None)
        if memory_format is not None:
            _check_memory_format(like_name, memory_format)
        if layout is not None or pin_memory:
            check_options(like_name, layout, pin_memory)
        arr = _alloc_like(input._data, dt.numpy_dtype, memory_format)
        fill(arr, *values)
        return finish(arr, dt, input._device if device is None else device, requires_grad)

    def new(self, *size_args, fill_value=_MISSING, dtype=None, device=None,
            requires_grad=False, layout=None, pin_memory=False, size=_MISSING):
        new_name = "new_" + name
        if fill_value is not _MISSING and not value:
            _unexpected(new_name, "fill_value")
        values = ()
        if value:
            size_args, values = _split_value(new_name, size_args, fill_value)
        shape = parse_size(new_name, size_args, size, value)
        dt = self._dtype if dtype is None else check_dtype(new_name, dtype, None)
        if layout is not None or pin_memory:
            check_options(new_name, layout, pin_memory)
        return finish(make(shape, dt.numpy_dtype, None, values), dt,
                      self._device if device is None else device, requires_grad)

    for fn, fn_name in ((function, name), (like, name + "_like"), (new, "new_" + name)):
        fn.__name__ = fn.__qualname__ = fn_name
        # Python names the function in its own argument errors by the code's name.
        fn.__code__ = fn.__code__.replace(co_name=fn_name, co_qualname=fn_name)
    function.__doc__ = doc
    like.__doc__ = f"``{name}`` with the shape (and by default dtype, device and layout) of " \
                   "``input``."
    new.__doc__ = f"``{name}`` with this tensor's dtype and device unless given."
    register(name, function, method=False, family="creation")
    register(name + "_like", like, method=False, family="creation")
    register("new_" + name, new, function_too=False, family="creation")
    return function, like, new


def _split_value(name, args, fill_value):
    """``(size args, (fill_value,))`` from ``full``'s positional arguments and keyword."""
    if len(args) >= 2:
        if fill_value is not _MISSING:
            raise TypeError(f"{name}() got multiple values for argument 'fill_value'")
        if len(args) > 2:
            raise TypeError(f"{name}() takes 2 positional arguments but {len(args)} were given")
        fill_value = args[1]
    elif fill_value is _MISSING:
        raise TypeError(f'{name}() missing 1 required positional arguments: "fill_value"')
    return args[:1], (_fill_number(name, fill_value),)


def _unexpected(name, keyword):
    raise TypeError(f"{name}() got an unexpected keyword argument '{keyword}'")
