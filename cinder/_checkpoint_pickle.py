"""The pickle inside a checkpoint: PyTorch's names on the way out, cinder's on the way in.

Saving: ``CheckpointPickler`` writes a tensor as ``torch._utils._rebuild_tensor_v2(storage,
offset, size, stride, requires_grad, OrderedDict())`` with the storage as a persistent id, and
writes every cinder class or function under its PyTorch name (``cinder.nn.modules.linear`` →
``torch.nn.modules.linear``), so real PyTorch can load the file.

Loading with ``weights_only=False``: ``FullUnpickler`` maps PyTorch's names back to cinder's.
"""

import importlib
import pickle
import types
from collections import OrderedDict

from . import _dtype as D
from . import _utils, backend
from ._device import device as device_cls
from ._storage import TypedStorage, UntypedStorage, _flat_bytes
from ._tensor import Size, Tensor

__all__ = ["CheckpointPickler", "CheckpointMixin", "FullUnpickler", "StorageRef", "GlobalName", "torch_name",
           "cinder_global"]


class GlobalName:
    """A name to write as a pickle GLOBAL without importing it (``torch FloatStorage``)."""

    _cache = {}

    def __new__(cls, module, name):
        # One instance per name, so the pickler's memo reuses the GLOBAL (as PyTorch's does).
        key = (module, name)
        if key not in cls._cache:
            self = object.__new__(cls)
            self.module, self.name = module, name
            cls._cache[key] = self
        return cls._cache[key]

    def __reduce__(self):
        return self.name


def _special_names():
    from .nn.parameter import Parameter
    return {id(Size): ("torch", "Size"), id(device_cls): ("torch", "device"),
            id(Tensor): ("torch", "Tensor"), id(Parameter): ("torch.nn.parameter", "Parameter"),
            id(_utils._rebuild_from_type_v2): ("torch._tensor", "_rebuild_from_type_v2"),
            id(OrderedDict): ("collections", "OrderedDict"),
            id(UntypedStorage): ("torch", "UntypedStorage"),
            id(TypedStorage): ("torch.storage", "TypedStorage")}


def torch_name(obj, name=None):
    """``(module, qualname)`` under which PyTorch knows the cinder object ``obj``, or None
    when ``obj`` is not cinder's (then pickle's own rules apply)."""
    if isinstance(obj, GlobalName):
        return obj.module, obj.name
    if isinstance(obj, D.dtype):
        return "torch", obj.name
    special = _special_names().get(id(obj))
    if special is not None:
        return special
    module = getattr(obj, "__module__", None) or ""
    qualname = name or getattr(obj, "__qualname__", None) or getattr(obj, "__name__", "")
    if module == "torch":                       # cinder's torch.FloatStorage-style classes
        return "torch", qualname
    if module == "cinder" or module.startswith("cinder."):
        return "torch" + module[len("cinder"):], qualname
    return None


class StorageRef:
    """One storage to write: the bytes under a tensor (its root buffer) and their dtype."""

    __slots__ = ("key", "raw", "dtype", "device")

    def __init__(self, key, raw, dtype, device):
        self.key, self.raw, self.dtype, self.device = key, raw, dtype, device

    @property
    def numel(self):
        return self.raw.size // self.dtype.itemsize


