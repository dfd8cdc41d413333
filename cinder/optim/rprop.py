"""``torch.optim.Rprop`` (resilient backpropagation) and its update function ``rprop``."""

from . import _kernels as K
from ._differentiable import rprop_tensor_step
from .optimizer import (Optimizer, _check, _check_lr, _to_scalar,
                        _use_grad_for_differentiable)

__all__ = ["Rprop", "rprop"]


class Rprop(Optimizer):
    """Rprop: each coordinate moves by its own step size, against the gradient's sign; the
    step size grows by ``etas[1]`` while the sign holds and shrinks by ``etas[0]`` when it
    flips (and that step is skipped).

    Args:
        params: parameters or parameter groups to optimize.
        lr (float or Tensor): initial step size (default 1e-2).
        etas (tuple): (decrease, increase) factors, 0 < etaminus < 1 < etaplus (0.5, 1.2).
        step_sizes (tuple): lower and upper bound of the step sizes (1e-6, 50).
        capturable, foreach, differentiable: accepted for compatibility.
        maximize (bool): ascend instead of descend (default False).
    """

    _group_defaults = (
        ("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False),
    )

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_lr(lr)
        _check(0.0 < etas[0] < 1.0 < etas[1], f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)


    @staticmethod
    def _new_state(p, state, group):
        state["step"] = K.scalar_state()
        state["prev"] = K.zeros_state(p)
        lr = float(_to_scalar(group["lr"]))
        state["step_size"] = K.zeros_state(p, fill=complex(lr, lr) if p.is_complex() else lr)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One Rprop update of every parameter that has a gradient."""
        return self._step_groups(closure)

    def _update_group(self, group, params, grads, states):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        rprop(params, grads, [s["prev"] for s in states],
              [s["step_size"] for s in states], [s["step"] for s in states],
              step_size_min=step_size_min, step_size_max=step_size_max,
              etaminus=etaminus, etaplus=etaplus, maximize=group["maximize"],
              differentiable=group["differentiable"])


def _rprop_kernel(param, grad, prev, step_size, tmp, *, xp, etaminus, etaplus, lo, hi,
                  maximize):
    if maximize:
        grad = xp.negative(grad)
    xp.multiply(grad, prev, out=tmp)
    flipped = tmp < 0
    held = tmp > 0
    tmp.fill(1)
    xp.copyto(tmp, etaplus, where=held, casting="unsafe")
    xp.copyto(tmp, etaminus, where=flipped, casting="unsafe")
    step_size *= tmp
    xp.clip(step_size, lo, hi, out=step_size)
    # After a sign flip the step is skipped: the gradient counts as zero, now and as ``prev``.
    xp.copyto(prev, grad)
    xp.copyto(prev, 0, where=flipped, casting="unsafe")
    xp.sign(prev, out=tmp)
    tmp *= step_size
    param -= tmp


def rprop(params, grads, prevs, step_sizes, state_steps, foreach=None, capturable=False,
          maximize=False, differentiable=False, has_complex=False, *, step_size_min,
          step_size_max, etaminus, etaplus):
    """Functional form of :class:`Rprop` over lists of tensors."""
    for i, param in enumerate(params):
        if differentiable:
            rprop_tensor_step(param, grads[i], prevs[i], step_sizes[i], state_steps[i],
                              etaminus=etaminus, etaplus=etaplus, lo=step_size_min,
                              hi=step_size_max, maximize=maximize)
            continue
        K.bump(state_steps[i])
        arrays = [K.real_view(t._data) for t in (param, grads[i], prevs[i], step_sizes[i])]
        K.run_blocked(_rprop_kernel, arrays, 1, xp=K.array_module(param), etaminus=etaminus,
                      etaplus=etaplus, lo=step_size_min, hi=step_size_max, maximize=maximize)
        param._bump_version()
