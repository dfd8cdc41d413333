"""The "Learning PyTorch with Examples" tutorial in miniature, ending with its dynamic net.

Fitting sin(x) on [-pi, pi] by a cubic, as the tutorial does it: with autograd and manual
updates, with a custom autograd Function (LegendrePolynomial3), with nn.Sequential(Linear,
Flatten) plus optim.RMSprop, with a custom nn.Module, and the DynamicNet whose forward reuses
one parameter a random number (Python's `random`) of times.
"""

import math
import random

import torch


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


def report(name, t, loss):
    print(name, t, repr(loss.item()))


def with_autograd(x, y, steps):
    dtype = torch.float
    a = torch.randn((), dtype=dtype, requires_grad=True)
    b = torch.randn((), dtype=dtype, requires_grad=True)
    c = torch.randn((), dtype=dtype, requires_grad=True)
    d = torch.randn((), dtype=dtype, requires_grad=True)
    learning_rate = 1e-6
    for t in range(steps):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum()
        if t % 50 == 49:
            report("autograd", t, loss)
        loss.backward()
        with torch.no_grad():
            a -= learning_rate * a.grad
            b -= learning_rate * b.grad
            c -= learning_rate * c.grad
            d -= learning_rate * d.grad
            a.grad = None
            b.grad = None
            c.grad = None
            d.grad = None
    print(f'Result: y = {a.item()!r} + {b.item()!r} x + {c.item()!r} x^2 + {d.item()!r} x^3')


def with_function(x, y, steps):
    a = torch.full((), 0.0, requires_grad=True)
    b = torch.full((), -1.0, requires_grad=True)
    c = torch.full((), 0.0, requires_grad=True)
    d = torch.full((), 0.3, requires_grad=True)
    learning_rate = 5e-6
    for t in range(steps):
        P3 = LegendrePolynomial3.apply
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        if t % 50 == 49:
            report("function", t, loss)
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= learning_rate * p.grad
                p.grad = None


def with_sequential(x, y, steps):
    p = torch.tensor([1, 2, 3])
    xx = x.unsqueeze(-1).pow(p)
    model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
    loss_fn = torch.nn.MSELoss(reduction='sum')
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    for t in range(steps):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        if t % 50 == 49:
            report("sequential", t, loss)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    linear_layer = model[0]
    print(f'Result: y = {linear_layer.bias.item()!r} + {linear_layer.weight[:, 0].item()!r} x'
          f' + {linear_layer.weight[:, 1].item()!r} x^2 + {linear_layer.weight[:, 2].item()!r} x^3')


class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        return (f'y = {self.a.item()!r} + {self.b.item()!r} x + {self.c.item()!r} x^2'
                f' + {self.d.item()!r} x^3')


class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))
        self.e = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        """A cubic plus a random number (0 to 2) of higher terms, all sharing weight `e`."""
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y

    def string(self):
        return (f'y = {self.a.item()!r} + {self.b.item()!r} x + {self.c.item()!r} x^2 + '
                f'{self.d.item()!r} x^3 + {self.e.item()!r} x^4 ? + {self.e.item()!r} x^5 ?')


def with_modules(x, y, steps):
    model = Polynomial3()
    criterion = torch.nn.MSELoss(reduction='sum')
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
    for t in range(steps):
        loss = criterion(model(x), y)
        if t % 50 == 49:
            report("module", t, loss)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f'Result: {model.string()}')

    model = DynamicNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
    for t in range(steps):
        y_pred = model(x)
        loss = criterion(y_pred, y)
        if t % 50 == 49:
            report("dynamic", t, loss)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f'Result: {model.string()}')


def main():
    random.seed(0)
    torch.manual_seed(0)
    x = torch.linspace(-math.pi, math.pi, 2000)
    y = torch.sin(x)
    steps = 150
    with_autograd(x, y, steps)
    with_function(x, y, steps)
    with_sequential(x, y, steps)
    with_modules(x, y, steps)


if __name__ == "__main__":
    main()
