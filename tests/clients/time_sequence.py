"""pytorch/examples' time_sequence_prediction (generate_sine_wave.py + train.py) in miniature.

Same steps: sine waves made with NumPy and saved with torch.save, loaded back, a Sequence model
of two LSTMCells and a Linear unrolled by hand over `input.split(1, dim=1)` and then fed its own
predictions for `future` steps, the whole model in float64 through `.double()`, MSELoss, and
optim.LBFGS driven by a closure that prints every loss it computes.
"""

import argparse
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

HIDDEN = 12


def generate_sine_wave(path):
    np.random.seed(2)
    T, L, N = 20, 30, 10
    x = np.empty((N, L), 'int64')
    x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
    data = np.sin(x / 1.0 / T).astype('float64')
    torch.save(data, open(path, 'wb'))


class Sequence(nn.Module):
    def __init__(self):
        super(Sequence, self).__init__()
        self.lstm1 = nn.LSTMCell(1, HIDDEN)
        self.lstm2 = nn.LSTMCell(HIDDEN, HIDDEN)
        self.linear = nn.Linear(HIDDEN, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        c_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for _ in range(future):  # predict the future from the model's own outputs
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--steps', type=int, default=2, help='steps to run')
    opt = parser.parse_args()
    np.random.seed(0)
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as workdir:
        path = os.path.join(workdir, 'traindata.pt')
        generate_sine_wave(path)
        data = torch.load(path, weights_only=False)
    input = torch.from_numpy(data[3:, :-1])
    target = torch.from_numpy(data[3:, 1:])
    test_input = torch.from_numpy(data[:3, :-1])
    test_target = torch.from_numpy(data[:3, 1:])
    seq = Sequence()
    seq.double()
    criterion = nn.MSELoss()
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8, max_iter=6)
    for i in range(opt.steps):
        print('STEP: ', i)

        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            print('loss:', repr(loss.item()))
            loss.backward()
            return loss
        optimizer.step(closure)
        with torch.no_grad():
            future = 10
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            print('test loss:', repr(loss.item()))
            y = pred.detach().numpy()
        print('prediction tail', np.round(y[:, -3:], 6).tolist())
    state = optimizer.state_dict()['state'][0]
    print(state['n_iter'], state['func_evals'])


if __name__ == '__main__':
    main()
