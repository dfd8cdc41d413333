"""The autograd Functions behind DataParallel: each one's backward is the other's forward.

- ``Broadcast`` copies parameters to every device; its backward sums the copies' gradients back
  onto the source device (``ReduceAddCoalesced``), which is how the replicas' gradients land in
  the original module's ``.grad``.
- ``Scatter`` cuts the input batch into per-device chunks; its backward concatenates the chunks'
  gradients back (``Gather``), and the other way round.
"""

import warnings
from itertools import chain

from ... import cuda
from ...autograd import Function
from ...cuda import comm
from ..._utils import _get_device_index

__all__ = ["Broadcast", "ReduceAddCoalesced", "Gather", "Scatter"]


def view_as_real(t):
    from ... import view_as_real as op       # cinder's ops load after nn's modules
    return op(t)


def view_as_complex(t):
    from ... import view_as_complex as op
    return op(t)


class Broadcast(Function):
    """``Broadcast.apply(devices, *tensors)``: every tensor copied to every device, flattened
    device by device (all tensors for ``devices[0]``, then all for ``devices[1]``...)."""

    @staticmethod
    def forward(ctx, target_gpus, *inputs):
        if not all(t.device.type != "cpu" for t in inputs):
            raise AssertionError("Broadcast function not implemented for CPU tensors")
        target_gpus = [_get_device_index(d, True) for d in target_gpus]
        ctx.target_gpus = target_gpus
        if not inputs:
            return ()
        ctx.num_inputs = len(inputs)
        ctx.input_device = inputs[0].get_device()
        complex_mask = [t.is_complex() for t in inputs]
        outputs = comm.broadcast_coalesced(inputs, target_gpus)
        for per_device in outputs:
            for i, is_complex in enumerate(complex_mask):
                if is_complex:
                    per_device[i] = view_as_complex(per_device[i])
        # Copies of tensors that need no gradient need none either.
        frozen = [out[i] for i, needs in enumerate(ctx.needs_input_grad[1:]) if not needs
                  for out in outputs]
        ctx.mark_non_differentiable(*frozen)
        return tuple(chain.from_iterable(outputs))

    @staticmethod
    def backward(ctx, *grad_outputs):
        return (None,) + ReduceAddCoalesced.apply(ctx.input_device, ctx.num_inputs,
                                                  *grad_outputs)


class ReduceAddCoalesced(Function):
    """``ReduceAddCoalesced.apply(destination, n, *grads)``: ``grads`` holds n tensors per
    device; the result is the n elementwise sums over devices, on ``destination``."""

    @staticmethod
    def forward(ctx, destination, num_inputs, *grads):
        ctx.target_gpus = [grads[i].get_device() for i in range(0, len(grads), num_inputs)]
        complex_mask = [grads[i].is_complex() for i in range(num_inputs)]
        real = [view_as_real(g) if g.is_complex() else g for g in grads]
        per_device = [real[i:i + num_inputs] for i in range(0, len(real), num_inputs)]
        sums = comm.reduce_add_coalesced(per_device, destination)
        return tuple(view_as_complex(s) if is_complex else s
                     for s, is_complex in zip(sums, complex_mask))

    @staticmethod
    def backward(ctx, *grad_outputs):
        return (None, None) + Broadcast.apply(ctx.target_gpus, *grad_outputs)


class Gather(Function):
    """``Gather.apply(target_device, dim, *tensors)``: the GPU tensors concatenated along
    ``dim`` on ``target_device`` ('cpu' or -1 for the CPU). Scalars are stacked into a vector
    (with a warning) when ``dim`` is 0."""

    @staticmethod
    def forward(ctx, target_device, dim, *inputs):
        if not all(t.device.type != "cpu" for t in inputs):
            raise AssertionError("Gather function not implemented for CPU tensors")
        if target_device != "cpu":
            target_device = _get_device_index(target_device, True)
        ctx.target_device = target_device
        ctx.dim = dim
        ctx.input_gpus = tuple(t.get_device() for t in inputs)
        ctx.unsqueezed_scalar = all(t.dim() == 0 for t in inputs) and dim == 0
        if ctx.unsqueezed_scalar:
            inputs = tuple(t.view(1) for t in inputs)
            warnings.warn("Was asked to gather along dimension 0, but all input tensors were "
                          "scalars; will instead unsqueeze and return a vector.", stacklevel=2)
        ctx.input_sizes = tuple(t.size(ctx.dim) for t in inputs)
        is_complex = len(inputs) > 0 and inputs[0].is_complex()
        output = comm.gather(inputs, ctx.dim, ctx.target_device)
        return view_as_complex(output) if is_complex else output

    @staticmethod
    def backward(ctx, grad_output):
        grads = Scatter.apply(ctx.input_gpus, ctx.input_sizes, ctx.dim, grad_output)
        if ctx.unsqueezed_scalar:
            grads = tuple(g[0] for g in grads)
        return (None, None) + grads


class Scatter(Function):
    """``Scatter.apply(devices, chunk_sizes, dim, tensor)``: ``tensor`` cut along ``dim`` and
    the pieces placed one per device. A CPU tensor is copied on a side stream per device, which
    the device's current stream then waits for."""

    @staticmethod
    def forward(ctx, target_gpus, chunk_sizes, dim, input):
        target_gpus = [_get_device_index(d, True) for d in target_gpus]
        ctx.dim = dim
        ctx.input_device = input.get_device() if input.device.type != "cpu" else -1
        streams = None
        if cuda.is_available() and ctx.input_device == -1:
            streams = [_get_stream(d) for d in target_gpus]
        is_complex = input.is_complex()
        outputs = comm.scatter(input, target_gpus, chunk_sizes, ctx.dim, streams)
        if is_complex:
            outputs = tuple(view_as_complex(o) for o in outputs)
        if streams is not None:
            for i in range(len(outputs)):
                with cuda.device(target_gpus[i]):
                    cuda.current_stream().wait_stream(streams[i])
        return outputs

    @staticmethod
    def backward(ctx, *grad_output):
        return None, None, None, Gather.apply(ctx.input_device, ctx.dim, *grad_output)


_streams = None     # device index -> the side stream that host-to-device copies use


def _get_stream(index):
    """The side stream for copies from the CPU onto device ``index`` (made on first use)."""
    global _streams
    if index < 0 or not cuda.is_available():
        return None
    if _streams is None:
        _streams = [None] * cuda.device_count()
    if _streams[index] is None:
        _streams[index] = cuda.Stream(index)
    return _streams[index]
