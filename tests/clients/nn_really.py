"""The tutorial "What is torch.nn really?" in miniature, on synthetic MNIST-shaped data.

It walks the same path as the tutorial: a hand-written logistic regression with raw tensors and
manual updates, then the same model refactored step by step onto F.cross_entropy, nn.Module with
nn.Parameter, nn.Linear, optim.SGD, TensorDataset, DataLoader, a validation pass and a `fit`
loop, and finally a CNN written as a class and as an nn.Sequential holding a Lambda layer.
"""

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

N_TRAIN, N_VALID, BS, LR, EPOCHS = 192, 96, 32, 0.05, 2


def get_arrays():
    """Seeded stand-ins for the pickled MNIST arrays (float32 pixels in [0, 1), int64 labels)."""
    rng = np.random.RandomState(0)
    x = rng.rand(N_TRAIN + N_VALID, 784).astype(np.float32)
    y = (x[:, :392].sum(1) > x[:, 392:].sum(1)).astype(np.int64) * 3 + rng.randint(0, 2, len(x))
    return x[:N_TRAIN], y[:N_TRAIN], x[N_TRAIN:], y[N_TRAIN:]


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


def from_scratch(x_train, y_train):
    """Part one: every parameter and update written by hand."""
    weights = torch.randn(784, 10) / math.sqrt(784)
    weights.requires_grad_()
    bias = torch.zeros(10, requires_grad=True)

    def model(xb):
        return log_softmax(xb @ weights + bias)

    xb, yb = x_train[0:BS], y_train[0:BS]
    preds = model(xb)
    print(preds[0], preds.shape)
    print("first preds", preds[0].shape, repr(preds[0, :3].tolist()))
    print("start loss", repr(nll(preds, yb).item()), "acc", repr(accuracy(preds, yb).item()))
    n = x_train.shape[0]
    for _epoch in range(EPOCHS):
        for i in range((n - 1) // BS + 1):
            start_i = i * BS
            end_i = start_i + BS
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            loss = nll(model(xb), yb)
            loss.backward()
            with torch.no_grad():
                weights -= weights.grad * LR
                bias -= bias.grad * LR
                weights.grad.zero_()
                bias.grad.zero_()
    print("scratch loss", repr(nll(model(xb), yb).item()), "acc",
          repr(accuracy(model(xb), yb).item()))


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(784, 10) / math.sqrt(784))
        self.bias = nn.Parameter(torch.zeros(10))

    def forward(self, xb):
        return xb @ self.weights + self.bias


class Mnist_LinearLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(784, 10)

    def forward(self, xb):
        return self.lin(xb)


def refactored(x_train, y_train):
    """Part two: the same loop onto nn.Module, then optim, then TensorDataset/DataLoader."""
    loss_func = F.cross_entropy
    model = Mnist_Logistic()
    n = x_train.shape[0]
    for _epoch in range(EPOCHS):
        for i in range((n - 1) // BS + 1):
            xb = x_train[i * BS:i * BS + BS]
            yb = y_train[i * BS:i * BS + BS]
            loss = loss_func(model(xb), yb)
            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= p.grad * LR
                model.zero_grad()
    print("module loss", repr(loss_func(model(xb), yb).item()))
    print(loss_func(model(xb), yb), accuracy(model(xb), yb))

    model = Mnist_LinearLayer()
    opt = optim.SGD(model.parameters(), lr=LR)
    train_dl = DataLoader(TensorDataset(x_train, y_train), batch_size=BS)
    for _epoch in range(EPOCHS):
        for xb, yb in train_dl:
            loss = loss_func(model(xb), yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
    print("linear loss", repr(loss_func(model(xb), yb).item()))


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)
        print(epoch, repr(float(val_loss)))


def get_data(train_ds, valid_ds, bs):
    return (DataLoader(train_ds, batch_size=bs, shuffle=True),
            DataLoader(valid_ds, batch_size=bs * 2))


class Mnist_CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1)
        self.conv3 = nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1)

    def forward(self, xb):
        xb = xb.view(-1, 1, 28, 28)
        xb = F.relu(self.conv1(xb))
        xb = F.relu(self.conv2(xb))
        xb = F.relu(self.conv3(xb))
        xb = F.avg_pool2d(xb, 4)
        return xb.view(-1, xb.size(1))


class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


def preprocess(x):
    return x.view(-1, 1, 28, 28)


class WrappedDataLoader:
    def __init__(self, dl, func):
        self.dl = dl
        self.func = func

    def __len__(self):
        return len(self.dl)

    def __iter__(self):
        for b in self.dl:
            yield self.func(*b)


def cnns(train_ds, valid_ds):
    """Part three: fit() with validation on a CNN class, a Sequential, and a wrapped loader."""
    dev = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
    train_dl, valid_dl = get_data(train_ds, valid_ds, BS)
    model = Mnist_CNN()
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    fit(EPOCHS, model, F.cross_entropy, opt, train_dl, valid_dl)

    model = nn.Sequential(
        Lambda(preprocess),
        nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.AvgPool2d(4),
        Lambda(lambda x: x.view(x.size(0), -1)),
    )
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    fit(EPOCHS, model, F.cross_entropy, opt, train_dl, valid_dl)
    print(model)

    def to_images(x, y):
        return x.view(-1, 1, 28, 28).to(dev), y.to(dev)

    train_dl = WrappedDataLoader(train_dl, to_images)
    valid_dl = WrappedDataLoader(valid_dl, to_images)
    model = nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        Lambda(lambda x: x.view(x.size(0), -1)),
    )
    model.to(dev)
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    fit(EPOCHS, model, F.cross_entropy, opt, train_dl, valid_dl)


def main():
    torch.manual_seed(0)
    x_train, y_train, x_valid, y_valid = map(torch.tensor, get_arrays())
    n, c = x_train.shape
    print(x_train, y_train)
    print(x_train.shape, y_train.min(), y_train.max(), n, c)
    from_scratch(x_train, y_train)
    refactored(x_train, y_train)
    cnns(TensorDataset(x_train, y_train), TensorDataset(x_valid, y_valid))


if __name__ == "__main__":
    main()
