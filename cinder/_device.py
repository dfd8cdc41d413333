"""``cinder.device``: where a tensor's memory lives ('cpu', 'cuda', 'cuda:1', ...)."""

__all__ = ["device"]

_KNOWN_TYPES = ("cpu", "cuda", "meta")


class device:
    """A device type plus an optional index, e.g. ``device('cuda', 1)`` or ``device('cuda:1')``."""

    __slots__ = ("type", "index")

    def __new__(cls, type_or_str, index=None):
        if isinstance(type_or_str, device):
            if index is not None:
                raise TypeError("device(): argument 'type' must be str, not torch.device")
            return type_or_str
        if isinstance(type_or_str, int) and not isinstance(type_or_str, bool):
            # torch.device(0) means cuda:0
            type_str, index = "cuda", type_or_str
        elif isinstance(type_or_str, str):
            type_str = type_or_str
            if ":" in type_or_str:
                if index is not None:
                    raise RuntimeError(
                        "type (string) must not include an index because index was passed "
                        f"explicitly: {type_or_str}")
                type_str, _, idx = type_or_str.partition(":")
                if not idx.isdigit():
                    raise RuntimeError(f"Invalid device string: '{type_or_str}'")
                index = int(idx)
        else:
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({type(type_or_str).__name__})")
        if type_str not in _KNOWN_TYPES:
            raise RuntimeError(
                "Expected one of cpu, cuda, meta device type at start of device string: "
                f"{type_or_str}")
        if index is not None and index < 0:
            raise RuntimeError(f"Device index must not be negative")
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
        if isinstance(other, str):
            other = device(other)
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (str(self),))

    # torch.device works as a context manager that sets the default device; kept for API parity.
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_CACHE = {}
CPU = device("cpu")


_default = CPU


def set_default_device(d):
    """Where creation functions put tensors when no ``device=`` is given."""
    global _default
    _default = CPU if d is None else device(d)


def get_default_device():
    return _default


def as_device(d):
    """Normalise a device argument (None, str, int or device) to a device object."""
    if d is None:
        return _default
    if isinstance(d, device):
        return d
    return device(d)
