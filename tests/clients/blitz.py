"""The 60-minute blitz in miniature: tensors, autograd, a neural network, a CIFAR-10 classifier.

Same steps as the tutorial: tensor creation and NumPy bridge, the `Q = 3a^3 - b^2` autograd
example with an external gradient, the LeNet-style `Net` (zero_grad, backward with a random
gradient, MSELoss and its grad_fn chain, a manual SGD step and optim.SGD), then the CIFAR-10
`Net` trained with CrossEntropyLoss and SGD with momentum, saved to PATH, loaded into a fresh
Net, and tested overall and per class. The CIFAR images are seeded random tensors.
"""

import os
import sys
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

from _digest import fingerprint  # this folder's helper: a digest of the weights

classes = ('plane', 'car', 'bird', 'cat', 'deer', 'dog', 'frog', 'horse', 'ship', 'truck')


def tensors():
    data = [[1, 2], [3, 4]]
    x_data = torch.tensor(data)
    np_array = np.array(data)
    x_np = torch.from_numpy(np_array)
    x_ones = torch.ones_like(x_data)
    x_rand = torch.rand_like(x_data, dtype=torch.float)
    print(x_ones, x_rand, sep="\n")
    shape = (2, 3,)
    print(torch.rand(shape), torch.ones(shape), torch.zeros(shape), sep="\n")
    tensor = torch.rand(3, 4)
    print(f"Shape of tensor: {tensor.shape}")
    print(f"Datatype of tensor: {tensor.dtype}")
    print(f"Device tensor is stored on: {tensor.device}")
    if torch.accelerator.is_available():
        tensor = tensor.to(torch.accelerator.current_accelerator())
    tensor = torch.ones(4, 4)
    print(f"First row: {tensor[0]}")
    print(f"First column: {tensor[:, 0]}")
    print(f"Last column: {tensor[..., -1]}")
    tensor[:, 1] = 0
    t1 = torch.cat([tensor, tensor, tensor], dim=1)
    y1 = tensor @ tensor.T
    y3 = torch.rand_like(y1)
    torch.matmul(tensor, tensor.T, out=y3)
    z1 = tensor * tensor
    agg = tensor.sum()
    print(t1.shape, y3, z1[0], agg.item(), type(agg.item()))
    tensor.add_(5)
    n = np.ones(5)
    t = torch.from_numpy(n)
    np.add(n, 1, out=n)
    print(t, x_np.numpy(), tensor.numpy()[0])


def autograd_basics():
    a = torch.tensor([2., 3.], requires_grad=True)
    b = torch.tensor([6., 4.], requires_grad=True)
    Q = 3 * a ** 3 - b ** 2
    external_grad = torch.tensor([1., 1.])
    Q.backward(gradient=external_grad)
    print(9 * a ** 2 == a.grad, -2 * b == b.grad)
    print(Q, Q.grad_fn, a.grad, b.grad)
    x = torch.rand(5, 5)
    y = torch.rand(5, 5)
    z = torch.rand((5, 5), requires_grad=True)
    print(f"Does `a` require gradients?: {(x + y).requires_grad}")
    print(f"Does `b` require gradients?: {(x + z).requires_grad}")
    # freeze a network and replace its classifier, as the tutorial does with resnet18
    model = Net()
    for param in model.parameters():
        param.requires_grad = False
    model.fc3 = nn.Linear(84, 10)
    optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    print([n for n, p in model.named_parameters() if p.requires_grad], len(optimizer.param_groups))
    model(torch.rand(1, 3, 32, 32)).sum().backward()
    optimizer.step()
    print(model.conv1.weight.grad, model.fc3.bias.grad)


class LeNet(nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, input):
        c1 = F.relu(self.conv1(input))
        s2 = F.max_pool2d(c1, (2, 2))
        c3 = F.relu(self.conv2(s2))
        s4 = F.max_pool2d(c3, 2)
        s4 = torch.flatten(s4, 1)
        f5 = F.relu(self.fc1(s4))
        f6 = F.relu(self.fc2(f5))
        return self.fc3(f6)


