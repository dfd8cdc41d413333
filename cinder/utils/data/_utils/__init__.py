"""Helpers of the DataLoader: collation, fetching, worker processes, signal handling."""

import atexit
import sys

from ...._utils import ExceptionWrapper  # noqa: F401

IS_WINDOWS = sys.platform == "win32"

# Seconds between checks that the other side (workers, or the main process) is still alive
# while waiting on a queue, so a dead peer never hangs the loop.
MP_STATUS_CHECK_INTERVAL = 5.0

# Set when the interpreter starts shutting down; shutdown code then stays away from modules
# that may already be torn down.
python_exit_status = False

HAS_NUMPY = True


def _set_python_exit_flag():
    global python_exit_status
    python_exit_status = True


atexit.register(_set_python_exit_flag)

from . import collate, fetch, pin_memory, signal_handling, worker  # noqa: E402,F401
