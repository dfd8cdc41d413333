"""nn training-step benchmark: cinder vs PyTorch in the same process, both on one thread.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_nn.py [mlp|lenet] [--cpu]
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_nn.py --pieces   # MLP step split

- MLP 784-256-256-10 (ReLU), batch 128, cross-entropy, plain SGD written inline (lr 0.01);
- LeNet-5 on 1x28x28 (batch 64), cross-entropy, the library's own ``optim.Adam``.

One step = forward, loss, backward, parameter update, zero_grad. Both libraries start from
the same weights (PyTorch's are loaded into cinder) and see the same batch. Prints steps/s and
the ratio cinder / PyTorch (higher is better; the goals are >= 1.2 for the MLP and >= 0.5 for
LeNet).
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import cinder  # noqa: E402

torch.set_num_threads(1)


def mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                         nn.Linear(256, 10))


def lenet(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
        nn.Linear(84, 10))


def make_adam_step(lib, model, x, y, lr=1e-3):
    loss_fn = lib.nn.CrossEntropyLoss()
    opt = lib.optim.Adam(model.parameters(), lr=lr)

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def make_step(lib, model, x, y, lr=0.01):
    loss_fn = lib.nn.CrossEntropyLoss()
    params = list(model.parameters())

    def step():
        loss = loss_fn(model(x), y)
        loss.backward()
        with lib.no_grad():
            for p in params:
                p.sub_(p.grad, alpha=lr)
                p.grad = None
        return loss
    return step


def steps_per_second(step, seconds=3.0, warmup=5):
    for _ in range(warmup):
        step()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        step()
        n += 1
    return n / (time.perf_counter() - start)


def bench_model(build, maker, x_shape, rounds=3):
    """Best steps/s of each library over ``rounds`` interleaved runs of one model."""
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal(x_shape, dtype=np.float32)
    y_np = rng.integers(0, 10, size=x_shape[0])
    torch.manual_seed(0)
    t_model = build(torch)
    c_model = build(cinder)
    c_model.load_state_dict({k: cinder.from_numpy(v.numpy().copy())
                             for k, v in t_model.state_dict().items()})
    t_step = maker(torch, t_model, torch.from_numpy(x_np), torch.from_numpy(y_np))
    c_step = maker(cinder, c_model, cinder.from_numpy(x_np), cinder.from_numpy(y_np))
    # the same first loss: both start from the same weights and batch
    assert abs(float(t_step()) - float(c_step())) < 1e-4
    best = {"cinder": 0.0, "torch": 0.0}
    for _ in range(rounds):             # interleaved, so drifts in machine speed hit both
        best["torch"] = max(best["torch"], steps_per_second(t_step))
        best["cinder"] = max(best["cinder"], steps_per_second(c_step))
    return best


def paired_cpu(name, steps=3, rounds=30):
    """(PyTorch ms, cinder ms, median ratio): CPU time per step (``time.process_time``) in
    short alternating rounds, min per library and the median of the per-round ratios. On a
    machine shared with other jobs, wall-clock rates swing by 2x; CPU time of short paired
    rounds moves far less."""
    _, build, maker, shape = CASES[name]
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal(shape, dtype=np.float32)
    y_np = rng.integers(0, 10, size=shape[0])
    torch.manual_seed(0)
    t_model, c_model = build(torch), build(cinder)
    c_model.load_state_dict({k: cinder.from_numpy(v.numpy().copy())
                             for k, v in t_model.state_dict().items()})
    t_step = maker(torch, t_model, torch.from_numpy(x_np), torch.from_numpy(y_np))
    c_step = maker(cinder, c_model, cinder.from_numpy(x_np), cinder.from_numpy(y_np))
    for _ in range(3):
        t_step(), c_step()
    pairs = []
    for _ in range(rounds):
        times = []
        for step in (t_step, c_step):
            start = time.process_time()
            for _ in range(steps):
                step()
            times.append((time.process_time() - start) / steps)
        pairs.append(times)
    t_ms, c_ms = (1e3 * min(p[i] for p in pairs) for i in (0, 1))
    return t_ms, c_ms, float(np.median([p[0] / p[1] for p in pairs]))


CASES = {
    "mlp": ("MLP 784-256-256-10, batch 128, SGD", mlp, make_step, (128, 784)),
    "lenet": ("LeNet-5 1x28x28, batch 64, Adam", lenet, make_adam_step, (64, 1, 28, 28)),
}


def main(names=None):
    print("| model | cinder steps/s | PyTorch steps/s | ratio (cinder/PyTorch) |")
    print("|---|---|---|---|")
    for name in names or CASES:
        title, build, maker, shape = CASES[name]
        res = bench_model(build, maker, shape)
        ratio = res["cinder"] / res["torch"]
        print(f"| {title} | {res['cinder']:.1f} | {res['torch']:.1f} | {ratio:.2f}x |",
              flush=True)


def main_cpu(names=None):
    print("| model | cinder CPU ms/step | PyTorch CPU ms/step | median paired ratio |")
    print("|---|---|---|---|")
    for name in names or CASES:
        t_ms, c_ms, ratio = paired_cpu(name, steps=10 if name == "mlp" else 3)
        print(f"| {CASES[name][0]} | {c_ms:.2f} | {t_ms:.2f} | {ratio:.2f}x |", flush=True)


def mlp_pieces(rounds=30, steps=10):
    """CPU ms per piece of the MLP step (forward, loss, backward, SGD update), each library
    in alternating rounds of ``steps`` steps: where the time of a step goes."""
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((128, 784), dtype=np.float32)
    y_np = rng.integers(0, 10, size=128)
    clocks = {}

    def timed_step(lib):
        torch.manual_seed(0)
        model, loss_fn = mlp(lib), lib.nn.CrossEntropyLoss()
        x, y, params = lib.from_numpy(x_np), lib.from_numpy(y_np), list(model.parameters())
        spent = clocks[lib.__name__] = dict.fromkeys(("forward", "loss", "backward", "update"),
                                                     0.0)

        def step():
            t0 = time.process_time()
            out = model(x)
            t1 = time.process_time()
            loss = loss_fn(out, y)
            t2 = time.process_time()
            loss.backward()
            t3 = time.process_time()
            with lib.no_grad():
                for p in params:
                    p.sub_(p.grad, alpha=0.01)
                    p.grad = None
            t4 = time.process_time()
            for key, a, b in zip(spent, (t0, t1, t2, t3), (t1, t2, t3, t4)):
                spent[key] += b - a
        return step
    t_step, c_step = timed_step(torch), timed_step(cinder)
    for _ in range(10):
        t_step(), c_step()
    for spent in clocks.values():
        spent.update(dict.fromkeys(spent, 0.0))
    for _ in range(rounds):
        for step in (t_step, c_step):
            for _ in range(steps):
                step()
    n = rounds * steps
    print("| piece | cinder CPU ms | PyTorch CPU ms |")
    print("|---|---|---|")
    for key in clocks["torch"]:
        print(f"| {key} | {1e3 * clocks['cinder'][key] / n:.3f} | "
              f"{1e3 * clocks['torch'][key] / n:.3f} |")
    print(f"| step | {1e3 * sum(clocks['cinder'].values()) / n:.3f} | "
          f"{1e3 * sum(clocks['torch'].values()) / n:.3f} |")


if __name__ == "__main__":
    import sys
    args = sys.argv[1:]
    if "--pieces" in args:
        mlp_pieces()
    elif "--cpu" in args:          # paired CPU-time rounds (for a loaded machine)
        main_cpu([a for a in args if a != "--cpu"])
    else:
        main(args)
