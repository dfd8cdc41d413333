"""``cinder.device``: where a tensor's memory lives ('cpu', 'cuda', 'cuda:1', ...)."""

import re

__all__ = ["device"]

# Every device type PyTorch's parser knows, in the order its error message lists them. Device
# objects of any of these can be made; only cpu and cuda can hold tensors in cinder.
_KNOWN_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")
_DEVICE_STRING = re.compile(r"^([a-zA-Z_]+)(?::([1-9]\d*|0))?$")
_NO_INDEX = object()


def _bad_arguments(got):
    return TypeError(
        f"device() received an invalid combination of arguments - got ({got}), but expected one "
        "of:\n * (torch.device device)\n      didn't match because some of the arguments have "
        f"invalid types: (!{got}!)\n * (str type, int index = -1)\n")


def _parse(text, index):
    """(type, index) from a device string and an optional explicit index."""
    match = _DEVICE_STRING.match(text)
    if match is None:
        raise RuntimeError(f"Invalid device string: '{text}'")
    type_str, idx = match.group(1), match.group(2)
    if type_str not in _KNOWN_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_KNOWN_TYPES)} device type at start of "
                           f"device string: {text}")
    if idx is not None:
        if index is not _NO_INDEX:
            raise RuntimeError("type (string) must not include an index because index was "
                               f"passed explicitly: {text}")
        return type_str, int(idx)
    return type_str, None if index is _NO_INDEX else index


class device:
    """A device type plus an optional index, e.g. ``device('cuda', 1)`` or ``device('cuda:1')``.

    Used as a context manager it makes itself the default device of creation functions.
    """

    __slots__ = ("type", "index")

    def __new__(cls, type_or_str, index=_NO_INDEX):
        if isinstance(type_or_str, device):
            if index is not _NO_INDEX:
                raise TypeError("device(): argument 'type' must be str, not torch.device")
            return type_or_str
        if isinstance(index, bool) or not (index is _NO_INDEX or index is None or
                                           isinstance(index, int)):
            raise TypeError(f"device(): argument 'index' (position 2) must be int, not "
                            f"{type(index).__name__}")
        if isinstance(type_or_str, int) and not isinstance(type_or_str, bool):
            # device(0) means the accelerator's device 0 (cuda:0 here).
            from . import backend
            if type_or_str < 0:
                raise RuntimeError("Device index must not be negative")
            if not backend.cuda_is_available():
                raise RuntimeError("Cannot access accelerator device when none is available.")
            type_str, index = "cuda", type_or_str
        elif isinstance(type_or_str, str):
            type_str, index = _parse(type_or_str, index)
        else:
            raise _bad_arguments(type(type_or_str).__name__)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        key = (type_str, index)
        cached = _CACHE.get(key)
        if cached is not None:
            return cached
        self = object.__new__(cls)
        object.__setattr__(self, "type", type_str)
        object.__setattr__(self, "index", index)
        _CACHE[key] = self
        return self

    def __setattr__(self, name, value):
        raise AttributeError("device objects are immutable")

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __eq__(self, other):
        # Like PyTorch, a device never equals a string: device('cpu') == 'cpu' is False.
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type,) if self.index is None else (self.type, self.index))

    def __enter__(self):
        _DEFAULT_STACK.append(_default)
        set_default_device(self)
        return self

    def __exit__(self, *exc):
        set_default_device(_DEFAULT_STACK.pop())
        return False


_CACHE = {}
_DEFAULT_STACK = []
CPU = device("cpu")
_CUDA0 = device("cuda", 0)


_default = CPU


def set_default_device(d):
    """Where creation functions put tensors when no ``device=`` is given."""
    global _default
    _default = CPU if d is None else device(d)


def get_default_device():
    return _default


def as_device(d):
    """Normalise a tensor's device argument (None, str, int or device) to a device object.

    As in PyTorch, tensors on the CPU have no index (``cpu:0`` is ``cpu``) and a CUDA tensor
    always has one (``cuda`` is the current device, ``cuda:0``).
    """
    if d is None:
        d = _default
    elif isinstance(d, int) and not isinstance(d, bool):
        return device("cuda", d)        # an int device argument means cuda:<int>
    elif not isinstance(d, device):
        d = device(d)
    if d.index is None:
        return _CUDA0 if d.type == "cuda" else d
    return CPU if d.type == "cpu" else d
