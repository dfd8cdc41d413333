"""``torch.optim.SparseAdam``: Adam for sparse (COO) gradients, updating only the entries a
gradient touches.

cinder has no sparse tensor type yet. The optimizer still validates its options and refuses
dense gradients with PyTorch's error; the update itself works on any gradient object that
offers the COO interface (``is_sparse``, ``coalesce()``, ``_indices()``, ``_values()``), so
it runs unchanged once sparse tensors exist.
"""

import math

from .._tensor import Tensor
from ..autograd import grad_mode
from . import _kernels as K
from .optimizer import Optimizer, _check, _closure_loss, _to_scalar

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Lazy Adam for sparse gradients: moments and parameters change only where the gradient
    has entries.

    Args:
        params: parameters or parameter groups to optimize (dense, real).
        lr (float or Tensor): learning rate (default 1e-3).
        betas (tuple): moment decay rates (0.9, 0.999).
        eps (float): added to the denominator (1e-8).
        maximize (bool): ascend instead of descend (default False).
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        _check(0.0 < lr, f"Invalid learning rate: {lr}")
        _check(0.0 < eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        complex_params = [[gi, pi] for gi, group in enumerate(self.param_groups)
                          for pi, p in enumerate(group["params"]) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does "
                             "not support complex parameters")

    def step(self, closure=None):
        """One lazy Adam update of every parameter that has a (sparse) gradient."""
        loss = _closure_loss(closure)
        with grad_mode.no_grad():
            for group in self.param_groups:
                params, grads, exp_avgs, exp_avg_sqs, steps = [], [], [], [], []
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    params.append(p)
                    if not getattr(p.grad, "is_sparse", False):
                        raise RuntimeError("SparseAdam does not support dense gradients, "
                                           "please consider Adam instead")
                    grads.append(p.grad)
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = 0
                        state["exp_avg"] = K.zeros_state(p)
                        state["exp_avg_sq"] = K.zeros_state(p)
                    exp_avgs.append(state["exp_avg"])
                    exp_avg_sqs.append(state["exp_avg_sq"])
                    state["step"] += 1
                    steps.append(state["step"])
                beta1, beta2 = group["betas"]
                sparse_adam(params, grads, exp_avgs, exp_avg_sqs, steps, eps=group["eps"],
                            beta1=beta1, beta2=beta2, lr=_to_scalar(group["lr"]),
                            maximize=group.get("maximize", False))
        return loss


def sparse_adam(params, grads, exp_avgs, exp_avg_sqs, state_steps, *, eps, beta1, beta2, lr,
                maximize):
    """Lazy Adam over the entries of COO gradients (``indices`` of shape (ndim, nnz) into the
    leading dims, ``values`` of shape (nnz, *rest)), as ``torch.optim._functional``."""
    lr = float(lr)
    for i, param in enumerate(params):
        grad = grads[i].coalesce()          # the update is non-linear: indices must be unique
        values = grad._values()._data
        if values.size == 0:
            continue
        if maximize:
            values = -values
        where = tuple(grad._indices()._data)
        exp_avg, exp_avg_sq = exp_avgs[i]._data, exp_avg_sqs[i]._data
        old_avg = exp_avg[where]
        avg_update = (values - old_avg) * (1 - beta1)
        exp_avg[where] += avg_update
        old_sq = exp_avg_sq[where]
        sq_update = (values ** 2 - old_sq) * (1 - beta2)
        exp_avg_sq[where] += sq_update
        numer = avg_update + old_avg
        denom = xp_sqrt(sq_update + old_sq) + eps
        step = state_steps[i]
        step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
        param._data[where] += -step_size * (numer / denom)
        param._bump_version()


def xp_sqrt(arr):
    """Square root on the array's own backend (NumPy or CuPy arrays both have ``__pow__``)."""
    return arr ** 0.5
