"""``DataParallel`` and ``data_parallel``: one process driving several GPUs.

Each forward cuts the batch into one chunk per device (``scatter``), copies the module to every
device (``replicate``), runs the copies side by side in threads (``parallel_apply``) and
concatenates their outputs on ``output_device`` (``gather``). All four steps are autograd
Functions, so backward sums every copy's parameter gradients into the original module.

Without CUDA, ``DataParallel`` is the wrapped module itself under the name ``module`` (state_dict
keys gain the prefix ``module.``), exactly as in PyTorch; with one device it moves the module
there and calls it on the scattered input.
"""

import operator
import warnings
from itertools import chain

from ... import autograd, cuda
from ..._device import device as _device_cls
from ..._utils import _get_device_index
from ..modules.module import Module
from .parallel_apply import parallel_apply
from .replicate import replicate
from .scatter_gather import gather, scatter_kwargs

__all__ = ["DataParallel", "data_parallel"]

_IMBALANCE = """
    There is an imbalance between your GPUs. You may want to exclude GPU {} which
    has less than 75% of the memory or cores of GPU {}. You can do so by setting
    the device_ids argument to DataParallel, or by setting the CUDA_VISIBLE_DEVICES
    environment variable."""


def _check_balance(device_ids):
    """Warn when one GPU has under 75% of the memory (or else of the SMs) of another: the
    batch is split evenly, so the smallest GPU would hold everyone back."""
    device_ids = [_get_device_index(d, True) for d in device_ids]
    props = [cuda.get_device_properties(i) for i in device_ids]

    def warn_imbalance(get_prop):
        values = [get_prop(p) for p in props]
        min_pos, min_val = min(enumerate(values), key=operator.itemgetter(1))
        max_pos, max_val = max(enumerate(values), key=operator.itemgetter(1))
        if min_val / max_val < 0.75:
            warnings.warn(_IMBALANCE.format(device_ids[min_pos], device_ids[max_pos]),
                          stacklevel=3)
            return True
        return False

    if not warn_imbalance(lambda p: p.total_memory):
        warn_imbalance(lambda p: p.multi_processor_count)


def _check_placement(module, src_device):
    """PyTorch's error when a parameter or buffer is not on ``device_ids[0]``."""
    for t in chain(module.parameters(), module.buffers()):
        if t.device != src_device:
            raise RuntimeError("module must have its parameters and buffers on device "
                               f"{src_device} (device_ids[0]) but found one of them on device: "
                               f"{t.device}")


class DataParallel(Module):
    """Splits each input batch along ``dim`` over ``device_ids`` (all GPUs by default), runs a
    copy of ``module`` on each part in parallel, and concatenates the outputs on
    ``output_device`` (default ``device_ids[0]``). Gradients of all copies are summed into
    ``module``'s parameters, which must live on ``device_ids[0]``.

    Tensors in the inputs are scattered; tuples, lists and dicts are copied shallowly; other
    objects are shared by all copies. Changes that a forward makes to the module's attributes
    happen on the short-lived copies and are lost, but in-place updates of the first copy's
    buffers (BatchNorm's running statistics) reach the module itself.
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not cuda.is_available():
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(cuda.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [_get_device_index(d, True) for d in device_ids]
        self.output_device = _get_device_index(output_device, True)
        self.src_device_obj = _device_cls("cuda", self.device_ids[0])
        _check_balance(self.device_ids)
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        _check_placement(self.module, self.src_device_obj)
        inputs, module_kwargs = self.scatter(inputs, kwargs, self.device_ids)
        # A forward without inputs still runs once, on device_ids[0].
        if not inputs and not module_kwargs:
            inputs, module_kwargs = ((),), ({},)
        if len(self.device_ids) == 1:
            return self.module(*inputs[0], **module_kwargs[0])
        replicas = self.replicate(self.module, self.device_ids[:len(inputs)])
        outputs = self.parallel_apply(replicas, inputs, module_kwargs)
        return self.gather(outputs, self.output_device)

    def replicate(self, module, device_ids):
        """Copies of ``module`` on ``device_ids`` (cut from the graph under no_grad)."""
        return replicate(module, device_ids, not autograd.grad_mode.is_grad_enabled())

    def scatter(self, inputs, kwargs, device_ids):
        """Inputs and keyword arguments split over ``device_ids`` along ``self.dim``."""
        return scatter_kwargs(inputs, kwargs, device_ids, dim=self.dim)

    def parallel_apply(self, replicas, inputs, kwargs):
        """Run the replicas on their inputs, one thread each."""
        return parallel_apply(replicas, inputs, kwargs, self.device_ids[:len(replicas)])

    def gather(self, outputs, output_device):
        """The replicas' outputs joined along ``self.dim`` on ``output_device``."""
        return gather(outputs, output_device, dim=self.dim)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """Functional DataParallel: ``module(*inputs, **module_kwargs)`` computed by splitting the
    batch over ``device_ids``; the result lands on ``output_device`` (-1 for the CPU)."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    if not cuda.is_available():
        raise RuntimeError("device type could not be determined")
    if device_ids is None:
        device_ids = list(range(cuda.device_count()))
    if output_device is None:
        output_device = device_ids[0]
    device_ids = [_get_device_index(d, True) for d in device_ids]
    output_device = _get_device_index(output_device, True)
    _check_placement(module, _device_cls("cuda", device_ids[0]))
    inputs, module_kwargs = scatter_kwargs(inputs, module_kwargs, device_ids, dim)
    if not inputs and not module_kwargs:
        inputs, module_kwargs = ((),), ({},)
    if len(device_ids) == 1:
        return module(*inputs[0], **module_kwargs[0])
    used = device_ids[:len(inputs)]
    replicas = replicate(module, used)
    outputs = parallel_apply(replicas, inputs, module_kwargs, used)
    return gather(outputs, output_device, dim)
