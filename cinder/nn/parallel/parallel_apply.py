"""``parallel_apply``: run each replica on its own inputs, one thread per replica.

Each thread works under its replica's device and that device's stream, with the caller's grad
mode. An exception in a replica is carried back to the caller and raised again there, its
message saying which replica and device failed ("Caught ValueError in replica 1 on device 0").
"""

import threading

from ... import autograd, cuda
from ..._tensor import Tensor
from ..._utils import ExceptionWrapper
from ...cuda._utils import _get_device_index

__all__ = ["get_a_var", "parallel_apply"]


def get_a_var(obj):
    """The first tensor found in ``obj`` (a tensor, or nested lists/tuples/dicts), else None."""
    if isinstance(obj, Tensor):
        return obj
    if isinstance(obj, (list, tuple)):
        for found in map(get_a_var, obj):
            if isinstance(found, Tensor):
                return found
    if isinstance(obj, dict):
        for found in map(get_a_var, obj.items()):
            if isinstance(found, Tensor):
                return found
    return None


def _check_lengths(modules, inputs, kwargs_tup, devices):
    if len(modules) != len(inputs):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number "
                             f"of inputs {len(inputs)}")
    if kwargs_tup is not None and len(modules) != len(kwargs_tup):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number "
                             f"of kwargs_tup {len(kwargs_tup)}")
    if devices is not None and len(modules) != len(devices):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number "
                             f"of devices {len(devices)}")


def _run_replica(i, module, input, kwargs, device, stream, grad_enabled, results, lock):
    """Run replica ``i`` and store its output (or its exception, wrapped) in ``results``."""
    autograd.set_grad_enabled(grad_enabled)     # grad mode is per thread
    if device is None:
        t = get_a_var(input)
        if t is None:
            with lock:
                results[i] = ExceptionWrapper(
                    where=f"in replica {i}, no device was provided and no tensor input was "
                          "found; device cannot be resolved")
            return
        device = t.get_device()
    if stream is None:
        stream = cuda.current_stream(device)
    try:
        with cuda.device(device), cuda.stream(stream):
            # a lone tensor is one argument, not a sequence of them
            if not isinstance(input, (list, tuple)):
                input = (input,)
            output = module(*input, **kwargs)
        with lock:
            results[i] = output
    except Exception:
        with lock:
            results[i] = ExceptionWrapper(where=f"in replica {i} on device {device}")


def parallel_apply(modules, inputs, kwargs_tup=None, devices=None):
    """``[modules[i](*inputs[i], **kwargs_tup[i]) ...]``, each run in its own thread on
    ``devices[i]`` (by default the current device). An element of ``inputs`` that is not a
    list or tuple is passed as the only argument."""
    _check_lengths(modules, inputs, kwargs_tup, devices)
    if kwargs_tup is None:
        kwargs_tup = ({},) * len(modules)
    if devices is None:
        devices = [None] * len(modules)
    if not cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    devices = [_get_device_index(d, True) for d in devices]
    streams = [cuda.current_stream(d) for d in devices]
    lock = threading.Lock()
    results = {}
    grad_enabled = autograd.grad_mode.is_grad_enabled()
    jobs = [(i, m, x, kw, d, s, grad_enabled, results, lock) for i, (m, x, kw, d, s)
            in enumerate(zip(modules, inputs, kwargs_tup, devices, streams, strict=True))]
    if len(modules) > 1:
        threads = [threading.Thread(target=_run_replica, args=job) for job in jobs]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    else:
        _run_replica(*jobs[0])
    outputs = []
    for i in range(len(inputs)):
        output = results[i]
        if isinstance(output, ExceptionWrapper):
            output.reraise()
        outputs.append(output)
    return outputs
