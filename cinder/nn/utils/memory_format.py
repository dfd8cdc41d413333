"""Converting convolution weights to a memory format (``channels_last`` for the 2-d ones,
``channels_last_3d`` for the 3-d ones), for the whole module tree."""

from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    """Lay out the weight of every module of ``kinds`` in ``module``'s tree as
    ``memory_format`` (the parameter object stays; its data is replaced); returns ``module``."""
    if isinstance(module, kinds):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """The weights of every ``Conv2d``/``ConvTranspose2d`` in ``module`` laid out as
    ``memory_format`` (usually ``torch.channels_last``); returns ``module``."""
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """The weights of every ``Conv3d``/``ConvTranspose3d`` in ``module`` laid out as
    ``memory_format`` (usually ``torch.channels_last_3d``); returns ``module``."""
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
