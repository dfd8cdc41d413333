"""The nn benchmark of issue 7: cinder vs PyTorch in one process, one thread each, same
weights and batch (PyTorch's state_dict is loaded into cinder; first losses are checked equal).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python bench/bench_nn.py
    ... bench/bench_nn.py mlp lenet        # some cases (mlp lenet lstm gpt resnet memory)
    ... bench/bench_nn.py --wall           # wall-clock steps/s instead of paired CPU time
    ... bench/bench_nn.py --pieces         # where the MLP step's CPU time goes

Cases (models in ``bench/nn_models.py``) and the issue's goals (cinder / PyTorch steps/s):
- MLP 784-256-256-10, batch 128, cross-entropy, SGD written inline (lr 0.01) >= 1.2;
- LeNet-5 1x28x28, batch 64, cross-entropy, each library's ``optim.Adam`` >= 0.5;
- 2-layer LSTM(32->64), seq 20, batch 16, Linear head, MSE, SGD inline >= 0.7;
- GPT (4 layers, 4 heads, n_embd 128, block 64, vocab 65), batch 8, ``optim.AdamW`` >= 0.5;
- ResNet-18 forward, batch 8x3x64x64, eval, no_grad >= 0.5;
- peak memory (``ru_maxrss``) of one ResNet-18 training step, each library in a fresh
  process: cinder <= 1.5x PyTorch's.
One training step = forward, loss, backward, parameter update, zero_grad.

NumPy's matrix products run on OpenBLAS, whose kernels depend on the CPU and on
``OPENBLAS_CORETYPE`` (an environment setting that overrides OpenBLAS's own choice); the
table's first line says which applied.

The machine these run on is shared, so the default measure is CPU time (``time.process_time``)
of short rounds that alternate between the libraries: per library the fastest round, and the
ratio is the median of the per-round ratios (a change in load hits both sides of a round).
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from nn_models import gpt_model, lenet, lstm_model, mlp, resnet18  # noqa: E402

# torch and cinder are imported after the memory children have run (see ``peak_memory``).
LIBS = {}


def _libs():
    if not LIBS:
        import torch

        import cinder
        torch.set_num_threads(1)
        LIBS.update(torch=torch, cinder=cinder)
    return LIBS["cinder"], LIBS["torch"]


# ----------------------------------------------------------------------------------------------
# Steps
# ----------------------------------------------------------------------------------------------

def sgd_inline_step(lib, model, loss_fn, lr=0.01):
    """Forward + loss, backward, ``p -= lr * p.grad`` written inline, ``p.grad = None``."""
    params = list(model.parameters())

    def step():
        loss = loss_fn()
        loss.backward()
        with lib.no_grad():
            for p in params:
                p.sub_(p.grad, alpha=lr)
                p.grad = None
        return loss
    return step


def optimizer_step(lib, model, loss_fn, name, **options):
    """Forward + loss, backward, ``lib.optim.<name>.step()``, ``zero_grad()``."""
    opt = getattr(lib.optim, name)(model.parameters(), **options)

    def step():
        loss = loss_fn()
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss
    return step


def _same_model(build):
    """(cinder model, PyTorch model) with PyTorch's initial weights in both."""
    cinder, torch = _libs()
    torch.manual_seed(0)
    t_model, c_model = build(torch), build(cinder)
    c_model.load_state_dict({k: cinder.from_numpy(v.numpy().copy())
                             for k, v in t_model.state_dict().items()})
    return c_model, t_model


def _training_case(build, inputs, loss_of, make_step):
    """{lib name: step} for a model trained on the NumPy ``inputs``; ``loss_of(lib, model,
    *tensors)`` is the loss, ``make_step(lib, model, loss_fn)`` the step around it."""
    models = dict(zip(("cinder", "torch"), _same_model(build)))
    steps = {}
    for lib in _libs():
        name = lib.__name__
        tensors = [lib.from_numpy(a) for a in inputs]
        steps[name] = make_step(lib, models[name],
                                lambda lib=lib, m=models[name], ts=tensors: loss_of(lib, m, *ts))
    first = steps["cinder"]().item(), steps["torch"]().item()
    assert abs(first[0] - first[1]) < 1e-3 * max(1.0, abs(first[1])), first
    return steps


def _class_loss(lib, model, x, y):
    return lib.nn.functional.cross_entropy(model(x), y)


