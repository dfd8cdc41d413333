"""``torch.func`` transforms in cinder vs PyTorch, same process, one thread each.

Cases: grad of an MLP loss w.r.t. a dict of parameters; per-sample gradients
(``vmap(grad(loss), in_dims=(None, 0, 0))``, batch 32); ensembling 5 MLPs with
``stack_module_state`` + ``vmap``; ``jacrev``/``jacfwd`` of ``tanh(W @ x)`` (32 -> 32);
``hessian`` of a scalar function of 16 inputs; one ``jvp``. Prints the best-of-N time per call
(the two libraries alternate, so noise hits both) and the ratio torch_time / cinder_time (above
1.0 means cinder is faster).

Run: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python bench/bench_func.py
"""

import time

import numpy as np
import torch

import cinder

torch.set_num_threads(1)
RNG = np.random.default_rng(0)
X = RNG.standard_normal((32, 8)).astype(np.float32)
T = RNG.integers(0, 4, size=32)
W = RNG.standard_normal((32, 32)).astype(np.float32) / 6
V = RNG.standard_normal(32).astype(np.float32)


def _mlp(lib, seed=0):
    lib.manual_seed(seed)
    return lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.Tanh(), lib.nn.Linear(16, 4))


def case_grad(lib):
    model = _mlp(lib)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, t = lib.from_numpy(X), lib.from_numpy(T)

    def loss(p):
        out = lib.func.functional_call(model, p, (x,))
        return lib.nn.functional.cross_entropy(out, t)
    g = lib.func.grad(loss)
    return lambda: g(params)


def case_per_sample(lib):
    model = _mlp(lib)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, t = lib.from_numpy(X), lib.from_numpy(T)

    def loss(p, xi, ti):
        out = lib.func.functional_call(model, p, (xi.unsqueeze(0),))
        return lib.nn.functional.cross_entropy(out, ti.unsqueeze(0))
    per_sample = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))
    return lambda: per_sample(params, x, t)


def case_ensemble(lib):
    models = [_mlp(lib, seed) for seed in range(5)]
    params, buffers = lib.func.stack_module_state(models)
    base = models[0]
    x = lib.from_numpy(X)

    def run(p, b, data):
        return lib.func.functional_call(base, (p, b), (data,))
    ensemble = lib.func.vmap(run, in_dims=(0, 0, None))
    return lambda: ensemble(params, buffers, x)


def _jacobian_case(name):
    def case(lib):
        w, v = lib.from_numpy(W), lib.from_numpy(V)
        jac = getattr(lib.func, name)(lambda a: lib.tanh(w @ a))
        return lambda: jac(v)
    return case


def case_hessian(lib):
    w, v = lib.from_numpy(W[:16, :16]), lib.from_numpy(V[:16])
    hess = lib.func.hessian(lambda a: (lib.tanh(w @ a) ** 2).sum())
    return lambda: hess(v)


def case_jvp(lib):
    w, v = lib.from_numpy(W), lib.from_numpy(V)
    return lambda: lib.func.jvp(lambda a: lib.tanh(w @ a).sin(), (v,), (v,))


CASES = [("grad, MLP loss w.r.t. a params dict", case_grad),
         ("vmap(grad) per-sample gradients, batch 32", case_per_sample),
         ("ensemble of 5 MLPs, stack_module_state + vmap", case_ensemble),
         ("jacrev tanh(W @ x), 32 -> 32", _jacobian_case("jacrev")),
         ("jacfwd tanh(W @ x), 32 -> 32", _jacobian_case("jacfwd")),
         ("hessian, scalar of 16 inputs", case_hessian),
         ("jvp tanh(W @ x).sin(), 32 -> 32", case_jvp)]


def best_times(fns, repeat=7, number=5):
    """Best time per call of each function, the functions taking turns."""
    best = [float("inf")] * len(fns)
    for fn in fns:
        fn()                                   # warm-up
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            for _ in range(number):
                fn()
            best[i] = min(best[i], (time.perf_counter() - start) / number)
    return best


def main():
    print(f"{'case':48s} {'torch ms':>9s} {'cinder ms':>10s} {'ratio':>6s}")
    for name, case in CASES:
        t_torch, t_cinder = best_times([case(torch), case(cinder)])
        print(f"{name:48s} {t_torch * 1e3:9.3f} {t_cinder * 1e3:10.3f} "
              f"{t_torch / t_cinder:6.2f}")


if __name__ == "__main__":
    main()
