"""``torch.optim.Adadelta`` and its update function ``adadelta``."""

from . import _kernels as K
from ._differentiable import adadelta_tensor_step
from .optimizer import (Optimizer, _check, _check_lr, _to_scalar,
                        _use_grad_for_differentiable)

__all__ = ["Adadelta", "adadelta"]


class Adadelta(Optimizer):
    """Adadelta (Zeiler): steps scaled by the ratio of running RMS of past updates to running
    RMS of gradients.

    Args:
        params: parameters or parameter groups to optimize.
        lr (float or Tensor): scale applied to the update (default 1.0).
        rho (float): decay of both running averages (default 0.9).
        eps (float): added inside the square roots (default 1e-6).
        weight_decay (float): L2 penalty (default 0).
        foreach, capturable, differentiable: accepted for compatibility.
        maximize (bool): ascend instead of descend (default False).
    """

    _group_defaults = (
        ("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False),
    )

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check_lr(lr)
        _check(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)


    @staticmethod
    def _new_state(p, state, group):
        state["step"] = K.scalar_state()
        state["square_avg"] = K.zeros_state(p)
        state["acc_delta"] = K.zeros_state(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One Adadelta update of every parameter that has a gradient."""
        return self._step_groups(closure)

    def _update_group(self, group, params, grads, states):
        adadelta(params, grads, [s["square_avg"] for s in states],
                 [s["acc_delta"] for s in states], [s["step"] for s in states],
                 lr=group["lr"], rho=group["rho"], eps=group["eps"],
                 weight_decay=group["weight_decay"], maximize=group["maximize"],
                 differentiable=group["differentiable"])


def _adadelta_kernel(param, grad, square_avg, acc_delta, g_buf, tmp, delta, *, xp, rho,
                     eps, weight_decay, maximize, lr):
    grad = K.effective_grad(xp, grad, param, weight_decay, maximize, g_buf)
    square_avg *= rho
    xp.multiply(grad, grad, out=delta)
    K.axpy(1 - rho, delta, square_avg)
    # delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * grad
    xp.add(acc_delta, eps, out=delta)
    xp.sqrt(delta, out=delta)
    xp.add(square_avg, eps, out=tmp)
    xp.sqrt(tmp, out=tmp)
    delta /= tmp
    delta *= grad
    acc_delta *= rho
    xp.multiply(delta, delta, out=tmp)
    K.axpy(1 - rho, tmp, acc_delta)
    K.axpy(-lr, delta, param)


def adadelta(params, grads, square_avgs, acc_deltas, state_steps, capturable=False,
             foreach=None, differentiable=False, has_complex=False, *, lr, rho, eps,
             weight_decay, maximize):
    """Functional form of :class:`Adadelta` over lists of tensors."""
    lr = float(_to_scalar(lr))
    for i, param in enumerate(params):
        if differentiable:
            adadelta_tensor_step(param, grads[i], square_avgs[i], acc_deltas[i], state_steps[i],
                                 lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                 maximize=maximize)
            continue
        K.bump(state_steps[i])
        arrays = [K.real_view(t._data) for t in (param, grads[i], square_avgs[i],
                                                 acc_deltas[i])]
        K.run_blocked(_adadelta_kernel, arrays, 3, xp=K.array_module(param), rho=rho,
                      eps=eps, weight_decay=weight_decay, maximize=maximize, lr=lr)
        param._bump_version()
