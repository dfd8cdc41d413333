"""Small helpers PyTorch keeps in ``torch._utils``: ``ExceptionWrapper`` (an exception carried
across a thread or process boundary with its formatted traceback)."""

import sys
import traceback


class KeyErrorMessage(str):
    """A str whose repr is itself: KeyError reprs its argument, which would mangle a
    multi-line traceback message."""

    __slots__ = ()

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception's type and formatted traceback, picklable, to re-raise elsewhere.

    ``where`` says where it happened ("in DataLoader worker process 0"); ``reraise`` raises an
    exception of the same type whose message starts "Caught <Type> <where>." followed by the
    original traceback.
    """

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        # Only text is kept: holding the traceback object would keep every frame alive.
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            # An exception type that cannot be built from one message string.
            raise RuntimeError(msg) from None
        raise exception
