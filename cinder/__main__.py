"""Command line: ``python -m cinder run SCRIPT [ARGS...]`` runs a PyTorch script on cinder.

::

    python -m cinder run train.py --epochs 3      # like `python train.py --epochs 3`
    python -m cinder run -m mypkg.train --epochs 3  # like `python -m mypkg.train --epochs 3`
    python -m cinder --version

``run`` installs the import hook from ``cinder.compat`` (so the script's ``import torch`` gets
cinder) and then runs the script the way ``python`` itself would: as ``__main__``, with
``sys.argv`` holding the script and its arguments, and with the script's folder first on
``sys.path``. Its exit code and any exception it raises come out unchanged.

``main`` is also the ``cinder`` console script (see pyproject.toml), so ``cinder run train.py``
works once the package is installed.
"""

import argparse
import builtins
import importlib.util
import io
import os
import runpy
import sys
import types
from importlib.machinery import SourceFileLoader

import cinder
from cinder import compat
from cinder._launcher import trimmed_traceback


def _version():
    """cinder's version: ``cinder.__version__``, else the installed distribution's metadata."""
    version = getattr(cinder, "__version__", None)
    if version is None:
        from importlib import metadata

        try:
            version = metadata.version("cinder")
        except metadata.PackageNotFoundError:  # running from a source tree that isn't installed
            version = "unknown"
    return version


def _build_parser():
    parser = argparse.ArgumentParser(
        prog="python -m cinder",
        description="cinder: PyTorch's API on NumPy. Run unchanged PyTorch scripts on cinder.")
    parser.add_argument("--version", action="version", version=f"cinder {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = commands.add_parser(
        "run",
        help="run a PyTorch script with `import torch` giving cinder",
        description="Run SCRIPT (or, with -m, MODULE) as __main__, the way `python` would, "
                    "with `import torch` / `import torchvision` answered by cinder.",
        usage="%(prog)s [-h] (SCRIPT | -m MODULE) [ARGS ...]")
    # -m is a plain flag and the target is the first of the positional words: a flag taking the
    # module name plus REMAINDER would stop at a `--` meant for the module. REMAINDER makes
    # everything after the script or module name belong to it, even words that look like
    # options (`train.py --lr 0.1 -h` passes `-h` on to train.py).
    run.add_argument("-m", dest="as_module", action="store_true",
                     help="run MODULE like `python -m MODULE` does, instead of a SCRIPT path")
    run.add_argument("target_and_args", nargs=argparse.REMAINDER, metavar="SCRIPT|MODULE ARGS",
                     help="the script's path (or, with -m, the module's name), then its arguments")
    return parser, run


def _set_path0(directory):
    """Put ``directory`` where ``python`` puts the script's folder: ``sys.path[0]``.

    ``python -m cinder`` made ``sys.path[0]`` the current folder (the ``cinder`` console script,
    the folder holding it); ``python SCRIPT`` would have made it the script's folder instead, so
    that entry is replaced rather than a new one added. cinder itself stays importable: it is
    already imported, and its submodules are found through ``cinder.__path__``. Under
    ``python -P`` / PYTHONSAFEPATH Python adds no such entry, and neither do we.
    """
    if getattr(sys.flags, "safe_path", False):
        return
    if sys.path:
        sys.path[0] = directory
    else:
        sys.path.insert(0, directory)


def _module_exists(name):
    """Whether module ``name`` can be found (its parent packages get imported to find out)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError as exc:
        # A missing parent package means a missing module; any other missing import was raised
        # by code inside an existing parent package and is a real error in that code.
        if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
            return False
        raise


def _install_hook():
    """``import torch`` gives cinder, here and in the script's spawn/forkserver children."""
    compat.install()
    compat._hook_child_processes()


def _run(as_module, target_and_args, run_parser):
    """Install the hook and run the script or module; returns the exit status.

    Whatever the script raises (``SystemExit`` included) propagates unchanged.
    """
    if not target_and_args:
        run_parser.error("expected a module name after -m" if as_module else
                         "expected SCRIPT or -m MODULE")
    target, *args = target_and_args
    if as_module:
        # Like `python -m`: the current folder goes first on sys.path; runpy replaces argv[0]
        # with the module's file path once it has found it.
        _set_path0(os.getcwd())
        sys.argv = [target, *args]
        # Installed before looking the module up: its parent packages may `import torch`.
        _install_hook()
        if not _module_exists(target):
            print(f"{sys.executable}: No module named {target}", file=sys.stderr)
            return 1  # what `python -m missing.module` returns
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        if not os.path.exists(target):
            print(f"{sys.executable}: can't open file {os.path.abspath(target)!r}: "
                  f"[Errno 2] No such file or directory", file=sys.stderr)
            return 2  # what `python missing.py` returns
        _set_path0(os.path.dirname(os.path.abspath(target)))
        sys.argv = [target, *args]
        _install_hook()
        if os.path.isfile(target):
            _run_file(target)
        else:                       # a folder or zip archive holding a __main__.py
            runpy.run_path(target, run_name="__main__")
    return 0


def _run_file(target):
    """Run the script file ``target`` as ``python target`` does: its ``__file__`` (and the
    file name its tracebacks show) is the path joined to the current folder, not normalised
    (``./train.py`` becomes ``/here/./train.py``), and ``sys.argv[0]`` stays as typed (runpy
    would put the path there). The script's module is ``sys.modules["__main__"]`` from then
    on, as under ``python``, so pickles and spawned workers find what it defines."""
    path = os.path.join(os.getcwd(), target)
    with io.open_code(path) as f:
        code = compile(f.read(), path, "exec", dont_inherit=True)
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=path, __cached__=None, __package__=None, __spec__=None,
                           __loader__=SourceFileLoader("__main__", path),
                           __builtins__=builtins)
    sys.modules["__main__"] = module
    exec(code, module.__dict__)


def _trim_uncaught_tracebacks():
    """Print an uncaught exception's traceback from the script's frames on, as ``python
    SCRIPT`` prints it (the launcher's and runpy's frames are left out)."""
    hook = sys.excepthook
    if getattr(hook, "_cinder_trims", False):
        return

    def excepthook(etype, value, tb):
        tb = trimmed_traceback(tb)
        if isinstance(value, BaseException):
            value.__traceback__ = tb        # (the default hook prints the exception's own)
        hook(etype, value, tb)
    excepthook._cinder_trims = True
    sys.excepthook = excepthook


def main(argv=None):
    """Entry point of ``python -m cinder`` and of the ``cinder`` console script.

    ``argv`` defaults to ``sys.argv[1:]``. Returns the exit status (0 after a script that ends
    normally); a script's ``sys.exit(n)`` and uncaught exceptions pass straight through, so the
    process ends exactly as ``python SCRIPT`` would have ended.
    """
    parser, run_parser = _build_parser()
    options = parser.parse_args(argv)
    _trim_uncaught_tracebacks()
    if options.command is None:
        parser.print_help(sys.stderr)
        return 2
    return _run(options.as_module, options.target_and_args, run_parser)


if __name__ == "__main__":
    sys.exit(main())
