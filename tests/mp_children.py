"""Functions run in child processes by tests/test_multiprocessing.py. They live apart from
the tests so that a spawned child imports only cinder, not PyTorch (seconds per child)."""

import os

import cinder


def _child_adds_one(q, r, done):
    t = q.get()
    v = q.get()
    t += 1                                          # in place: the parent sees it
    r.put((t * 2, v.is_shared(), v.data_ptr() - t.data_ptr(), type(v).__name__))
    done.wait()


def _pipe_child(conn):
    t = conn.recv()
    t.mul_(3)
    conn.send("done")
    conn.recv()


def _ok(i, out):
    out[i] = i + 1


def _fails(i):
    if i == 1:
        raise ValueError("rank one failed")


def _exits(i):
    if i == 0:
        os._exit(5)


def _hogwild_plain(rank, w, b, steps):
    """Linear regression y = 3x + 1 by SGD on the shared w and b (plain tensors)."""
    gen = cinder.Generator().manual_seed(rank)
    for _ in range(steps):
        x = cinder.rand(16, 1, generator=gen)
        y = 3 * x + 1
        wl = w.detach().requires_grad_()
        bl = b.detach().requires_grad_()
        loss = ((x * wl + bl - y) ** 2).mean()
        loss.backward()
        with cinder.no_grad():
            w.sub_(0.2 * wl.grad)
            b.sub_(0.2 * bl.grad)


def _hogwild_module(rank, model, steps):
    nn, optim = cinder.nn, cinder.optim
    opt = optim.SGD(model.parameters(), lr=0.1)
    gen = cinder.Generator().manual_seed(rank)
    for _ in range(steps):
        x = cinder.rand(16, 2, generator=gen)
        y = x @ cinder.tensor([[2.0], [-1.0]]) + 0.5
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
