"""Let visdom accept cinder tensors wherever it accepts arrays.

visdom converts its arguments with ``_to_numpy``, which recognises only the classes listed in
``visdom.torch_types`` (torch's Tensor and Parameter, when torch is installed). Once visdom is
imported, ``register`` adds cinder's Tensor to that list, so ``vis.line(X=t, Y=t)`` and
``vis.images(t)`` take cinder tensors (detached and copied to the host, as torch's are).
Registration happens by itself: if visdom is already imported when cinder loads, at once;
otherwise right after visdom's own import finishes, through a one-shot import hook.
"""

import importlib.abc
import importlib.util
import sys


def register(visdom):
    """Add cinder's Tensor to the types ``visdom._to_numpy`` converts."""
    from .. import Tensor
    types = getattr(visdom, "torch_types", None)
    if types is None or Tensor in types:
        return
    if not hasattr(visdom, "torch"):
        # Without torch installed, visdom still reads ``torch.autograd.Variable`` once any
        # type is registered; cinder provides that name.
        import cinder
        visdom.torch = cinder
    types.append(Tensor)


class _AfterVisdomImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself; wraps visdom's loader so ``register`` runs after it."""

    def find_spec(self, name, path=None, target=None):
        if name != "visdom":
            return None
        sys.meta_path.remove(self)          # one shot; also avoids finding ourselves below
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return None
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            register(module)
        spec.loader.exec_module = exec_module
        return spec


def install():
    if "visdom" in sys.modules:
        register(sys.modules["visdom"])
    elif not any(isinstance(f, _AfterVisdomImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterVisdomImport())