def neural_networks():
    net = LeNet()
    print(net)
    params = list(net.parameters())
    print(len(params), params[0].size())
    input = torch.randn(1, 1, 32, 32)
    out = net(input)
    print(out)
    net.zero_grad()
    out.backward(torch.randn(1, 10))
    output = net(input)
    target = torch.randn(10).view(1, -1)
    criterion = nn.MSELoss()
    loss = criterion(output, target)
    print(repr(loss.item()))
    print(loss.grad_fn)
    print(loss.grad_fn.next_functions[0][0])
    print(loss.grad_fn.next_functions[0][0].next_functions[0][0])
    net.zero_grad()
    print('conv1.bias.grad before backward', net.conv1.bias.grad)
    loss.backward()
    print('conv1.bias.grad after backward', net.conv1.bias.grad)
    learning_rate = 0.01
    for f in net.parameters():
        f.data.sub_(f.grad.data * learning_rate)
    optimizer = optim.SGD(net.parameters(), lr=0.01)
    optimizer.zero_grad()
    output = net(input)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()
    print(repr(criterion(net(input), target).item()))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


def cifar_sets():
    """Seeded CIFAR-shaped images already normalized to [-1, 1], and their labels."""
    g = torch.Generator().manual_seed(7)
    images = torch.rand(96, 3, 32, 32, generator=g) * 2 - 1
    labels = torch.randint(0, 10, (96,), generator=g)
    trainset = TensorDataset(images[:64], labels[:64])
    testset = TensorDataset(images[64:], labels[64:])
    return trainset, testset


def cifar10(workdir):
    batch_size = 4
    trainset, testset = cifar_sets()
    trainloader = DataLoader(trainset, batch_size=batch_size, shuffle=True, num_workers=0)
    testloader = DataLoader(testset, batch_size=batch_size, shuffle=False, num_workers=0)
    dataiter = iter(trainloader)
    images, labels = next(dataiter)
    print(' '.join(f'{classes[labels[j]]:5s}' for j in range(batch_size)))

    net = Net()
    print("initial weights", fingerprint(net))
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
    for epoch in range(2):
        running_loss = 0.0
        for i, data in enumerate(trainloader, 0):
            inputs, labels = data
            optimizer.zero_grad()
            outputs = net(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
            if i % 8 == 7:
                print(f'[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 8!r}')
                running_loss = 0.0
    print('Finished Training')

    PATH = os.path.join(workdir, 'cifar_net.pth')
    torch.save(net.state_dict(), PATH)
    net = Net()
    net.load_state_dict(torch.load(PATH, weights_only=True))
    images, labels = next(iter(testloader))
    outputs = net(images)
    _, predicted = torch.max(outputs, 1)
    print('Predicted: ', ' '.join(f'{classes[predicted[j]]:5s}' for j in range(4)))

    correct = 0
    total = 0
    with torch.no_grad():
        for data in testloader:
            images, labels = data
            outputs = net(images)
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
    print(f'Accuracy of the network on the {total} test images: {100 * correct // total} %')

    correct_pred = {classname: 0 for classname in classes}
    total_pred = {classname: 0 for classname in classes}
    with torch.no_grad():
        for data in testloader:
            images, labels = data
            outputs = net(images)
            _, predictions = torch.max(outputs, 1)
            for label, prediction in zip(labels, predictions):
                if label == prediction:
                    correct_pred[classes[label]] += 1
                total_pred[classes[label]] += 1
    for classname, correct_count in correct_pred.items():
        accuracy = 100 * float(correct_count) / max(total_pred[classname], 1)
        print(f'Accuracy for class: {classname:5s} is {accuracy:.1f} %')
    device = torch.device('cuda:0' if torch.cuda.is_available() else 'cpu')
    print(device)


def main():
    torch.manual_seed(0)
    tensors()
    autograd_basics()
    neural_networks()
    with tempfile.TemporaryDirectory() as workdir:
        cifar10(sys.argv[1] if len(sys.argv) > 1 else workdir)


if __name__ == "__main__":
    main()
