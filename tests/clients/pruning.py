"""The PyTorch tutorials' "Pruning Tutorial" in miniature, with activation checkpointing.

Same steps as the tutorial: a LeNet, random unstructured pruning of a conv weight, L1 pruning
of its bias, structured Ln pruning on top (a PruningContainer), what the module then holds
(``weight_orig``, ``weight_mask``, the forward pre-hooks), iterative pruning, serialization of
the pruned state_dict, ``prune.remove``, global L1 pruning with the sparsity it reaches, and a
custom pruning method (every other entry). Then a few training steps through the masks, with a
block of the network under non-reentrant checkpointing.
"""

import io

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune
from torch.utils.checkpoint import checkpoint


class LeNet(nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 3)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def features(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        return F.max_pool2d(F.relu(self.conv2(x)), 2)

    def forward(self, x, use_checkpoint=False):
        x = checkpoint(self.features, x, use_reentrant=False) if use_checkpoint else \
            self.features(x)
        x = x.view(-1, x.shape[1:].numel())
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class FooBarPruningMethod(prune.BasePruningMethod):
    """Prune every other entry in a tensor."""
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def foobar_unstructured(module, name):
    FooBarPruningMethod.apply(module, name)
    return module


def sparsity(t):
    return 100.0 * float(torch.sum(t == 0)) / float(t.nelement())


torch.manual_seed(0)
model = LeNet()
module = model.conv1
print(list(module.named_parameters())[1][0], list(module.named_buffers()))

prune.random_unstructured(module, name="weight", amount=0.3)
print([name for name, _ in module.named_parameters()])
print([name for name, _ in module.named_buffers()])
print(module.weight[0])
print(module._forward_pre_hooks.keys() and len(module._forward_pre_hooks))

prune.l1_unstructured(module, name="bias", amount=3)
print(module.bias, module.bias_mask)

prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
print(module.weight[:, 0, 0])
for hook in module._forward_pre_hooks.values():
    if hook._tensor_name == "weight":
        break
print(type(hook).__name__, [type(m).__name__ for m in hook])

print(model.state_dict().keys())
buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
print(sorted(torch.load(buf).keys())[:4])

prune.remove(module, "weight")
print([name for name, _ in module.named_parameters()], prune.is_pruned(model))

new_model = LeNet()
for _name, mod in new_model.named_modules():
    if isinstance(mod, torch.nn.Conv2d):
        prune.l1_unstructured(mod, name="weight", amount=0.2)
    elif isinstance(mod, torch.nn.Linear):
        prune.l1_unstructured(mod, name="weight", amount=0.4)
print(dict(new_model.named_buffers()).keys())

model = LeNet()
parameters_to_prune = (
    (model.conv1, "weight"), (model.conv2, "weight"), (model.fc1, "weight"),
    (model.fc2, "weight"), (model.fc3, "weight"))
prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured,
                          amount=0.2)
for name, p in (("conv1", model.conv1), ("conv2", model.conv2), ("fc1", model.fc1),
                ("fc2", model.fc2), ("fc3", model.fc3)):
    print(f"Sparsity in {name}.weight: {sparsity(p.weight):.2f}%")
total = sum(float(torch.sum(m.weight == 0)) for m, _ in parameters_to_prune)
count = sum(float(m.weight.nelement()) for m, _ in parameters_to_prune)
print(f"Global sparsity: {100.0 * total / count:.2f}%")

foobar_unstructured(model.fc3, name="bias")
print(model.fc3.bias_mask)

# a few steps through the masks; the features block under checkpointing
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
x = torch.randn(16, 1, 28, 28)
y = torch.randint(0, 10, (16,))
for step in range(4):
    optimizer.zero_grad()
    out = model(x, use_checkpoint=step % 2 == 1)
    loss = F.cross_entropy(out, y)
    loss.backward()
    optimizer.step()
    print(step, f"{loss.item():.4f}", out.grad_fn.name(),
          f"{sparsity(model.fc1.weight):.2f}%", f"{model.fc1.weight_orig.grad.abs().sum():.4f}")
print(f"{(model.fc1.weight_orig.grad * (1 - model.fc1.weight_mask)).abs().sum():.4f}")
