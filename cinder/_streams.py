"""``torch.Stream`` and ``torch.Event``: the device-generic stream and event objects.

cinder's CPU runs every op to completion in the calling thread, as PyTorch's CPU backend does:
the CPU stream is always idle (``query()`` is True, ``synchronize()`` returns at once) and CPU
events cannot be recorded (PyTorch's "cpu backend doesn't support events."). CUDA streams and
events are not provided through these generic objects.
"""

from ._device import device as _device_cls

__all__ = ["Event", "Stream"]


def _cpu_only(device):
    """The device a generic stream/event is made for: the CPU (PyTorch's CPU-build errors
    for the others)."""
    if device is None:
        return _device_cls("cpu")
    dev = _device_cls(device)
    if dev.type != "cpu":
        raise RuntimeError(f"PyTorch is not linked with support for {dev.type} devices")
    return dev


def _no_events():
    return RuntimeError("cpu backend doesn't support events.")


class Stream:
    """A queue of work on one device; on the CPU work runs at once, so the stream is idle."""

    def __init__(self, device=None, *, priority=0, **kwargs):
        self.device = _cpu_only(device)
        self.device_type = 0            # PyTorch's DeviceType enum value of CPU
        self.device_index = -1
        self.stream_id = 0

    def query(self):
        """Whether all work queued on the stream has finished (always, on the CPU)."""
        return True

    def synchronize(self):
        """Wait for the stream's work (none is ever pending on the CPU)."""

    def wait_event(self, event):
        """Make future work wait for ``event`` (a CPU event is always complete)."""

    def wait_stream(self, stream):
        raise _no_events()

    def record_event(self, event=None):
        raise _no_events()

    def is_capturing(self):
        return False

    @property
    def native_handle(self):
        raise RuntimeError("Backend doesn't support getting stream native handle.")

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.device, self.stream_id) == \
            (other.device, other.stream_id)

    def __hash__(self):
        return hash((self.device.type, self.device_index, self.stream_id))

    def __repr__(self):
        return (f"torch.Stream device_type={self.device.type}, device_index="
                f"{self.device_index}, stream_id={self.stream_id}")


class Event:
    """A marker in a stream's work, for synchronisation and timing."""

    def __init__(self, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        self.device = _cpu_only(device)
        self.event_id = 0
        self._timing = enable_timing

    def record(self, stream=None):
        raise _no_events()

    def wait(self, stream=None):
        """Make ``stream`` wait for this event (nothing is ever pending on the CPU)."""

    def query(self):
        """Whether the work before the event has finished (always, on the CPU)."""
        return True

    def synchronize(self):
        """Wait until the event completes (at once on the CPU)."""

    def elapsed_time(self, end_event):
        if not (self._timing and getattr(end_event, "_timing", False)):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        raise ValueError("Both events must be recorded before calculating elapsed time.")

    def __repr__(self):
        return (f"torch.Event device_type={self.device.type}, device_index=-1, "
                f"event_flag={int(self._timing)}, event_id={self.event_id}")


Stream.__module__ = Event.__module__ = "torch"
