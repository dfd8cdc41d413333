"""Pinning batches in page-locked memory for fast copies to a GPU.

On a machine without CUDA PyTorch warns that ``pin_memory`` has no effect and hands batches
through untouched; cinder does the same. With CUDA, ``Tensor.pin_memory()`` is applied to
every tensor of the batch (recursing into its structure).
"""

import collections
import copy
import queue

from ...._utils import ExceptionWrapper
from . import MP_STATUS_CHECK_INTERVAL
from ...._tensor import Tensor


def _pin_memory_loop(in_queue, out_queue, device_id, done_event, device):
    """The pin-memory thread: move results from the workers' queue to ``out_queue``,
    pinning them on the way, until ``done_event`` is set."""
    while not done_event.is_set():
        try:
            r = in_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
        except queue.Empty:
            continue
        idx, data = r
        if not done_event.is_set() and not isinstance(data, ExceptionWrapper):
            try:
                data = pin_memory(data, device)
            except Exception:
                data = ExceptionWrapper(where=f"in pin memory thread for device {device_id}")
            r = (idx, data)
        while not done_event.is_set():
            try:
                out_queue.put(r, timeout=MP_STATUS_CHECK_INTERVAL)
                break
            except queue.Full:
                continue


def pin_memory(data, device=None):
    """``data`` with every tensor replaced by its pinned copy (structure kept)."""
    if isinstance(data, Tensor):
        return data.pin_memory()
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        clone = copy.copy(data)
        try:
            clone.update({k: pin_memory(v, device) for k, v in data.items()})
            return clone
        except TypeError:
            return {k: pin_memory(v, device) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):        # namedtuple
        return type(data)(*(pin_memory(sample, device) for sample in data))
    if isinstance(data, tuple):
        return [pin_memory(sample, device) for sample in data]     # as PyTorch: a list
    if isinstance(data, collections.abc.Sequence):
        try:
            return type(data)([pin_memory(sample, device) for sample in data])
        except TypeError:
            return [pin_memory(sample, device) for sample in data]
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data
