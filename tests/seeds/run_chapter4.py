"""Run every code cell of the book's chapter 4 (the nn toolbox) like a notebook.

    python tests/seeds/run_chapter4.py SEEDS_FILE torch|cinder OUT.json

The same notebook emulation as chapter 3 (``run_chapter3.run_cell``): one shared namespace, a
final bare expression echoed with repr. Runs in a scratch directory, since two cells save
files.
"""

import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_chapter3 import run_cell  # noqa: E402


def chapter4_cells(text):
    start = text.find("# 2. 第四章")
    end = text.find("# 3. 第五章", start)
    return re.findall(r"```python\n(.*?)```", text[start:end if end >= 0 else len(text)], re.S)


def main():
    seeds_file, lib, out_path = sys.argv[1:4]
    cells = chapter4_cells(open(seeds_file, encoding="utf-8").read())
    out_path = os.path.abspath(out_path)
    if lib == "cinder":
        import cinder.compat
        cinder.compat.install()
    import torch
    torch.manual_seed(0)
    ns = {"__name__": "__cell__"}
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        outs = [run_cell(c, ns) for c in cells]
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"cells": cells, "outs": outs}, f)


if __name__ == "__main__":
    main()
