"""Run the 33 ``In [n]:`` cells of seed 001 (a PyTorch 0.x notebook) like the notebook did.

    python tests/seeds/run_notebook001.py SEEDS_FILE torch|cinder OUT.json

A cell is the code after its ``In [n]:`` marker up to the first blank line (what follows is
the output the notebook printed, or prose). The cells run as written, in one namespace, with
the notebook emulation of chapter 3 (``run_chapter3.run_cell``): a cell that raises records
the exception, which must then be the one PyTorch raises.

Two cells build ``torchvision.models.resnet18(pretrained=True)``. With ``torch`` the runner
imports the test oracle's copy of torchvision (``tests/vision/conftest.py``); the "pretrained"
weights are a checkpoint the test writes into ``$TORCH_HOME`` beforehand (nothing is
downloaded), so both libraries build, initialise and load the same network.
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_chapter3 import run_cell  # noqa: E402

_MARKER = re.compile(r"^In \[\d+\]:\n", re.M)


def notebook_cells(text):
    """The code of each ``In [n]:`` cell. The one leading space of cell 7's first line is the
    export's (the notebook ran that cell), so each cell's first line is stripped of it."""
    cells = []
    for chunk in _MARKER.split(text)[1:]:
        code = chunk.split("\n\n", 1)[0]
        cells.append(code.lstrip(" ") + "\n")
    return cells


def main():
    seeds_file, lib, out_path = sys.argv[1:4]
    if lib == "cinder":
        import cinder.compat
        cinder.compat.install()
    else:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__)))))
        from tests.vision.conftest import load_torchvision
        load_torchvision()
    import torch
    torch.manual_seed(0)
    ns = {"__name__": "__cell__"}
    cells = notebook_cells(open(seeds_file, encoding="utf-8").read())
    outs = [run_cell(c, ns) for c in cells]
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"cells": cells, "outs": outs}, f)


if __name__ == "__main__":
    main()
