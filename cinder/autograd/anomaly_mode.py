"""Anomaly detection for the autograd engine: ``detect_anomaly`` and ``set_detect_anomaly``.

While enabled:

- every graph node remembers the Python stack of the forward call that created it (the op
  recorder calls ``grad_mode.ANOMALY.attach``), so an error raised while running that node's
  backward is preceded by a warning showing where the forward operation came from;
- with ``check_nan`` (the default) every gradient a node produces is checked, and a NaN raises
  ``RuntimeError: Function 'XBackward0' returned nan values in its 0th output.``

The state is process-wide, as in PyTorch. The engine calls :func:`check_node_output` after
each node and :func:`report_node_error` when a node raises.
"""

import warnings

from . import grad_mode
from .. import backend

__all__ = [
    "check_node_output",
    "detect_anomaly",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "report_node_error",
    "set_anomaly_enabled",
    "set_detect_anomaly",
]


def is_anomaly_enabled():
    """Whether anomaly detection is on."""
    return grad_mode.ANOMALY.enabled


def is_anomaly_check_nan_enabled():
    """Whether anomaly detection also checks backward results for NaN."""
    return grad_mode.ANOMALY.check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    """Switch anomaly detection on or off (``torch.set_anomaly_enabled``)."""
    for name, value in (("enabled", enabled), ("check_nan", check_nan)):
        if not isinstance(value, bool):
            position = 1 if name == "enabled" else 2
            raise TypeError(f"set_anomaly_enabled(): argument '{name}' (position {position}) "
                            f"must be bool, not {type(value).__name__}")
    grad_mode.ANOMALY.enabled = enabled
    grad_mode.ANOMALY.check_nan = check_nan


class detect_anomaly:
    r"""Context manager that enables anomaly detection for the autograd engine.

    This does two things:

    - Running the forward pass with detection enabled lets the backward pass print the
      traceback of the forward operation that created the failing backward function.
    - If ``check_nan`` is ``True``, any backward computation that generates a "nan" value
      raises an error. Default ``True``.

    .. warning::
        Enable this mode only for debugging: the extra checks slow the program down.

    Example::

        >>> with autograd.detect_anomaly():
        ...     inp = torch.rand(10, 10, requires_grad=True)
        ...     out = run_fn(inp)
        ...     out.backward()
    """

    def __init__(self, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    r"""Context manager that sets anomaly detection for the autograd engine on or off.

    It takes effect as soon as it is created, so it also works as a plain function call;
    used with ``with``, the previous setting comes back at the end of the block.

    Args:
        mode (bool): whether to enable anomaly detection (``True``) or disable it (``False``).
        check_nan (bool): whether to raise an error when backward generates "nan".
    """

    def __init__(self, mode, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


# ----------------------------------------------------------------------------------------------
# Engine hooks
# ----------------------------------------------------------------------------------------------

def report_node_error(node):
    """Warn with the forward traceback of ``node`` (call while its backward's error propagates).

    Does nothing unless anomaly detection is enabled.
    """
    if not grad_mode.ANOMALY.enabled:
        return
    trace = getattr(node, "_anomaly_trace", None)
    if trace is None:
        message = (f"Error detected in {node.name()}. No forward pass information available. "
                   "Enable detect anomaly during forward pass for more information.")
    else:
        message = (f"Error detected in {node.name()}. Traceback of forward call that caused the "
                   f"error:\n{trace}")
    warnings.warn(message, UserWarning, stacklevel=3)


def _has_nan(grad):
    xp = backend.array_module(grad.device)
    return bool(xp.isnan(grad._data).any())


def check_node_output(node, grads):
    """Raise if anomaly detection checks NaN and one of ``grads`` (what ``node`` returned for
    its inputs) contains a NaN; the forward traceback is reported first."""
    anomaly = grad_mode.ANOMALY
    if not (anomaly.enabled and anomaly.check_nan):
        return
    for i, g in enumerate(grads):
        if g is not None and _has_nan(g):
            report_node_error(node)
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               "output.")
