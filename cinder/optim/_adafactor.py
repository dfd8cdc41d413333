"""``torch.optim.Adafactor`` (Shazeer & Stern) and its update function ``adafactor``.

For a matrix (or a batch of matrices) the second moment is stored factored, as one running
mean per row and one per column; vectors keep a full running variance.
"""

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd import grad_mode
from . import _kernels as K
from .optimizer import Optimizer, _check, _closure_loss, _to_scalar

__all__ = ["Adafactor", "adafactor"]


class Adafactor(Optimizer):
    """Adafactor: memory-light adaptive steps with update clipping and relative step sizes.

    Args:
        params: parameters or parameter groups to optimize.
        lr (float or Tensor): upper bound of the relative step size (default 1e-2).
        beta2_decay (float): the second-moment decay is ``step ** beta2_decay`` (-0.8).
        eps (tuple): (eps1, eps2): floor of the variance estimate (None: the dtype's
            machine epsilon) and floor of the parameter scale (1e-3).
        d (float): clipping threshold of the update's RMS (default 1.0).
        weight_decay (float): decoupled weight decay (default 0).
        foreach: accepted for compatibility.
        maximize (bool): ascend instead of descend (default False).
    """

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        _check(0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}")
        _check(0.0 >= beta2_decay, f"beta2_decay should be <= 0 but is: {beta2_decay}")
        _check(eps[0] is None or 0.0 <= eps[0], f"epsilon1 should be >= 0 but is: {eps[0]}")
        _check(0.0 <= eps[1], f"epsilon2 should be >= 0 but is: {eps[1]}")
        _check(1.0 <= d, f"Clipping threshold d should be >= 1 but is: {d}")
        _check(0.0 <= weight_decay, f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)

    @staticmethod
    def _new_state(p, state, group):
        state["step"] = K.scalar_state()
        grad = p.grad
        if grad.dim() > 1:
            shape = list(grad.shape)
            row, col = shape[:-1] + [1], shape[:-2] + [1, shape[-1]]
            state["row_var"] = grad.new_zeros(row)
            state["col_var"] = grad.new_zeros(col)
        else:
            state["variance"] = K.zeros_state(grad)

    def step(self, closure=None):
        """One Adafactor update of every parameter that has a gradient."""
        loss = _closure_loss(closure)
        with grad_mode.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None and p.is_complex():
                        raise RuntimeError("Adafactor does not support complex parameters")
                params, grads, states = self._gather(
                    group, self._new_state, "Adafactor does not support sparse gradients")
                eps1, eps2 = group["eps"]
                adafactor(params, grads, [s.get("row_var") for s in states],
                          [s.get("col_var") for s in states],
                          [s.get("variance") for s in states], [s["step"] for s in states],
                          d=group["d"], lr=group["lr"], beta2_decay=group["beta2_decay"],
                          weight_decay=group["weight_decay"], eps1=eps1, eps2=eps2,
                          maximize=group["maximize"])
        return loss


def _rms_norm(xp, arr):
    """``arr.norm(2).item() / sqrt(numel)``: the root mean square, as a Python float."""
    return float(xp.sqrt(xp.vdot(arr.ravel(), arr.ravel()))) / (arr.size ** 0.5)


def _factored_estimate(xp, grad, row_var, col_var, beta2_t, eps1):
    """Update the row/column means and rebuild the variance estimate from them."""
    sq = grad * grad
    row_mean = xp.sqrt(sq.sum(axis=-1, keepdims=True)) ** 2 / grad.shape[-1]
    K.lerp_(xp, row_var, row_mean.astype(row_var.dtype), beta2_t, xp.empty_like(row_var))
    col_mean = xp.sqrt(sq.sum(axis=-2, keepdims=True)) ** 2 / grad.shape[-2]
    K.lerp_(xp, col_var, col_mean.astype(col_var.dtype), beta2_t, xp.empty_like(col_var))
    estimate = xp.matmul(row_var, col_var)
    estimate /= xp.maximum(row_var.mean(axis=-2, keepdims=True), eps1)
    return estimate


def adafactor(params, grads, row_vars, col_vars, variances, state_steps, grad_scale=None,
              found_inf=None, foreach=None, has_complex=False, *, d, lr, beta2_decay,
              weight_decay, eps1, eps2, maximize):
    """Functional form of :class:`Adafactor` over lists of tensors."""
    lr = float(_to_scalar(lr))
    for i, param in enumerate(params):
        xp = K.array_module(param)
        p = param._data
        grad = -grads[i]._data if maximize else grads[i]._data
        floor = D.finfo(param.dtype).eps if eps1 is None else eps1
        step = K.bump(state_steps[i])
        beta2_t = step ** beta2_decay
        rho_t = min(lr, 1 / (step ** 0.5))
        alpha = max(eps2, _rms_norm(xp, p)) * rho_t
        if weight_decay != 0:
            p *= 1 - lr * weight_decay
        if grad.ndim > 1:
            estimate = _factored_estimate(xp, grad, row_vars[i]._data, col_vars[i]._data,
                                          beta2_t, floor)
        else:
            variance = variances[i]._data
            K.lerp_(xp, variance, grad * grad, beta2_t, xp.empty_like(variance))
            estimate = variance.copy()
        update = xp.maximum(estimate, floor * floor, out=estimate)
        update = xp.sqrt(update, out=update)
        xp.divide(1, update, out=update)
        update *= grad
        denom = max(1.0, _rms_norm(xp, update) / d)
        update *= -alpha / denom
        p += update
        param._bump_version()
