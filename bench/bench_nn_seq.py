"""Sequence-model training steps: cinder vs PyTorch in one process, both on one thread.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_nn_seq.py

- LSTM: 2-layer nn.LSTM(32 -> 64), seq 20, batch 16, a Linear(64 -> 1) head on every step,
  MSE loss, plain SGD written inline (lr 0.01).
- GPT: a nanoGPT-style decoder (4 layers, 4 heads, n_embd 128, block 64, vocab 65, GELU MLP,
  pre-LayerNorm, causal F.scaled_dot_product_attention), batch 8, cross-entropy, AdamW from
  each library's optim (lr 3e-4, weight_decay 0.1).
Both libraries start from the same weights (PyTorch's are loaded into cinder) and see the same
batch; one step = forward, loss, backward, optimiser step, zero_grad. Prints steps/s and the
ratio cinder / PyTorch (goals: LSTM >= 0.7, GPT >= 0.5).
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import cinder  # noqa: E402

torch.set_num_threads(1)


def lstm_model(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(32, 64, num_layers=2)
            self.head = nn.Linear(64, 1)

        def forward(self, x):
            out, _ = self.rnn(x)
            return self.head(out)
    return Net()


def gpt_model(lib, vocab=65, block=64, n_embd=128, n_head=4, n_layer=4):
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(n_embd)
            self.qkv = nn.Linear(n_embd, 3 * n_embd)
            self.proj = nn.Linear(n_embd, n_embd)
            self.ln2 = nn.LayerNorm(n_embd)
            self.fc = nn.Linear(n_embd, 4 * n_embd)
            self.fc2 = nn.Linear(4 * n_embd, n_embd)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(n_embd, dim=2)
            q, k, v = (t.view(B, T, n_head, C // n_head).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).contiguous().view(B, T, C))
            return x + self.fc2(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(vocab, n_embd)
            self.wpe = nn.Embedding(block, n_embd)
            self.blocks = nn.ModuleList([Block() for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(n_embd)
            self.head = nn.Linear(n_embd, vocab, bias=False)

        def forward(self, idx):
            x = self.wte(idx) + self.wpe(lib.arange(idx.shape[1]))
            for b in self.blocks:
                x = b(x)
            return self.head(self.ln_f(x))
    return GPT()


def _sgd_step(lib, model, loss_fn, lr=0.01):
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


def _adamw_step(lib, model, loss_fn):
    opt = lib.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)

    def step():
        loss = loss_fn()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss
    return step


def steps_per_second(step, seconds=3.0, warmup=3):
    for _ in range(warmup):
        step()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        step()
        n += 1
    return n / (time.perf_counter() - start)


def _pair(build):
    torch.manual_seed(0)
    t_model = build(torch)
    c_model = build(cinder)
    c_model.load_state_dict({k: cinder.from_numpy(v.numpy().copy())
                             for k, v in t_model.state_dict().items()})
    return c_model, t_model


def bench_lstm():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((20, 16, 32), dtype=np.float32)
    y = rng.standard_normal((20, 16, 1), dtype=np.float32)
    c_model, t_model = _pair(lstm_model)
    steps = {}
    for lib, model in ((cinder, c_model), (torch, t_model)):
        xs, ys = lib.from_numpy(x), lib.from_numpy(y)
        steps[lib.__name__] = _sgd_step(lib, model, lambda m=model, xs=xs, ys=ys, lib=lib:
                                        lib.nn.functional.mse_loss(m(xs), ys))
    return steps


def bench_gpt():
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 65, size=(8, 64))
    tgt = rng.integers(0, 65, size=(8, 64))
    c_model, t_model = _pair(gpt_model)
    steps = {}
    for lib, model in ((cinder, c_model), (torch, t_model)):
        xi, yi = lib.from_numpy(idx), lib.from_numpy(tgt)
        def loss_fn(m=model, xi=xi, yi=yi, lib=lib):
            return lib.nn.functional.cross_entropy(m(xi).view(-1, 65), yi.view(-1))
        steps[lib.__name__] = _adamw_step(lib, model, loss_fn)
    return steps


def run(name, steps, rounds=3, seconds=3.0):
    # The same first loss: both start from the same weights and batch.
    first = (steps["cinder"]().item(), steps["torch"]().item())
    assert abs(first[0] - first[1]) < 1e-3 * max(1.0, abs(first[1])), first
    best = {"cinder": 0.0, "torch": 0.0}
    for _ in range(rounds):             # interleaved, so drifts in machine speed hit both
        for lib in ("torch", "cinder"):
            best[lib] = max(best[lib], steps_per_second(steps[lib], seconds))
    ratio = best["cinder"] / best["torch"]
    print(f"| {name} | {best['cinder']:.1f} | {best['torch']:.1f} | {ratio:.2f}x |", flush=True)


def main():
    which = sys.argv[1:] or ["lstm", "gpt"]
    print("| model | cinder steps/s | PyTorch steps/s | ratio (cinder/PyTorch) |")
    print("|---|---|---|---|")
    if "lstm" in which:
        run("2-layer LSTM(32->64), seq 20, batch 16, SGD", bench_lstm())
    if "gpt" in which:
        run("GPT 4L/4H/128, block 64, batch 8, AdamW", bench_gpt())


if __name__ == "__main__":
    main()
