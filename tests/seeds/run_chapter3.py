"""Run every code cell of the book's chapter 3 (tensors and autograd) like a notebook.

    python tests/seeds/run_chapter3.py SEEDS_FILE torch|cinder OUT.json

Each cell runs in one shared namespace; a final bare expression is echoed with repr, as a
notebook shows it. Plotting and IPython lines are dropped. With ``cinder`` the import hook is
installed first, so the book's own ``import torch as t`` gets cinder.
"""

import contextlib
import io
import json
import re
import sys
import warnings

_SKIP_LINE = ("%", "!")
_SKIP_WORDS = ("matplotlib", "IPython", "plt.", "display.")


def chapter3_cells(text):
    end = text.find("# 2. 第四章")
    return re.findall(r"```python\n(.*?)```", text[:end if end >= 0 else len(text)], re.S)


def run_cell(code, ns):
    lines = [ln for ln in code.splitlines()
             if not ln.strip().startswith(_SKIP_LINE) and not any(w in ln for w in _SKIP_WORDS)]
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            last = lines[-1] if lines else ""
            try:
                compile(last, "<cell>", "eval")
                is_expr = not last.startswith((" ", "\t"))
            except SyntaxError:
                is_expr = False
            if is_expr:
                exec("\n".join(lines[:-1]), ns)
                value = eval(last, ns)
                if value is not None:
                    print(repr(value))
            else:
                exec("\n".join(lines), ns)
    except Exception as e:  # recorded, compared with the other library's outcome
        return buf.getvalue() + f"!! {type(e).__name__}: {e}"
    return buf.getvalue()


def main():
    seeds_file, lib, out_path = sys.argv[1:4]
    if lib == "cinder":
        import cinder.compat
        cinder.compat.install()
    import torch
    torch.manual_seed(0)
    ns = {"__name__": "__cell__"}
    cells = chapter3_cells(open(seeds_file, encoding="utf-8").read())
    outs = [run_cell(c, ns) for c in cells]
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"cells": cells, "outs": outs}, f)


if __name__ == "__main__":
    main()
