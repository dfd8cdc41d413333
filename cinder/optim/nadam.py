"""``torch.optim.NAdam`` (Adam with Nesterov momentum) and its update function ``nadam``."""

from . import _kernels as K
from ._differentiable import nadam_tensor_step
from .adamax import check_betas_eps_wd
from .optimizer import (Optimizer, _check, _check_lr, _to_scalar,
                        _use_grad_for_differentiable)

__all__ = ["NAdam", "nadam"]


class NAdam(Optimizer):
    """NAdam (Dozat): Adam with Nesterov momentum and a momentum warm-up schedule.

    Args:
        params: parameters or parameter groups to optimize.
        lr (float or Tensor): learning rate (default 2e-3).
        betas (tuple): moment decay rates (0.9, 0.999).
        eps (float): added to the denominator (1e-8).
        weight_decay (float): L2 penalty, or decoupled decay (default 0).
        momentum_decay (float): speed of the momentum warm-up (default 4e-3).
        decoupled_weight_decay (bool): AdamW-style decay (default False).
        foreach, capturable, differentiable: accepted for compatibility.
        maximize (bool): ascend instead of descend (default False).
    """

    _group_defaults = (
        ("maximize", False), ("foreach", None), ("capturable", False), ("differentiable", False),
        ("decoupled_weight_decay", False),
    )

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_lr(lr)
        check_betas_eps_wd(betas, eps, weight_decay)
        _check(0.0 <= momentum_decay, f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)


    @staticmethod
    def _new_state(p, state, group):
        state["step"] = K.scalar_state()
        state["mu_product"] = K.scalar_state(1.0)
        state["exp_avg"] = K.zeros_state(p)
        state["exp_avg_sq"] = K.zeros_state(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One NAdam update of every parameter that has a gradient."""
        return self._step_groups(closure)

    def _update_group(self, group, params, grads, states):
        beta1, beta2 = group["betas"]
        nadam(params, grads, [s["exp_avg"] for s in states],
              [s["exp_avg_sq"] for s in states], [s["mu_product"] for s in states],
              [s["step"] for s in states], beta1=beta1, beta2=beta2, lr=group["lr"],
              weight_decay=group["weight_decay"], momentum_decay=group["momentum_decay"],
              eps=group["eps"], maximize=group["maximize"],
              decoupled_weight_decay=group["decoupled_weight_decay"],
              differentiable=group["differentiable"])


def _nadam_kernel(param, grad, exp_avg, exp_avg_sq, tmp, g_buf, *, xp, beta1, beta2, eps,
                  weight_decay, maximize, bias_correction2, grad_coef, avg_coef):
    grad = K.effective_grad(xp, grad, param, weight_decay, maximize, g_buf)
    K.lerp_(xp, exp_avg, grad, 1 - beta1, tmp)
    exp_avg_sq *= beta2
    xp.multiply(grad, grad, out=tmp)
    K.axpy(1 - beta2, tmp, exp_avg_sq)
    xp.divide(exp_avg_sq, bias_correction2, out=tmp)
    xp.sqrt(tmp, out=tmp)
    tmp += eps                       # tmp is now the denominator
    # param += grad_coef * grad / denom, then param += avg_coef * exp_avg / denom
    xp.divide(grad, tmp, out=g_buf)
    K.axpy(grad_coef, g_buf, param)
    xp.divide(exp_avg, tmp, out=tmp)
    K.axpy(avg_coef, tmp, param)


def nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps,
          decoupled_weight_decay=False, foreach=None, capturable=False, differentiable=False,
          has_complex=False, maximize=False, *, beta1, beta2, lr, weight_decay,
          momentum_decay, eps):
    """Functional form of :class:`NAdam` over lists of tensors."""
    lr = float(_to_scalar(lr))
    for i, param in enumerate(params):
        if differentiable:
            nadam_tensor_step(param, grads[i], exp_avgs[i], exp_avg_sqs[i], mu_products[i],
                              state_steps[i], lr=lr, beta1=beta1, beta2=beta2, eps=eps,
                              weight_decay=weight_decay, momentum_decay=momentum_decay,
                              maximize=maximize, decoupled=decoupled_weight_decay)
            continue
        step = K.bump(state_steps[i])
        if weight_decay != 0 and decoupled_weight_decay:
            param._data *= 1 - lr * weight_decay
        wd = 0 if decoupled_weight_decay else weight_decay
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        # mu_product is a float32 tensor in PyTorch, so the running product rounds to float32
        mu_products[i]._data *= mu
        mu_product = float(mu_products[i]._data)
        mu_product_next = mu_product * mu_next
        arrays = [K.real_view(t._data) for t in (param, grads[i], exp_avgs[i], exp_avg_sqs[i])]
        K.run_blocked(_nadam_kernel, arrays, 2, xp=K.array_module(param), beta1=beta1,
                      beta2=beta2, eps=eps, weight_decay=wd, maximize=maximize,
                      bias_correction2=1 - beta2 ** step,
                      grad_coef=-lr * (1.0 - mu) / (1.0 - mu_product),
                      avg_coef=(-lr * mu_next) / (1.0 - mu_product_next))
        param._bump_version()
