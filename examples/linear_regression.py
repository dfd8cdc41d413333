"""Linear regression with autograd, as in the book's tensor chapter (section 1.2.4).

Fits y = 2x + 3 + noise with 500 steps of plain gradient descent on fake data, seeded with
manual_seed(1000): run it with cinder or PyTorch and it prints the same w and b.

    python examples/linear_regression.py            # cinder
    python examples/linear_regression.py --torch    # the same script on real PyTorch
"""

import sys

if "--torch" in sys.argv:
    import torch as t
else:
    import cinder as t

t.manual_seed(1000)


def get_fake_data(batch_size=8):
    """Random points on y = 2x + 3 with standard normal noise."""
    x = t.rand(batch_size, 1) * 5
    y = x * 2 + 3 + t.randn(batch_size, 1)
    return x, y


def main():
    w = t.rand(1, 1, requires_grad=True)
    b = t.zeros(1, 1, requires_grad=True)
    lr = 0.005
    for ii in range(500):
        x, y = get_fake_data(batch_size=32)
        y_pred = x.mm(w) + b.expand_as(y)
        loss = 0.5 * (y_pred - y) ** 2
        loss = loss.sum()
        loss.backward()
        w.data.sub_(lr * w.grad.data)
        b.data.sub_(lr * b.grad.data)
        w.grad.data.zero_()
        b.grad.data.zero_()
        if ii % 100 == 0:
            print(f"step {ii:3d}  loss {loss.item():.4f}")
    print(w.item(), b.item())


if __name__ == "__main__":
    main()
