"""``torch.optim.ASGD`` (averaged SGD) and its update function ``asgd``."""

from . import _kernels as K
from ._differentiable import asgd_tensor_step
from .optimizer import (Optimizer, _check, _check_lr, _to_scalar,
                        _use_grad_for_differentiable)

__all__ = ["ASGD", "asgd"]


class ASGD(Optimizer):
    """Averaged SGD (Polyak & Juditsky): SGD with a decaying step size ``eta`` that also keeps
    a running average ``ax`` of the iterates, averaging from step ``t0`` on.

    Args:
        params: parameters or parameter groups to optimize.
        lr (float or Tensor): learning rate (default 1e-2).
        lambd (float): decay term (default 1e-4).
        alpha (float): power of the eta update (default 0.75).
        t0 (float): step at which averaging starts (default 1e6).
        weight_decay (float): L2 penalty (default 0).
        foreach, capturable, differentiable: accepted for compatibility.
        maximize (bool): ascend instead of descend (default False).
    """

    _group_defaults = (
        ("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False),
    )

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)


    @staticmethod
    def _new_state(p, state, group):
        state["step"] = K.scalar_state()
        state["eta"] = K.scalar_state(float(_to_scalar(group["lr"])))
        state["mu"] = K.scalar_state(1.0)
        state["ax"] = K.zeros_state(p)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One ASGD update of every parameter that has a gradient."""
        return self._step_groups(closure)

    def _update_group(self, group, params, grads, states):
        asgd(params, grads, [s["ax"] for s in states], [s["mu"] for s in states],
             [s["eta"] for s in states], [s["step"] for s in states],
             lambd=group["lambd"], lr=group["lr"], t0=group["t0"], alpha=group["alpha"],
             weight_decay=group["weight_decay"], maximize=group["maximize"],
             differentiable=group["differentiable"])


def _asgd_kernel(param, grad, ax, tmp, g_buf, *, xp, weight_decay, maximize, lambd, eta,
                 mu):
    grad = K.effective_grad(xp, grad, param, weight_decay, maximize, g_buf)
    param *= 1 - lambd * eta
    K.axpy(-eta, grad, param)
    if mu != 1:
        xp.subtract(param, ax, out=tmp)
        tmp *= mu
        ax += tmp
    else:
        xp.copyto(ax, param)


def asgd(params, grads, axs, mus, etas, state_steps, foreach=None, maximize=False,
         differentiable=False, capturable=False, has_complex=False, *, lambd, lr, t0, alpha,
         weight_decay):
    """Functional form of :class:`ASGD` over lists of tensors."""
    lr = float(_to_scalar(lr))
    for i, param in enumerate(params):
        if differentiable:
            asgd_tensor_step(param, grads[i], axs[i], etas[i], mus[i], state_steps[i], lr=lr,
                             lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                             maximize=maximize)
            continue
        step = K.bump(state_steps[i])
        arrays = [K.real_view(t._data) for t in (param, grads[i], axs[i])]
        # ``mu`` multiplies as the float32 tensor PyTorch keeps it in; ``eta`` as a number.
        K.run_blocked(_asgd_kernel, arrays, 2, xp=K.array_module(param),
                      weight_decay=weight_decay, maximize=maximize, lambd=lambd,
                      eta=float(etas[i]._data), mu=mus[i]._data)
        etas[i]._data[...] = lr / ((1 + lambd * lr * step) ** alpha)
        mus[i]._data[...] = 1 / max(1, step - t0)
        param._bump_version()
