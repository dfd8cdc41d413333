"""DataParallel on a single device: the module itself, wrapped under the name ``module``."""

from ... import cuda
from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


def _device_ids(device_ids):
    if device_ids is None:
        return list(range(cuda.device_count()))
    return [d.index if hasattr(d, "index") else int(d) for d in device_ids]


class DataParallel(Module):
    """Wraps ``module`` (state_dict keys gain the prefix ``module.``). Without CUDA, or with a
    single device, calls go straight to ``module``, exactly as PyTorch does."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        if not cuda.is_available():
            self.device_ids = []
            return
        self.device_ids = _device_ids(device_ids)
        if len(self.device_ids) > 1:
            raise NotImplementedError("cinder's DataParallel runs on one device; splitting the "
                                      "batch over several GPUs is not implemented")
        self.dim = dim
        self.output_device = self.device_ids[0] if output_device is None else output_device

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """Functional DataParallel: ``module(*inputs, **module_kwargs)`` on one device."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    ids = _device_ids(device_ids) if cuda.is_available() else []
    if len(ids) > 1:
        raise NotImplementedError("cinder's data_parallel runs on one device; splitting the "
                                  "batch over several GPUs is not implemented")
    return module(*inputs, **(module_kwargs or {}))
