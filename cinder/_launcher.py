"""The frames ``python -m cinder run`` adds below a script's.

``python script.py`` starts the stack at the script; under ``python -m cinder run script.py``
the stack starts with runpy's frames (of ``python -m``) and the launcher's
(``cinder/__main__.py``), then the script (for a folder or zip archive, or ``-m MODULE``, runpy's
frames again before it). Tracebacks and anomaly-mode traces leave those out, so the script prints
what it prints under ``python``.
"""

import os

_MAIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__main__.py")


def _is_runpy(filename):
    return filename.startswith("<frozen runpy") or os.path.basename(filename) == "runpy.py"


def launcher_depth(filenames):
    """How many of the oldest frames (``filenames`` oldest first) the launcher put there: up
    to its last frame and the runpy frames just above it. 0 when cinder did not launch it."""
    depth = 0
    for i, name in enumerate(filenames):
        if name == _MAIN:
            depth = i + 1
    if depth:
        while depth < len(filenames) and _is_runpy(filenames[depth]):
            depth += 1
    return depth


def trimmed_traceback(tb):
    """``tb`` without the launcher's frames (``tb`` itself when it has none, or when nothing
    of the script's would be left)."""
    chain = []
    node = tb
    while node is not None:
        chain.append(node)
        node = node.tb_next
    depth = launcher_depth([t.tb_frame.f_code.co_filename for t in chain])
    return chain[depth] if 0 < depth < len(chain) else tb
