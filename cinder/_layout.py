"""``torch.layout`` and ``torch.memory_format``: the types of ``torch.strided`` and of
``torch.contiguous_format`` / ``channels_last``... (objects compared by identity, printed as
``torch.<name>``; like PyTorch's, they cannot be made by calling the type, and they pickle by
name)."""

__all__ = ["channels_last", "channels_last_3d", "contiguous_format", "layout",
           "legacy_contiguous_format", "memory_format", "preserve_format", "strided"]


class _Named:
    """An object known by its ``torch.<name>`` spelling."""

    __slots__ = ("name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError(f"cannot create 'torch.{cls.__name__}' instances")

    @classmethod
    def _make(cls, name):
        obj = object.__new__(cls)
        obj.name = name
        return obj

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return _by_name, (self.name,)


def _by_name(name):
    """The layout or memory format called ``name`` (how pickles refer to them)."""
    return globals()[name]


class layout(_Named):  # noqa: N801 - PyTorch's name
    """How a tensor's elements are arranged; cinder has dense strided tensors only."""

    __slots__ = ()


class memory_format(_Named):  # noqa: N801 - PyTorch's name
    """The order in which a dense tensor's dimensions are laid out in memory."""

    __slots__ = ()


layout.__module__ = memory_format.__module__ = "torch"
strided = layout._make("strided")
contiguous_format = memory_format._make("contiguous_format")
preserve_format = memory_format._make("preserve_format")
channels_last = memory_format._make("channels_last")
channels_last_3d = memory_format._make("channels_last_3d")
legacy_contiguous_format = contiguous_format     # PyTorch's alias (printed as contiguous_format)
