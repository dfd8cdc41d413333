"""``torch.optim.Adamax`` (Adam with the infinity norm) and its update function ``adamax``."""

from . import _kernels as K
from ._differentiable import adamax_tensor_step
from .optimizer import (Optimizer, _check, _check_lr, _to_scalar,
                        _use_grad_for_differentiable)

__all__ = ["Adamax", "adamax"]


def check_betas_eps_wd(betas, eps, weight_decay):
    """The epsilon, beta and weight-decay checks the Adam relatives share."""
    _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
    _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
    _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
    _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")


class Adamax(Optimizer):
    """Adamax: Adam whose second moment is an exponentially weighted infinity norm.

    Args:
        params: parameters or parameter groups to optimize.
        lr (float or Tensor): learning rate (default 2e-3).
        betas (tuple): decay of the first moment and of the infinity norm (0.9, 0.999).
        eps (float): added to the norm for stability (1e-8).
        weight_decay (float): L2 penalty (default 0).
        foreach, capturable: accepted for compatibility.
        maximize (bool): ascend instead of descend (default False).
        differentiable (bool): accepted; see the module notes on differentiable steps.
    """

    _group_defaults = (
        ("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False),
    )

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        check_betas_eps_wd(betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)


    @staticmethod
    def _new_state(p, state, group):
        state["step"] = K.scalar_state()
        state["exp_avg"] = K.zeros_state(p)
        state["exp_inf"] = K.zeros_state(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One Adamax update of every parameter that has a gradient."""
        return self._step_groups(closure)

    def _update_group(self, group, params, grads, states):
        beta1, beta2 = group["betas"]
        adamax(params, grads, [s["exp_avg"] for s in states],
               [s["exp_inf"] for s in states], [s["step"] for s in states],
               eps=group["eps"], beta1=beta1, beta2=beta2, lr=group["lr"],
               weight_decay=group["weight_decay"], maximize=group["maximize"],
               differentiable=group["differentiable"])


def _adamax_kernel(param, grad, exp_avg, exp_inf, tmp, g_buf, *, xp, beta1, beta2, eps,
                   weight_decay, maximize, clr):
    grad = K.effective_grad(xp, grad, param, weight_decay, maximize, g_buf)
    K.lerp_(xp, exp_avg, grad, 1 - beta1, tmp)
    exp_inf *= beta2
    xp.abs(grad, out=tmp)
    tmp += eps
    xp.maximum(exp_inf, tmp, out=exp_inf)
    xp.divide(exp_avg, exp_inf, out=tmp)
    K.axpy(-clr, tmp, param)


def adamax(params, grads, exp_avgs, exp_infs, state_steps, foreach=None, maximize=False,
           differentiable=False, capturable=False, has_complex=False, *, eps, beta1, beta2,
           lr, weight_decay):
    """Functional form of :class:`Adamax` over lists of tensors."""
    lr = float(_to_scalar(lr))
    for i, param in enumerate(params):
        if differentiable:
            adamax_tensor_step(param, grads[i], exp_avgs[i], exp_infs[i], state_steps[i], lr=lr,
                               beta1=beta1, beta2=beta2, eps=eps, weight_decay=weight_decay,
                               maximize=maximize)
            continue
        step = K.bump(state_steps[i])
        arrays = [K.real_view(t._data) for t in (param, grads[i], exp_avgs[i], exp_infs[i])]
        K.run_blocked(_adamax_kernel, arrays, 2, xp=K.array_module(param), beta1=beta1,
                      beta2=beta2, eps=eps, weight_decay=weight_decay, maximize=maximize,
                      clr=lr / (1 - beta1 ** step))
        param._bump_version()
