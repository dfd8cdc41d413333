"""nn training-step benchmark: cinder vs PyTorch in the same process, both on one thread.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_nn.py

MLP 784-256-256-10 (ReLU), batch 128, cross-entropy, plain SGD written inline (lr 0.01):
one step = forward, loss, backward, parameter update, zero_grad. Both libraries start from
the same weights (PyTorch's are loaded into cinder) and see the same batch. Prints steps/s and
the ratio cinder / PyTorch (higher is better; the goal is >= 1.2).
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


def bench_mlp(rounds=3):
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((128, 784), dtype=np.float32)
    y_np = rng.integers(0, 10, size=128)
    torch.manual_seed(0)
    t_model = mlp(torch)
    c_model = mlp(cinder)
    c_model.load_state_dict({k: cinder.from_numpy(v.numpy().copy())
                             for k, v in t_model.state_dict().items()})
    t_step = make_step(torch, t_model, torch.from_numpy(x_np), torch.from_numpy(y_np))
    c_step = make_step(cinder, c_model, cinder.from_numpy(x_np), cinder.from_numpy(y_np))
    # the same first loss: both start from the same weights and batch
    assert abs(float(t_step()) - float(c_step())) < 1e-4
    best = {"cinder": 0.0, "torch": 0.0}
    for _ in range(rounds):             # interleaved, so drifts in machine speed hit both
        best["torch"] = max(best["torch"], steps_per_second(t_step))
        best["cinder"] = max(best["cinder"], steps_per_second(c_step))
    return best


def main():
    res = bench_mlp()
    ratio = res["cinder"] / res["torch"]
    print("| model | cinder steps/s | PyTorch steps/s | ratio (cinder/PyTorch) |")
    print("|---|---|---|---|")
    print(f"| MLP 784-256-256-10, batch 128, SGD | {res['cinder']:.1f} | {res['torch']:.1f} | "
          f"{ratio:.2f}x |")


if __name__ == "__main__":
    main()
