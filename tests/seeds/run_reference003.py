"""Run the code blocks of the seed reference notes 000, 003 and 004 on one library.

    python tests/seeds/run_reference003.py SEEDS_DIR torch|cinder OUT.json

Which blocks: 000's ```python fences, 003's ```py fences and 004's ~~~python fences (indented
under list items, so dedented). A block of ``>>>`` prompts is a console session: its prompt
lines run one statement at a time, each bare expression echoed, as the console printed them.
Any other block runs as one notebook cell (``run_chapter3.run_cell``) if it compiles; one that
does not compile is an API signature such as ``torch.numel(input)->int`` and is skipped.
Blocks that need a CUDA device are skipped, with the reason, so the comparison with the CPU
oracle holds on a GPU machine too.

The notes show fragments written against the usual imports, so each document's blocks share
one namespace that starts with ``PRELUDE``. Fragments that use names the notes never define
(``model``, ``dataset``...) raise, and then the exception must be the one PyTorch raises.
Fragments that use names the notes leave to the reader (``model``, ``dataset``, ``PATH``...)
get them from ``SETUPS``, run just before; blocks that only define something (a function, a
class, an optimizer) are followed by a short use of it from ``FOLLOW_UPS``. Both are ours, not
the notes', and small: they make the fragments exercise what they show. A printed result
shown inside a block (003's gather example) is cut off before it runs.
Runs in a scratch directory (a block saves a file).
"""

import json
import os
import re
import sys
import tempfile
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_chapter3 import run_cell  # noqa: E402

PRELUDE = """\
import torch
import torchvision
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch import Tensor
from torch.autograd import Function, Variable
from typing import Optional
"""
DOCUMENTS = {
    "000_88acdd23eb76bed4.txt": r"```python\n(.*?)```",
    "003_75ac5d7abd68aa75.txt": r"```py\n(.*?)```",
    "004_9d90cab2c7ae0360.txt": r"~~~python\n(.*?)~~~",
}
CUDA_ONLY = {
    "x = torch.cuda.FloatTensor(1)": "allocates on GPUs 0, 1 and 2",
    "net = Model().cuda()": "moves the network to the GPU before printing its parameters",
}
SETUPS = {
    "torch.gather(t, 1, torch.tensor": "t = torch.tensor([[1, 2], [3, 4]])  # as its result shows",
    "torch.save(the_model.state_dict(), PATH)": "PATH = 'model.pt'\nthe_model = nn.Linear(2, 2)",
    "the_model = TheModelClass(*args, **kwargs)":
        "TheModelClass, args, kwargs = nn.Linear, (2, 2), {}",
    "torch.is_tensor(obj)": "obj = torch.zeros(1)",
    "optimizer = optim.Adam([var1, var2]":
        "model = nn.Linear(3, 1)\nvar1, var2 = model.weight, model.bias",
    "scheduler = StepLR(optimizer": "from torch.optim.lr_scheduler import StepLR\nkwargs = {}",
    "# 计算误差\n    loss = loss_fn(output, target)\n    # 误差 backward":
        "dataset = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(3)]\n"
        "loss_fn = nn.MSELoss()\noptimizer = optim.SGD(model.parameters(), lr=0.1)",
    "{'params': model.base.parameters()}":
        "model = nn.Module()\nmodel.base = nn.Linear(3, 3)\nmodel.classifier = nn.Linear(3, 1)",
    "self.register_buffer('running_mean'": "self = nn.Module()\nnum_features = 3",
}
FOLLOW_UPS = {
    "class Linear(Function)": "Linear",
    "return Linear()(input, weight, bias)":
        "linear(torch.randn(2, 3), torch.randn(4, 3))  # a legacy non-static Function",
    "self.weight = nn.Parameter(torch.Tensor(input_features":
        "Linear(3, 4)  # no super().__init__() call",
    "def tripler(x)": "y = tripler(torch.ones(2, requires_grad=True))\nprint(y, y.requires_grad)",
    "class LeNet(nn.Module)": "print(LeNet())\nprint(sum(p.numel() for p in LeNet().parameters()))",
    "loss_func = nn.CrossEntropyLoss()":
        "print(loss_func, loss_func(torch.tensor([[1., 2., 3.]]), torch.tensor([2])))",
    "denom = input.norm(p, dim, keepdim=True)":
        "x = torch.arange(6.).view(2, 3)\nprint(normalize(x))\n"
        "torch.equal(normalize(x), F.normalize(x))",
    "c = a.view(1, 3, 2, 4)": "print(b.shape, c.shape, b.is_contiguous(), torch.equal(b, c))",
    "the_model.load_state_dict(torch.load(PATH))": "the_model.weight",
    "optimizer = optim.Adam([var1, var2]": "optimizer",
    "scheduler = StepLR(optimizer":
        "lambda_lr = optim.lr_scheduler.LambdaLR(optimizer, liner_func)\n"
        "for epoch in range(3):\n    optimizer.step()\n    lambda_lr.step()\n"
        "print(scheduler.get_last_lr(), lambda_lr.get_last_lr(), optimizer.param_groups[0]['lr'])",
    "# 计算误差\n    loss = loss_fn(output, target)\n    # 误差 backward":
        "print(loss, model.weight, model.bias)",
    "optimizer.step(closure)": "print(loss_fn(model(input), target), model.bias)",
    "model.fc = nn.Linear(512, 100)":
        "print(sum(p.requires_grad for p in model.parameters()), model.fc)\n"
        "print(model.conv1.weight[0, 0, 0])  # the checkpoint's numbers\noptimizer",
}
_PROMPT = re.compile(r"^(>>>|\.\.\.) ?", re.M)
_SHOWN_RESULT = re.compile(r"^tensor\(.*", re.M | re.S)


