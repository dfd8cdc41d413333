"""``torch.amp.GradScaler``: loss scaling for mixed-precision training.

Multiply the loss by a scale factor before ``backward`` (so small float16 gradients do not flush
to zero), divide the gradients by it before the optimizer step, skip the step when a gradient
came out inf/NaN, and adapt the scale: shrink it (``backoff_factor``) after an overflow, grow it
(``growth_factor``) after ``growth_interval`` clean steps in a row. The scale lives in a float32
tensor, as in PyTorch, so ``state_dict`` and the step-skipping agree with it exactly.
"""

import warnings
from collections import defaultdict
from enum import Enum

from .. import _dtype as D
from .. import backend
from .._tensor import Tensor
from ..autograd import grad_mode
from ..ops import FUNCTIONS

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    """Where an optimizer is in the scale -> unscale_ -> step -> update cycle."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Scales losses and unscales gradients (see the module docstring)."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not backend.cuda_is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled:
            assert growth_factor > 1.0, "The growth factor must be > 1.0."
            assert backoff_factor < 1.0, "The backoff factor must be < 1.0."
            self._init_scale = init_scale
            self._scale = None              # made lazily, on the device of the first loss
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_fresh_state)

    def _lazy_init_scale_growth_tracker(self, device):
        self._scale = FUNCTIONS["full"]((), self._init_scale, dtype=D.float32, device=device)
        self._growth_tracker = FUNCTIONS["full"]((), self._init_growth_tracker, dtype=D.int32,
                                                 device=device)

    def _check_scale_growth_tracker(self, funcname):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier " \
              "in the iteration."
        assert self._scale is not None, f"Attempted {funcname} but _scale is None.  {fix}"
        assert self._growth_tracker is not None, \
            f"Attempted {funcname} but _growth_tracker is None.  {fix}"
        return self._scale, self._growth_tracker

    # ------------------------------------------------------------------------------------------
    # scale / unscale_ / step / update
    # ------------------------------------------------------------------------------------------

    def scale(self, outputs):
        """``outputs`` (a tensor, or an iterable of tensors) multiplied by the scale factor."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device)
        return self._scale_all(outputs)

    def _scale_all(self, value):
        if isinstance(value, Tensor):
            return self.scale(value)
        if isinstance(value, (list, tuple)):
            return type(value)(self._scale_all(v) for v in value)
        try:
            return map(self._scale_all, iter(value))
        except TypeError:
            raise ValueError("outputs must be a Tensor or an iterable of Tensors") from None

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        """Multiply every gradient by ``inv_scale`` in place; ``found_inf`` becomes 1 if any
        gradient holds an inf or NaN."""
        with grad_mode.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    grad = param.grad
                    if grad is None:
                        continue
                    if not allow_fp16 and grad.dtype == D.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    if not bool(FUNCTIONS["isfinite"](grad).all()):
                        found_inf.fill_(1.0)
                    grad.mul_(inv_scale.to(grad.dtype))
        return {found_inf.device: found_inf}

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale (once per ``update``), e.g. to clip
        them; ``step`` then does not unscale again."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = FUNCTIONS["full"]((), 0.0, dtype=D.float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf,
                                                             False)
        state["stage"] = OptState.UNSCALED

    def _maybe_opt_step(self, optimizer, state, *args, **kwargs):
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            return optimizer.step(*args, **kwargs)
        return None

    def step(self, optimizer, *args, **kwargs):
        """Unscale the gradients (unless ``unscale_`` did) and run ``optimizer.step`` unless a
        gradient is inf/NaN; returns what ``optimizer.step`` returned (None when skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        assert len(state["found_inf_per_device"]) > 0, \
            "No inf checks were recorded for this optimizer."
        result = self._maybe_opt_step(optimizer, state, *args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale=None):
        """Set the scale for the next iteration: ``new_scale`` if given, else back off after
        an inf/NaN gradient or grow after ``growth_interval`` clean steps."""
        if not self._enabled:
            return
        scale, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            self._set_scale(new_scale)
        else:
            found = [f for state in self._per_optimizer_states.values()
                     for f in state["found_inf_per_device"].values()]
            assert len(found) > 0, "No inf checks were recorded prior to update."
            self._update_scale(scale, tracker, sum(float(f.item()) for f in found))
        self._per_optimizer_states = defaultdict(_fresh_state)

    def _set_scale(self, new_scale):
        if isinstance(new_scale, float):
            self._scale.fill_(new_scale)
            return
        reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                  "torch.FloatTensor with requires_grad=False.")
        assert new_scale.device.type == self._device, reason
        assert new_scale.numel() == 1, reason
        assert new_scale.requires_grad is False, reason
        self._scale.copy_(new_scale)

    def _update_scale(self, scale, tracker, found_inf):
        """PyTorch's ``_amp_update_scale_``, on the float32 scale and int32 tracker."""
        if found_inf:
            scale.mul_(self._backoff_factor)
            tracker.fill_(0)
            return
        successful = int(tracker.item()) + 1
        if successful == self._growth_interval:
            grown = scale * self._growth_factor
            if bool(FUNCTIONS["isfinite"](grown)):
                scale.copy_(grown)
            tracker.fill_(0)
        else:
            tracker.fill_(successful)

    # ------------------------------------------------------------------------------------------
    # Settings and state
    # ------------------------------------------------------------------------------------------

    def get_scale(self):
        """The current scale as a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return int(self._growth_tracker.item())

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """The scale and its settings (empty when disabled), as PyTorch lays them out."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        """Restore what :meth:`state_dict` returned."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
