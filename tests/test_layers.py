"""cinder's layers are true: no module imports a higher layer at module level, and no
function-local import is there only from habit.

The layer order is defined once, in ``cinder/_layers.py``. A function-local import is allowed
when it goes up a layer (the lazy import that keeps the layering), or when a module-level
import would close an import cycle (the imported module already reaches the importer through
module-level imports, package ``__init__`` files included). Any other local import should be
at the top of the file.
"""

import ast
from pathlib import Path

from cinder._layers import layer_of

ROOT = Path(__file__).resolve().parent.parent / "cinder"


def _module_name(path):
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {_module_name(p): p for p in ROOT.rglob("*.py")}


def _targets(module, is_package, node):
    """The cinder modules an import statement loads (a submodule where the name is one)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "cinder"]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        package = ".".join(base + ([node.module] if node.module else []))
    else:
        package = node.module or ""
    if package.split(".")[0] != "cinder":
        return []
    return [f"{package}.{a.name}" if f"{package}.{a.name}" in MODULES else package
            for a in node.names]


def _with_packages(name):
    """Importing ``cinder.a.b`` runs ``cinder/a/__init__`` first. (``cinder/__init__`` runs
    before any of its modules, whoever imports them: it is the entry point, not a dependency.)"""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(2, len(parts) + 1)
            if ".".join(parts[:i]) in MODULES] or [name]


def _imports(module):
    """(module-level targets, [(line, target) for function-local imports])."""
    path = MODULES[module]
    tree = ast.parse(path.read_text())
    is_package = path.name == "__init__.py"
    top, local = [], []
    for node in tree.body:
        for sub in ast.walk(node):
            if not isinstance(sub, (ast.Import, ast.ImportFrom)):
                continue
            inside = not isinstance(node, (ast.Import, ast.ImportFrom, ast.If, ast.Try))
            for target in _targets(module, is_package, sub):
                (local.append((sub.lineno, target)) if inside else top.append(target))
    return top, local


IMPORTS = {m: _imports(m) for m in MODULES}
GRAPH = {m: {p for t in top for p in _with_packages(t)} for m, (top, _) in IMPORTS.items()}


def _reaches(start, goal):
    seen, stack = set(), [start]
    while stack:
        m = stack.pop()
        if m == goal:
            return True
        if m not in seen:
            seen.add(m)
            stack.extend(GRAPH.get(m, ()))
    return False


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)


def test_no_module_level_import_goes_up():
    # Importing ``a.b.c`` also runs the ``__init__`` of ``a`` and ``a.b``: those count too (a
    # low module importing ``autograd.grad_mode`` must not run a high ``autograd/__init__``).
    upward = sorted(f"{m} (layer {layer_of(m)}) imports {t}, which runs {p} (layer {layer_of(p)})"
                    for m, (top, _) in IMPORTS.items() for t in top for p in _with_packages(t)
                    if layer_of(p) > layer_of(m))
    assert not upward, "\n".join(upward)


def test_loading_a_module_loads_nothing_above_it():
    """The whole module-level import closure stays at or below the importer's layer: no
    circle through a package ``__init__`` back up to a higher layer."""
    above = []
    for module in MODULES:
        seen, stack = set(), [module]
        while stack:
            m = stack.pop()
            if m not in seen:
                seen.add(m)
                stack.extend(GRAPH.get(m, ()))
        above += [f"loading {module} (layer {layer_of(module)}) loads {m} (layer {layer_of(m)})"
                  for m in sorted(seen) if layer_of(m) > layer_of(module)]
    assert not above, "\n".join(above[:40])


# Local imports that are neither upward nor cycles but must wait for the first use, each with
# the reason the code gives beside it.
_ON_USE = {
    # at load time it would import nn.utils while nn.modules loads, and the star import in
    # nn/__init__ would then bind ``nn.utils`` to ``nn.modules.utils``
    ("cinder.nn.modules.rnn", "cinder.nn.utils.rnn"),
}


def test_function_local_imports_are_needed():
    habit = []
    for module, (_, local) in IMPORTS.items():
        for line, target in local:
            if layer_of(target) > layer_of(module) or target == module:
                continue                       # lazy import upward: keeps the layering
            if _reaches(target, module) or (module, target) in _ON_USE:
                continue                       # at the top it would close a cycle
            habit.append(f"{MODULES[module].relative_to(ROOT.parent)}:{line} imports {target}")
    assert not habit, "function-local imports that belong at the top:\n" + "\n".join(habit)
