"""``torch.optim.Muon``: momentum whose update is orthogonalised by Newton-Schulz iterations
(run in bfloat16, as PyTorch does), for 2-D parameters."""

import math

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd import grad_mode
from . import _kernels as K
from .optimizer import Optimizer, _check, _closure_loss, _to_scalar

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _addmm_bf16(c, a, b, beta, alpha=1.0):
    """``addmm`` on bfloat16 matrices as PyTorch's CPU kernel does it: the whole
    ``beta * c + alpha * (a @ b)`` in float32, rounded to bfloat16 once."""
    c32, a32, b32 = (t.to(D.float32) for t in (c, a, b))
    return (c32 * beta + (a32 @ b32) * alpha).to(D.bfloat16)


def _zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """An approximately orthogonal matrix with ``grad``'s singular vectors (quintic
    Newton-Schulz iteration on the normalised gradient)."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = grad.size(0) > grad.size(1)
    x = grad.to(D.bfloat16)
    if tall:
        x = x.T
    x = x / x.norm().clamp(min=eps)
    for _ in range(ns_steps):
        gram = x @ x.T
        gram_update = _addmm_bf16(gram, gram, gram, beta=b, alpha=c)
        x = _addmm_bf16(x, gram_update, x, beta=a)
    return x.T if tall else x


def _adjust_lr(lr, adjust_lr_fn, param_shape):
    """Scale the learning rate by the matrix shape ('original' or 'match_rms_adamw')."""
    rows, cols = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """Muon (Jordan et al.) for 2-D parameters.

    Args:
        params: 2-D parameters or parameter groups.
        lr (float): learning rate (default 1e-3).
        weight_decay (float): decoupled weight decay (default 0.1).
        momentum (float): momentum factor (default 0.95).
        nesterov (bool): Nesterov-style momentum (default True).
        ns_coefficients (tuple): the quintic's (a, b, c).
        eps (float): floor of the norm used to normalise (1e-7).
        ns_steps (int): Newton-Schulz iterations (default 5).
        adjust_lr_fn (str): None/'original' or 'match_rms_adamw'.
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS,
                 ns_steps=DEFAULT_NS_STEPS, adjust_lr_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        _check(0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}")
        _check(0.0 <= momentum, f"momentum should be >= 0 but is: {momentum}")
        _check(0.0 <= weight_decay, f"weight decay should be >= 0 but is: {weight_decay}")
        _check(adjust_lr_fn is None or adjust_lr_fn in ["original", "match_rms_adamw"],
               f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum,
                        nesterov=nesterov, ns_coefficients=ns_coefficients, eps=eps,
                        ns_steps=ns_steps, adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def step(self, closure=None):
        """One Muon update of every parameter that has a gradient."""
        loss = _closure_loss(closure)
        with grad_mode.no_grad():
            for group in self.param_groups:
                params, grads, bufs = [], [], []
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if p.is_complex():
                        raise RuntimeError("Muon does not support complex parameters")
                    params.append(p)
                    grads.append(p.grad)
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        state["momentum_buffer"] = K.zeros_state(p.grad)
                    bufs.append(state["momentum_buffer"])
                muon(params, grads, bufs, lr=group["lr"], weight_decay=group["weight_decay"],
                     momentum=group["momentum"], nesterov=group["nesterov"],
                     ns_coefficients=group["ns_coefficients"], eps=group["eps"],
                     ns_steps=group["ns_steps"], adjust_lr_fn=group["adjust_lr_fn"])
        return loss


def muon(params, grads, muon_momentum_bufs, *, foreach=None, lr, weight_decay, momentum,
         nesterov, ns_coefficients, ns_steps, eps, adjust_lr_fn, has_complex=False):
    """Functional form of :class:`Muon` over lists of tensors."""
    if foreach:
        raise RuntimeError("Foreach is not supported for Muon yet")
    if has_complex:
        raise ValueError("Complex parameters are not supported")
    lr = float(_to_scalar(lr))
    for param, grad, buf in zip(params, grads, muon_momentum_bufs):
        if grad.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        buf.lerp_(grad, 1 - momentum)
        update = grad.lerp(buf, momentum) if nesterov else buf
        update = _zeropower_via_newtonschulz(update, ns_coefficients, ns_steps, eps)
        param.mul_(1 - lr * weight_decay)
        param.add_(update, alpha=-_adjust_lr(lr, adjust_lr_fn, param.shape))
