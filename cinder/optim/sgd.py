"""``torch.optim.SGD`` and its update function ``sgd``."""

from .._tensor import Tensor
from . import _kernels as K
from ._differentiable import sgd_tensor_step
from .optimizer import Optimizer, _closure_loss, _to_scalar, _use_grad_for_differentiable

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with (Nesterov) momentum.

    The momentum buffer starts as the first gradient and then follows
    ``buf = momentum * buf + (1 - dampening) * grad``, PyTorch's formulation.

    Args:
        params: parameters or parameter groups to optimize.
        lr (float or Tensor): learning rate (default 1e-3).
        momentum (float): momentum factor (default 0).
        dampening (float): dampening of the momentum (default 0).
        weight_decay (float): L2 penalty (default 0).
        nesterov (bool): Nesterov momentum; needs momentum > 0 and no dampening.
        maximize (bool): ascend instead of descend (default False).
        foreach, fused: accepted for compatibility; cinder runs one update path.
        differentiable (bool): keep the update in the autograd graph (default False).
    """

    _group_defaults = (
        ("nesterov", False), ("maximize", False), ("foreach", None), ("differentiable", False),
        ("fused", False),
    )

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused:
            self._step_supports_amp_scaling = True
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


    def _init_group(self, group, params, grads, momentum_buffer_list):
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            if group["momentum"] != 0:
                momentum_buffer_list.append(self.state[p].get("momentum_buffer"))
        return False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One SGD update of every parameter that has a gradient."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, bufs = [], [], []
            self._init_group(group, params, grads, bufs)
            sgd(params, grads, bufs, weight_decay=group["weight_decay"],
                momentum=group["momentum"], lr=group["lr"], dampening=group["dampening"],
                nesterov=group["nesterov"], maximize=group["maximize"],
                foreach=group["foreach"], fused=group["fused"],
                differentiable=group["differentiable"])
            if group["momentum"] != 0:
                for p, buf in zip(params, bufs):
                    self.state[p]["momentum_buffer"] = buf
        return loss


def _sgd_kernel(param, grad, buf, g_buf=None, tmp=None, *, xp, weight_decay, momentum, lr,
                dampening, nesterov, maximize, first):
    """One block of the SGD update, in place; ``first`` means ``buf`` was just created."""
    grad = K.effective_grad(xp, grad, param, weight_decay, maximize, g_buf)
    if buf is not None:
        if first:
            buf[...] = grad
        else:
            buf *= momentum
            if dampening == 0:
                buf += grad
            else:
                K.axpy(1 - dampening, grad, buf)
        if nesterov:
            xp.multiply(buf, momentum, out=tmp)
            tmp += grad
            grad = tmp
        else:
            grad = buf
    K.axpy(-lr, grad, param)


def sgd(params, d_p_list, momentum_buffer_list, has_sparse_grad=False, foreach=None,
        fused=None, grad_scale=None, found_inf=None, differentiable=False, *, weight_decay,
        momentum, lr, dampening, nesterov, maximize):
    """Apply one SGD step to lists of parameters, gradients and momentum buffers (the
    functional form of :class:`SGD`); new buffers are stored back into the list."""
    if isinstance(lr, Tensor) and not differentiable:
        lr = float(_to_scalar(lr))
    for i, param in enumerate(params):
        grad = d_p_list[i]
        if differentiable:
            buf = momentum_buffer_list[i] if momentum != 0 else None
            buf = sgd_tensor_step(param, grad, buf, weight_decay=weight_decay,
                                  momentum=momentum, lr=lr, dampening=dampening,
                                  nesterov=nesterov, maximize=maximize)
            if momentum != 0:
                momentum_buffer_list[i] = buf
            continue
        first = False
        buf = None
        if momentum != 0:
            buf = momentum_buffer_list[i]
            if buf is None:
                buf = momentum_buffer_list[i] = K.zeros_state(grad)
                first = True
        arrays = [K.real_view(a) for a in (param._data, grad._data,
                                           None if buf is None else buf._data)]
        # Plain momentum SGD needs no scratch, so it streams whole arrays (no blocking).
        needs_scratch = weight_decay != 0 or maximize or nesterov
        K.run_blocked(_sgd_kernel, arrays, 2 if needs_scratch else 0,
                      xp=K.array_module(param),
                      weight_decay=weight_decay, momentum=momentum, lr=lr,
                      dampening=dampening, nesterov=nesterov, maximize=maximize, first=first)
        param._bump_version()