def document_blocks(text, pattern):
    return [textwrap.dedent(b) for b in re.findall(pattern, text, re.S)]


def session_statements(block):
    """The statements typed at the ``>>>`` prompts of a console session (``...`` lines
    continue the statement above)."""
    statements = []
    for line in block.splitlines():
        if line.startswith(">>>"):
            statements.append(_PROMPT.sub("", line))
        elif line.startswith("..."):
            statements[-1] += "\n" + _PROMPT.sub("", line)
    return statements


def run_block(block, ns):
    """What the block printed, or why it did not run (``-- skipped: ...``)."""
    why = next((why for snippet, why in CUDA_ONLY.items() if snippet in block), None)
    if why:
        return f"-- skipped: needs CUDA ({why})"
    if block.lstrip().startswith(">>>"):
        return "".join(run_cell(s + "\n", ns) for s in session_statements(block))
    try:
        compile(block, "<block>", "exec")
    except SyntaxError:
        return "-- skipped: a signature, not Python"
    out = "".join(run_cell(code + "\n", ns) for snippet, code in SETUPS.items()
                  if snippet in block)
    out += run_cell(_SHOWN_RESULT.sub("", block), ns)
    for snippet, code in FOLLOW_UPS.items():
        if snippet in block:
            out += "-- follow-up:\n" + run_cell(code + "\n", ns)
    return out


def main():
    seeds_dir, lib, out_path = sys.argv[1:4]
    out_path = os.path.abspath(out_path)
    if lib == "cinder":
        import cinder.compat
        cinder.compat.install()
    else:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__)))))
        from tests.vision.conftest import load_torchvision
        load_torchvision()
    import torch
    result = {"blocks": [], "outs": []}
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        for name, pattern in DOCUMENTS.items():
            torch.manual_seed(0)
            ns = {"__name__": "__cell__"}
            exec(PRELUDE, ns)
            for block in document_blocks(open(os.path.join(seeds_dir, name),
                                              encoding="utf-8").read(), pattern):
                result["blocks"].append(f"[{name[:3]}] {block}")
                result["outs"].append(run_block(block, ns))
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
