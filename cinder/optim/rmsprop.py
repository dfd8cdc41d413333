"""``torch.optim.RMSprop`` and its update function ``rmsprop``."""

from . import _kernels as K
from ._differentiable import rmsprop_tensor_step
from .optimizer import (Optimizer, _check, _check_lr, _to_scalar,
                        _use_grad_for_differentiable)

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(Optimizer):
    """RMSprop (Hinton): steps divided by a running root mean square of the gradients;
    ``centered`` subtracts the running mean first, ``momentum`` adds a velocity buffer.

    Args:
        params: parameters or parameter groups to optimize.
        lr (float or Tensor): learning rate (default 1e-2).
        alpha (float): smoothing constant of the running averages (default 0.99).
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): L2 penalty (default 0).
        momentum (float): momentum factor (default 0).
        centered (bool): normalise by the estimated variance (default False).
        capturable, foreach, differentiable: accepted for compatibility.
        maximize (bool): ascend instead of descend (default False).
    """

    _group_defaults = (
        ("momentum", 0), ("centered", False), ("foreach", None), ("maximize", False),
        ("differentiable", False), ("capturable", False),
    )

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_lr(lr)
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= momentum, f"Invalid momentum value: {momentum}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= alpha, f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)


    @staticmethod
    def _new_state(p, state, group):
        state["step"] = K.scalar_state()
        state["square_avg"] = K.zeros_state(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = K.zeros_state(p)
        if group["centered"]:
            state["grad_avg"] = K.zeros_state(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One RMSprop update of every parameter that has a gradient."""
        return self._step_groups(closure)

    def _update_group(self, group, params, grads, states):
        rmsprop(params, grads, [s["square_avg"] for s in states],
                [s.get("grad_avg") for s in states],
                [s.get("momentum_buffer") for s in states], [s["step"] for s in states],
                lr=group["lr"], alpha=group["alpha"], eps=group["eps"],
                weight_decay=group["weight_decay"], momentum=group["momentum"],
                centered=group["centered"], maximize=group["maximize"],
                differentiable=group["differentiable"])


def _rmsprop_kernel(param, grad, square_avg, grad_avg, buf, tmp, g_buf, *, xp, alpha, eps,
                    weight_decay, maximize, lr, momentum):
    grad = K.effective_grad(xp, grad, param, weight_decay, maximize, g_buf)
    square_avg *= alpha
    xp.multiply(grad, grad, out=tmp)
    K.axpy(1 - alpha, tmp, square_avg)
    if grad_avg is not None:
        K.lerp_(xp, grad_avg, grad, 1 - alpha, tmp)
        xp.multiply(grad_avg, grad_avg, out=tmp)
        xp.subtract(square_avg, tmp, out=tmp)
        xp.sqrt(tmp, out=tmp)
    else:
        xp.sqrt(square_avg, out=tmp)
    tmp += eps                            # tmp is now the denominator
    xp.divide(grad, tmp, out=tmp)
    if buf is not None:
        buf *= momentum
        buf += tmp
        K.axpy(-lr, buf, param)
    else:
        K.axpy(-lr, tmp, param)


def rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps,
            foreach=None, maximize=False, differentiable=False, capturable=False,
            has_complex=False, *, lr, alpha, eps, weight_decay, momentum, centered):
    """Functional form of :class:`RMSprop` over lists of tensors."""
    lr = float(_to_scalar(lr))
    for i, param in enumerate(params):
        grad_avg = grad_avgs[i] if centered else None
        buf = momentum_buffer_list[i] if momentum > 0 else None
        if differentiable:
            rmsprop_tensor_step(param, grads[i], square_avgs[i], grad_avg, buf, state_steps[i],
                                lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay,
                                momentum=momentum, maximize=maximize)
            continue
        K.bump(state_steps[i])
        arrays = [K.real_view(None if t is None else t._data)
                  for t in (param, grads[i], square_avgs[i], grad_avg, buf)]
        K.run_blocked(_rmsprop_kernel, arrays, 2, xp=K.array_module(param), alpha=alpha,
                      eps=eps, weight_decay=weight_decay, maximize=maximize, lr=lr,
                      momentum=momentum)
        param._bump_version()
