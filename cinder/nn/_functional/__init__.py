"""The families of ``nn.functional``, one private module each (``activation``, ``loss``,
``pooling``...). ``cinder/nn/functional.py`` re-exports their public names: that module is the
one users import, as ``torch.nn.functional``.

Two kinds of names live there, as in PyTorch: those that ARE the published ops
(``F.conv2d is torch.conv2d``), and Python functions that check their arguments, then call
published ops. The latter honour ``__torch_function__`` themselves (``dispatched_functional``),
as PyTorch's do through ``has_torch_function`` / ``handle_torch_function``.
"""

import functools
import sys
import warnings

from ... import _C
from ...ops import FUNCTIONS as _OPS
from ...ops import OPS as _ALL_OPS
from ...ops._dispatch import dispatch, overloaded_args

_FLAG = _C.FLAG
_STATE = _C.STATE


def _op(name):
    """The op-table entry ``name`` (the public function ``torch.<name>``)."""
    return _OPS[name]


def _asks_handlers(name, args, kwargs):
    """Whether a call must go to ``__torch_function__`` handlers: an overloaded argument, or
    a mode on top of the stack that works at the level of Python functions. Autocast marks its
    mode ``_cinder_op_level``: PyTorch's autocast acts below ``nn.functional`` (on the ops the
    function calls), so the function runs and its ops meet the autocast mode."""
    if not _STATE.active:
        return False
    if overloaded_args(args, kwargs):
        return True
    modes = _STATE.modes
    if not modes or _STATE.all_off:
        return False
    if getattr(modes[-1], "_cinder_op_level", False):
        # autocast: asked only where this function is an op of its lists (``mse_loss``...)
        info = _ALL_OPS.get(name)
        return info is not None and any(t.startswith("autocast_") for t in info.tags)
    return True


def op_level_mode_on():
    """Whether the innermost mode works on ops (autocast): functions that call unpublished
    kernels directly for speed take their published-op path then, so the mode reaches it."""
    if not _FLAG.active:
        return False
    modes = _STATE.modes
    return bool(modes) and not _STATE.all_off and getattr(modes[-1], "_cinder_op_level", False)


def dispatched_functional(impl):
    """``impl`` as a public ``nn.functional`` function: one flag read on the common path; with
    a mode or an overloaded argument the handlers receive this function (PyTorch's
    ``handle_torch_function(F.x, ...)``) and the ops it calls inside are not seen again."""
    name = impl.__name__

    @functools.wraps(impl)
    def fn(*args, **kwargs):
        if _FLAG.active and _asks_handlers(name, args, kwargs):
            return dispatch(fn, impl, args, kwargs)
        return impl(*args, **kwargs)
    fn._cinder_impl = impl
    return fn


_WRAPPER_CODE = dispatched_functional(len).__code__


def warn(message, category=UserWarning, stacklevel=1):
    """``warnings.warn`` for the families: ``stacklevel`` counts frames as PyTorch's functions
    see them, without the ``dispatched_functional`` wrappers in between (so the warning still
    points at the user's line)."""
    frame, raw, counted = sys._getframe(1), 1, 1
    while counted < stacklevel and frame.f_back is not None:
        frame = frame.f_back
        raw += 1
        if frame.f_code is not _WRAPPER_CODE:
            counted += 1
    warnings.warn(message, category, stacklevel=raw + 1)
