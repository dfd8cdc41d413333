"""``replicate``: copies of a module, one per device, that compute like the original.

Parameters reach the copies through the ``Broadcast`` autograd Function, so a backward pass
through any copy sums its gradients into the original parameters. Buffers are copied (through
``Broadcast`` too when they require grad). The copies share nothing with the original but that
graph; the first copy's tensors are the original ones when ``devices[0]`` is their device.
"""

from collections import OrderedDict

from ...cuda import comm
from ..._utils import _get_device_index
from ._functions import Broadcast

__all__ = ["replicate"]


def _broadcast_coalesced_reshape(tensors, devices, detach=False):
    """Per device, the list of copies of ``tensors``; through autograd unless ``detach``."""
    if not tensors:
        return []
    if detach:
        from ... import view_as_complex
        lazy = [hasattr(t, "cls_to_become") for t in tensors]
        complex_mask = [not is_lazy and t.is_complex() for t, is_lazy in zip(tensors, lazy)]
        outputs = comm.broadcast_coalesced(tensors, devices)
        for per_device in outputs:
            for i, is_complex in enumerate(complex_mask):
                if is_complex:
                    per_device[i] = view_as_complex(per_device[i])
        return outputs
    copies = Broadcast.apply(devices, *tensors)
    n = len(tensors)
    return [list(copies[i:i + n]) for i in range(0, len(copies), n)]


def _split_buffers(buffers, detach):
    """Buffers that need grad (broadcast through autograd) and those that do not."""
    with_grad = [b for b in buffers if b.requires_grad and not detach]
    without = [b for b in buffers if not (b.requires_grad and not detach)]
    return with_grad, without


def replicate(network, devices, detach=False):
    """A list of ``len(devices)`` replicas of ``network``, replica ``j`` on ``devices[j]``.

    With ``detach=True`` the copies are cut from the graph (no gradient reaches the original).
    """
    if not devices:
        return []
    devices = [_get_device_index(d, True) for d in devices]
    num = len(devices)

    params = list(network.parameters())
    param_index = {id(p): i for i, p in enumerate(params)}
    param_copies = _broadcast_coalesced_reshape(params, devices, detach)

    buffers_rg, buffers_plain = _split_buffers(list(network.buffers()), detach)
    rg_index = {id(b): i for i, b in enumerate(buffers_rg)}
    plain_index = {id(b): i for i, b in enumerate(buffers_plain)}
    rg_copies = _broadcast_coalesced_reshape(buffers_rg, devices, detach=detach)
    plain_copies = _broadcast_coalesced_reshape(buffers_plain, devices, detach=True)

    modules = list(network.modules())
    module_index = {id(m): i for i, m in enumerate(modules)}
    copies = [[] for _ in devices]
    for module in modules:
        for j in range(num):
            replica = module._replicate_for_data_parallel()
            # DistributedDataParallel reads the replicated parameters from here.
            replica._former_parameters = OrderedDict()
            copies[j].append(replica)

    for i, module in enumerate(modules):
        for key, child in module._modules.items():
            for j in range(num):
                if child is None:
                    copies[j][i]._modules[key] = None
                else:
                    setattr(copies[j][i], key, copies[j][module_index[id(child)]])
        for key, param in module._parameters.items():
            for j in range(num):
                replica = copies[j][i]
                if param is None:
                    replica._parameters[key] = None
                    continue
                copy = param_copies[j][param_index[id(param)]]
                # A copy is no leaf, so it is set as a plain attribute, not a Parameter.
                setattr(replica, key, copy)
                replica._former_parameters[key] = copy
        for key, buf in module._buffers.items():
            for j in range(num):
                replica = copies[j][i]
                if buf is None:
                    replica._buffers[key] = None
                elif buf.requires_grad and not detach:
                    setattr(replica, key, rg_copies[j][rg_index[id(buf)]])
                else:
                    setattr(replica, key, plain_copies[j][plain_index[id(buf)]])
    return [copies[j][0] for j in range(num)]