def case_mlp():
    rng = np.random.default_rng(0)
    data = (rng.standard_normal((128, 784), dtype=np.float32), rng.integers(0, 10, 128))
    return _training_case(mlp, data, _class_loss, sgd_inline_step)


def case_lenet():
    rng = np.random.default_rng(0)
    data = (rng.standard_normal((64, 1, 28, 28), dtype=np.float32), rng.integers(0, 10, 64))
    return _training_case(lenet, data, _class_loss,
                          lambda lib, m, f: optimizer_step(lib, m, f, "Adam", lr=1e-3))


def case_lstm():
    rng = np.random.default_rng(0)
    data = (rng.standard_normal((20, 16, 32), dtype=np.float32),
            rng.standard_normal((20, 16, 1), dtype=np.float32))
    return _training_case(lstm_model, data,
                          lambda lib, m, x, y: lib.nn.functional.mse_loss(m(x), y),
                          sgd_inline_step)


def case_gpt():
    rng = np.random.default_rng(0)
    data = (rng.integers(0, 65, size=(8, 64)), rng.integers(0, 65, size=(8, 64)))
    return _training_case(
        gpt_model, data,
        lambda lib, m, x, y: lib.nn.functional.cross_entropy(m(x).view(-1, 65), y.view(-1)),
        lambda lib, m, f: optimizer_step(lib, m, f, "AdamW", lr=3e-4, weight_decay=0.1))


def case_resnet():
    """ResNet-18 forward passes (eval, no_grad) instead of training steps."""
    x = np.random.default_rng(0).standard_normal((8, 3, 64, 64), dtype=np.float32)
    c_model, t_model = _same_model(resnet18)
    steps = {}
    for lib, model in zip(_libs(), (c_model, t_model)):
        model.eval()
        xs = lib.from_numpy(x)

        def forward(lib=lib, model=model, xs=xs):
            with lib.no_grad():
                return model(xs)
        steps[lib.__name__] = forward
    diff = np.abs(steps["cinder"]().numpy() - steps["torch"]().numpy()).max()
    assert diff < 1e-3, diff
    return steps


# name: (title, case, goal, steps per round, rounds)
CASES = {
    "mlp": ("MLP 784-256-256-10, b128, SGD inline", case_mlp, 1.2, 10, 30),
    "lenet": ("LeNet-5 1x28x28, b64, Adam", case_lenet, 0.5, 3, 20),
    "lstm": ("2-layer LSTM(32->64), seq 20, b16, SGD inline", case_lstm, 0.7, 2, 15),
    "gpt": ("GPT 4L/4H/128, block 64, b8, AdamW", case_gpt, 0.5, 1, 8),
    "resnet": ("ResNet-18 forward, b8 3x64x64 (passes/s)", case_resnet, 0.5, 1, 8),
}


# ----------------------------------------------------------------------------------------------
# Measuring
# ----------------------------------------------------------------------------------------------

def paired_cpu(steps, per_round, rounds):
    """(cinder ms, PyTorch ms, median ratio PyTorch time / cinder time): CPU time per call in
    alternating rounds; per library the fastest round."""
    for _ in range(2):
        steps["torch"](), steps["cinder"]()
    pairs = []
    for _ in range(rounds):
        times = {}
        for name in ("torch", "cinder"):
            start = time.process_time()
            for _ in range(per_round):
                steps[name]()
            times[name] = (time.process_time() - start) / per_round
        pairs.append(times)
    c_ms, t_ms = (1e3 * min(p[n] for p in pairs) for n in ("cinder", "torch"))
    return c_ms, t_ms, float(np.median([p["torch"] / p["cinder"] for p in pairs]))


def _calls_per_second(fn, seconds):
    fn()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        fn()
        n += 1
    return n / (time.perf_counter() - start)


def paired_wall(steps, seconds, rounds=3):
    """(cinder ms, PyTorch ms, ratio of the best rates): wall-clock, interleaved rounds."""
    best = {"cinder": 0.0, "torch": 0.0}
    for _ in range(rounds):
        for name in ("torch", "cinder"):
            best[name] = max(best[name], _calls_per_second(steps[name], seconds / rounds))
    return 1e3 / best["cinder"], 1e3 / best["torch"], best["cinder"] / best["torch"]


