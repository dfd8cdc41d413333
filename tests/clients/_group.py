"""Runs several client programs one after the other in this process, each as ``__main__``.

``python _group.py nn_really blitz`` (under real PyTorch) or
``python -m cinder run _group.py nn_really blitz`` (under cinder) prints a header line
``##### <name>`` and then the program's own output, for each name in turn, so one interpreter
start serves several programs. Every program seeds its own random streams, so running them in
one process gives the same output as running them one by one.
"""

import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(f"##### {name}", flush=True)
        path = os.path.join(HERE, name + ".py")
        sys.argv = [path]
        runpy.run_path(path, run_name="__main__")
        sys.stdout.flush()
