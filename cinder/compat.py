"""Run unchanged PyTorch scripts on cinder: ``import torch`` gives ``cinder``.

``install()`` puts an import hook at the front of ``sys.meta_path``. From then on every import of
a PyTorch name is answered with the cinder module of the matching name::

    torch                      ->  cinder
    torch.nn.functional        ->  cinder.nn.functional
    torch.utils.data           ->  cinder.utils.data
    torchvision.transforms     ->  cinder.vision.transforms

The hook hands out the cinder module object *itself*, not a copy, so
``sys.modules['torch.nn'] is sys.modules['cinder.nn']`` and a tensor made through one name is an
instance of the classes seen through the other. A PyTorch name that cinder has no module for
fails with ``ModuleNotFoundError`` naming the PyTorch module; the hook never falls back to the
real PyTorch, even when it is installed, because a script silently mixing the two libraries would
be far harder to debug than one that stops with a clear message.

``uninstall()`` undoes all of it, including putting back a real ``torch`` that had been imported
before ``install()``; the test-suite relies on that, since real PyTorch is its oracle.

Everything here uses only the standard library, and cinder itself is imported lazily, on the first
``import torch``: ``cinder/__init__.py`` may import this module without an import cycle.
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import runpy
import sys
import types
from .ops._unsupported import family_of, unsupported_message

__all__ = [
    "install",
    "is_installed",
    "missing_attribute_error",
    "to_cinder_name",
    "to_torch_name",
    "uninstall",
]

# PyTorch top-level package -> the cinder package that stands in for it. Names are matched on
# whole dotted components, so "torchvision" is not mistaken for a submodule of "torch".
_ALIASES = {
    "torch": "cinder",
    "torchvision": "cinder.vision",
}


def _replace_prefix(name, old, new):
    """``name`` with its leading dotted component(s) ``old`` swapped for ``new``, else None."""
    if name == old:
        return new
    if name.startswith(old + "."):
        return new + name[len(old):]
    return None


def to_cinder_name(name):
    """The cinder module that stands in for PyTorch module ``name``, or None.

    None means ``name`` is not a PyTorch name at all (``numpy``, ``torchaudio``,
    ``torch_geometric``): the hook leaves such imports alone.
    """
    for torch_root, cinder_root in _ALIASES.items():
        mapped = _replace_prefix(name, torch_root, cinder_root)
        if mapped is not None:
            return mapped
    return None


def to_torch_name(module_name):
    """The PyTorch name of cinder module ``module_name`` (``cinder.vision`` -> ``torchvision``).

    Names outside cinder are returned unchanged. The longest matching cinder root wins, so
    ``cinder.vision.transforms`` maps to ``torchvision.transforms`` and not to
    ``torch.vision.transforms``.
    """
    for torch_root, cinder_root in sorted(_ALIASES.items(), key=lambda kv: -len(kv[1])):
        mapped = _replace_prefix(module_name, cinder_root, torch_root)
        if mapped is not None:
            return mapped
    return module_name


def missing_attribute_error(module_name, attr):
    """The ``AttributeError`` to raise for ``<module>.<attr>`` when cinder lacks ``attr``.

    ``module_name`` is the cinder module's own ``__name__``; the message names the PyTorch
    spelling too, because that is what the user wrote in their script. Meant for a module-level
    ``__getattr__``::

        def __getattr__(name):
            ...  # lazy attributes first
            raise missing_attribute_error(__name__, name)

    The error is returned, not raised, so the traceback ends in the caller's ``__getattr__``.
    ``name`` and ``obj`` are filled in so Python can still suggest near misses
    ("Did you mean: 'zeros'?").
    """
    obj = sys.modules.get(module_name)
    if attr.startswith("__") and attr.endswith("__"):
        # Probes for optional dunders (__wrapped__, __path__, __test__, ...) by inspect, pytest,
        # pickle and friends are routine and expected to fail quietly: keep Python's message.
        message = f"module {module_name!r} has no attribute {attr!r}"
    else:
        message = (f"cinder does not provide '{to_torch_name(module_name)}.{attr}' yet "
                   f"(module {module_name!r} has no attribute {attr!r})")
        found = family_of("torch", attr) if module_name == "cinder" else None
        if found is not None:          # a family left out on purpose: say which, and why
            message = unsupported_message(f"torch.{attr}", *found)
    return AttributeError(message, name=attr, obj=obj)


def _not_provided_message(torch_fullname, cinder_fullname):
    return f"cinder does not provide {torch_fullname!r} yet (looked for {cinder_fullname!r})"


def _cinder_module_exists(name):
    """Whether cinder module ``name`` exists, without executing it (its parents get imported)."""
    if sys.modules.get(name) is not None:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        # A parent package is missing (``cinder.vision`` when asking for
        # ``cinder.vision.transforms``): then the child is missing too.
        return False


class _AliasLoader(importlib.abc.Loader):
    """Loads PyTorch name ``torch_fullname`` by handing out the cinder module itself.

    The import system calls ``create_module`` and then ``exec_module``. Our ``create_module``
    imports the cinder module under its own name (a no-op if it already is) and returns it, so
    cinder's code runs exactly once and the one module object lives in ``sys.modules`` under
    both names; ``exec_module`` has nothing left to run.
    """

    def __init__(self, finder, torch_fullname, cinder_fullname):
        self._finder = finder
        self._torch_name = torch_fullname
        self._cinder_name = cinder_fullname
        self._own_spec = None

    def create_module(self, spec):
        try:
            module = importlib.import_module(self._cinder_name)
        except ModuleNotFoundError as exc:
            # Only rewrite the error when the missing module is the cinder counterpart itself
            # (or one of its parents). A missing dependency *inside* cinder, e.g. scipy, must
            # surface unchanged, or the message would blame the wrong thing.
            missing = exc.name or ""
            if missing == self._cinder_name or self._cinder_name.startswith(missing + "."):
                raise ModuleNotFoundError(
                    _not_provided_message(self._torch_name, self._cinder_name),
                    name=self._torch_name) from None
            raise
        # After create_module returns, the import system stamps ``module.__spec__`` with *our*
        # spec (named e.g. 'torch'); every other attribute it only fills in when missing.
        # Remember cinder's real spec so exec_module can put it back: relative imports inside
        # cinder (checked against ``__spec__.parent``), importlib.reload() and multiprocessing
        # read ``__spec__``, and the module's identity is cinder's, not PyTorch's.
        self._own_spec = module.__spec__
        return module

    def exec_module(self, module):
        module.__spec__ = self._own_spec
        self._finder._handed_out(self._torch_name, module)


class _MissingModule(types.ModuleType):
    """Placeholder for a PyTorch module cinder lacks; only used by ``install(strict=False)``.

    The import succeeds, and the first attribute use fails with a message naming the PyTorch
    module. ``__path__`` makes it a package, so ``from torchvision import transforms`` gets a
    placeholder for the submodule as well.
    """

    def __init__(self, torch_fullname, cinder_fullname):
        super().__init__(torch_fullname)
        self.__path__ = []
        self._cinder_name = cinder_fullname

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        raise AttributeError(
            f"{_not_provided_message(self.__name__, self._cinder_name)}, so "
            f"'{self.__name__}.{attr}' is unavailable (imported anyway: install(strict=False))")


class _MissingLoader(importlib.abc.Loader):
    """Creates a ``_MissingModule`` (lenient mode)."""

    def __init__(self, finder, torch_fullname, cinder_fullname):
        self._finder = finder
        self._torch_name = torch_fullname
        self._cinder_name = cinder_fullname

    def create_module(self, spec):
        return _MissingModule(self._torch_name, self._cinder_name)

    def exec_module(self, module):
        self._finder._handed_out(self._torch_name, module)


class _TorchAliasFinder(importlib.abc.MetaPathFinder):
    """The ``sys.meta_path`` entry that answers every import of a PyTorch name.

    It sits first on ``sys.meta_path`` so that the ordinary path finders never see a PyTorch name:
    they would either find the real PyTorch or, for ``torch.nn`` (searched along ``torch.__path__``,
    which is cinder's), execute cinder's files a second time under the wrong name.
    """

    def __init__(self, strict):
        self.strict = strict
        # torch name -> module we put into sys.modules, so uninstall() removes exactly those.
        self.handed_out = {}
        # cinder modules that got a module-level __getattr__ from us -> that function.
        self.added_getattrs = {}

    def find_spec(self, fullname, path=None, target=None):
        mapped = to_cinder_name(fullname)
        if mapped is None:
            return None  # not a PyTorch name: let the normal finders handle it
        # Only names that map back to themselves are PyTorch names cinder stands in for;
        # 'torch.vision' would reach cinder.vision, whose PyTorch name is 'torchvision'.
        if to_torch_name(mapped) == fullname and _cinder_module_exists(mapped):
            loader = _AliasLoader(self, fullname, mapped)
        elif not self.strict:
            loader = _MissingLoader(self, fullname, mapped)
        else:
            # Raising (instead of returning None) stops the search here, so the real PyTorch
            # further down sys.meta_path can never be picked up as a fallback.
            raise ModuleNotFoundError(_not_provided_message(fullname, mapped), name=fullname)
        return importlib.machinery.ModuleSpec(fullname, loader)

    def _handed_out(self, torch_fullname, module):
        """Record a module given out under a PyTorch name; give it a friendly ``__getattr__``."""
        self.handed_out[torch_fullname] = module
        if isinstance(module, _MissingModule) or "__getattr__" in vars(module):
            return  # a module's own __getattr__ (e.g. cinder's lazy attributes) always wins
        module_name = module.__name__

        def __getattr__(attr):
            raise missing_attribute_error(module_name, attr)

        module.__getattr__ = __getattr__
        self.added_getattrs[module_name] = __getattr__


# The installed finder (None when not installed) and the PyTorch modules that were in
# sys.modules before install() (put back by uninstall()).
_finder = None
_stashed_modules = {}


def _is_torch_family(name):
    return to_cinder_name(name) is not None


def install(strict=True):
    """Make ``import torch`` (and ``torch.*``, ``torchvision*``) import cinder.

    strict=True (the default): importing a PyTorch module that cinder lacks raises
    ``ModuleNotFoundError`` naming it. strict=False: such imports succeed with a placeholder
    module that raises ``AttributeError`` on first use; this lets a script run that imports,
    say, ``torchvision`` at the top but never touches it on the path being run.

    Already-imported PyTorch modules (real ``torch`` in the same process) are taken out of
    ``sys.modules`` and kept aside until ``uninstall()``. Code holding references to the real
    ``torch`` keeps working, except for imports it does lazily while the hook is installed,
    which get cinder's modules.

    Calling ``install()`` again replaces the hook's strictness but keeps everything else.
    """
    global _finder
    if _finder is not None:
        _finder.strict = strict
        return
    for name in [name for name in sys.modules if _is_torch_family(name)]:
        _stashed_modules[name] = sys.modules.pop(name)
    _finder = _TorchAliasFinder(strict)
    sys.meta_path.insert(0, _finder)
    importlib.invalidate_caches()


def uninstall():
    """Remove the hook and its ``sys.modules`` entries; bring back any stashed real PyTorch.

    A no-op when the hook is not installed.
    """
    global _finder
    finder = _finder
    if finder is None:
        return
    _finder = None
    if finder in sys.meta_path:
        sys.meta_path.remove(finder)
    for name, module in finder.handed_out.items():
        if sys.modules.get(name) is module:
            del sys.modules[name]
        # Importing 'torch.foo' binds the result as attribute 'foo' of the parent ('torch', i.e.
        # cinder). For cinder's own submodules that is what cinder does itself, but a lenient
        # placeholder must not stay behind as, say, ``cinder.distributed``.
        if isinstance(module, _MissingModule):
            parent_name, _, child = name.rpartition(".")
            parent = finder.handed_out.get(parent_name)
            if parent is not None and vars(parent).get(child) is module:
                delattr(parent, child)
    for module_name, func in finder.added_getattrs.items():
        module = sys.modules.get(module_name)
        if module is not None and vars(module).get("__getattr__") is func:
            del module.__getattr__
    sys.modules.update(_stashed_modules)
    _stashed_modules.clear()
    _unhook_child_processes()
    importlib.invalidate_caches()


def is_installed():
    """Whether ``install()`` is in effect."""
    return _finder is not None


# ------------------------------------------------------------------------------------------------
# Child processes of `python -m cinder run`
# ------------------------------------------------------------------------------------------------
# A `spawn` or `forkserver` child starts a fresh interpreter (or forks a fresh server) and
# re-imports the user's script, whose `import torch` must give cinder there as well.

_CHILD_HOOK_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_child_hook.py")
_saved_child_setup = None      # (get_preparation_data, forkserver preload) while hooked


class _ChildHook:
    """Sent to every spawned child inside multiprocessing's preparation data, which the child
    unpickles before it re-imports the script: unpickling runs ``_child_hook.py``, which
    installs the import hook there with the parent's strictness when the child starts (a later
    ``install(strict=...)`` in the parent counts)."""

    def __reduce__(self):
        strict = _finder.strict if _finder is not None else True
        return runpy.run_path, (_CHILD_HOOK_FILE, {"STRICT": strict})


def _hook_child_processes():
    """Make ``spawn`` and ``forkserver`` children of this process install the hook too.

    ``python -m cinder run`` calls this. ``spawn``: the hook rides in the preparation data.
    ``forkserver``: its server would import the script (to fork children with it preloaded)
    before any hook exists, so it preloads cinder instead and each child imports the script
    itself, after the hook from its preparation data is in place.
    """
    global _saved_child_setup
    from multiprocessing import forkserver, spawn
    if _saved_child_setup is None:
        _saved_child_setup = (spawn.get_preparation_data,
                              list(forkserver._forkserver._preload_modules))
    original = _saved_child_setup[0]

    def get_preparation_data(name):
        data = original(name)
        data["cinder_import_hook"] = _ChildHook()
        return data

    get_preparation_data.__doc__ = original.__doc__
    spawn.get_preparation_data = get_preparation_data
    forkserver.set_forkserver_preload(["cinder"])


def _unhook_child_processes():
    """Undo ``_hook_child_processes`` (part of ``uninstall()``)."""
    global _saved_child_setup
    if _saved_child_setup is None:
        return
    from multiprocessing import forkserver, spawn
    spawn.get_preparation_data, preload = _saved_child_setup
    forkserver.set_forkserver_preload(preload)
    _saved_child_setup = None
