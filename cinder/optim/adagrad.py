"""``torch.optim.Adagrad`` and its update function ``adagrad``."""

from . import _kernels as K
from ._differentiable import adagrad_tensor_step
from .adam import check_fused
from .optimizer import (Optimizer, _check, _check_lr, _to_scalar,
                        _use_grad_for_differentiable)

__all__ = ["Adagrad", "adagrad"]


class Adagrad(Optimizer):
    """Adagrad: each coordinate's step is divided by the root of its summed squared
    gradients. State is created when the optimizer is built (``sum`` starts at
    ``initial_accumulator_value``).

    Args:
        params: parameters or parameter groups to optimize.
        lr (float or Tensor): learning rate (default 1e-2).
        lr_decay (float): the step size is ``lr / (1 + (step - 1) * lr_decay)`` (default 0).
        weight_decay (float): L2 penalty (default 0).
        initial_accumulator_value (float): starting value of the sums (default 0).
        eps (float): added to the denominator (1e-10).
        foreach, fused, differentiable: accepted for compatibility.
        maximize (bool): ascend instead of descend (default False).
    """

    _group_defaults = (
        ("foreach", None), ("maximize", False), ("differentiable", False), ("fused", None),
    )

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        _check_lr(lr)
        _check(0.0 <= lr_decay, f"Invalid lr_decay value: {lr_decay}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= initial_accumulator_value,
               f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        check_fused(self, fused, differentiable, foreach)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = K.scalar_state()
                init = initial_accumulator_value
                if p.is_complex():
                    init = complex(init, init)
                state["sum"] = K.zeros_state(p, fill=init)


    def share_memory(self):
        """Move the accumulated sums to shared memory (no-op for in-process NumPy arrays)."""
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    _refuses_sparse = False          # PyTorch's Adagrad has a sparse path
    @staticmethod
    def _new_state(p, state, group):
        """Nothing to do: Adagrad creates every state when it is built."""

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One Adagrad update of every parameter that has a gradient."""
        return self._step_groups(closure)

    def _update_group(self, group, params, grads, states):
        adagrad(params, grads, [s["sum"] for s in states], [s["step"] for s in states],
                lr=group["lr"], weight_decay=group["weight_decay"],
                lr_decay=group["lr_decay"], eps=group["eps"], maximize=group["maximize"],
                differentiable=group["differentiable"])


def _adagrad_kernel(param, grad, state_sum, tmp, g_buf, *, xp, weight_decay, maximize, eps,
                    clr):
    grad = K.effective_grad(xp, grad, param, weight_decay, maximize, g_buf)
    xp.multiply(grad, grad, out=tmp)
    state_sum += tmp
    xp.sqrt(state_sum, out=tmp)
    tmp += eps
    xp.divide(grad, tmp, out=tmp)
    K.axpy(-clr, tmp, param)


def adagrad(params, grads, state_sums, state_steps, fused=None, grad_scale=None,
            found_inf=None, has_sparse_grad=False, foreach=None, differentiable=False,
            has_complex=False, *, lr, weight_decay, lr_decay, eps, maximize):
    """Functional form of :class:`Adagrad` over lists of tensors."""
    lr = float(_to_scalar(lr))
    for i, param in enumerate(params):
        if differentiable:
            adagrad_tensor_step(param, grads[i], state_sums[i], state_steps[i], lr=lr,
                                weight_decay=weight_decay, lr_decay=lr_decay, eps=eps,
                                maximize=maximize)
            continue
        step = K.bump(state_steps[i])
        arrays = [K.real_view(t._data) for t in (param, grads[i], state_sums[i])]
        K.run_blocked(_adagrad_kernel, arrays, 2, xp=K.array_module(param),
                      weight_decay=weight_decay, maximize=maximize, eps=eps,
                      clr=lr / (1 + (step - 1) * lr_decay))
        param._bump_version()
