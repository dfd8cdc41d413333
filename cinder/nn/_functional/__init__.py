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


def _pad_autocast_policy(args, kwargs):
    """F.pad's policy: its reflect mode over 1 or 2 dims and its replicate mode run
    reflection_pad1d/2d and replication_pad1d/2d/3d, which PyTorch's CPU autocast runs in
    float32 (reflection_pad3d and the constant and circular modes are on no list)."""
    pad = kwargs.get("pad", args[1] if len(args) > 1 else ())
    mode = kwargs.get("mode", args[2] if len(args) > 2 else "constant")
    dims = len(pad) // 2
    if (mode == "reflect" and dims in (1, 2)) or (mode == "replicate" and dims in (1, 2, 3)):
        return "autocast_fp32"
    return None


# F functions on PyTorch's CPU autocast lists under their own name (or their aten op's:
# cross_entropy_loss, grid_sampler) that are not op-table entries here: the policy autocast
# applies to their arguments (``cinder/amp/autocast_mode.py`` reads ``_cinder_autocast``).
_AUTOCAST_POLICY = {
    "linear": "autocast_lower_precision_fp",
    "scaled_dot_product_attention": "autocast_lower_precision_fp",
    "nll_loss": "autocast_fp32", "cross_entropy": "autocast_fp32", "l1_loss": "autocast_fp32",
    "grid_sample": "autocast_fp32", "fractional_max_pool2d": "autocast_fp32",
    "fractional_max_pool3d": "autocast_fp32", "max_unpool2d": "autocast_fp32",
    "max_unpool3d": "autocast_fp32", "pad": _pad_autocast_policy,
}


def _asks_handlers(fn, args, kwargs):
    """Whether a call must go to ``__torch_function__`` handlers: an overloaded argument, or
    a mode on top of the stack that works at the level of Python functions. Autocast and vmap
    mark their modes ``_cinder_op_level``: PyTorch's act below ``nn.functional`` (on the ops the
    function calls), so the function runs and its ops meet the mode."""
    if not _STATE.active:
        return False
    if overloaded_args(args, kwargs):
        return True
    modes = _STATE.modes
    if not modes or _STATE.all_off:
        return False
    level = getattr(modes[-1], "_cinder_op_level", False)
    if level:
        # vmap: never; autocast: only where this function is on its lists (``mse_loss``...)
        if level != "autocast":
            return False
        if fn._cinder_autocast is not None:
            return True
        info = _ALL_OPS.get(fn.__name__)
        return info is not None and any(t.startswith("autocast_") for t in info.tags)
    return True


def dispatched_functional(impl):
    """``impl`` as a public ``nn.functional`` function: one flag read on the common path; with
    a mode or an overloaded argument the handlers receive this function (PyTorch's
    ``handle_torch_function(F.x, ...)``) and the ops it calls inside are not seen again."""
    @functools.wraps(impl)
    def fn(*args, **kwargs):
        if _FLAG.active:
            if _FLAG.profiler is not None:      # recorded as one range (aten::<name>)
                return _FLAG.profiler.call(fn, _call, impl, args, kwargs)
            if _asks_handlers(fn, args, kwargs):
                return dispatch(fn, impl, args, kwargs)
        return impl(*args, **kwargs)
    fn._cinder_impl = impl
    fn._cinder_python_level = True      # its "all handlers declined" error is worded so
    fn._cinder_autocast = _AUTOCAST_POLICY.get(impl.__name__)
    return fn


def _call(fn, impl, args, kwargs):
    """The wrapper's work without the profiler (which runs recorded calls through this)."""
    if _FLAG.active and _asks_handlers(fn, args, kwargs):
        return dispatch(fn, impl, args, kwargs)
    return impl(*args, **kwargs)


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
