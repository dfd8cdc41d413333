"""``torch.optim.RAdam`` (rectified Adam) and its update function ``radam``."""

from . import _kernels as K
from ._differentiable import radam_tensor_step
from .adamax import check_betas_eps_wd
from .optimizer import (Optimizer, _check_lr, _to_scalar,
                        _use_grad_for_differentiable)

__all__ = ["RAdam", "radam"]


class RAdam(Optimizer):
    """RAdam (Liu et al.): Adam whose adaptive term is switched on only once the variance of
    its estimate is tractable (rho_t > 5), with a rectification factor.

    Args:
        params: parameters or parameter groups to optimize.
        lr (float or Tensor): learning rate (default 1e-3).
        betas (tuple): moment decay rates (0.9, 0.999).
        eps (float): added to the denominator (1e-8).
        weight_decay (float): L2 penalty, or decoupled decay (default 0).
        decoupled_weight_decay (bool): AdamW-style decay (default False).
        foreach, capturable, differentiable: accepted for compatibility.
        maximize (bool): ascend instead of descend (default False).
    """

    _group_defaults = (
        ("foreach", None), ("maximize", False), ("differentiable", False),
        ("decoupled_weight_decay", False), ("capturable", False),
    )

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_lr(lr)
        check_betas_eps_wd(betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)


    @staticmethod
    def _new_state(p, state, group):
        state["step"] = K.scalar_state()
        state["exp_avg"] = K.zeros_state(p)
        state["exp_avg_sq"] = K.zeros_state(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One RAdam update of every parameter that has a gradient."""
        return self._step_groups(closure)

    def _update_group(self, group, params, grads, states):
        beta1, beta2 = group["betas"]
        radam(params, grads, [s["exp_avg"] for s in states],
              [s["exp_avg_sq"] for s in states], [s["step"] for s in states],
              beta1=beta1, beta2=beta2, lr=group["lr"],
              weight_decay=group["weight_decay"], eps=group["eps"],
              maximize=group["maximize"],
              decoupled_weight_decay=group["decoupled_weight_decay"],
              differentiable=group["differentiable"])


def _radam_kernel(param, grad, exp_avg, exp_avg_sq, tmp, g_buf, *, xp, beta1, beta2, eps,
                  weight_decay, maximize, bias_correction1, bc2_sqrt, lr, rect):
    grad = K.effective_grad(xp, grad, param, weight_decay, maximize, g_buf)
    K.lerp_(xp, exp_avg, grad, 1 - beta1, tmp)
    exp_avg_sq *= beta2
    xp.multiply(grad, grad, out=tmp)
    K.axpy(1 - beta2, tmp, exp_avg_sq)
    # PyTorch: param -= (exp_avg / bc1) * lr [* (bc2_sqrt / (sqrt(exp_avg_sq) + eps)) * rect]
    xp.divide(exp_avg, bias_correction1, out=g_buf)
    g_buf *= lr
    if rect is not None:
        xp.sqrt(exp_avg_sq, out=tmp)
        tmp += eps
        xp.divide(bc2_sqrt, tmp, out=tmp)
        g_buf *= tmp
        g_buf *= rect
    param -= g_buf


def radam(params, grads, exp_avgs, exp_avg_sqs, state_steps, decoupled_weight_decay=False,
          foreach=None, capturable=False, differentiable=False, has_complex=False,
          maximize=False, *, beta1, beta2, lr, weight_decay, eps):
    """Functional form of :class:`RAdam` over lists of tensors."""
    lr = float(_to_scalar(lr))
    for i, param in enumerate(params):
        if differentiable:
            radam_tensor_step(param, grads[i], exp_avgs[i], exp_avg_sqs[i], state_steps[i],
                              lr=lr, beta1=beta1, beta2=beta2, eps=eps,
                              weight_decay=weight_decay, maximize=maximize,
                              decoupled=decoupled_weight_decay)
            continue
        step = K.bump(state_steps[i])
        if weight_decay != 0 and decoupled_weight_decay:
            param._data *= 1 - lr * weight_decay
        wd = 0 if decoupled_weight_decay else weight_decay
        bias_correction2 = 1 - beta2 ** step
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        rect = None
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        arrays = [K.real_view(t._data) for t in (param, grads[i], exp_avgs[i], exp_avg_sqs[i])]
        K.run_blocked(_radam_kernel, arrays, 2, xp=K.array_module(param), beta1=beta1,
                      beta2=beta2, eps=eps, weight_decay=wd, maximize=maximize,
                      bias_correction1=1 - beta1 ** step, bc2_sqrt=bias_correction2 ** 0.5,
                      lr=lr, rect=rect)
        param._bump_version()
