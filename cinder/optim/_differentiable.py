"""Update steps written in cinder Tensor ops, for ``differentiable=True``.

With ``differentiable=True`` an optimizer step is part of the autograd graph (used to
differentiate through training, e.g. for meta-learning), so it cannot run on raw arrays. These
functions follow PyTorch's differentiable branch: the same formulas, as recorded ops.
"""

def _maximum(a, b):
    from .. import maximum
    return maximum(a, b)


def _decayed_grad(param, grad, weight_decay, maximize, decoupled=False, lr=None):
    """The gradient negated under ``maximize`` with L2 ``weight_decay`` added; with
    ``decoupled`` (AdamW style) the parameter itself decays by ``lr * weight_decay`` instead."""
    if maximize:
        grad = -grad
    if weight_decay != 0:
        if decoupled:
            param.mul_(1 - lr * weight_decay)
        else:
            grad = grad + param * weight_decay
    return grad


def sgd_tensor_step(param, grad, buf, *, weight_decay, momentum, lr, dampening, nesterov,
                    maximize):
    """One SGD step as Tensor ops; returns the (possibly new) momentum buffer."""
    grad = _decayed_grad(param, grad, weight_decay, maximize)
    if momentum != 0:
        if buf is None:
            buf = grad.detach().clone()
        else:
            buf.mul_(momentum).add_(grad * (1 - dampening))
        grad = grad + buf * momentum if nesterov else buf
    param.add_(grad * -lr)
    return buf


def adam_tensor_step(param, grad, exp_avg, exp_avg_sq, max_sq, step_t, *, beta1, beta2, lr,
                     weight_decay, eps, maximize, decoupled):
    """One Adam/AdamW step as Tensor ops (PyTorch's differentiable formulation)."""
    step_t.add_(1)
    grad = _decayed_grad(param, grad, weight_decay, maximize, decoupled, lr)
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).add_(grad * grad * (1 - beta2))
    bias_correction1 = 1 - beta1 ** step_t
    bias_correction2 = 1 - beta2 ** step_t
    step_size_neg = -(lr / bias_correction1)
    bc2_sqrt = bias_correction2.sqrt()
    second = exp_avg_sq
    if max_sq is not None:
        max_sq.copy_(_maximum(max_sq.clone(), exp_avg_sq))
        second = max_sq
    denom = (second.sqrt() / (bc2_sqrt * step_size_neg)).add_(eps / step_size_neg)
    param.add_(exp_avg / denom)


def rmsprop_tensor_step(param, grad, square_avg, grad_avg, buf, step_t, *, lr, alpha, eps,
                        weight_decay, momentum, maximize):
    """One RMSprop step as Tensor ops (PyTorch's differentiable branch)."""
    step_t.add_(1)
    grad = _decayed_grad(param, grad, weight_decay, maximize)
    square_avg.mul_(alpha).add_(grad * grad * (1 - alpha))
    if grad_avg is not None:
        grad_avg.lerp_(grad, 1 - alpha)
        avg = (square_avg - grad_avg * grad_avg).sqrt()
    else:
        avg = square_avg.sqrt()
    avg = avg + eps
    if buf is not None:
        buf.mul_(momentum).add_(grad / avg)
        param.add_(buf * -lr)
    else:
        param.add_(grad / avg * -lr)


def adagrad_tensor_step(param, grad, state_sum, step_t, *, lr, weight_decay, lr_decay, eps,
                        maximize):
    """One Adagrad step as Tensor ops (PyTorch's differentiable branch)."""
    step_t.add_(1)
    step = float(step_t)
    grad = _decayed_grad(param, grad, weight_decay, maximize)
    clr = lr / (1 + (step - 1) * lr_decay)
    state_sum.add_(grad * grad)
    param.add_(grad / (state_sum.sqrt() + eps) * -clr)


