"""``torch.optim.Adam`` and its update function ``adam``."""

from .._tensor import Tensor
from . import _kernels as K
from ._differentiable import adam_tensor_step
from .optimizer import Optimizer, _closure_loss, _to_scalar, _use_grad_for_differentiable

__all__ = ["Adam", "adam"]


def _check_lr(lr, foreach, capturable):
    if isinstance(lr, Tensor):
        if foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and "
                             "foreach=True")
        if lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_adam_options(lr, betas, eps, weight_decay, foreach=None, capturable=False):
    """The option checks Adam and AdamW share (PyTorch's ValueError texts)."""
    _check_lr(lr, foreach, capturable)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
    if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
            or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
        raise ValueError("betas must be either both floats or both Tensors")
    for i in (0, 1):
        if isinstance(betas[i], Tensor):
            if not capturable and foreach:
                raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False"
                                 " and foreach=True")
            if betas[i].numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")


def check_fused(optimizer, fused, differentiable, foreach):
    """The ``fused=True`` combinations PyTorch refuses."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        optimizer._step_supports_amp_scaling = True
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


class Adam(Optimizer):
    """Adam (Kingma & Ba), with optional AMSGrad and decoupled (AdamW-style) weight decay.

    Args:
        params: parameters or parameter groups to optimize.
        lr (float or Tensor): learning rate (default 1e-3).
        betas (tuple): decay rates of the first and second moment averages (0.9, 0.999).
        eps (float): added to the denominator for stability (1e-8).
        weight_decay (float): L2 penalty, or decoupled decay when
            ``decoupled_weight_decay=True`` (default 0).
        amsgrad (bool): use the running maximum of the second moment (default False).
        foreach, fused, capturable: accepted for compatibility; cinder runs one update path.
        maximize (bool): ascend instead of descend (default False).
        differentiable (bool): keep the update in the autograd graph (default False).
    """

    _group_defaults = (
        ("amsgrad", False), ("maximize", False), ("foreach", None), ("capturable", False),
        ("differentiable", False), ("decoupled_weight_decay", False), ("fused", None),
    )

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        check_adam_options(lr, betas, eps, weight_decay, foreach, capturable)
        betas = tuple(map(_to_scalar, betas))
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        check_fused(self, fused, differentiable, foreach)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = K.scalar_state(float(p_state["step"]))

    def _init_group(self, group, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                    state_steps):
        """Collect the parameters that have gradients, creating their state on first use."""
        has_complex = False
        for p in group["params"]:
            if p.grad is None:
                continue
            has_complex |= p.is_complex()
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = K.scalar_state()
                state["exp_avg"] = K.zeros_state(p)
                state["exp_avg_sq"] = K.zeros_state(p)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = K.zeros_state(p)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            if group["amsgrad"]:
                max_exp_avg_sqs.append(state["max_exp_avg_sq"])
            if group["differentiable"] and state["step"].requires_grad:
                raise RuntimeError("`requires_grad` is not supported for `step` in "
                                   "differentiable mode")
            state_steps.append(state["step"])
        return has_complex

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One Adam update of every parameter that has a gradient."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, max_sqs, steps = [], [], [], [], [], []
            has_complex = self._init_group(group, params, grads, exp_avgs, exp_avg_sqs,
                                           max_sqs, steps)
            beta1, beta2 = group["betas"]
            adam(params, grads, exp_avgs, exp_avg_sqs, max_sqs, steps,
                 amsgrad=group["amsgrad"], has_complex=has_complex, beta1=beta1,
                 beta2=beta2, lr=group["lr"], weight_decay=group["weight_decay"],
                 eps=group["eps"], maximize=group["maximize"], foreach=group["foreach"],
                 capturable=group["capturable"], differentiable=group["differentiable"],
                 fused=group["fused"], decoupled_weight_decay=group["decoupled_weight_decay"])
        return loss


def _adam_kernel(param, grad, exp_avg, exp_avg_sq, max_sq, tmp, g_buf, *, xp, beta1, beta2,
                 weight_decay, maximize, eps, step_size, bc2_sqrt):
    """One block of the Adam update, in place (``tmp``/``g_buf`` are scratch)."""
    grad = K.effective_grad(xp, grad, param, weight_decay, maximize, g_buf)
    K.lerp_(xp, exp_avg, grad, 1 - beta1, tmp)
    exp_avg_sq *= beta2
    xp.multiply(grad, grad, out=tmp)
    K.axpy(1 - beta2, tmp, exp_avg_sq)
    if max_sq is not None:
        xp.maximum(max_sq, exp_avg_sq, out=max_sq)
        exp_avg_sq = max_sq
    xp.sqrt(exp_avg_sq, out=tmp)
    tmp /= bc2_sqrt
    tmp += eps
    xp.divide(exp_avg, tmp, out=tmp)
    K.axpy(-step_size, tmp, param)


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach=None,
         capturable=False, differentiable=False, fused=None, grad_scale=None, found_inf=None,
         has_complex=False, decoupled_weight_decay=False, *, amsgrad, beta1, beta2, lr,
         weight_decay, eps, maximize):
    """Apply one Adam step to lists of parameters, gradients and state tensors (functional
    form of :class:`Adam`)."""
    if fused and differentiable:
        raise RuntimeError("Adam with fused=True does not support differentiable=True")
    lr, beta1, beta2 = (float(_to_scalar(v)) if isinstance(v, Tensor) and not differentiable
                        else v for v in (lr, beta1, beta2))
    for i, param in enumerate(params):
        if differentiable:
            adam_tensor_step(param, grads[i], exp_avgs[i], exp_avg_sqs[i],
                             max_exp_avg_sqs[i] if amsgrad else None, state_steps[i],
                             beta1=beta1, beta2=beta2, lr=lr, weight_decay=weight_decay,
                             eps=eps, maximize=maximize, decoupled=decoupled_weight_decay)
            continue
        step = K.bump(state_steps[i])
        p = param._data
        if weight_decay != 0 and decoupled_weight_decay:
            p *= 1 - lr * weight_decay
        wd = 0 if decoupled_weight_decay else weight_decay
        arrays = [K.real_view(a) for a in (p, grads[i]._data, exp_avgs[i]._data,
                                           exp_avg_sqs[i]._data,
                                           max_exp_avg_sqs[i]._data if amsgrad else None)]
        K.run_blocked(_adam_kernel, arrays, 2, xp=K.array_module(param), beta1=beta1,
                      beta2=beta2, weight_decay=wd, maximize=maximize, eps=eps,
                      step_size=lr / (1 - beta1 ** step), bc2_sqrt=(1 - beta2 ** step) ** 0.5)
        param._bump_version()
