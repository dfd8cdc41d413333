"""``torch.optim.LBFGS``: limited-memory BFGS with an optional strong-Wolfe line search.

The algorithm works on the parameters seen as one flat vector; it runs in cinder Tensor ops
(under no_grad), with the same scalar/tensor mix as PyTorch so the saved state matches.
"""

from ..autograd import grad_mode
from .optimizer import Optimizer, _check_lr, _to_scalar

__all__ = ["LBFGS"]


def _cat(tensors):
    from .. import cat
    return cat(tensors, 0)


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clipped to ``bounds``."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (xmin_bound + xmax_bound) / 2.0
    d2 = d2_square.sqrt()
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, xmin_bound), xmax_bound)


class _Bracket:
    """The interval the zoom phase of the line search narrows: steps, losses, gradients and
    directional derivatives at its two ends (or one point when already done)."""

    def __init__(self, t, f, g, gtd):
        self.t, self.f, self.g, self.gtd = t, f, g, gtd

    def order(self):
        """(low, high): the end with the lower loss first."""
        return (0, 1) if self.f[0] <= self.f[-1] else (1, 0)

    def set(self, pos, t, f, g, gtd):
        self.t[pos], self.f[pos], self.g[pos], self.gtd[pos] = t, f, g, gtd


def _bracket_phase(obj_func, x, t, d, f, g, gtd, c1, c2, max_ls):
    """Grow the step until an interval holding a strong-Wolfe point is found (or the first
    step already satisfies the conditions). Returns (bracket, done, evals, iterations)."""
    g = g.clone()
    f_new, g_new = obj_func(x, t, d)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            return (_Bracket([t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()],
                             [gtd_prev, gtd_new]), False, evals, ls_iter)
        if abs(gtd_new) <= -c2 * gtd:
            return _Bracket([t], [f_new], [g_new], None), True, evals, ls_iter
        if gtd_new >= 0:
            return (_Bracket([t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()],
                             [gtd_prev, gtd_new]), False, evals, ls_iter)
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        t_prev, t = t, _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                          bounds=(min_step, max_step))
        f_prev, g_prev, gtd_prev = f_new, g_new.clone(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    # Out of evaluations: PyTorch keeps [0, t] with no derivative information.
    return _Bracket([0, t], [f, f_new], [g, g_new], None), False, evals, ls_iter


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """Line search for a step satisfying the strong Wolfe conditions (the zoom algorithm of
    Nocedal & Wright). Returns (loss, flat_grad, step, function evaluations)."""
    d_norm = d.abs().max()
    br, done, evals, ls_iter = _bracket_phase(obj_func, x, t, d, f, g, gtd, c1, c2, max_ls)
    insuf_progress = False
    low, high = br.order()
    while not done and ls_iter < max_ls:
        if abs(br.t[1] - br.t[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(br.t[0], br.f[0], br.gtd[0], br.t[1], br.f[1], br.gtd[1])
        # Keep the new trial away from the ends when progress is slow.
        hi_t, lo_t = max(br.t), min(br.t)
        eps = 0.1 * (hi_t - lo_t)
        if min(hi_t - t, t - lo_t) < eps:
            if insuf_progress or t >= hi_t or t <= lo_t:
                t = hi_t - eps if abs(t - hi_t) < abs(t - lo_t) else lo_t + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= br.f[low]:
            br.set(high, t, f_new, g_new.clone(), gtd_new)
            low, high = br.order()
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (br.t[high] - br.t[low]) >= 0:
                br.set(high, br.t[low], br.f[low], br.g[low], br.gtd[low])
            br.set(low, t, f_new, g_new.clone(), gtd_new)
    return br.f[low], br.g[low], br.t[low], evals


class LBFGS(Optimizer):
    """L-BFGS. ``step(closure)`` runs up to ``max_iter`` iterations, re-evaluating the model
    through ``closure`` (which must compute the loss, call backward and return the loss).

    Args:
        params: the parameters (one group only).
        lr (float): step length (default 1).
        max_iter (int): iterations per ``step`` (default 20).
        max_eval (int): closure evaluations per ``step`` (default ``max_iter * 5 // 4``).
        tolerance_grad (float): stop when the largest gradient entry is this small (1e-7).
        tolerance_change (float): stop when steps or loss changes are this small (1e-9).
        history_size (int): number of curvature pairs kept (default 100).
        line_search_fn (str): None or ``'strong_wolfe'``.
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        _check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = sum(2 * p.numel() if p.is_complex() else p.numel()
                                    for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        from .. import zeros
        views = []
        for p in self._params:
            if p.grad is None:
                views.append(zeros(p.numel(), dtype=p.dtype, device=p.device))
            else:
                views.append(p.grad.reshape(-1))
        return _cat(views)

    def _add_grad(self, step_size, update):
        offset = 0
        step_size = float(step_size)
        for p in self._params:
            numel = p.numel()
            p.add_(update[offset:offset + numel].view_as(p), alpha=step_size)
            offset += numel

    def _directional_evaluate(self, closure, x, t, d):
        """Loss and flat gradient at ``x + t * d``; the parameters are put back to ``x``."""
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        for p, saved in zip(self._params, x):
            p.copy_(saved)
        return loss, flat_grad

    def _direction(self, state, flat_grad, prev_flat_grad, d, t, hist):
        """The quasi-Newton direction from the curvature pairs in ``hist`` (two-loop
        recursion); ``hist`` = [old_dirs, old_stps, ro, H_diag] is updated in place."""
        group = self.param_groups[0]
        old_dirs, old_stps, ro = hist[:3]
        y = flat_grad.sub(prev_flat_grad)
        s = d.mul(t)
        ys = y.dot(s)
        if ys > 1e-10:
            if len(old_dirs) == group["history_size"]:
                for history in (old_dirs, old_stps, ro):
                    history.pop(0)
            old_dirs.append(y)
            old_stps.append(s)
            ro.append(1.0 / ys)
            hist[3] = ys / y.dot(y)
        if "al" not in state:
            state["al"] = [None] * group["history_size"]
        al = state["al"]
        q = flat_grad.neg()
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            q.add_(old_dirs[i], alpha=-float(al[i]))
        r = q.mul(hist[3])
        for i in range(len(old_dirs)):
            be_i = old_dirs[i].dot(r) * ro[i]
            r.add_(old_stps[i], alpha=float(al[i] - be_i))
        return r

    def step(self, closure):
        """Run up to ``max_iter`` L-BFGS iterations; returns the loss of the first evaluation."""
        with grad_mode.no_grad():
            return self._run(closure)

    def _run(self, closure):
        group = self.param_groups[0]
        lr = _to_scalar(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]

        def evaluate():
            with grad_mode.enable_grad():
                return closure()

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        hist = [state.get(key) for key in ("old_dirs", "old_stps", "ro", "H_diag")]
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                hist = [[], [], [], 1]
            else:
                d = self._direction(state, flat_grad, prev_flat_grad, d, t, hist)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break
            ls_func_evals = 0
            opt_cond = False
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p.clone() for p in self._params]

                def obj_func(x, step, direction):
                    return self._directional_evaluate(evaluate, x, step, direction)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd,
                    max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    loss = float(evaluate())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if (n_iter == max_iter or current_evals >= max_eval or opt_cond
                    or d.mul(t).abs().max() <= tolerance_change
                    or abs(loss - prev_loss) < tolerance_change):
                break
        state.update(d=d, t=t, old_dirs=hist[0], old_stps=hist[1], ro=hist[2], H_diag=hist[3],
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