def adamax_tensor_step(param, grad, exp_avg, exp_inf, step_t, *, lr, beta1, beta2, eps,
                       weight_decay, maximize):
    """One Adamax step as Tensor ops: the infinity norm as a max over a stacked pair."""
    from .. import amax, cat
    step_t.add_(1)
    grad = _decayed_grad(param, grad, weight_decay, maximize)
    exp_avg.lerp_(grad, 1 - beta1)
    norm_buf = cat([exp_inf.mul_(beta2).unsqueeze(0), (grad.abs() + eps).unsqueeze(0)], 0)
    exp_inf.copy_(amax(norm_buf, 0))
    clr = lr / (1 - beta1 ** float(step_t))
    param.add_(exp_avg / exp_inf * -clr)


def nadam_tensor_step(param, grad, exp_avg, exp_avg_sq, mu_product, step_t, *, lr, beta1,
                      beta2, eps, weight_decay, momentum_decay, maximize, decoupled):
    """One NAdam step as Tensor ops (``mu_product`` stays a tensor in the graph)."""
    step_t.add_(1)
    step = float(step_t)
    grad = _decayed_grad(param, grad, weight_decay, maximize, decoupled, lr)
    mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
    mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
    mu_product *= mu
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).add_(grad * grad * (1 - beta2))
    denom = (exp_avg_sq / (1 - beta2 ** step)).sqrt() + eps
    mu_product_next = mu_product * mu_next
    param.add_(grad * (-lr * (1.0 - mu) / (1.0 - mu_product)) / denom)
    param.add_(exp_avg * (-lr * mu_next / (1.0 - mu_product_next)) / denom)


def radam_tensor_step(param, grad, exp_avg, exp_avg_sq, step_t, *, lr, beta1, beta2, eps,
                      weight_decay, maximize, decoupled):
    """One RAdam step as Tensor ops."""
    step_t.add_(1)
    step = float(step_t)
    grad = _decayed_grad(param, grad, weight_decay, maximize, decoupled, lr)
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).add_(grad * grad * (1 - beta2))
    bias_correction2 = 1 - beta2 ** step
    corrected = exp_avg / (1 - beta1 ** step)
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
    if rho_t > 5.0:
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        adaptive = (bias_correction2 ** 0.5) / (exp_avg_sq.sqrt() + eps)
        param.add_(corrected * lr * adaptive * rect * -1.0)
    else:
        param.add_(corrected * lr * -1.0)


def adadelta_tensor_step(param, grad, square_avg, acc_delta, step_t, *, lr, rho, eps,
                         weight_decay, maximize):
    """One Adadelta step as Tensor ops."""
    step_t.add_(1)
    grad = _decayed_grad(param, grad, weight_decay, maximize)
    square_avg.mul_(rho).add_(grad * grad * (1 - rho))
    std = (square_avg + eps).sqrt()
    delta = (acc_delta + eps).sqrt() / std * grad
    acc_delta.mul_(rho).add_(delta * delta * (1 - rho))
    param.add_(delta * -lr)


def asgd_tensor_step(param, grad, ax, eta, mu, step_t, *, lr, lambd, alpha, t0, weight_decay,
                     maximize):
    """One ASGD step as Tensor ops (``eta`` and ``mu`` are read as numbers, as PyTorch's
    non-capturable path does)."""
    step_t.add_(1)
    grad = _decayed_grad(param, grad, weight_decay, maximize)
    eta_value = float(eta)
    param.mul_(1 - lambd * eta_value)
    param.add_(grad * -eta_value)
    if float(mu) != 1:
        ax.add_((param - ax) * mu)
    else:
        ax.copy_(param)
    step = float(step_t)
    eta.fill_(lr / ((1 + lambd * lr * step) ** alpha))
    mu.fill_(1 / max(1, step - t0))


def rprop_tensor_step(param, grad, prev, step_size, step_t, *, etaminus, etaplus, lo, hi,
                      maximize):
    """One Rprop step as Tensor ops; a sign flip zeroes that step's gradient."""
    from .. import where
    step_t.add_(1)
    grad = -grad if maximize else grad
    sign = (grad * prev.clone()).sign()
    factor = where(sign > 0, etaplus, where(sign < 0, etaminus, 1.0)).to(step_size.dtype)
    step_size.mul_(factor).clamp_(lo, hi)
    grad = where(factor == etaminus, 0.0, grad)
    param.add_(grad.sign() * step_size * -1)
    prev.copy_(grad)
