"""``torch.cpu``: the CPU's counterparts of ``torch.cuda``'s device functions, so that code
written against ``torch.get_device_module(device)`` runs unchanged on the CPU. Work on the CPU
runs at once, so streams are always idle and synchronising returns immediately."""

from contextlib import AbstractContextManager

__all__ = ["Event", "Stream", "StreamContext", "current_device", "current_stream",
           "device_count", "is_available", "is_initialized", "set_device", "stream",
           "synchronize"]


class Stream:
    """The CPU stream: every op has finished when it returns, so there is nothing to wait for."""

    def __init__(self, priority=-1):
        pass

    def wait_stream(self, stream):
        pass

    def wait_event(self, event):
        pass

    def record_event(self):
        pass


class Event:
    """A CPU event: always complete."""

    def query(self):
        return True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass


_default_stream = Stream()
_current_stream = _default_stream


def is_available():
    """The CPU is always available."""
    return True


def is_initialized():
    return True


def synchronize(device=None):
    """Wait for all work on the CPU (it is already done)."""


def current_stream(device=None):
    """The stream selected by :func:`stream` (the default CPU stream otherwise)."""
    return _current_stream


class StreamContext(AbstractContextManager):
    """Select ``stream`` as the current CPU stream while the block runs (None: no change)."""

    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = _default_stream

    def __enter__(self):
        global _current_stream
        if self.stream is not None:
            self.prev_stream = _current_stream
            _current_stream = self.stream

    def __exit__(self, *exc):
        global _current_stream
        if self.stream is not None:
            _current_stream = self.prev_stream


def stream(stream):
    """A context manager selecting ``stream`` (see :class:`StreamContext`)."""
    return StreamContext(stream)


def device_count():
    """One CPU device."""
    return 1


def current_device():
    return "cpu"


def set_device(device):
    """Selecting a CPU device changes nothing (there is one)."""


def __getattr__(name):
    # ``torch.cpu.amp`` loads on first use (it sits above this module's layer)
    if name == "amp":
        import importlib
        return importlib.import_module(__name__ + ".amp")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