def memory_child(lib_name):
    """One ResNet-18 training step (batch 8x3x64x64, cross-entropy, SGD inline) in this
    fresh process; prints the peak resident set size in MiB."""
    lib = __import__(lib_name)
    if lib_name == "torch":
        lib.set_num_threads(1)
    rng = np.random.default_rng(0)
    lib.manual_seed(0)
    model = resnet18(lib).train()
    x = lib.from_numpy(rng.standard_normal((8, 3, 64, 64), dtype=np.float32))
    y = lib.from_numpy(rng.integers(0, 1000, 8))
    sgd_inline_step(lib, model, lambda: _class_loss(lib, model, x, y))()
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def peak_memory(lib_name):
    """Peak RSS (MiB) of ``memory_child`` in a new process. Run before this process imports
    torch or cinder: on Linux a child's ``ru_maxrss`` starts from its parent's size."""
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--memory-child",
                          lib_name], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------------------------
# Reports
# ----------------------------------------------------------------------------------------------

def _row(title, c, t, ratio, goal, met):
    print(f"| {title} | {c} | {t} | {ratio:.2f}x | {goal} | {'yes' if met else 'NO'} |",
          flush=True)


def run(names, wall=False, seconds=6.0, scale=1.0):
    """Measure the ``names`` cases and print one table."""
    memory = None
    if "memory" in names:
        memory = peak_memory("torch"), peak_memory("cinder")
    mode = "wall-clock" if wall else "paired CPU time"
    # NumPy's GEMMs are OpenBLAS's; OPENBLAS_CORETYPE, when set, overrides the kernels
    # OpenBLAS would pick for this CPU (e.g. AVX2 ones on an AVX-512 machine), and the
    # GEMM-bound cases move with it
    print(f"OpenBLAS core type: {os.environ.get('OPENBLAS_CORETYPE') or 'its own choice'}")
    print(f"| benchmark ({mode}) | cinder | PyTorch | ratio cinder/PyTorch | goal | met |")
    print("|---|---|---|---|---|---|")
    for name in names:
        if name == "memory":
            continue
        title, case, goal, per_round, rounds = CASES[name]
        steps = case()
        if wall:
            c_ms, t_ms, ratio = paired_wall(steps, seconds)
        else:
            c_ms, t_ms, ratio = paired_cpu(steps, per_round, max(3, round(rounds * scale)))
        _row(title, f"{1e3 / c_ms:.1f}/s ({c_ms:.2f} ms)", f"{1e3 / t_ms:.1f}/s ({t_ms:.2f} ms)",
             ratio, f">= {goal}", ratio >= goal)
    if memory is not None:
        t_mib, c_mib = memory
        _row("ResNet-18 train step peak RSS (lower is better)", f"{c_mib:.0f} MiB",
             f"{t_mib:.0f} MiB", c_mib / t_mib, "<= 1.5", c_mib / t_mib <= 1.5)


def mlp_pieces(rounds=30, steps=10):
    """CPU ms per piece of the MLP step (forward, loss, backward, SGD update), each library
    in alternating rounds of ``steps`` steps: where the time of a step goes."""
    _libs()
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((128, 784), dtype=np.float32)
    y_np = rng.integers(0, 10, size=128)
    clocks = {}

    def timed_step(lib):
        lib.manual_seed(0)
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
    t_step, c_step = timed_step(LIBS["torch"]), timed_step(LIBS["cinder"])
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", help=f"any of {', '.join(CASES)}, memory "
                        "(default: all)")
    parser.add_argument("--wall", action="store_true", help="wall-clock steps/s")
    parser.add_argument("--seconds", type=float, default=6.0, help="per case, with --wall")
    parser.add_argument("--rounds-scale", type=float, default=1.0,
                        help="multiply the paired rounds of every case")
    parser.add_argument("--cpu", action="store_true", help="paired CPU time (the default)")
    parser.add_argument("--pieces", action="store_true", help="the MLP step piece by piece")
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    unknown = set(args.cases) - {*CASES, "memory"}
    if unknown:
        parser.error(f"unknown cases: {', '.join(sorted(unknown))}")
    if args.memory_child:
        memory_child(args.memory_child)
    elif args.pieces:
        mlp_pieces()
    else:
        run(args.cases or [*CASES, "memory"], args.wall, args.seconds, args.rounds_scale)


if __name__ == "__main__":
    main()
