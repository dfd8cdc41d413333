"""How much of PyTorch's public API cinder provides, per namespace.

    python tools/api_coverage.py            # table + missing names (Markdown)
    python tools/api_coverage.py --refresh  # re-read PyTorch's names (needs torch installed)

PyTorch's names come from ``tools/pytorch_api_names.json`` (public names in PyTorch 2.13 of
``torch``, ``torch.Tensor``, ``torch.linalg``, ``torch.fft``, ``torch.special``,
``torch.distributions``, ``torch.func`` and the training stack: ``torch.nn`` and its
``functional``, ``init`` and ``utils`` modules, ``torch.optim``, ``torch.utils.data``,
``torch.autograd``, ``torch.amp``...: a module's ``__all__`` where it has one, else ``dir()``
less underscores, submodules and what the module only imports), so the tool runs without
PyTorch. Names in a family cinder leaves out on purpose
(``cinder/ops/_unsupported.py``) are counted apart, with their reason; the share is of the rest.
"""

import importlib
import json
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMES_FILE = Path(__file__).resolve().parent / "pytorch_api_names.json"
NAMESPACES = ("torch", "Tensor", "linalg", "fft", "special", "distributions", "func")
# The training stack: modules read through their ``__all__``, or (no ``__all__``) their own
# public callables.
MODULES = ("nn", "nn.functional", "nn.init", "nn.utils", "nn.utils.rnn", "nn.utils.parametrize",
           "nn.utils.parametrizations", "nn.utils.prune", "nn.utils.stateless", "nn.parallel",
           "nn.attention", "optim", "optim.lr_scheduler", "utils.data", "utils.checkpoint",
           "utils.hooks", "autograd", "autograd.graph", "autograd.functional", "amp", "random",
           "profiler")
NAMESPACES += MODULES
# Where a module without ``__all__`` imports helpers (typing, torch internals), the names that
# are its own come from these modules.
_OWN_ORIGINS = ("torch.nn", "torch._C", "torch.functional", "torch._VF", "builtins")


def pytorch_names():
    """{namespace: sorted public names} from PyTorch itself."""
    import torch
    import torch.distributions
    import torch.func

    def public(obj, callables_only=False):
        out = []
        for name in dir(obj):
            value = getattr(obj, name, None)
            if name.startswith("_") or isinstance(value, types.ModuleType):
                continue
            if callables_only and (not callable(value) or value is torch.Tensor):
                continue
            out.append(name)
        return sorted(out)
    names = {"torch": public(torch), "Tensor": public(torch.Tensor),
             "linalg": public(torch.linalg, True), "fft": public(torch.fft, True),
             "special": public(torch.special, True),
             "distributions": sorted(n for n in torch.distributions.__all__
                                     if not n.startswith("_")),
             "func": sorted(torch.func.__all__)}
    for ns in MODULES:
        names[ns] = _module_names(importlib.import_module("torch." + ns))
    return names


def _module_names(module):
    """A module's public API: its ``__all__``, else the public callables defined in it (or in
    ``torch.nn`` / PyTorch's C core), not the helpers it imports (typing, dataclasses...)."""
    listed = getattr(module, "__all__", None)
    if listed is not None:
        return sorted(n for n in listed if not n.startswith("_"))
    out = []
    for name in dir(module):
        value = getattr(module, name, None)
        if name.startswith("_") or isinstance(value, types.ModuleType) or not callable(value):
            continue
        origin = getattr(value, "__module__", None) or "builtins"
        if origin.startswith(_OWN_ORIGINS) and name != "Tensor":
            out.append(name)
    return sorted(out)


def cinder_namespace(cinder, namespace):
    """The cinder object standing for a PyTorch namespace (None if cinder has none yet)."""
    if namespace == "torch":
        return cinder
    if namespace == "Tensor":
        return cinder.Tensor
    try:
        return importlib.import_module("cinder." + namespace)
    except ImportError:
        return None


def _has(obj, name):
    try:
        getattr(obj, name)
    except Exception:  # noqa: BLE001 - any failure means "not provided"
        return False
    return True


def coverage(names):
    """Per namespace: (provided, excluded {name: family}, missing) lists."""
    sys.path.insert(0, str(ROOT))
    import cinder
    from cinder.ops._unsupported import family_of
    report = {}
    for ns in NAMESPACES:
        obj = cinder_namespace(cinder, ns)
        provided, excluded, missing = [], {}, []
        for name in names[ns]:
            if obj is not None and _has(obj, name):
                provided.append(name)
                continue
            found = family_of(ns, name)
            if found is not None:
                excluded[name] = found[0]
            else:
                missing.append(name)
        report[ns] = (provided, excluded, missing)
    return report


def table(report):
    """The Markdown table: per namespace, names, excluded, provided and the share."""
    lines = ["| namespace | PyTorch names | left out on purpose | provided | share |",
             "|---|---:|---:|---:|---:|"]
    for ns in NAMESPACES:
        provided, excluded, missing = report[ns]
        total = len(provided) + len(excluded) + len(missing)
        considered = total - len(excluded)
        share = 100.0 * len(provided) / considered if considered else 100.0
        label = ns if ns in ("torch", "Tensor") else f"torch.{ns}"
        lines.append(f"| `{label}` | {total} | {len(excluded)} | {len(provided)} | "
                     f"{share:.1f}% |")
    return "\n".join(lines)


def details(report):
    from cinder.ops._unsupported import FAMILIES, MODULE_FAMILIES
    out = []
    for ns in NAMESPACES:
        provided, excluded, missing = report[ns]
        out.append(f"\n## {ns}: missing ({len(missing)})\n")
        out.append(", ".join(missing) if missing else "(none)")
    out.append("\n## Left out on purpose\n")
    for family, reason, *_ in FAMILIES + MODULE_FAMILIES:
        names = sorted(f"{ns}.{n}" for ns in NAMESPACES
                       for n, fam in report[ns][1].items() if fam == family)
        out.append(f"- **{family}** ({len(names)}): {reason}.")
    return "\n".join(out)


def main(argv):
    if "--refresh" in argv:
        import torch
        NAMES_FILE.write_text(json.dumps({"pytorch_version": torch.__version__,
                                          "names": pytorch_names()}, indent=1))
    data = json.loads(NAMES_FILE.read_text())
    report = coverage(data["names"])
    print(f"# cinder API coverage against PyTorch {data['pytorch_version']}\n")
    print(table(report))
    print(details(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
