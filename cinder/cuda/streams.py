"""``torch.cuda.Stream`` / ``Event`` and the stream context, over CuPy's streams and events.

A stream is a queue of GPU work; work on different streams may overlap. An event marks a point
in a stream that other streams or the host can wait for, and can time work between two marks.
"""

from .. import backend
from ._utils import _get_device_index
from .._device import device as _device_cls

__all__ = ["Stream", "Event", "StreamContext"]


class Stream:
    """A CUDA stream on ``device`` (the current device by default)."""

    def __init__(self, device=None, priority=0, **kwargs):
        if not backend.cuda_is_available():
            raise RuntimeError("torch.cuda.Stream requires CUDA support")
        self.device_index = _get_device_index(device, optional=True)
        self._handle = backend.cuda.new_stream(self.device_index, priority)

    @classmethod
    def _wrap(cls, handle, index):
        """A Stream object for an existing backend stream (current/default streams)."""
        s = object.__new__(cls)
        s._handle, s.device_index = handle, index
        return s

    @property
    def device(self):
        return _device_cls("cuda", self.device_index)

    @property
    def cuda_stream(self):
        """The raw ``cudaStream_t`` handle as an integer (0 for the default stream)."""
        return self._handle.ptr

    def query(self):
        """Whether all work queued so far has finished."""
        return self._handle.done

    def synchronize(self):
        """Block the host until all queued work has finished."""
        self._handle.synchronize()

    def wait_event(self, event):
        """Make later work on this stream wait until ``event`` has completed."""
        self._handle.wait_event(event._handle)

    def wait_stream(self, stream):
        """Make later work on this stream wait for all work queued on ``stream`` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        """Record ``event`` (a new one by default) at this point of the stream; returns it."""
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and self.cuda_stream == other.cuda_stream \
            and self.device_index == other.device_index

    def __hash__(self):
        return hash((self.cuda_stream, self.device_index))

    def __repr__(self):
        return (f"<torch.cuda.Stream device=cuda:{self.device_index} "
                f"cuda_stream={self.cuda_stream:#x}>")


class Event:
    """A CUDA event: a marker in a stream to wait on or to time between."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        if not backend.cuda_is_available():
            raise RuntimeError("Tried to instantiate dummy base class Event")
        self._handle = backend.cuda.new_event(enable_timing, blocking, interprocess)

    def record(self, stream=None):
        """Mark the current point of ``stream`` (the current stream by default)."""
        if stream is None:
            from . import current_stream
            stream = current_stream()
        self._handle.record(stream._handle)

    def wait(self, stream=None):
        """Make later work on ``stream`` (the current one) wait for this event."""
        if stream is None:
            from . import current_stream
            stream = current_stream()
        stream.wait_event(self)

    def query(self):
        """Whether the work before the recorded point has finished."""
        return self._handle.done

    def synchronize(self):
        """Block the host until the recorded point is reached."""
        self._handle.synchronize()

    def elapsed_time(self, end_event):
        """Milliseconds from this event to ``end_event`` (both recorded with timing on)."""
        return backend.cuda.event_elapsed_ms(self._handle, end_event._handle)

    def __repr__(self):
        return f"<torch.cuda.Event {self._handle.ptr:#x}>"


class StreamContext:
    """``with torch.cuda.stream(s):`` work in the block goes to ``s``; the previous current
    stream (and device) come back on exit. ``None`` changes nothing."""

    def __init__(self, stream):
        self.stream = stream
        self._prev = None

    def __enter__(self):
        if self.stream is None:
            return
        from . import current_stream
        self._prev_device = backend.cuda.current_device()
        if self._prev_device != self.stream.device_index:
            backend.cuda.set_device(self.stream.device_index)
        self._prev = current_stream(self.stream.device_index)
        backend.cuda.set_current_stream(self.stream._handle)

    def __exit__(self, *exc):
        if self.stream is None:
            return False
        backend.cuda.set_current_stream(self._prev._handle)
        if self._prev_device != self.stream.device_index:
            backend.cuda.set_device(self._prev_device)
        return False
