"""Installs the ``torch`` -> ``cinder`` import hook in a child process started by ``spawn`` or
``forkserver`` from a program run with ``python -m cinder run``.

Such a child re-imports the user's script (as ``__mp_main__``) to find the classes and functions
it was sent, and that script starts with ``import torch``. The parent puts an object into the
preparation data every such child unpickles first (see ``compat._hook_child_processes``);
unpickling it runs this file with ``runpy.run_path``, before the child re-imports the script.
It runs as a file, not as an import, because cinder may not be on the child's ``sys.path`` yet:
multiprocessing applies the parent's ``sys.path`` only after unpickling that data.

``STRICT`` (the parent's strictness) arrives through ``run_path``'s ``init_globals``; a plain
import of this module, without it, does nothing.
"""

import os
import sys


try:
    from cinder import compat
except ImportError:        # cinder's folder is not on the child's path yet
    sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from cinder import compat

# Only when run for a child: a plain `import cinder._child_hook` (a tool walking the package)
# must not change the importing process.
if "STRICT" in globals():
    compat.install(strict=STRICT)  # noqa: F821  (given by run_path's init_globals)
