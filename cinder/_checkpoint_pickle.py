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
from ._weights_only_unpickler import _get_layout

__all__ = ["CheckpointPickler", "CheckpointMixin", "FullUnpickler", "StorageRef", "GlobalName",
           "torch_name", "cinder_global"]


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

    __slots__ = ("key", "raw", "dtype", "device", "untyped")

    def __init__(self, key, raw, dtype, device):
        self.key, self.raw, self.dtype, self.device = key, raw, dtype, device
        self.untyped = False

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
        self._alive = []
        self._make_key = make_key
        self._location_tag = location_tag
        self._legacy = legacy

    # -- names ----------------------------------------------------------------------------------
    def save_global(self, obj, name=None):
        mapped = torch_name(obj, name)
        if mapped is None:
            _check_importable(obj, name)
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
    def storage_pid(self, ref):
        """The persistent id naming storage ``ref`` in the pickle."""
        # PyTorch's legacy reader cannot rebuild UntypedStorage: call those bytes ByteStorage.
        storage_type = GlobalName("torch.storage", "UntypedStorage") \
            if ref.untyped and not self._legacy else \
            GlobalName("torch", _utils.storage_type_name(ref.dtype))
        pid = ("storage", storage_type, ref.key, self._location_tag(ref.device), ref.numel)
        return pid + (None,) if self._legacy else pid

    def persistent_id(self, obj):
        if isinstance(obj, (TypedStorage, UntypedStorage)):
            # A storage saved for itself: PyTorch writes it as the persistent id directly.
            untyped = obj._untyped if isinstance(obj, TypedStorage) else obj
            dtype = obj.dtype if isinstance(obj, TypedStorage) else D.uint8
            obj = self.ref_for(untyped._bytes, dtype, untyped.device,
                               isinstance(obj, UntypedStorage))
        if type(obj) is StorageRef:
            return self.storage_pid(obj)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        return NotImplemented

    def ref_for(self, raw, dtype, device, untyped=False):
        """The StorageRef for the flat bytes ``raw`` (one per buffer, however many tensors or
        storages view it)."""
        ident = (backend.data_ptr(raw) if raw.size else id(raw), raw.size)
        ref = self._by_buffer.get(ident)
        if ref is None:
            ref = StorageRef(self._make_key(raw, len(self.storages)), raw, dtype, device)
            ref.untyped = untyped
            self._by_buffer[ident] = ref
            self.storages[ref.key] = ref
            self._alive.append(raw)          # ids of empty buffers must stay unique
        elif ref.dtype is not dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same "
                               "data as different types")
        return ref

    def _reduce_tensor(self, t):
        from .nn.parameter import Parameter
        state = {k: v for k, v in t.__dict__.items() if k != "_hook_acc"} \
            if _extra_state(t) else None
        if isinstance(t, Parameter):
            plain = t.detach()
            plain._requires_grad = False
            if state:
                return (_utils._rebuild_parameter_with_state,
                        (plain, t.requires_grad, OrderedDict(), state))
            return (_utils._rebuild_parameter, (plain, t.requires_grad, OrderedDict()))
        raw = _flat_bytes(backend.storage_root(t._data))   # a view: keeps the buffer alive
        if t._dtype in D.LIMITED_UINTS:
            # PyTorch has no typed storage class for these: untyped bytes plus the dtype
            ref = self.ref_for(raw, D.uint8, t._device, untyped=True)
            return (_utils._rebuild_tensor_v3, (ref, t.storage_offset(), tuple(t.shape),
                                                 t.stride(), t.requires_grad, OrderedDict(),
                                                 t._dtype))
        ref = self.ref_for(raw, t._dtype, t._device)
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


def _int_opcode(value):
    """The opcode bytes protocol 2 uses for an int (what ``save_long`` writes)."""
    if 0 <= value <= 0xFF:
        return b"K" + bytes((value,))
    if 0 <= value <= 0xFFFF:
        return b"M" + value.to_bytes(2, "little")
    if -0x80000000 <= value <= 0x7FFFFFFF:
        return b"J" + value.to_bytes(4, "little", signed=True)
    encoded = pickle.encode_long(value)
    return b"\x8a" + bytes((len(encoded),)) + encoded


_TUPLE_CODES = {1: pickle.TUPLE1, 2: pickle.TUPLE2, 3: pickle.TUPLE3}


def _check_importable(obj, name):
    """Refuse a global whose module cannot be imported with the C pickler's words (PyTorch
    pickles with it); the pure-Python pickler used here would say "it's not found as ..."."""
    module_name = pickle.whichmodule(obj, name or getattr(obj, "__qualname__", None))
    try:
        __import__(module_name, level=0)
    except ImportError:
        raise pickle.PicklingError(f"Can't pickle {obj!r}: import of module {module_name!r} "
                                   "failed") from None


