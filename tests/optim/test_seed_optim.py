"""The optimizer examples of the API notes (003 §12), made runnable, on cinder and PyTorch.

The notes give fragments (``model``, ``var1``, ``forward...``); this file fills in the
smallest definitions that make them run and compares everything they print. (The book's
chapter 4 optimizer cells run verbatim in ``tests/test_seed_chapter4.py``.)
"""

import io
from contextlib import redirect_stdout

import numpy as np
import torch

import cinder

SCRIPT = '''
import numpy as np
optim = torch.optim
nn = torch.nn
torch.manual_seed(0)

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
        self.classifier = nn.Linear(8, 2)
    def forward(self, x):
        return self.classifier(self.base(x))

model = Model()
var1 = torch.ones(3, requires_grad=True)
var2 = torch.zeros(2, 2, requires_grad=True)

# 12: building optimizers
optimizer = optim.SGD(model.parameters(), lr = 0.01, momentum=0.9)
print(optimizer)
optimizer = optim.Adam([var1, var2], lr = 0.0001)
print(optimizer)

# 12.2: a scheduler stepped once per epoch, after the optimizer steps
rng = np.random.default_rng(0)
dataset = [(torch.tensor(rng.standard_normal((5, 4)).astype(np.float32)),
            torch.tensor(rng.integers(0, 2, 5))) for _ in range(3)]
loss_fn = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), 0.1)
scheduler = optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
for epoch in range(100):
    for input, target in dataset:
        optimizer.zero_grad()
        loss = loss_fn(model(input), target)
        loss.backward()
        optimizer.step()
    scheduler.step()
print(scheduler.get_last_lr(), round(loss.item(), 4))

# 12.2.3: StepLR with lr = 0.05 for all groups
optimizer = optim.SGD(model.parameters(), lr=0.05)
scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)
lrs = []
for epoch in range(100):
    lrs.append(scheduler.get_last_lr()[0])
    optimizer.step()
    scheduler.step()
print(lrs[29], lrs[30], lrs[59], lrs[60], lrs[90])

# a linear decay through LambdaLR
endepoch = 10
liner_func = lambda epoch: max(0, 1 - (epoch / endepoch))
scheduler = optim.lr_scheduler.LambdaLR(optimizer, liner_func)
for epoch in range(12):
    optimizer.step()
    scheduler.step()
    print(epoch, scheduler.get_last_lr())

# 12.3.2: step(closure) with an optimizer that re-evaluates the model
optimizer = optim.LBFGS(model.parameters(), lr=0.5, max_iter=4)
for input, target in dataset:
    def closure():
        optimizer.zero_grad()
        output = model(input)
        loss = loss_fn(output, target)
        loss.backward()
        return loss
    print(round(optimizer.step(closure).item(), 4))
print(optimizer.state[next(model.parameters())]['func_evals'])

# 12.3.3: per-parameter options
print(optim.SGD([
                {'params': model.base.parameters()},
                {'params': model.classifier.parameters(), 'lr': 1e-3}
            ], lr=1e-2, momentum=0.9))
print(optimizer.state_dict()['param_groups'])
'''


def run(lib):
    out = io.StringIO()
    with redirect_stdout(out):
        exec(SCRIPT, {"torch": lib})
    return out.getvalue()


def test_api_notes_optim_examples_print_what_pytorch_prints():
    torch_out, cinder_out = run(torch), run(cinder)
    assert "Parameter Group 1" in torch_out and "momentum: 0.9" in torch_out
    t_lines, c_lines = torch_out.splitlines(), cinder_out.splitlines()
    assert len(t_lines) == len(c_lines)
    for t_line, c_line in zip(t_lines, c_lines):
        if t_line != c_line:     # numbers after many float32 steps: equal to float rounding
            t_nums = np.array([float(x) for x in t_line.replace(",", " ").replace("[", " ")
                               .replace("]", " ").split()])
            c_nums = np.array([float(x) for x in c_line.replace(",", " ").replace("[", " ")
                               .replace("]", " ").split()])
            np.testing.assert_allclose(c_nums, t_nums, rtol=1e-4, err_msg=t_line)