class CheckpointMixin:
    """Pickles an object for a checkpoint, collecting the storages its tensors view.

    ``storages`` (key -> StorageRef, in first-seen order) is what the caller then writes as
    records. ``legacy`` selects the 6-field persistent id of the pre-1.6 format. Mixed into a
    Pickler class: ``CheckpointPickler`` below, or a custom ``pickle_module``'s.
    """

    def __init__(self, file, protocol, make_key, location_tag, legacy=False):
        super().__init__(file, protocol)
        self.storages = {}
        self._by_buffer = {}
        self._make_key = make_key
        self._location_tag = location_tag
        self._legacy = legacy

    # -- names ----------------------------------------------------------------------------------
    def save_global(self, obj, name=None):
        mapped = torch_name(obj, name)
        if mapped is None:
            return super().save_global(obj, name)
        module, qualname = mapped
        if self.proto >= 4:
            self.save(module)
            self.save(qualname)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + module.encode("utf-8") + b"\n" + qualname.encode("utf-8")
                       + b"\n")
        self.memoize(obj)

    # -- tensors and storages -------------------------------------------------------------------
    def persistent_id(self, obj):
        if type(obj) is StorageRef:
            storage_type = GlobalName("torch", _utils.storage_type_name(obj.dtype))
            pid = ("storage", storage_type, obj.key, self._location_tag(obj.device), obj.numel)
            return pid + (None,) if self._legacy else pid
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        if isinstance(obj, (TypedStorage, UntypedStorage)):
            raise pickle.PicklingError("saving storages directly is not supported by cinder; "
                                       "save a tensor viewing them instead")
        return NotImplemented

    def storage_of(self, t):
        """The StorageRef for ``t``'s memory (one per buffer, whatever the number of views)."""
        root = backend.storage_root(t._data)
        raw = _flat_bytes(root)          # a view: keeps the buffer alive while pickling
        ident = (backend.data_ptr(raw) if raw.size else id(root), raw.size)
        ref = self._by_buffer.get(ident)
        if ref is None:
            ref = StorageRef(self._make_key(raw, len(self.storages)), raw, t._dtype, t._device)
            self._by_buffer[ident] = ref
            self.storages[ref.key] = ref
        elif ref.dtype is not t._dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same "
                               "data as different types")
        return ref

    def _reduce_tensor(self, t):
        from .nn.parameter import Parameter
        state = {k: v for k, v in t.__dict__.items() if k != "_hook_acc"}
        if isinstance(t, Parameter):
            plain = t.detach()
            plain._requires_grad = False
            if state:
                return (_utils._rebuild_parameter_with_state,
                        (plain, t.requires_grad, OrderedDict(), state))
            return (_utils._rebuild_parameter, (plain, t.requires_grad, OrderedDict()))
        ref = self.storage_of(t)
        args = (ref, t.storage_offset(), tuple(t.shape), t.stride(), t.requires_grad,
                OrderedDict())
        if state or type(t) is not Tensor:
            return (_utils._rebuild_from_type_v2,
                    (_utils._rebuild_tensor_v2, type(t), args, state))
        return (_utils._rebuild_tensor_v2, args)


# ----------------------------------------------------------------------------------------------
# Loading everything (weights_only=False): PyTorch's names resolved to cinder's objects
# ----------------------------------------------------------------------------------------------
_TORCH_FUNCTIONS = {("torch._tensor", "_rebuild_from_type_v2"): "_rebuild_from_type_v2"}


class CheckpointPickler(CheckpointMixin, pickle._Pickler):
    """The pure-Python Pickler (its ``save_global`` can be overridden, the C one's cannot) with
    the checkpoint behaviour."""

    # The base class dispatches functions straight to its own save_global: route them to ours.
    dispatch = dict(pickle._Pickler.dispatch)
    dispatch[types.FunctionType] = CheckpointMixin.save_global


def cinder_global(module, name):
    """The cinder object for the global ``module.name`` written by PyTorch (or by cinder)."""
    import cinder
    if module == "torch._utils" and hasattr(_utils, name):
        return getattr(_utils, name)
    if (module, name) in _TORCH_FUNCTIONS:
        return getattr(_utils, _TORCH_FUNCTIONS[(module, name)])
    if module in ("torch", "torch.cuda") and name.endswith("Storage"):
        from ._legacy import STORAGE_TYPES
        return STORAGE_TYPES.get(name) or getattr(cinder, name)
    if module == "torch.serialization" and name == "_get_layout":
        from ._weights_only_unpickler import _get_layout
        return _get_layout
    if module == "torch" or module.startswith("torch."):
        target = importlib.import_module("cinder" + module[len("torch"):])
        obj = target
        for part in name.split("."):
            obj = getattr(obj, part)
        return obj
    return None


class FullUnpickler(pickle.Unpickler):
    """Python's unpickler (it runs any code the file names: trusted files only) with
    PyTorch's module paths redirected to cinder's."""

    def find_class(self, module, name):
        obj = cinder_global(module, name)
        if obj is not None:
            return obj
        return super().find_class(module, name)