class CheckpointPickler(CheckpointMixin, pickle._Pickler):
    """The pure-Python Pickler (its ``save_global`` can be overridden, the C one's cannot) with
    the checkpoint behaviour.

    Plain tensors and Parameters take a direct path that writes the same opcodes pickle's
    generic machinery would (byte for byte what ``torch.save`` writes) without a ``save`` call
    per int: a state_dict of thousands of small tensors pickles several times faster.
    """

    # The base class dispatches functions straight to its own save_global: route them to ours.
    dispatch = dict(pickle._Pickler.dispatch)
    dispatch[types.FunctionType] = CheckpointMixin.save_global

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        from .nn.parameter import Parameter
        self._parameter_cls = Parameter
        if self.proto >= 2:
            self.dispatch = dict(self.dispatch)
            self.dispatch[Tensor] = CheckpointPickler._save_tensor
            self.dispatch[Parameter] = CheckpointPickler._save_parameter

    def reducer_override(self, obj):
        if self.proto >= 2 and type(obj) in (Tensor, self._parameter_cls) and \
                not _extra_state(obj):
            return NotImplemented           # the dispatch entries above write it
        return super().reducer_override(obj)

    def _memo(self, obj):
        """``memoize(obj)`` without its checks (protocol 2/3: BINPUT or LONG_BINPUT)."""
        if self.proto >= 4:
            self.memoize(obj)
            return
        idx = len(self.memo)
        self.write(b"q" + bytes((idx,)) if idx < 256 else b"r" + idx.to_bytes(4, "little"))
        self.memo[id(obj)] = idx, obj

    def _save_int_tuple(self, values):
        if not values:
            self.write(pickle.EMPTY_TUPLE)
            return
        body = b"".join(_int_opcode(v) for v in values)
        code = _TUPLE_CODES.get(len(values))
        self.write(body + code if code else pickle.MARK + body + pickle.TUPLE)
        self._memo(values)

    def _save_known(self, obj):
        """``save(obj)`` for an object usually memoized already (a GLOBAL, a repeated str)."""
        hit = self.memo.get(id(obj))
        if hit is None:
            self.save(obj)
        else:
            self.write(self.get(hit[0]))

    def _save_pid(self, ref):
        """What ``save(ref)`` writes through ``persistent_id``, without the generic calls."""
        pid = self.storage_pid(ref)
        self.write(pickle.MARK)
        for item in pid[:4]:
            self._save_known(item)
        self.write(_int_opcode(pid[4]) + (pickle.NONE if len(pid) == 6 else b"") + pickle.TUPLE)
        self._memo(pid)
        self.write(pickle.BINPERSID)

    def _save_empty_ordered_dict(self):
        self._save_known(OrderedDict)
        self.write(pickle.EMPTY_TUPLE + pickle.REDUCE)
        self._memo(OrderedDict())

    def _save_tensor_call(self, t, requires_grad):
        """``_rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)``."""
        self._save_known(_utils._rebuild_tensor_v2)
        self.write(pickle.MARK)
        raw = _flat_bytes(backend.storage_root(t._data))   # a view: keeps the buffer alive
        self._save_pid(self.ref_for(raw, t._dtype, t._device))
        self.write(_int_opcode(t.storage_offset()))
        self._save_int_tuple(tuple(t._data.shape))
        self._save_int_tuple(t.stride())
        self.write(pickle.NEWTRUE if requires_grad else pickle.NEWFALSE)
        self._save_empty_ordered_dict()
        self.write(pickle.TUPLE)
        self._memo(object())              # the args tuple, as pickle would memoize it
        self.write(pickle.REDUCE)

    def _save_tensor(self, t):
        if t._dtype in D.LIMITED_UINTS:
            self.save_reduce(*self._reduce_tensor(t), obj=t)
            return
        self._save_tensor_call(t, t._requires_grad)
        self._memo(t)

    def _save_parameter(self, p):
        self._save_known(_utils._rebuild_parameter)
        self._save_tensor_call(p, False)
        self._memo(object())              # the detached data tensor
        self.write(pickle.NEWTRUE if p._requires_grad else pickle.NEWFALSE)
        self._save_empty_ordered_dict()
        self.write(pickle.TUPLE3)
        self._memo(object())
        self.write(pickle.REDUCE)
        self._memo(p)


def _extra_state(t):
    """Python attributes set on a tensor (they need the slower ``_rebuild_from_type_v2``)."""
    return any(k != "_hook_acc" for k in t.__dict__)


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
        return _get_layout
    if module == "torch.storage" and name in ("UntypedStorage", "TypedStorage"):
        # the storages of _rebuild_tensor_v3 (uint16/32/64 tensors)
        return UntypedStorage if name == "UntypedStorage" else TypedStorage
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
