"""pytorch/examples' super_resolution (model.py + main.py) in miniature, on seeded images.

Same sub-pixel convolution Net (four Conv2d layers and nn.PixelShuffle) initialised with
init.orthogonal_ and init.calculate_gain('relu'), MSELoss with Adam, the training and PSNR test
loops with their log lines, and the whole-model checkpoint saved with torch.save and loaded
back. The low/high resolution pairs are seeded random images (the original crops BSDS300).
"""

import argparse
import os
import tempfile
from math import log10

import torch
import torch.nn as nn
import torch.nn.init as init
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

from _digest import fingerprint  # this folder's helper: a digest of the weights


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super(Net, self).__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 8, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(8, 8, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(8, 4, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(4, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)
        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        x = self.pixel_shuffle(self.conv4(x))
        return x

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv2.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv3.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv4.weight)


def image_pairs(n, upscale, size, generator):
    """High-resolution images and their average-pooled low-resolution inputs."""
    target = torch.rand(n, 1, size, size, generator=generator)
    inputs = nn.functional.avg_pool2d(target, upscale)
    return TensorDataset(inputs, target)


def main():
    parser = argparse.ArgumentParser(description='PyTorch Super Res Example')
    parser.add_argument('--upscale_factor', type=int, default=2)
    parser.add_argument('--batchSize', type=int, default=4)
    parser.add_argument('--testBatchSize', type=int, default=4)
    parser.add_argument('--nEpochs', type=int, default=2)
    parser.add_argument('--lr', type=float, default=0.01)
    parser.add_argument('--seed', type=int, default=123)
    opt = parser.parse_args()
    print(opt)
    torch.manual_seed(opt.seed)
    device = torch.device("cpu")

    print('===> Loading datasets')
    g = torch.Generator().manual_seed(5)
    training_data_loader = DataLoader(dataset=image_pairs(12, opt.upscale_factor, 16, g),
                                      batch_size=opt.batchSize, shuffle=True)
    testing_data_loader = DataLoader(dataset=image_pairs(8, opt.upscale_factor, 16, g),
                                     batch_size=opt.testBatchSize, shuffle=False)

    print('===> Building model')
    model = Net(upscale_factor=opt.upscale_factor).to(device)
    criterion = nn.MSELoss()
    # init.orthogonal_ goes through a QR factorisation (LAPACK), equal to about 1e-7 only: the
    # digest covers the biases, the sums below the orthogonal weights
    print("initial biases", fingerprint(nn.ParameterList(
        [model.conv1.bias, model.conv2.bias, model.conv3.bias, model.conv4.bias])))
    optimizer = optim.Adam(model.parameters(), lr=opt.lr)
    print(model, repr(model.conv1.weight.sum().item()), repr(model.conv4.weight.std().item()))

    def train(epoch):
        epoch_loss = 0
        for iteration, batch in enumerate(training_data_loader, 1):
            input, target = batch[0].to(device), batch[1].to(device)
            optimizer.zero_grad()
            loss = criterion(model(input), target)
            epoch_loss += loss.item()
            loss.backward()
            optimizer.step()
            print("===> Epoch[{}]({}/{}): Loss: {!r}".format(
                epoch, iteration, len(training_data_loader), loss.item()))
        print("===> Epoch {} Complete: Avg. Loss: {!r}".format(
            epoch, epoch_loss / len(training_data_loader)))

    def test():
        avg_psnr = 0
        with torch.no_grad():
            for batch in testing_data_loader:
                input, target = batch[0].to(device), batch[1].to(device)
                prediction = model(input)
                mse = criterion(prediction, target)
                psnr = 10 * log10(1 / mse.item())
                avg_psnr += psnr
        print("===> Avg. PSNR: {!r} dB".format(avg_psnr / len(testing_data_loader)))

    with tempfile.TemporaryDirectory() as workdir:
        for epoch in range(1, opt.nEpochs + 1):
            train(epoch)
            test()
            model_out_path = os.path.join(workdir, "model_epoch_{}.pth".format(epoch))
            torch.save(model, model_out_path)
            print("Checkpoint saved to {}".format(os.path.basename(model_out_path)))
        model = torch.load(model_out_path, weights_only=False)
    out = model(torch.rand(1, 1, 8, 8, generator=g))
    print(out.shape, repr(out.clamp(0, 1).mean().item()))


if __name__ == "__main__":
    main()
